"""Slow GPUs with locality, and where a job puts them: variability-aware placement.

PRISM (Golden et al., arXiv:2510.15596) reports that, "depending on computation node
placement", up to 1.26x is available "if we factor in sensitivities of parallelization
strategies to variation". This module gives the pieces to measure such a gain:

* :class:`SpeedModel` -- each GPU's persistent time multiplier (median 1): a log-normal
  whose log-variance is split over pod, rack, node and GPU levels (correlated slowness:
  GPUs sharing power and cooling are slow together), plus optional slow outliers;
* :class:`Layout` -- a parallelization (tensor, context, pipeline, data) with its
  micro-batches and virtual stages, ranks in Megatron-LM's default order (tensor
  innermost, then context, data, pipeline);
* :func:`iteration_factor` -- the iteration's compute slowdown given which physical GPU
  holds each rank: a tensor/context group runs at its slowest member (it synchronizes every
  layer); a pipeline of stage times ``t_s`` takes ``m max(t) + (sum(t) - max(t)) / v``
  (the steady state runs at the slowest stage, fill and drain pass every stage once; equal
  stages give the usual ``m + (p - 1) / v``); data-parallel replicas wait for the slowest
  at the gradient synchronization (ZeRO <= 2) or at every stage's gather (ZeRO-3);
* :func:`place` -- ``"contiguous"`` (the scheduler's node order), ``"random"`` or
  ``"aware"`` (nodes sorted by measured slowness: the slowest fill the same pipeline
  stage, one per pipeline, so that few pipelines carry slow stages; the rest snake so that
  the pipelines with the slowest first stage get the fastest remaining nodes), with
  optional spare nodes: the aware placement leaves the slowest ``spare_nodes`` out.

The pipeline formula is the classic bound for heterogeneous 1F1B stages (no stage
rebalancing); it is exact for one slow stage and equal others.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from pydantic import model_validator

from ...errors import ConfigError
from ._fields import Config, NonNegativeFinite, PositiveInt

__all__ = ["SpeedModel", "Layout", "PLACEMENTS", "TUKEY_WHISKER_Z", "sigma_from_variation",
           "variation_from_sigma", "iteration_factor", "place", "placement_gain"]

#: Where the Tukey whiskers (quartile -+ 1.5 IQR) of a normal sit, in standard deviations:
#: 0.6745 * 4 = 2.698. A box plot's "range excluding outliers" spans -+ this.
TUKEY_WHISKER_Z = 4 * 0.674489750196

PLACEMENTS = ("contiguous", "random", "aware")


def sigma_from_variation(variation: float) -> float:
    """Log-sigma whose whisker-to-whisker range, over the median, is ``variation``.

    Reads a published "performance variation across GPUs" (the spread of a box plot without
    its outliers, over the median) as ``exp(z s) - exp(-z s)`` with ``z``
    :data:`TUKEY_WHISKER_Z`: ``s = asinh(variation / 2) / z``.
    """
    if isinstance(variation, bool) or not isinstance(variation, (int, float)) \
            or not math.isfinite(variation) or variation < 0:
        raise ConfigError(f"must be a finite number >= 0, not {variation!r}", field="variation")
    return math.asinh(variation / 2) / TUKEY_WHISKER_Z


def variation_from_sigma(sigma: float) -> float:
    """The inverse of :func:`sigma_from_variation`: ``2 sinh(z sigma)``."""
    return 2 * math.sinh(TUKEY_WHISKER_Z * sigma)


class SpeedModel(Config):
    """Persistent per-GPU time multipliers with locality.

    Parameters
    ----------
    gpu_sigma
        Total log-sigma of a GPU's persistent time multiplier (all levels together).
    pod_share, rack_share, node_share
        Shares of the log-variance common to a pod, a rack, a node (the rest is the GPU's
        own); their sum is at most 1.
    outlier_fraction
        Fraction of GPUs that are slow outliers.
    outlier_max_slowdown
        An outlier's multiplier is uniform between the upper whisker ``exp(z gpu_sigma)``
        and this.
    gpus_per_node, nodes_per_rack, racks_per_pod
        The physical hierarchy (GPU ``g`` is in node ``g // gpus_per_node``, and so on).
    """

    gpu_sigma: NonNegativeFinite = 0.0
    pod_share: NonNegativeFinite = 0.0
    rack_share: NonNegativeFinite = 0.0
    node_share: NonNegativeFinite = 0.0
    outlier_fraction: NonNegativeFinite = 0.0
    outlier_max_slowdown: NonNegativeFinite = 1.5
    gpus_per_node: PositiveInt = 8
    nodes_per_rack: PositiveInt = 4
    racks_per_pod: PositiveInt = 8

    @model_validator(mode="after")
    def _check(self) -> SpeedModel:
        shares = self.pod_share + self.rack_share + self.node_share
        if shares > 1 + 1e-12:
            raise ConfigError(f"pod, rack and node shares add up to {shares}, above 1",
                              field="node_share")
        if self.outlier_fraction >= 1:
            raise ConfigError(f"must be < 1, not {self.outlier_fraction!r}",
                              field="outlier_fraction")
        if self.outlier_fraction > 0 and self.outlier_max_slowdown < 1:
            raise ConfigError(f"must be >= 1, not {self.outlier_max_slowdown!r}",
                              field="outlier_max_slowdown")
        return self

    def draw(self, num_gpus: int, *, seed: int) -> NDArray[np.float64]:
        """Time multipliers of ``num_gpus`` GPUs (whole nodes), median 1 without outliers."""
        if not isinstance(num_gpus, int) or num_gpus < 1 or num_gpus % self.gpus_per_node:
            raise ConfigError(f"must be a positive multiple of {self.gpus_per_node}, not "
                              f"{num_gpus!r}", field="num_gpus")
        rng = np.random.default_rng([seed, 11])
        g = np.arange(num_gpus)
        node = g // self.gpus_per_node
        rack = node // self.nodes_per_rack
        pod = rack // self.racks_per_pod
        s2 = self.gpu_sigma**2
        own = 1.0 - self.pod_share - self.rack_share - self.node_share
        log_t = rng.normal(0.0, math.sqrt(max(own, 0.0) * s2), num_gpus)
        for share, idx in ((self.node_share, node), (self.rack_share, rack),
                           (self.pod_share, pod)):
            if share > 0:
                log_t += rng.normal(0.0, math.sqrt(share * s2), int(idx[-1]) + 1)[idx]
        t = np.exp(log_t)
        if self.outlier_fraction > 0:
            out = rng.random(num_gpus) < self.outlier_fraction
            lo = math.exp(TUKEY_WHISKER_Z * self.gpu_sigma)
            hi = max(lo, self.outlier_max_slowdown)
            t[out] = rng.uniform(lo, hi, int(out.sum()))
        return t


_STRATEGY_RE = re.compile(r"dp(\d+)-tp(\d+)-pp(\d+)-cp(\d+)(?:-v(\d+))?-z(\d)")


@dataclass(frozen=True, kw_only=True)
class Layout:
    """A parallelization as the placement model sees it.

    ``dp_sync`` is ``"iteration"`` (data-parallel replicas meet once, at the gradient
    synchronization) or ``"layer"`` (ZeRO-3: every stage's gather meets all replicas).
    """

    tp: int = 1
    cp: int = 1
    pp: int = 1
    dp: int = 1
    micro_batches: int = 1
    interleave: int = 1
    dp_sync: str = "iteration"

    def __post_init__(self) -> None:
        for name in ("tp", "cp", "pp", "dp", "micro_batches", "interleave"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(f"must be a positive integer, not {v!r}", field=name)
        if self.dp_sync not in ("iteration", "layer"):
            raise ConfigError(f"unknown data-parallel synchronization '{self.dp_sync}'",
                              field="dp_sync", allowed=["iteration", "layer"])

    @property
    def num_gpus(self) -> int:
        return self.tp * self.cp * self.pp * self.dp

    @classmethod
    def from_strategy(cls, strategy: str, *, micro_batches: int) -> Layout:
        """From a strategy name such as ``dp256-tp4-pp8-cp8-v2-z1-mb1-sp``."""
        m = _STRATEGY_RE.search(strategy)
        if m is None:
            raise ConfigError(f"cannot read a parallelization from '{strategy}'",
                              field="strategy")
        dp, tp, pp, cp, v, z = m.groups()
        return cls(tp=int(tp), cp=int(cp), pp=int(pp), dp=int(dp),
                   micro_batches=int(micro_batches), interleave=int(v or 1),
                   dp_sync="layer" if z == "3" else "iteration")

    def deterministic_units(self) -> float:
        """``m + (p - 1) / v``: the iteration in units of one micro-batch's stage time."""
        return self.micro_batches + (self.pp - 1) / self.interleave


def _check_multipliers(layout: Layout, multipliers: NDArray[np.float64]) -> np.ndarray:
    arr = np.asarray(multipliers, dtype=float)
    if arr.ndim < 1 or arr.shape[-1] != layout.num_gpus:
        raise ConfigError(f"needs {layout.num_gpus} multipliers per row, not "
                          f"{arr.shape[-1] if arr.ndim else 0}", field="multipliers")
    if np.any(~np.isfinite(arr)) or np.any(arr <= 0):
        raise ConfigError("multipliers must be positive and finite", field="multipliers")
    return arr


def iteration_factor(layout: Layout, multipliers: NDArray[np.float64]) -> NDArray[np.float64]:
    """The compute slowdown of one iteration (1 when every multiplier is 1).

    ``multipliers[..., r]`` is the time multiplier of the GPU holding rank ``r`` (Megatron
    order: ``r = t + tp (c + cp (d + dp s))``); leading axes are independent draws.
    """
    arr = _check_multipliers(layout, multipliers)
    lead = arr.shape[:-1]
    x = arr.reshape(*lead, layout.pp, layout.dp, layout.cp * layout.tp)
    stage = x.max(axis=-1)                      # (..., pp, dp): a TP x CP group's slowest
    if layout.dp_sync == "layer":
        stage = stage.max(axis=-1, keepdims=True)  # every stage waits for its slowest replica
    worst = stage.max(axis=-2)
    total = stage.sum(axis=-2)
    pipe = layout.micro_batches * worst + (total - worst) / layout.interleave
    return np.asarray(pipe.max(axis=-1) / layout.deterministic_units(), dtype=float)


def _slot_order(layout: Layout, gpus_per_node: int) -> np.ndarray:
    """Node slots in the order the aware placement fills them (slowest node first)."""
    n_nodes = layout.num_gpus // gpus_per_node
    first = np.arange(n_nodes) * gpus_per_node           # first rank of each node slot
    inner = layout.cp * layout.tp
    d = (first // inner) % layout.dp
    s = first // (inner * layout.dp)
    within = first % inner
    # stage 0 across replicas first; later stages snake (odd stages reversed over d), so the
    # replicas that got the slowest stage-0 nodes get the fastest of the next stage
    d_key = np.where(s % 2 == 1, layout.dp - 1 - d, d)
    return np.lexsort((within, d_key, s))


def place(layout: Layout, pool: NDArray[np.float64], *, kind: str, gpus_per_node: int = 8,
          spare_nodes: int = 0, measured: NDArray[np.float64] | None = None,
          seed: int = 0) -> NDArray[np.float64]:
    """The multiplier of the GPU holding each rank, placing ``pool`` by ``kind``.

    ``pool`` holds the multipliers of ``layout.num_gpus + spare_nodes * gpus_per_node``
    GPUs, node by node. ``"contiguous"`` and ``"random"`` use the first nodes of the pool
    (a scheduler that does not know speeds), in order or shuffled (seeded); ``"aware"``
    leaves out the ``spare_nodes`` slowest nodes by ``measured`` (defaults to ``pool``:
    perfect knowledge) and sorts the rest into :func:`_slot_order`.
    """
    if kind not in PLACEMENTS:
        raise ConfigError(f"unknown placement '{kind}'", field="kind", allowed=list(PLACEMENTS))
    if not isinstance(gpus_per_node, int) or gpus_per_node < 1 \
            or layout.num_gpus % gpus_per_node:
        raise ConfigError(f"{layout.num_gpus} GPUs are not whole nodes of {gpus_per_node!r}",
                          field="gpus_per_node")
    if not isinstance(spare_nodes, int) or spare_nodes < 0:
        raise ConfigError(f"must be a non-negative integer, not {spare_nodes!r}",
                          field="spare_nodes")
    arr = np.asarray(pool, dtype=float)
    need = layout.num_gpus + spare_nodes * gpus_per_node
    if arr.shape != (need,):
        raise ConfigError(f"needs a pool of {need} multipliers, not {arr.shape}", field="pool")
    nodes = arr.reshape(-1, gpus_per_node)
    used = layout.num_gpus // gpus_per_node
    if kind == "contiguous":
        return nodes[:used].ravel()
    if kind == "random":
        perm = np.random.default_rng([seed, 12]).permutation(used)
        return nodes[:used][perm].ravel()
    meas = arr if measured is None else np.asarray(measured, dtype=float)
    if meas.shape != arr.shape:
        raise ConfigError(f"measured has shape {meas.shape}, the pool {arr.shape}",
                          field="measured")
    slowness = meas.reshape(-1, gpus_per_node).max(axis=1)
    keep = np.argsort(-slowness, kind="stable")[spare_nodes:]   # slowest first, spares out
    out = np.empty((used, gpus_per_node))
    out[_slot_order(layout, gpus_per_node)] = nodes[keep]
    return out.ravel()


def placement_gain(layout: Layout, speed: SpeedModel, *, spare_nodes: int = 0,
                   draws: int = 8, seed: int = 0) -> dict[str, float]:
    """Mean iteration factors of each placement over ``draws`` pools, and their ratios.

    The gain of the aware placement is ``mean(random) / mean(aware)`` (and likewise for
    contiguous); spare nodes are given to every placement, only the aware one uses them.
    """
    if not isinstance(draws, int) or draws < 1:
        raise ConfigError(f"must be a positive integer, not {draws!r}", field="draws")
    g = speed.gpus_per_node
    n = layout.num_gpus + spare_nodes * g
    f: dict[str, list[float]] = {k: [] for k in PLACEMENTS}
    for k in range(draws):
        pool = speed.draw(n, seed=seed + k)
        for kind in PLACEMENTS:
            ranks = place(layout, pool, kind=kind, gpus_per_node=g, spare_nodes=spare_nodes,
                          seed=seed + k)
            f[kind].append(float(iteration_factor(layout, ranks)))
    out = {f"{kind}_factor": float(np.mean(v)) for kind, v in f.items()}
    out["gain_vs_random"] = out["random_factor"] / out["aware_factor"]
    out["gain_vs_contiguous"] = out["contiguous_factor"] / out["aware_factor"]
    return out
