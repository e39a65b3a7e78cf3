"""A seeded obstacle world for UAV navigation: a corridor of vertical cylinders, a depth camera.

The UAV flies at a fixed altitude and forward speed from ``x = 0`` to the goal line
``x = length_m`` of a walled corridor ``|y| <= width_m / 2`` holding vertical cylinders of
random radius and height. Each decision period it picks one of a few yaw rates. It collides
when its body (a circle of ``uav_radius_m``) touches a wall or a cylinder taller than its
altitude; shorter cylinders pass underneath. A forward depth camera renders a small image by
ray casting against the cylinders (side and top cap) and the walls, vectorized in numpy; the
ground is not rendered (assumed: the policy only needs what can be hit).

Three obstacle densities stand for the three deployment environments of AutoPilot
(Krishnan et al., arXiv 2102.02988, after Air Learning's low/medium/dense arenas); their
counts per area are assumed (chosen so the full-map expert still succeeds on most worlds).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ...errors import ConfigError
from ...fields import is_positive_int

__all__ = ["DENSITIES", "SensorSpec", "WorldSpec", "Observation", "World", "make_world",
           "EpisodeResult", "Policy", "run_episode", "RandomPolicy", "StraightPolicy",
           "render_depth", "wrap_angle"]

#: Obstacles per 100 m^2 of corridor floor for each environment (assumed).
DENSITIES: dict[str, float] = {"low": 5.0, "medium": 10.0, "dense": 15.0}


def wrap_angle(a: np.ndarray | float) -> np.ndarray:
    """Angles wrapped to ``[-pi, pi)``."""
    return np.asarray((np.asarray(a) + np.pi) % (2 * np.pi) - np.pi, dtype=float)


@dataclass(frozen=True, kw_only=True)
class SensorSpec:
    """A forward depth camera (all values assumed; DroNet-like low resolution).

    Attributes
    ----------
    rows, cols : int
        Image size in pixels.
    hfov_deg, vfov_deg : float
        Horizontal and vertical fields of view.
    range_m : float
        Maximum depth; rays that hit nothing read ``range_m``.
    """

    rows: int = 16
    cols: int = 32
    hfov_deg: float = 90.0
    vfov_deg: float = 45.0
    range_m: float = 8.0

    def __post_init__(self) -> None:
        for name in ("rows", "cols"):
            v = getattr(self, name)
            if not is_positive_int(v):
                raise ConfigError(f"must be a positive integer, not {v!r}", field=name)
        if not 0 < self.hfov_deg < 180:
            raise ConfigError(f"must be in (0, 180), not {self.hfov_deg!r}", field="hfov_deg")
        if not 0 < self.vfov_deg < 180:
            raise ConfigError(f"must be in (0, 180), not {self.vfov_deg!r}", field="vfov_deg")
        if not self.range_m > 0:
            raise ConfigError(f"must be positive, not {self.range_m!r}", field="range_m")

    def ray_angles(self) -> tuple[np.ndarray, np.ndarray]:
        """``(azimuth, elevation)`` of every pixel's ray, each ``(rows, cols)`` radians.

        Column 0 looks left (positive azimuth), row 0 looks up.
        """
        az = np.deg2rad(self.hfov_deg) * (0.5 - (np.arange(self.cols) + 0.5) / self.cols)
        el = np.deg2rad(self.vfov_deg) * (0.5 - (np.arange(self.rows) + 0.5) / self.rows)
        return np.broadcast_to(az, (self.rows, self.cols)), np.broadcast_to(
            el[:, None], (self.rows, self.cols))


@dataclass(frozen=True, kw_only=True)
class WorldSpec:
    """Corridor, obstacles and kinematics (all values assumed, sized to a small indoor UAV).

    Attributes
    ----------
    length_m, width_m : float
        Corridor length (start at x = 0, goal line at x = length) and width.
    altitude_m : float
        Flight altitude; cylinders shorter than it are flown over.
    radius_range_m, height_range_m : tuple of float
        Uniform ranges of cylinder radius and height.
    clear_m : float
        Obstacle-free band after the start line and before the goal line.
    speed_m_per_s, dt_s : float
        Fixed forward speed and decision period.
    yaw_rates_deg_per_s : tuple of float
        The discrete actions (index 0 turns hardest left).
    uav_radius_m : float
        Body radius for collisions.
    max_steps : int
        Steps before a timeout.
    sensor : SensorSpec
        The depth camera.
    """

    length_m: float = 30.0
    width_m: float = 10.0
    altitude_m: float = 1.5
    radius_range_m: tuple[float, float] = (0.3, 0.7)
    height_range_m: tuple[float, float] = (0.5, 4.0)
    clear_m: float = 3.0
    speed_m_per_s: float = 2.0
    dt_s: float = 0.25
    yaw_rates_deg_per_s: tuple[float, ...] = (90.0, 45.0, 0.0, -45.0, -90.0)
    uav_radius_m: float = 0.25
    max_steps: int = 180
    sensor: SensorSpec = field(default_factory=SensorSpec)

    def __post_init__(self) -> None:
        for name in ("length_m", "width_m", "altitude_m", "speed_m_per_s", "dt_s",
                     "uav_radius_m"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"must be positive, not {getattr(self, name)!r}", field=name)
        if len(self.yaw_rates_deg_per_s) < 2:
            raise ConfigError("needs at least two actions", field="yaw_rates_deg_per_s")
        if self.max_steps < 1:
            raise ConfigError(f"must be at least 1, not {self.max_steps!r}", field="max_steps")

    @property
    def num_actions(self) -> int:
        """The number of discrete yaw-rate actions."""
        return len(self.yaw_rates_deg_per_s)

    @property
    def step_m(self) -> float:
        """Distance flown per decision period."""
        return self.speed_m_per_s * self.dt_s


@dataclass(frozen=True, kw_only=True)
class Observation:
    """What a policy sees: a depth image and the goal direction.

    Attributes
    ----------
    depth_m : numpy.ndarray
        ``(rows, cols)`` ray ranges, at most the sensor range.
    goal : numpy.ndarray
        ``(3,)``: sine and cosine of the heading error to the goal direction (+x) and the
        lateral offset normalized by the half width.
    pose : tuple of float
        ``(x, y, heading)``: privileged state for the full-map expert; the CNN policies
        never read it.
    """

    depth_m: np.ndarray
    goal: np.ndarray
    pose: tuple[float, float, float]


def render_depth(*, x: float, y: float, heading: float, altitude_m: float,
                 centres: np.ndarray, radii: np.ndarray, heights: np.ndarray,
                 half_width_m: float | None, sensor: SensorSpec) -> np.ndarray:
    """Ray-cast depth image ``(rows, cols)`` in metres (Euclidean range along each ray).

    A ray at azimuth ``a`` and elevation ``e`` is ``p + s u`` horizontally (``u`` the unit
    direction, ``s`` the horizontal distance) at height ``z0 + s tan e``. It hits a
    cylinder's side at the first root ``s1`` of ``|p + s u - c| = r`` if ``0 <= z(s1) <= h``,
    or its top cap at ``s = (h - z0) / tan e`` when it enters the circle above the top and
    leaves it below. The range is ``s / cos e``.
    """
    az, el = sensor.ray_angles()
    ang = heading + az.ravel()
    ux, uy = np.cos(ang), np.sin(ang)
    tan_e = np.tan(el.ravel())
    best = np.full(ang.shape, np.inf)
    if len(radii):
        dx, dy = centres[:, 0] - x, centres[:, 1] - y
        # Only cylinders that can be within range matter.
        near = np.hypot(dx, dy) < sensor.range_m + radii
        dx, dy, r, h = dx[near], dy[near], radii[near], heights[near]
        if len(r):
            b = ux[:, None] * dx[None] + uy[:, None] * dy[None]  # (rays, cyl)
            c = (dx * dx + dy * dy - r * r)[None]
            disc = b * b - c
            ok = disc >= 0
            sq = np.sqrt(np.where(ok, disc, 0.0))
            s1, s2 = b - sq, b + sq
            s_in = np.maximum(s1, 0.0)
            z_in = altitude_m + s_in * tan_e[:, None]
            z_out = altitude_m + s2 * tan_e[:, None]
            side = ok & (s1 >= 0) & (z_in >= 0) & (z_in <= h[None])
            with np.errstate(divide="ignore", invalid="ignore"):
                s_cap = (h[None] - altitude_m) / tan_e[:, None]
            cap = ok & (s2 >= 0) & (z_in > h[None]) & (z_out <= h[None]) & (tan_e[:, None] < 0)
            s_hit = np.where(side, s1, np.where(cap, s_cap, np.inf))
            best = np.minimum(best, s_hit.min(axis=1))
    if half_width_m is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            s_wall = np.where(uy > 0, (half_width_m - y) / uy,
                              np.where(uy < 0, (-half_width_m - y) / uy, np.inf))
        best = np.minimum(best, np.where(s_wall >= 0, s_wall, np.inf))
    rng_m = best / np.cos(el.ravel())
    return np.minimum(rng_m, sensor.range_m).reshape(sensor.rows, sensor.cols)


@dataclass(frozen=True, kw_only=True, eq=False)
class World:
    """One obstacle field.

    Attributes
    ----------
    spec : WorldSpec
        Geometry and kinematics.
    density : str
        One of :data:`DENSITIES`.
    seed : int
        The seed it was drawn from.
    centres : numpy.ndarray
        ``(n, 2)`` cylinder axes ``(x, y)``.
    radii, heights : numpy.ndarray
        ``(n,)`` each.
    """

    spec: WorldSpec
    density: str
    seed: int
    centres: np.ndarray
    radii: np.ndarray
    heights: np.ndarray

    @property
    def blocking(self) -> np.ndarray:
        """Mask of the cylinders tall enough to hit at the flight altitude."""
        return self.heights >= self.spec.altitude_m

    def collides(self, x: np.ndarray | float, y: np.ndarray | float) -> np.ndarray:
        """Whether the UAV body at ``(x, y)`` (arrays broadcast) touches a wall or obstacle."""
        x, y = np.asarray(x, float), np.asarray(y, float)
        hit = np.abs(y) > self.spec.width_m / 2 - self.spec.uav_radius_m
        m = self.blocking
        if m.any():
            c, r = self.centres[m], self.radii[m]
            d = np.hypot(x[..., None] - c[:, 0], y[..., None] - c[:, 1])
            hit = hit | (d < r + self.spec.uav_radius_m).any(axis=-1)
        return np.asarray(hit)

    def observe(self, x: float, y: float, heading: float) -> Observation:
        """The depth image and goal features at a pose."""
        depth = render_depth(x=x, y=y, heading=heading, altitude_m=self.spec.altitude_m,
                             centres=self.centres, radii=self.radii, heights=self.heights,
                             half_width_m=self.spec.width_m / 2, sensor=self.spec.sensor)
        err = float(wrap_angle(-heading))
        goal = np.array([np.sin(err), np.cos(err), y / (self.spec.width_m / 2)])
        return Observation(depth_m=depth, goal=goal, pose=(x, y, heading))

    def step(self, x: float, y: float, heading: float, action: int,
             ) -> tuple[float, float, float]:
        """The pose after one decision period: turn at the action's yaw rate, fly forward."""
        heading = float(wrap_angle(heading + np.deg2rad(self.spec.yaw_rates_deg_per_s[action])
                                   * self.spec.dt_s))
        return (x + self.spec.step_m * np.cos(heading), y + self.spec.step_m * np.sin(heading),
                heading)


def make_world(density: str, seed: int, spec: WorldSpec | None = None) -> World:
    """Draw an obstacle field of ``density`` with ``seed`` (a Poisson count over the area).

    Raises
    ------
    ConfigError
        If ``density`` is not one of :data:`DENSITIES`.
    """
    if density not in DENSITIES:
        raise ConfigError(f"unknown density {density!r}", field="density",
                          allowed=sorted(DENSITIES))
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"must be a non-negative integer, not {seed!r}", field="seed")
    spec = spec or WorldSpec()
    rng = np.random.default_rng(seed)
    span = spec.length_m - 2 * spec.clear_m
    n = int(rng.poisson(DENSITIES[density] * span * spec.width_m / 100.0))
    xs = spec.clear_m + rng.uniform(0, span, n)
    ys = rng.uniform(-spec.width_m / 2, spec.width_m / 2, n)
    radii = rng.uniform(*spec.radius_range_m, n)
    heights = rng.uniform(*spec.height_range_m, n)
    return World(spec=spec, density=density, seed=seed, centres=np.stack([xs, ys], axis=1),
                 radii=radii, heights=heights)


@dataclass(frozen=True, kw_only=True)
class EpisodeResult:
    """How one flight ended.

    Attributes
    ----------
    success, collision, timeout : bool
        Exactly one is True.
    steps : int
        Decisions taken.
    path_length_m : float
        Distance flown.
    """

    success: bool
    collision: bool
    timeout: bool
    steps: int
    path_length_m: float


#: A policy maps an observation (and a generator, for stochastic policies) to an action index.
Policy = Callable[[Observation, np.random.Generator], int]


def run_episode(policy: Policy, world: World, seed: int, *,
                on_step: Callable[[Observation, float, float, float], None] | None = None,
                ) -> EpisodeResult:
    """Fly ``policy`` from ``(0, 0)`` heading +x until the goal line, a collision or timeout.

    ``seed`` drives the policy's generator (and nothing else: the world is already drawn).
    ``on_step(obs, x, y, heading)`` is called at every decision (DAgger records states
    through it). The collision test runs at the end of each period and at its midpoint.
    """
    rng = np.random.default_rng(seed)
    x = y = heading = 0.0
    for t in range(world.spec.max_steps):
        obs = world.observe(x, y, heading)
        if on_step is not None:
            on_step(obs, x, y, heading)
        a = int(policy(obs, rng))
        if not 0 <= a < world.spec.num_actions:
            raise ConfigError(f"action {a!r} out of range", field="action",
                              allowed=list(range(world.spec.num_actions)))
        nx, ny, nh = world.step(x, y, heading, a)
        if world.collides(np.array([(x + nx) / 2, nx]), np.array([(y + ny) / 2, ny])).any():
            return EpisodeResult(success=False, collision=True, timeout=False, steps=t + 1,
                                 path_length_m=(t + 1) * world.spec.step_m)
        x, y, heading = nx, ny, nh
        if x >= world.spec.length_m:
            return EpisodeResult(success=True, collision=False, timeout=False, steps=t + 1,
                                 path_length_m=(t + 1) * world.spec.step_m)
    return EpisodeResult(success=False, collision=False, timeout=True,
                         steps=world.spec.max_steps,
                         path_length_m=world.spec.max_steps * world.spec.step_m)


@dataclass(frozen=True)
class RandomPolicy:
    """Uniformly random actions (a baseline)."""

    num_actions: int = 5

    def __call__(self, obs: Observation, rng: np.random.Generator) -> int:
        return int(rng.integers(self.num_actions))


@dataclass(frozen=True)
class StraightPolicy:
    """Always the middle (zero yaw-rate) action: flies straight (a baseline)."""

    num_actions: int = 5

    def __call__(self, obs: Observation, rng: np.random.Generator) -> int:
        return self.num_actions // 2
