"""A full-map expert: a cost-to-go field on the occupancy grid plus a short action lookahead.

The expert knows every obstacle. It rasterizes the blocking cylinders and the walls, inflated
by the UAV radius and a safety margin, onto a grid, and runs Dijkstra
(:func:`scipy.sparse.csgraph.dijkstra`, 8-connected) from the goal line, giving each free cell
its shortest-path distance to the goal. Each decision it rolls out every sequence of
``depth`` actions (each held ``hold`` periods), discards those that collide, and takes the
first action of the sequence ending at the lowest cost-to-go. It is the teacher the CNN
policies imitate; its success rate bounds what imitation can reach.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from .world import Observation, World, wrap_angle

__all__ = ["Expert", "cost_to_go"]

#: Grid resolution of the cost-to-go field (assumed; small against the 0.3 m obstacles).
GRID_M = 0.1
#: Extra clearance the expert keeps from obstacles, on top of the UAV radius (assumed).
MARGIN_M = 0.1


def cost_to_go(world: World, *, grid_m: float = GRID_M, margin_m: float = MARGIN_M,
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shortest free-path distance to the goal line on a grid.

    Returns
    -------
    xs, ys : numpy.ndarray
        Cell-centre coordinates of the grid's columns and rows.
    dist : numpy.ndarray
        ``(len(ys), len(xs))`` metres to the goal; ``inf`` in obstacles and unreachable cells.
    """
    s = world.spec
    xs = np.arange(-1.0, s.length_m + 1.0, grid_m)
    ys = np.arange(-s.width_m / 2 + grid_m / 2, s.width_m / 2, grid_m)
    gx, gy = np.meshgrid(xs, ys)
    free = np.abs(gy) <= s.width_m / 2 - s.uav_radius_m - margin_m
    m = world.blocking
    for (cx, cy), r in zip(world.centres[m], world.radii[m], strict=True):
        free &= np.hypot(gx - cx, gy - cy) >= r + s.uav_radius_m + margin_m
    ny, nx = free.shape
    idx = np.arange(ny * nx).reshape(ny, nx)
    rows, cols, w = [], [], []
    for di, dj in ((0, 1), (1, 0), (1, 1), (1, -1)):
        # Pairs (i, j) -> (i + di, j + dj) with both cells inside the grid and free.
        i0, j0 = np.meshgrid(np.arange(ny - di), np.arange(max(0, -dj), nx - max(0, dj)),
                             indexing="ij")
        i1, j1 = i0 + di, j0 + dj
        both = free[i0, j0] & free[i1, j1]
        rows.append(idx[i0, j0][both])
        cols.append(idx[i1, j1][both])
        w.append(np.full(int(both.sum()), grid_m * float(np.hypot(di, dj))))
    r_, c_, w_ = np.concatenate(rows), np.concatenate(cols), np.concatenate(w)
    graph = coo_matrix((w_, (r_, c_)), shape=(ny * nx, ny * nx)).tocsr()
    goal = idx[:, xs >= s.length_m][free[:, xs >= s.length_m]]
    d = dijkstra(graph, directed=False, indices=goal, min_only=True)
    dist = np.where(free.ravel(), d, np.inf).reshape(ny, nx)
    return xs, ys, dist


@dataclass(eq=False)
class Expert:
    """The full-map lookahead expert for one world; call it like a :data:`Policy`.

    Parameters
    ----------
    world : World
        The world it knows entirely.
    depth, hold : int
        Lookahead sequences of ``depth`` actions, each held ``hold`` periods (assumed 3 x 2:
        1.5 s, 3 m at the default speed).
    """

    world: World
    depth: int = 3
    hold: int = 2

    def __post_init__(self) -> None:
        self.xs, self.ys, self.dist = cost_to_go(self.world)
        k = self.world.spec.num_actions
        self.seqs = np.array(list(itertools.product(range(k), repeat=self.depth)))

    def _lookup(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        g = self.xs[1] - self.xs[0]
        j = np.clip(np.round((x - self.xs[0]) / g).astype(int), 0, len(self.xs) - 1)
        i = np.clip(np.round((y - self.ys[0]) / g).astype(int), 0, len(self.ys) - 1)
        return np.asarray(self.dist[i, j])

    def action_at(self, x: float, y: float, heading: float) -> int:
        """The expert's action at a pose."""
        s = self.world.spec
        rates = np.deg2rad(np.asarray(s.yaw_rates_deg_per_s))
        n = len(self.seqs)
        px, py, ph = np.full(n, x), np.full(n, y), np.full(n, heading)
        dead = np.zeros(n, bool)
        for d in range(self.depth):
            for _ in range(self.hold):
                ph = np.asarray(wrap_angle(ph + rates[self.seqs[:, d]] * s.dt_s))
                mx, my = px + 0.5 * s.step_m * np.cos(ph), py + 0.5 * s.step_m * np.sin(ph)
                px, py = px + s.step_m * np.cos(ph), py + s.step_m * np.sin(ph)
                done = px >= s.length_m
                dead |= ~done & (self.world.collides(mx, my) | self.world.collides(px, py))
                dead |= ~np.isfinite(self._lookup(px, py)) & ~done
        cost = np.where(px >= s.length_m, -px, self._lookup(px, py))
        cost = np.where(dead, np.inf, cost)
        if not np.isfinite(cost).any():  # every sequence collides: nothing to choose
            return s.num_actions // 2
        return int(self.seqs[int(np.argmin(cost)), 0])

    def __call__(self, obs: Observation, rng: np.random.Generator) -> int:
        return self.action_at(*obs.pose)
