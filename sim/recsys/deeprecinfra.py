"""DeepRecInfra's load generator and serving, and DeepRecSched's hill climbing, as a simulation.

Following the authors' code (harvard-acc/DeepRecSys: ``loadGenerator.py``, ``utils/utils.py``,
``scheduler.py``; summarized in ``shared/papers/recsys-characterization-ml-studies.md``
§1.2-1.3):

* **Arrivals.** Inter-arrival gaps are ``numpy.random.poisson(lam=mean_gap_ms)``
  *milliseconds* -- integer Poisson gaps, as the code draws them (not exponential ones).
* **Query sizes.** One size per query slot, drawn once for ``num_batches`` slots and reused
  every epoch: ``normal(avg, sd)`` (the code's ``var`` is a standard deviation),
  ``lognormal(mu, sigma)`` of the underlying normal, ``fixed``, or ``percentiles`` (uniform
  over a list of percentile values: empirical inverse-CDF sampling); every size is rounded
  and clamped to ``[1, max_size]``.
* **Serving.** A query of ``N`` items goes whole to the accelerator queue when there is one
  and ``N >= accel_threshold``; otherwise it is cut into ``ceil(N / b)`` sub-requests of the
  per-core batch size ``b`` (the last holds the remainder), served FIFO by a pool of
  ``engines`` CPU inference engines. A query completes when its last part does; its latency
  is completion minus arrival.
* **DeepRecSched.** For each configuration (per-core batch sizes, then accelerator
  thresholds) the arrival-gap controller runs online: every ``req_granularity`` completed
  queries the p95 latency of those queries moves the gap index up one step of a log-spaced
  grid if above the target, down one if below ``target / (1 + stable_region)``; after
  ``sched_timeout`` updates the configuration's gap is the median of the last ``arr_steps``
  gaps tried. The climb stops at the first configuration whose gap is larger (worse) than the
  previous one's and backs off to that previous one (else the smallest gap). Latency-bounded
  throughput is ``1000 / gap`` queries per second.

The engines' and the accelerator's service times come from callables (``latency_s(batch)``):
measured or modelled per model by the caller. The simulation is a heap of events (the SoC
simulator's :class:`~archsim.sim.soc.events.EventQueue`), deterministic under the seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...errors import ConfigError
from ...fields import is_positive_int
from ..soc.events import EventQueue, Server

__all__ = ["SIZE_DISTRIBUTIONS", "QuerySizes", "LoadGenerator", "ServingSystem",
           "ServingRun", "SchedulerSettings", "ClimbResult", "SchedResult", "serve",
           "climb", "deeprecsched"]

#: Query-size distributions of the load generator.
SIZE_DISTRIBUTIONS = ("normal", "lognormal", "fixed", "percentiles")

LatencyModel = Callable[[int], float]


def _positive_int(name: str, value: object) -> int:
    if not is_positive_int(value):
        raise ConfigError(f"{name} must be an int >= 1, not {value!r}", field=name)
    return value


def _positive(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or \
            not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{name} must be a finite number > 0, not {value!r}", field=name)
    return float(value)


@dataclass(frozen=True, kw_only=True)
class QuerySizes:
    """Items per query (module docstring): ``distribution`` in :data:`SIZE_DISTRIBUTIONS`
    with ``mean``/``sd`` (normal: the values; lognormal: of the underlying normal), or
    ``percentiles`` (the values sampled uniformly), clamped to ``[1, max_size]``. Defaults:
    the authors' example script (normal, 165, 16, max 1024)."""

    distribution: str = "normal"
    mean: float = 165.0
    sd: float = 16.0
    max_size: int = 1024
    percentiles: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.distribution not in SIZE_DISTRIBUTIONS:
            raise ConfigError(f"unknown query-size distribution {self.distribution!r}",
                              field="distribution", allowed=SIZE_DISTRIBUTIONS)
        _positive_int("max_size", self.max_size)
        if self.distribution == "percentiles" and not self.percentiles:
            raise ConfigError("the 'percentiles' distribution needs a list of percentile "
                              "values", field="percentiles")
        if self.sd < 0:
            raise ConfigError(f"sd must be >= 0, not {self.sd!r}", field="sd")

    def draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` sizes (int64, in ``[1, max_size]``)."""
        if self.distribution == "normal":
            raw = rng.normal(self.mean, self.sd, n)
        elif self.distribution == "lognormal":
            raw = rng.lognormal(self.mean, self.sd, n)
        elif self.distribution == "fixed":
            raw = np.full(n, self.mean)
        else:
            raw = rng.choice(np.asarray(self.percentiles, dtype=np.float64), n)
        return np.clip(np.rint(raw), 1, self.max_size).astype(np.int64)


@dataclass(frozen=True, kw_only=True)
class LoadGenerator:
    """The query stream: sizes for ``num_batches`` slots (reused every epoch, as the
    authors' generator does) and Poisson-integer gaps around the current mean gap (ms);
    ``poisson=False`` gives every gap exactly the mean (a test double)."""

    sizes: QuerySizes = field(default_factory=QuerySizes)
    num_batches: int = 32
    poisson: bool = True

    def __post_init__(self) -> None:
        _positive_int("num_batches", self.num_batches)


@dataclass(frozen=True, kw_only=True)
class ServingSystem:
    """The inference engines: ``engines`` CPU engines serving sub-requests of
    ``per_core_batch`` items in ``cpu_latency_s(batch)``, and optionally an accelerator
    serving whole queries of ``accel_threshold`` items or more in ``accel_latency_s``."""

    engines: int
    cpu_latency_s: LatencyModel
    per_core_batch: int = 1024
    accel_latency_s: LatencyModel | None = None
    accel_threshold: int = 1024

    def __post_init__(self) -> None:
        _positive_int("engines", self.engines)
        _positive_int("per_core_batch", self.per_core_batch)
        _positive_int("accel_threshold", self.accel_threshold)


@dataclass(frozen=True)
class ServingRun:
    """What one simulation measured: per completed query its arrival, size, latency and
    whether the accelerator served it; :meth:`tail_latency_s` and :attr:`qps`."""

    arrival_s: np.ndarray
    size: np.ndarray
    latency_s: np.ndarray
    on_accel: np.ndarray
    duration_s: float

    def tail_latency_s(self, percentile: float = 95.0) -> float:
        return float(np.percentile(self.latency_s, percentile)) if len(self.latency_s) \
            else math.nan

    @property
    def qps(self) -> float:
        """Completed queries per second of simulated time."""
        return len(self.latency_s) / self.duration_s if self.duration_s > 0 else 0.0


class _Serving:
    """One simulation: the arrival process, the engines and the accelerator queue."""

    def __init__(self, system: ServingSystem, load: LoadGenerator, *, seed: int,
                 gap_ms: Callable[[], float], queries: int,
                 on_done: Callable[[int], None] | None = None) -> None:
        self.sys = system
        self.load = load
        self.rng = np.random.default_rng(seed)
        self.slot_sizes = load.sizes.draw(load.num_batches, self.rng)
        self.gap_ms = gap_ms
        self.queries = queries
        self.on_done = on_done
        self.q = EventQueue()
        self.cpu = Server(self.q, "cpu", capacity=system.engines)
        self.accel = Server(self.q, "accel")
        self.sent = 0
        self.arrival: list[float] = []
        self.sizes: list[int] = []
        self.accel_used: list[bool] = []
        self.latency: dict[int, float] = {}
        self.remaining: dict[int, int] = {}

    def run(self) -> ServingRun:
        self.q.at(0.0, self._arrive)
        self.q.run()
        done = sorted(self.latency)
        return ServingRun(arrival_s=np.array([self.arrival[i] for i in done]),
                          size=np.array([self.sizes[i] for i in done], dtype=np.int64),
                          latency_s=np.array([self.latency[i] for i in done]),
                          on_accel=np.array([self.accel_used[i] for i in done]),
                          duration_s=self.q.now)

    def _arrive(self, _: object) -> None:
        i = self.sent
        self.sent += 1
        n = int(self.slot_sizes[i % len(self.slot_sizes)])
        self.arrival.append(self.q.now)
        self.sizes.append(n)
        s = self.sys
        use_accel = s.accel_latency_s is not None and n >= s.accel_threshold
        self.accel_used.append(use_accel)
        if use_accel:
            assert s.accel_latency_s is not None
            self.remaining[i] = 1
            self.accel.submit(s.accel_latency_s(n), "accel", i, self._part_done, i)
        else:
            b = s.per_core_batch
            parts = [b] * (n // b) + ([n % b] if n % b else [])
            self.remaining[i] = len(parts)
            for p in parts:
                self.cpu.submit(s.cpu_latency_s(p), "cpu", i, self._part_done, i)
        if self.sent < self.queries:
            mean = self.gap_ms()
            gap = float(self.rng.poisson(mean)) if self.load.poisson else mean
            self.q.at(self.q.now + gap * 1e-3, self._arrive)

    def _part_done(self, i: int) -> None:
        self.remaining[i] -= 1
        if self.remaining[i] == 0:
            del self.remaining[i]
            self.latency[i] = self.q.now - self.arrival[i]
            if self.on_done is not None:
                self.on_done(i)


def serve(system: ServingSystem, load: LoadGenerator, *, mean_gap_ms: float, queries: int,
          seed: int = 0) -> ServingRun:
    """Simulate ``queries`` queries at a fixed mean gap (module docstring)."""
    gap = _positive("mean_gap_ms", mean_gap_ms)
    return _Serving(system, load, seed=seed, gap_ms=lambda: gap,
                    queries=_positive_int("queries", queries)).run()


@dataclass(frozen=True, kw_only=True)
class SchedulerSettings:
    """DeepRecSched's controller (module docstring); defaults are the authors' example
    script (``run_DeepRecSys.sh``): gaps 1..20 ms in 50 log steps, start near 10 ms, p95
    every 64 queries, stable region 0.1, 128 updates per configuration."""

    target_latency_s: float
    min_gap_ms: float = 1.0
    max_gap_ms: float = 20.0
    gap_steps: int = 50
    start_gap_ms: float = 10.0
    req_granularity: int = 64
    stable_region: float = 0.10
    sched_timeout: int = 128
    percentile: float = 95.0

    def __post_init__(self) -> None:
        _positive("target_latency_s", self.target_latency_s)
        _positive("min_gap_ms", self.min_gap_ms)
        if not self.max_gap_ms > self.min_gap_ms:
            raise ConfigError(f"max_gap_ms ({self.max_gap_ms}) must exceed min_gap_ms "
                              f"({self.min_gap_ms})", field="max_gap_ms")
        for name in ("gap_steps", "req_granularity", "sched_timeout"):
            _positive_int(name, getattr(self, name))

    @property
    def gaps_ms(self) -> np.ndarray:
        return np.logspace(math.log10(self.min_gap_ms), math.log10(self.max_gap_ms),
                           self.gap_steps)


@dataclass(frozen=True)
class ClimbResult:
    """The controller's outcome for one configuration: the gap it settled on (ms) and the
    gaps it tried."""

    gap_ms: float
    tried_ms: tuple[float, ...]

    @property
    def qps(self) -> float:
        """Latency-bounded throughput, queries per second (``1000 / gap``)."""
        return 1000.0 / self.gap_ms


def climb(system: ServingSystem, load: LoadGenerator, settings: SchedulerSettings, *,
          seed: int = 0) -> ClimbResult:
    """Run the arrival-gap controller on one configuration (module docstring): one
    simulation whose mean gap moves every ``req_granularity`` completed queries."""
    gaps = settings.gaps_ms
    state = {"idx": int(np.argmin(np.abs(gaps - settings.start_gap_ms))), "updates": 0}
    tried: list[float] = []
    window: list[float] = []
    serving: _Serving | None = None

    def on_done(i: int) -> None:
        assert serving is not None
        window.append(serving.latency[i])
        if len(window) < settings.req_granularity:
            return
        tail = float(np.percentile(window, settings.percentile))
        window.clear()
        if tail > settings.target_latency_s:
            state["idx"] = min(len(gaps) - 1, state["idx"] + 1)
        elif tail < settings.target_latency_s / (1 + settings.stable_region):
            state["idx"] = max(0, state["idx"] - 1)
        tried.append(float(gaps[state["idx"]]))
        state["updates"] += 1
        if state["updates"] >= settings.sched_timeout:
            serving.queries = serving.sent  # stop the arrivals; drain what is in flight

    queries = settings.req_granularity * (settings.sched_timeout + 2)
    serving = _Serving(system, load, seed=seed, gap_ms=lambda: float(gaps[state["idx"]]),
                       queries=queries, on_done=on_done)
    serving.run()
    if not tried:
        raise ConfigError("the controller made no update: fewer completed queries than "
                          "req_granularity", field="req_granularity")
    recent = tried[-settings.gap_steps:]
    return ClimbResult(gap_ms=float(np.median(recent)), tried_ms=tuple(tried))


@dataclass(frozen=True)
class SchedResult:
    """DeepRecSched's choices: the per-core batch size, the accelerator threshold (None
    without an accelerator) and the gap of each configuration tried, in order."""

    per_core_batch: int
    accel_threshold: int | None
    gap_ms: float
    batch_gaps_ms: tuple[tuple[int, float], ...]
    accel_gaps_ms: tuple[tuple[int, float], ...]

    @property
    def qps(self) -> float:
        return 1000.0 / self.gap_ms


def _hill(configs: Sequence[int], evaluate: Callable[[int], float]
          ) -> tuple[int, float, tuple[tuple[int, float], ...]]:
    """The authors' climb over ``configs``: stop at the first worse gap and back off."""
    tried: list[tuple[int, float]] = []
    for c in configs:
        tried.append((c, evaluate(c)))
        if len(tried) >= 2 and tried[-1][1] > tried[-2][1]:
            best = tried[-2]
            return best[0], best[1], tuple(tried)
    best = min(tried, key=lambda t: t[1])
    return best[0], best[1], tuple(tried)


def deeprecsched(system: ServingSystem, load: LoadGenerator, settings: SchedulerSettings,
                 *, batch_configs: Sequence[int] = (512, 256, 128),
                 accel_configs: Sequence[int] = (96, 128, 192, 256, 384, 512),
                 seed: int = 0) -> SchedResult:
    """DeepRecSched's two phases (module docstring): the per-core batch size with the
    accelerator off, then (if ``system`` has an accelerator) its query-size threshold.
    Defaults: the configurations of the authors' example script."""
    if not batch_configs:
        raise ConfigError("batch_configs is empty", field="batch_configs")
    cpu_only = ServingSystem(engines=system.engines, cpu_latency_s=system.cpu_latency_s)

    def with_batch(b: int) -> float:
        s = ServingSystem(engines=cpu_only.engines, cpu_latency_s=cpu_only.cpu_latency_s,
                          per_core_batch=b)
        return climb(s, load, settings, seed=seed).gap_ms

    batch, gap, batch_tried = _hill(batch_configs, with_batch)
    if system.accel_latency_s is None or not accel_configs:
        return SchedResult(batch, None, gap, batch_tried, ())

    def with_threshold(t: int) -> float:
        s = ServingSystem(engines=system.engines, cpu_latency_s=system.cpu_latency_s,
                          per_core_batch=batch, accel_latency_s=system.accel_latency_s,
                          accel_threshold=t)
        return climb(s, load, settings, seed=seed).gap_ms

    threshold, accel_gap, accel_tried = _hill(accel_configs, with_threshold)
    return SchedResult(batch, threshold, accel_gap, batch_tried, accel_tried)
