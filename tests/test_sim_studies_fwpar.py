"""The fwpar study: settings, topology, the many-core model's closed forms, the models and
the quick run. Expected values are hand counts, closed forms or lscpu."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from archsim.compilers.graph.cnn import activation
from archsim.compilers.graph.ir import TensorSpec, WorkloadGraph
from archsim.errors import ConfigError
from archsim.sim.graph_exec import graph_width
from archsim.sim.studies.fwpar import (
    Calibration,
    CpuDescription,
    Setting,
    amdahl_fraction,
    build_model,
    cpu_topology,
    inception_stack,
    load_full_run,
    paper_settings,
    run,
    simulate_graph,
)


def test_paper_settings_on_two_cores_and_on_a_many_core_cpu() -> None:
    two = paper_settings(2.8, physical=2, logical=2, sockets=1)
    assert two == {"guideline": Setting(2, 1), "intel": Setting(1, 2),
                   "tf_default": Setting(2, 2)}
    chain = paper_settings(1.0, physical=2, logical=2, sockets=1)
    assert chain["guideline"] == Setting(1, 2)  # synchronous, all cores intra-op
    big = paper_settings(8.0, physical=48, logical=96, sockets=2)
    assert big == {"guideline": Setting(8, 6), "intel": Setting(2, 48),
                   "tf_default": Setting(96, 96)}
    assert paper_settings(100.0, physical=4, logical=8, sockets=1)["guideline"] == Setting(4, 1)
    with pytest.raises(ConfigError, match="width"):
        paper_settings(0.5, physical=2, logical=2, sockets=1)


def test_cpu_topology_agrees_with_lscpu() -> None:
    topo = cpu_topology()
    cpus = os.sched_getaffinity(0)
    assert topo.logical == len(cpus) and 1 <= topo.physical <= topo.logical
    if shutil.which("lscpu") is None:
        pytest.skip("no lscpu")
    out = subprocess.run(["lscpu", "-p=CPU,CORE,SOCKET"], capture_output=True, text=True,
                         check=True).stdout
    rows = [tuple(int(v) for v in ln.split(",")[:3]) for ln in out.splitlines()
            if ln and not ln.startswith("#")]
    assert topo.physical == len({(s, c) for cpu, c, s in rows if cpu in cpus})
    assert topo.sockets == len({s for cpu, _, s in rows if cpu in cpus})


def _chain(n: int) -> WorkloadGraph:
    g = WorkloadGraph("chain")
    t = TensorSpec("x", (4,), "fp32", role="input")
    for i in range(n):
        t = g.add(activation(f"a{i}", t)).outputs[0]
    return g


def _parallel(n: int) -> WorkloadGraph:
    g = WorkloadGraph("parallel")
    for i in range(n):
        g.add(activation(f"p{i}", TensorSpec(f"x{i}", (4,), "fp32", role="input")))
    return g


def _cal(g: WorkloadGraph, t: float, f: float, *, ov: float = 0.0,
         kappa: float = 0.0) -> Calibration:
    return Calibration(t1_s={op.name: t for op in g}, fraction={op.name: f for op in g},
                       overhead_sync_s=ov, overhead_pool_s=2 * ov, kappa=kappa)


def test_model_closed_forms() -> None:
    cpu = CpuDescription(name="t", sockets=1, cores_per_socket=8, threads_per_core=2)
    g = _chain(5)
    # Synchronous chain: sum of Amdahl times plus one overhead per operator.
    t = simulate_graph(g, _cal(g, 1e-3, 0.9, ov=1e-5), inter=1, intra=4, cpu=cpu)
    assert t == pytest.approx(5 * (1e-3 * (0.1 + 0.9 / 4) + 1e-5))
    # Four independent operators, 4 pools x 2 threads = 8 cores: all overlap.
    p = _parallel(4)
    assert simulate_graph(p, _cal(p, 1e-3, 0.5), inter=4, intra=2, cpu=cpu) == \
        pytest.approx(1e-3 * (0.5 + 0.5 / 2))
    # Two pools: two waves.
    assert simulate_graph(p, _cal(p, 1e-3, 0.5), inter=2, intra=2, cpu=cpu) == \
        pytest.approx(2e-3 * (0.5 + 0.5 / 2))
    # 4 pools x 4 threads = 16 threads on 8 cores: each op gets 2 cores, efficiency
    # 1 / (1 + kappa (16/8 - 1)).
    t = simulate_graph(p, _cal(p, 1e-3, 0.5, kappa=0.25), inter=4, intra=4, cpu=cpu)
    assert t == pytest.approx(1e-3 * (0.5 + 0.5 / 2) * 1.25)
    # Time-shared single threads: 16 serial ops, 16 pools, 8 cores -> half a core each.
    p16 = _parallel(16)
    assert simulate_graph(p16, _cal(p16, 1e-3, 0.0), inter=16, intra=1, cpu=cpu) == \
        pytest.approx(2e-3)


def test_amdahl_fraction() -> None:
    assert amdahl_fraction(1.0, 0.55, 2) == pytest.approx(0.9)
    assert amdahl_fraction(1.0, 1.0 / 4, 4) == pytest.approx(1.0)
    assert amdahl_fraction(1.0, 1.5, 2) == 0.0  # slower with more threads: clipped


def test_inception_module_structure_and_parameters() -> None:
    g = inception_stack(batch=1, modules=("3a",))
    assert len(g) == 14 and graph_width(g) == pytest.approx(14 / 5)
    # Conv weights + biases of module 3a on 192 input channels (closed form).
    c_in = 192
    params = (c_in * 64 + 64) + (c_in * 96 + 96) + (96 * 128 * 9 + 128) + \
        (c_in * 16 + 16) + (16 * 32 * 25 + 32) + (c_in * 32 + 32)
    assert g.parameter_count == params
    assert params == pytest.approx(159e3, rel=0.05)  # Szegedy et al. Table 1: 159K
    assert g["3a.concat"].outputs[0].shape == (1, 256, 28, 28)
    assert graph_width(build_model("mlp", batch=8, nodes=16)) == 1.0
    assert graph_width(build_model("mt-wnd", batch=4, tasks=8)) > 4


def test_shipped_full_run_is_complete() -> None:
    data = load_full_run()
    assert data["mode"] == "full"
    assert {m["name"] for m in data["models"]} == {"inception", "mt-wnd", "mlp", "dqn"}
    for m in data["models"]:
        walls = m["measured"]["walls_s"]
        assert set(walls) == {"1x1", "1x2", "2x1", "2x2"}
        assert all(len(v) >= 10 for v in walls.values())
    # The shipped run made on the loaded machine has the same format and analyses the same way.
    from importlib import resources

    from archsim.sim.studies.fwpar import analyze

    repeat = json.loads(resources.files("archsim.sim.studies.fwpar")
                        .joinpath("data/full_run_loaded.json").read_text())
    a = analyze(repeat)
    assert len(a["rows"]) == 4 and a["geomean_vs_intel_best"] > 0


def test_quick_run_reports_its_declared_statuses(tmp_path: Path) -> None:
    res = run(out_dir=tmp_path, seed=0, quick=True)
    assert len(res.comparisons) == 4
    assert [c.status for c in res.comparisons] == [c.expected for c in res.comparisons]
    assert (tmp_path / "comparisons.csv").exists() and (tmp_path / "fwpar_speedups.png").exists()
    assert "quick_measured" in res.tables and res.tables["measured"]
