"""Model-based optimization on the sweep engine, against exhaustive search of a closed form."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from pydantic import BaseModel, ConfigDict

from archsim.errors import ConfigError
from archsim.sim.sweep import ResultStore, SweepSpec, register_model
from archsim.sim.sweep.optimize import OptimizeSettings, load_optimization, run_optimization

TOY_PATH = "archsim.tests.test_sim_sweep_optimize"
XS, YS, KINDS = list(range(20)), list(range(20)), ["a", "b", "c"]
BONUS = {"a": 0.0, "b": 3.0, "c": -5.0}


class BowlParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    x: int
    y: int
    kind: str = "a"


def bowl(params: dict[str, object], seed: int) -> dict[str, float]:
    """f peaks at x = 13, y = 4, kind b (f = 3); g = 10 - x: x > 10 is infeasible if g >= 0."""
    p = BowlParams.model_validate(params)
    if p.x == 7 and p.y == 7:
        raise ValueError("a point that fails")
    return {"f": -(p.x - 13) ** 2 - 0.5 * (p.y - 4) ** 2 + BONUS[p.kind], "g": 10.0 - p.x}


register_model("bowl-test", function=f"{TOY_PATH}:bowl", params=BowlParams,
               objectives=("f", "g"), replace=True)


def _spec(seed: int = 0, **extra: object) -> SweepSpec:
    return SweepSpec.from_dict({
        "name": "bowl", "model": "bowl-test", "seed": seed,
        "parameters": {"x": {"values": XS}, "y": {"values": YS}, "kind": {"values": KINDS}},
        **extra})


def _exhaustive(feasible: bool = False) -> float:
    best = -np.inf
    for x, y, k in itertools.product(XS, YS, KINDS):
        if (x, y) == (7, 7) or (feasible and 10 - x < 0):
            continue
        best = max(best, -(x - 13) ** 2 - 0.5 * (y - 4) ** 2 + BONUS[k])
    return float(best)


def test_tpe_finds_the_exhaustive_optimum_in_few_evaluations(tmp_path: Path) -> None:
    settings = OptimizeSettings(objective="f", budget=80, startup_trials=10)
    report = run_optimization(_spec(), settings, db=tmp_path / "o.db")
    assert report.best is not None
    assert report.best.value == _exhaustive() == 3.0
    assert report.best.params == {"x": 13, "y": 4, "kind": "b"}
    # 80 trials, at most 80 of the 1200 points computed; repeats cost no evaluation.
    assert report.computed == report.distinct_points <= 80
    curve = report.convergence()
    assert len(curve) == 80 and all(b >= a for a, b in zip(curve, curve[1:], strict=False))


def test_tpe_beats_random_search_at_equal_budget(tmp_path: Path) -> None:
    gaps = {"tpe": [], "random": []}
    for seed in range(5):
        for sampler in gaps:
            settings = OptimizeSettings(objective="f", budget=40, sampler=sampler)
            rep = run_optimization(_spec(seed), settings, db=tmp_path / f"{sampler}{seed}.db")
            assert rep.best is not None
            gaps[sampler].append(_exhaustive() - rep.best.value)
    assert np.mean(gaps["tpe"]) < 0.5 * np.mean(gaps["random"])


def test_minimize_and_feasibility(tmp_path: Path) -> None:
    settings = OptimizeSettings(objective="f", budget=60, feasible=["g >= 0"])
    report = run_optimization(_spec(), settings, db=tmp_path / "f.db")
    assert report.best is not None and report.best.params["x"] <= 10
    assert report.best.value <= _exhaustive(feasible=True)
    assert all(t.feasible == (t.objectives.get("g", -1) >= 0) for t in report.trials
               if t.objectives)
    low = run_optimization(_spec(), OptimizeSettings(objective="f", direction="minimize",
                                                     budget=30), db=tmp_path / "m.db")
    assert low.best is not None
    assert low.best.value == min(t.value for t in low.trials if t.feasible)


def test_a_constraint_violating_optimum_is_never_returned(tmp_path: Path) -> None:
    # A tiny space whose unconstrained optimum (x = 13, y = 4, kind b) breaks g >= 0 (x <= 10).
    xs, ys, kinds = [9, 10, 11, 12, 13], [3, 4], ["a", "b"]

    def f(x: int, y: int, kind: str) -> float:  # the closed form of bowl()
        return -(x - 13) ** 2 - 0.5 * (y - 4) ** 2 + BONUS[kind]

    grid = list(itertools.product(xs, ys, kinds))
    feasible_best = max(f(*p) for p in grid if 10 - p[0] >= 0)
    assert max(f(*p) for p in grid) > feasible_best  # the optimum is infeasible
    for sampler in ("tpe", "random"):
        for seed in range(3):
            spec = SweepSpec.from_dict({
                "name": "tiny", "model": "bowl-test", "seed": seed,
                "parameters": {"x": {"values": xs}, "y": {"values": ys},
                               "kind": {"values": kinds}}})
            report = run_optimization(spec, OptimizeSettings(
                objective="f", budget=30, sampler=sampler, startup_trials=4,
                feasible=["g >= 0"]), db=tmp_path / f"{sampler}{seed}.db")
            seen = {(t.params["x"], t.params["y"], t.params["kind"]) for t in report.trials}
            assert max(f(*p) for p in seen) > feasible_best  # it did visit a better, infeasible point
            assert report.best is not None and report.best.params["x"] <= 10
            assert report.best.value == max(f(*p) for p in seen if p[0] <= 10)
            if sampler == "tpe":
                assert report.best.value == feasible_best


def test_tpe_starts_only_after_a_feasible_trial(tmp_path: Path) -> None:
    # Feasible only for x >= 18 (g = 10 - x <= -8): 2 of 20 x values. Until a trial is
    # feasible (and the startup is done), TPE's trials are random search's with the seed.
    for seed in range(3):
        runs = {s: run_optimization(_spec(seed), OptimizeSettings(
            objective="f", budget=20, sampler=s, startup_trials=3, feasible=["g <= -8"]),
            db=tmp_path / f"{s}{seed}.db") for s in ("tpe", "random")}
        first = next((i for i, t in enumerate(runs["random"].trials) if t.feasible), 19)
        until = max(first + 1, 3)
        assert [t.key for t in runs["tpe"].trials[:until]] == \
            [t.key for t in runs["random"].trials[:until]]
        assert all(not t.feasible for t in runs["tpe"].trials[:first])


def test_failed_points_and_parameter_constraints(tmp_path: Path) -> None:
    spec = _spec(constraints=["x != 13"])
    report = run_optimization(spec, OptimizeSettings(objective="f", budget=60),
                              db=tmp_path / "c.db")
    assert report.best is not None and report.best.params["x"] != 13
    for t in report.trials:
        if t.params.get("x") == 13 or (t.params.get("x"), t.params.get("y")) == (7, 7):
            assert not t.feasible and np.isnan(t.value)


def test_resume_replays_the_store_and_reaches_the_same_result(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    first = run_optimization(_spec(), OptimizeSettings(objective="f", budget=25), db=db)
    resumed = run_optimization(_spec(), OptimizeSettings(objective="f", budget=50), db=db)
    fresh = run_optimization(_spec(), OptimizeSettings(objective="f", budget=50),
                             db=tmp_path / "fresh.db")
    assert [t.key for t in resumed.trials] == [t.key for t in fresh.trials]
    assert [t.key for t in resumed.trials[:25]] == [t.key for t in first.trials]
    assert not any(t.computed for t in resumed.trials[:25])
    assert resumed.computed == fresh.computed - first.computed
    with ResultStore(db) as store:
        assert store.counts()["done"] + store.counts()["failed"] == fresh.computed


def test_dask_workers_give_the_same_trials(tmp_path: Path) -> None:
    settings = OptimizeSettings(objective="f", budget=12, batch=4)
    local = run_optimization(_spec(), settings, db=tmp_path / "l.db")
    dask = run_optimization(_spec(), settings, db=tmp_path / "d.db", workers=1)
    assert [(t.key, t.value) for t in dask.trials] == [(t.key, t.value) for t in local.trials]


def test_load_optimization_and_errors(tmp_path: Path) -> None:
    good = tmp_path / "o.toml"
    good.write_text('name = "bowl"\nmodel = "bowl-test"\n[parameters]\n'
                    'x = { values = [1, 2] }\ny = { values = [3] }\n'
                    '[optimize]\nobjective = "f"\nbudget = 3\n')
    spec, settings = load_optimization(good)
    assert spec.name == "bowl" and settings.budget == 3 and settings.sampler == "tpe"
    cases = [
        ('[optimize]\nobjective = "h"\nbudget = 3\n', "optimize.objective", "no objective 'h'"),
        ('[optimize]\nobjective = "f"\nbudget = 0\n', "optimize.budget", "greater than"),
        ('[optimize]\nobjective = "f"\nbudget = 3\nfoo = 1\n', "optimize.foo", "Extra inputs"),
        ('[optimize]\nobjective = "f"\nbudget = 3\nfeasible = ["q > 1"]\n',
         "optimize.feasible[0]", "unknown name 'q'"),
        ("", "optimize", r"needs an \[optimize\] table"),
    ]
    base = 'name = "bowl"\nmodel = "bowl-test"\n[parameters]\nx = { values = [1, 2] }\n'
    for i, (tail, field, message) in enumerate(cases):
        bad = tmp_path / f"bad{i}.toml"
        bad.write_text(base + tail)
        with pytest.raises(ConfigError, match=message) as info:
            load_optimization(bad)
        assert info.value.field == field and info.value.file == str(bad)
    with pytest.raises(ConfigError, match="method must be 'grid'"):
        run_optimization(_spec(method="random", samples=3),
                         OptimizeSettings(objective="f", budget=2), db=tmp_path / "x.db")


def test_optimize_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from typer.testing import CliRunner

    from archsim.sim.cli import app, main

    spec = tmp_path / "bowl.toml"
    spec.write_text('name = "bowl"\nmodel = "bowl-test"\n[parameters]\n'
                    f'x = {{ values = {XS} }}\ny = {{ values = {YS} }}\n'
                    'kind = { values = ["a", "b", "c"] }\n'
                    '[optimize]\nobjective = "f"\nbudget = 80\n')
    out = tmp_path / "trials.csv"
    result = CliRunner().invoke(app, ["optimize", str(spec), "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert "80 trials (tpe)" in result.output and (tmp_path / "bowl.db").is_file()
    lines = out.read_text().splitlines()
    assert len(lines) == 81 and lines[0].startswith("trial,x,y,kind,value")
    bad = tmp_path / "bad.toml"
    bad.write_text(spec.read_text().replace('objective = "f"', 'objective = "h"'))
    assert main(["optimize", str(bad)]) == 2
    assert "field 'optimize.objective'" in capsys.readouterr().err
    assert not (tmp_path / "bad.db").exists()


def test_shipped_optimization_finds_the_exhaustive_best(tmp_path: Path) -> None:
    from archsim.sim.sweep import run_sweep

    shipped = Path(__file__).resolve().parents[1] / "soc_configs" / "optimize_soc.toml"
    spec, settings = load_optimization(shipped)
    report = run_optimization(spec, settings, db=tmp_path / "o.db")
    run_sweep(spec, db=tmp_path / "all.db", workers=0)
    with ResultStore(tmp_path / "all.db") as store:
        allowed = [r.objectives["latency_s"] for r in store.records(status="done")
                   if r.params["accelerators"] <= 4]
    assert report.best is not None and report.best.value == min(allowed)
    assert report.computed < 32
