"""Model-based optimization over a sweep's grid: Optuna's samplers, archsim's store and workers.

A sweep spec with an ``[optimize]`` table names the objective, its direction, the budget of
trials and the sampler; its ``[parameters]`` (as for a grid sweep) are the design space::

    name = "uav-codesign"
    model = "autopilot"
    seed = 0

    [parameters]
    rows = { values = [4, 8, 16, 32] }
    policy = { values = ["c3f16", "c4f32", "c5f32"] }

    [optimize]
    objective = "missions"
    direction = "maximize"
    budget = 40
    sampler = "tpe"                      # or "random"
    feasible = ["success_rate >= 0.8"]   # over parameters and objectives

Why Optuna's TPE: the design spaces here are discrete and mixed (array sizes, buffer sizes,
named policies and dataflows); the tree-structured Parzen estimator models categorical and
ordinal parameters natively, supports constraints (``Trial.set_constraint``; each
``feasible`` expression is told by how far a point misses it, :meth:`Expression.violation`,
so infeasible trials are ranked by their distance to feasibility), is deterministic under a
seed, and needs neither torch nor a continuous relaxation -- a GP sampler
(``optuna.samplers.GPSampler``, BoTorch) would need torch, and scikit-optimize is no longer
maintained. Numeric grids are offered as ordinal indices (``suggest_int`` over the sorted
grid) so the sampler sees their order; other values as categories. The first
``startup_trials`` trials are random, and so are later ones until one trial is feasible.

Evaluations run through the sweep engine: each round asks ``batch`` trials, evaluates the
points not yet in the results store (in-process or on Dask workers, as :func:`run_sweep`) and
stores them in the same SQLite file. Re-running an interrupted optimization replays the
sampler under the same seed; every point already stored is read back instead of computed,
so it resumes where it stopped and reaches the same result. Each distinct point is computed
once: a trial that repeats a point costs a trial of the budget but no evaluation.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...errors import ConfigError
from .engine import _dask_client, _payload, _run_on_dask, run_batch
from .spec import Expression, SweepPoint, SweepSpec, _point_seed, point_key
from .store import PointResult, ResultStore

__all__ = ["OptimizeSettings", "Trial", "OptimizationProgress", "OptimizationReport",
           "run_optimization", "load_optimization", "SAMPLERS"]

#: Sampler names an ``[optimize]`` table may use.
SAMPLERS = ("tpe", "random")


class OptimizeSettings(BaseModel):
    """The ``[optimize]`` table of a sweep spec (module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    objective: str
    direction: Literal["maximize", "minimize"] = "maximize"
    budget: int = Field(ge=1)
    batch: int = Field(1, ge=1)
    sampler: Literal["tpe", "random"] = "tpe"
    startup_trials: int = Field(10, ge=1)
    feasible: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class Trial:
    """One trial: its number, point, value (``nan`` if the point failed or broke a parameter
    constraint), whether it was feasible, computed now or read from the store, and the best
    feasible value so far."""

    number: int
    key: str
    params: dict[str, Any]
    value: float
    objectives: dict[str, float]
    feasible: bool
    computed: bool
    best_so_far: float

    def row(self) -> dict[str, Any]:
        """A flat row for tables and CSV."""
        return {"trial": self.number, **self.params, "value": self.value,
                "feasible": self.feasible, "computed": self.computed,
                "best_so_far": self.best_so_far, **self.objectives}


@dataclass(frozen=True)
class OptimizationProgress:
    """Where a running optimization is: trials told, distinct points computed, best so far."""

    trials: int
    budget: int
    computed: int
    best: float
    elapsed_s: float


@dataclass(frozen=True)
class OptimizationReport:
    """Every trial in order, the best feasible one, and the evaluation counts."""

    name: str
    sampler: str
    direction: str
    objective: str
    trials: tuple[Trial, ...]
    computed: int
    wall_s: float

    @property
    def best(self) -> Trial | None:
        """The best feasible trial (the first of equals), or ``None`` if none is feasible."""
        good = [t for t in self.trials if t.feasible and not math.isnan(t.value)]
        if not good:
            return None
        sign = 1.0 if self.direction == "maximize" else -1.0
        return max(good, key=lambda t: (sign * t.value, -t.number))

    @property
    def distinct_points(self) -> int:
        """Distinct points the trials visited."""
        return len({t.key for t in self.trials})

    def convergence(self) -> list[float]:
        """The best feasible value after each trial (``nan`` before the first feasible)."""
        return [t.best_so_far for t in self.trials]

    def rows(self) -> list[dict[str, Any]]:
        return [t.row() for t in self.trials]


def _space(spec: SweepSpec) -> dict[str, list[Any]]:
    space = {name: p.grid() for name, p in spec.parameters.items()}
    for name, values in space.items():
        if not values:
            raise ConfigError("the parameter has no values", field=f"parameters.{name}")
    return space


def _is_ordinal(values: Sequence[Any]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def _check(spec: SweepSpec, settings: OptimizeSettings) -> list[Expression]:
    model = spec.sweep_model
    if spec.method != "grid":
        raise ConfigError("an optimization searches the grid of its parameters: method must "
                          f"be 'grid', not {spec.method!r}", field="method")
    if settings.objective not in model.objectives:
        raise ConfigError(f"model '{model.name}' has no objective '{settings.objective}'",
                          field="optimize.objective", allowed=model.objectives)
    names = set(model.parameter_names) | set(model.objectives)
    return [Expression(text, names=names, field=f"optimize.feasible[{i}]")
            for i, text in enumerate(settings.feasible)]


def run_optimization(
    spec: SweepSpec,
    settings: OptimizeSettings,
    *,
    db: str | Path,
    workers: int = 0,
    scheduler: str | None = None,
    client: Any = None,
    on_progress: Callable[[OptimizationProgress], None] | None = None,
) -> OptimizationReport:
    """Optimize ``settings.objective`` over the grid of ``spec`` (module docstring).

    Parameters
    ----------
    spec
        A validated sweep spec with ``method = "grid"``; its parameters are the space, its
        ``constraints`` exclude points (a trial on one is told as failed and not computed).
    settings
        Objective, direction, budget, batch, sampler, feasibility expressions.
    db
        The SQLite results store (shared with sweeps: a point stored by a sweep is not
        recomputed).
    workers
        ``0`` evaluates in this process; ``N`` on a Dask LocalCluster of ``N`` workers.
    scheduler, client
        An existing Dask scheduler address or client, as for :func:`run_sweep`.
    on_progress
        Called after every round.
    """
    import optuna

    feasible = _check(spec, settings)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise ConfigError(f"workers must be an int >= 0, not {workers!r}", field="workers")
    space = _space(spec)
    model = spec.sweep_model
    constraints = spec._constraints()
    start = time.perf_counter()
    sign = 1.0 if settings.direction == "maximize" else -1.0

    # The startup phase: random trials until ``startup_trials`` are told and one of them is
    # feasible. A TPE that has seen only infeasible trials ranks them by violation alone
    # and climbs it; where the violation is not smooth in the parameters (a success rate
    # per named policy) it stays among near misses and can spend the budget there.
    startup = optuna.samplers.RandomSampler(seed=spec.seed)
    sampler: optuna.samplers.BaseSampler = startup
    if settings.sampler == "tpe":
        # Multivariate TPE (one joint Parzen estimator over all parameters, not one per
        # parameter): the objectives here depend on parameters jointly (a policy's latency
        # depends on the array it runs on). Optuna >= 4 defaults to it for one objective;
        # stated so a change of default does not change the search. ``group`` (the
        # decomposition of a conditional space) is not set: every trial suggests every
        # parameter, so the space is not conditional and it would change nothing.
        sampler = optuna.samplers.TPESampler(
            seed=spec.seed, n_startup_trials=settings.startup_trials, multivariate=True)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction=settings.direction, sampler=startup)

    def suggest(trial: optuna.trial.Trial) -> dict[str, Any]:
        varied: dict[str, Any] = {}
        for name, values in space.items():
            if _is_ordinal(values):
                ordered = sorted(values)
                varied[name] = ordered[trial.suggest_int(name, 0, len(ordered) - 1)]
            else:
                varied[name] = trial.suggest_categorical(name, values)
        return varied

    trials: list[Trial] = []
    best = math.nan
    computed = 0
    mode_dask = client is not None or scheduler is not None or workers > 0
    with ResultStore(db) as store:
        store.record_sweep(spec.name, model.name,
                           {**spec.model_dump(mode="json"), "optimize": settings.model_dump()})
        with _maybe_dask(mode_dask, client=client, scheduler=scheduler,
                         workers=workers) as dask_client:
            while len(trials) < settings.budget:
                started = (len(trials) >= settings.startup_trials
                           and any(t.feasible for t in trials))
                study.sampler = sampler if started else startup
                round_trials = [study.ask() for _ in range(min(settings.batch,
                                                               settings.budget - len(trials)))]
                asked: list[tuple[optuna.trial.Trial, SweepPoint | None]] = []
                for trial in round_trials:
                    params = model.validate_params({**spec.fixed, **suggest(trial)})
                    if not all(c(params) for c in constraints):
                        asked.append((trial, None))
                        continue
                    seed = _point_seed(spec.seed, params)
                    asked.append((trial, SweepPoint(key=point_key(model.name, params, seed),
                                                    params=params, seed=seed)))
                points = {p.key: p for _, p in asked if p is not None}
                done = {r.key: r.objectives for r in store.records(status="done")
                        if r.key in points}
                pending = [p for k, p in points.items() if k not in done]
                if pending:
                    results = _evaluate(model.function, pending, spec.recorded_objectives,
                                        dask_client)
                    store.write(results, sweep=spec.name, model=model.name,
                                points={p.key: (p.params, p.seed) for p in pending})
                    computed += len(pending)
                    done.update({r.key: r.objectives or {} for r in results
                                 if r.status == "done"})
                for trial, point in asked:
                    objectives = done.get(point.key) if point is not None else None
                    if objectives is None:
                        study.tell(trial, state=optuna.trial.TrialState.FAIL)
                        value, ok = math.nan, False
                    else:
                        value = objectives[settings.objective]
                        scope = {**point.params, **objectives} if point is not None else {}
                        # Optuna's constrained samplers (``Trial.set_constraint``, which
                        # replaces ``constraints_func`` since Optuna 5.0): a value <= 0 is
                        # feasible; TPE ranks infeasible trials by the sum of their
                        # violations, so each is told by how far it misses, not as 0 or 1.
                        violations = [f.violation(scope) for f in feasible]
                        ok = all(v == 0.0 for v in violations)
                        for i, v in enumerate(violations):
                            trial.set_constraint(f"feasible[{i}]", v)
                        study.tell(trial, value)
                    if ok and (math.isnan(best) or sign * value > sign * best):
                        best = value
                    trials.append(Trial(
                        number=trial.number, key=point.key if point is not None else "",
                        params=point.params if point is not None else dict(trial.params),
                        value=value, objectives=dict(objectives or {}), feasible=ok,
                        computed=point is not None and point in pending,
                        best_so_far=best))
                if on_progress is not None:
                    on_progress(OptimizationProgress(
                        trials=len(trials), budget=settings.budget, computed=computed,
                        best=best, elapsed_s=time.perf_counter() - start))
    return OptimizationReport(name=spec.name, sampler=settings.sampler,
                              direction=settings.direction, objective=settings.objective,
                              trials=tuple(trials), computed=computed,
                              wall_s=time.perf_counter() - start)


class _maybe_dask:
    """The engine's Dask client when asked for one, else nothing (in-process)."""

    def __init__(self, use: bool, *, client: Any, scheduler: str | None, workers: int) -> None:
        self._inner: Any = None
        if use:
            mode = ("client" if client is not None
                    else "scheduler" if scheduler is not None else "local-cluster")
            self._inner = _dask_client(mode, client=client, scheduler=scheduler,
                                       workers=max(1, workers))

    def __enter__(self) -> Any:
        return None if self._inner is None else self._inner.__enter__()

    def __exit__(self, *exc: object) -> None:
        if self._inner is not None:
            self._inner.__exit__(*exc)


def _evaluate(function: str, points: Sequence[SweepPoint], objectives: Sequence[str],
              dask_client: Any) -> list[PointResult]:
    if dask_client is None:
        return run_batch(function, _payload(points), objectives)
    out: list[PointResult] = []
    _run_on_dask(dask_client, function, [[p] for p in points], objectives, out.extend)
    return out


def load_optimization(path: str | Path) -> tuple[SweepSpec, OptimizeSettings]:
    """Read a sweep TOML with an ``[optimize]`` table; errors name the file and the field."""
    import tomllib

    from pydantic import ValidationError

    file = str(path)
    from ...loading import read_text_file

    text = read_text_file(path, what="optimization spec")  # missing, a directory, not UTF-8
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", file=file) from None
    table = data.pop("optimize", None)
    if not isinstance(table, dict):
        raise ConfigError("an optimization needs an [optimize] table", file=file,
                          field="optimize")
    spec = SweepSpec.from_dict(data, file=file)
    try:
        settings = OptimizeSettings.model_validate(table)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(["optimize", *(str(p) for p in err["loc"])])
        allowed = (list(OptimizeSettings.model_fields)
                   if err["type"] == "extra_forbidden" else None)
        raise ConfigError(err["msg"], file=file, field=field, allowed=allowed) from None
    try:
        _check(spec, settings)
    except ConfigError as exc:
        raise ConfigError(exc.reason, file=file, field=exc.field, allowed=exc.allowed) from None
    return spec, settings
