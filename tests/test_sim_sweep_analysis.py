"""The gpu-roofline model, the SQLite store, analysis (filter, Pareto, export, plots), the CLI."""

from __future__ import annotations

import csv
import itertools
import sqlite3

import numpy as np
import pytest

from archsim.compilers.graph import get_transformer, transformer_graph
from archsim.errors import ConfigError
from archsim.sim.cli import main
from archsim.sim.sweep import (
    PointResult,
    ResultStore,
    ResultTable,
    SweepSpec,
    export,
    get_model,
    gpu_roofline,
    load_results,
    pareto_front,
    pareto_mask,
    plot_heatmap,
    plot_line,
    plot_scatter,
    register_model,
    run_sweep,
)

# -- the gpu-roofline model --------------------------------------------------------------------


def test_gpu_roofline_matches_a_hand_roofline():
    # A100 80GB SXM4 datasheet: 312 TFLOP/s dense fp16, 2039 GB/s, 400 W.
    peak, bw, tdp = 312e12, 2039e9, 400.0
    params = {"model": "llama-7b", "gpu": "a100-80gb", "batch": 4, "new_tokens": 1,
              "context_len": 512, "compute_efficiency": 0.5, "memory_efficiency": 0.8,
              "power_fraction": 0.75}
    got = gpu_roofline(get_model("gpu-roofline").validate_params(params), seed=0)
    g = transformer_graph(get_transformer("llama-7b"), batch=4, new_tokens=1, context_len=512)
    t = sum(max(op.flops / (peak * 0.5), op.bytes_accessed / (bw * 0.8)) for op in g)
    assert got["latency_s"] == pytest.approx(t, rel=1e-12)
    assert got["energy_j"] == pytest.approx(t * tdp * 0.75, rel=1e-12)
    assert got["tokens_per_s"] == pytest.approx(4 / t, rel=1e-12)
    # never faster than the weights streamed once at peak bandwidth
    assert got["latency_s"] > get_transformer("llama-7b").weight_bytes("fp16") / bw


def test_register_model_argument_errors():
    with pytest.raises(ValueError, match="already registered"):
        register_model("gpu-roofline", function="a.b:c", params="a.b:P", objectives=("x",))
    with pytest.raises(ValueError, match="import path"):
        register_model("x-new", function="a.b.c", params="a.b:P", objectives=("x",))
    with pytest.raises(ValueError, match="objectives must be non-empty"):
        register_model("x-new", function="a.b:c", params="a.b:P", objectives=())


# -- the store ---------------------------------------------------------------------------------


def test_store_keeps_done_rows_and_retries_failed(tmp_path):
    db = tmp_path / "r.db"
    points = {"k1": ({"x": 1}, 5), "k2": ({"x": 2}, 6)}
    with ResultStore(db) as store:
        assert store.write([PointResult("k1", "done", {"f": 1.0}, duration_s=0.1),
                            PointResult("k2", "failed", error="ValueError: boom")],
                           sweep="s", model="m", points=points) == 2
        # a second result for a done point is ignored; a failed point is replaced
        assert store.write([PointResult("k1", "done", {"f": 9.0}),
                            PointResult("k2", "done", {"f": 2.0})],
                           sweep="s", model="m", points=points) == 1
        recs = {r.key: r for r in store.records()}
        assert recs["k1"].objectives == {"f": 1.0} and recs["k1"].seed == 5
        assert recs["k2"].status == "done" and recs["k2"].objectives == {"f": 2.0}
        assert store.counts() == {"done": 2, "failed": 0}
        with pytest.raises(ValueError, match="status must be one of"):
            store.write([PointResult("k1", "maybe")], sweep="s", model="m", points=points)
        with pytest.raises(ConfigError, match="unknown status 'ok'"):
            store.records(status="ok")
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_store_errors(tmp_path):
    with pytest.raises(ConfigError, match="results database not found"):
        ResultStore(tmp_path / "none.db", create=False)
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(ConfigError, match="not an archsim results database"):
        ResultStore(bad)


# -- analysis ----------------------------------------------------------------------------------


def _table(rows):
    return ResultTable(rows=tuple(rows), params=("a", "b"), objectives=("f", "g", "h"))


def test_pareto_matches_brute_force():
    rng = np.random.default_rng(0)
    values = rng.integers(0, 12, size=(300, 3)).astype(float)  # ties on purpose
    values[5, 1] = np.nan
    brute = []
    for i, v in enumerate(values):
        if np.isnan(v).any():
            brute.append(False)
            continue
        dominated = any(all(w[j] <= v[j] for j in range(3)) and any(w[j] < v[j] for j in range(3))
                        for k, w in enumerate(values) if k != i and not np.isnan(w).any())
        brute.append(not dominated)
    assert pareto_mask(values).tolist() == brute


def test_pareto_front_with_maximize_and_errors():
    rows = [{"a": i, "b": "x", "f": f, "g": g, "h": 0.0}
            for i, (f, g) in enumerate([(1, 1), (2, 3), (3, 2), (2, 2), (4, 5)])]
    t = _table(rows)
    # minimize f, maximize g: (1,1), (2,3), (4,5) survive; (3,2) and (2,2) are dominated by (2,3)
    front = pareto_front(t, ["f", "g"], maximize=["g"])
    assert [r["a"] for r in front.rows] == [0, 1, 4]
    assert [r["a"] for r in pareto_front(t, ["f", "g"]).rows] == [0]
    with pytest.raises(ConfigError, match="no objective 'area'") as e:
        pareto_front(t, ["f", "area"])
    assert e.value.field == "objectives"
    with pytest.raises(ConfigError, match="maximized but not among the objectives"):
        pareto_front(t, ["f"], maximize=["g"])


def test_filter_and_columns():
    rows = [{"a": a, "b": b, "f": a * 1.5, "g": 0.0, "h": 0.0}
            for a, b in itertools.product(range(4), ["x", "y"])]
    t = _table(rows)
    sub = t.filter("a >= 2 and b == 'y'")
    assert [(r["a"], r["b"]) for r in sub.rows] == [(2, "y"), (3, "y")]
    with pytest.raises(ConfigError) as e:
        t.filter("latency < 3")
    assert e.value.field == "filter" and "unknown name 'latency'" in str(e.value)
    with pytest.raises(ConfigError, match="no column 'zz'"):
        t.column("zz")


def test_export_and_plots(tmp_path):
    rows = [{"a": a, "b": b, "f": float(a + b), "g": float(a * b + 1), "h": 1.0}
            for a, b in itertools.product([1, 2, 4], [10, 20])]
    t = _table(rows)
    path = export(t, tmp_path / "t.csv")
    with open(path, newline="") as fh:
        back = list(csv.DictReader(fh))
    assert [float(r["g"]) for r in back] == [r["g"] for r in rows]
    with pytest.raises(ConfigError, match="unknown export format '.xlsx'"):
        export(t, tmp_path / "t.xlsx")
    for png in (plot_scatter(t, "f", "g", tmp_path / "s.png"),
                plot_line(t, "a", "f", tmp_path / "l.png", group_by="b"),
                plot_heatmap(t, "a", "b", "g", tmp_path / "h.png")):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(export(t, tmp_path / "t.parquet"))
    assert table.column("g").to_pylist() == [r["g"] for r in rows]


# -- end to end through the CLI ----------------------------------------------------------------

SPEC = """
name = "cli"
model = "gpu-roofline"
objectives = ["latency_s", "energy_j", "tokens_per_s"]
[fixed]
model = "llama-7b"
[parameters]
gpu = { values = ["a100-80gb", "h100-80gb"] }
batch = { values = [1, 8] }
dtype = { values = ["fp16", "fp8"] }
"""


def test_cli_sweep_and_results(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    assert main(["sweep", str(spec), "--dry-run"]) == 0
    assert "8 points (grid), 0 already done" in capsys.readouterr().out
    assert not (tmp_path / "s.db").exists()
    assert main(["sweep", str(spec), "--workers", "0", "-q"]) == 0
    db = tmp_path / "s.db"  # default: next to the spec
    out = capsys.readouterr().out
    assert "8 points" in out and "6 done, 2 failed" in out
    failed = load_results(db, status="failed")
    # the A100 has no fp8 peak rate: those points fail with the model's own message
    assert {r["gpu"] for r in failed.rows} == {"a100-80gb"}
    assert all("no peak rate for data type 'fp8'" in r["error"] for r in failed.rows)
    assert main(["results", "show", str(db), "--filter", "gpu == 'h100-80gb'"]) == 0
    assert "4 done points" in capsys.readouterr().out
    assert main(["results", "show", str(db), "--failed"]) == 0
    assert "no peak rate" in capsys.readouterr().out
    assert main(["results", "pareto", str(db), "--objectives", "latency_s,tokens_per_s",
                 "--maximize", "tokens_per_s", "--csv", str(tmp_path / "p.csv")]) == 0
    done = load_results(db)
    lat, tps = done.column("latency_s"), done.column("tokens_per_s")
    n_front = sum(not any(lat[j] <= lat[i] and tps[j] >= tps[i]
                          and (lat[j] < lat[i] or tps[j] > tps[i]) for j in range(len(done)))
                  for i in range(len(done)))
    with open(tmp_path / "p.csv", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == n_front
    assert main(["results", "export", str(db), "-o", str(tmp_path / "all.csv")]) == 0
    assert main(["results", "plot", str(db), "--kind", "heatmap", "--x", "batch", "--y", "gpu",
                 "--z", "latency_s", "-o", str(tmp_path / "h.png")]) == 0
    assert (tmp_path / "h.png").stat().st_size > 0
    assert main(["sweep", str(spec), "--dry-run"]) == 0
    assert "6 already done" in capsys.readouterr().out
    # re-running recomputes only the failed points
    assert main(["sweep", str(spec), "--workers", "0", "-q"]) == 0
    assert "6 already stored, 0 done, 2 failed" in capsys.readouterr().out


def test_cli_errors_exit_2(tmp_path, capsys):
    spec = tmp_path / "bad.toml"
    spec.write_text('model = "gpu-roofline"\n[parameters]\nbatch = { values = [] }\n')
    assert main(["sweep", str(spec), "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert "field 'parameters.batch'" in err and "empty range" in err
    assert main(["results", "show", str(tmp_path / "none.db")]) == 2
    assert "results database not found" in capsys.readouterr().err
    good = tmp_path / "good.toml"
    good.write_text(SPEC)
    assert main(["sweep", str(good), "--workers", "0", "-q", "--db",
                 str(tmp_path / "g.db")]) == 0
    assert main(["results", "plot", str(tmp_path / "g.db"), "--kind", "pie", "--x", "a",
                 "--y", "b", "-o", str(tmp_path / "p.png")]) == 2
    assert "unknown plot kind 'pie'" in capsys.readouterr().err


def test_run_sweep_argument_errors(tmp_path):
    s = SweepSpec.from_dict({"model": "gpu-roofline"})
    with pytest.raises(ConfigError, match="must be >= 0") as e:
        run_sweep(s, db=tmp_path / "x.db", workers=-1)
    assert e.value.field == "workers"
    with pytest.raises(ConfigError) as e:
        run_sweep(s, db=tmp_path / "x.db", scheduler="nosuch://127.0.0.1:1")
    assert e.value.field == "scheduler" and "cannot connect" in str(e.value)
