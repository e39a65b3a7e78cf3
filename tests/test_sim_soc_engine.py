"""The SoC event simulation: conservation, traffic against the tiling, scaling with accelerators."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from archsim.compilers.graph import TensorSpec, WorkloadGraph, build_workload, linear
from archsim.compilers.graph.cnn import elementwise
from archsim.errors import ConfigError
from archsim.outputs import FigureRenderer
from archsim.sim.soc import (
    CATEGORIES,
    SoCConfig,
    load_soc_config,
    plan_operator,
    simulate,
)

CONFIGS = Path(__file__).resolve().parents[1] / "soc_configs"


def _cfg(**over) -> SoCConfig:
    """An SoC with every CPU and transfer overhead zero unless overridden."""
    data = {
        "cpu": {"framework_overhead_s_per_op": 0.0, "framework_overhead_s_per_tile": 0.0,
                "data_prep_bytes_per_s_per_thread": 1e18},
        "accelerators": [{"kind": "smv", "pipeline_cycles": 0}],
        "dram": {"latency_s": 0.0},
        "llc": {"flush_fixed_s": 0.0, "flush_bytes_per_s": 1e18, "acp_latency_s": 0.0},
        "interconnect": {"transfer_setup_s": 0.0},
    }
    for section, vals in over.items():
        if section == "accelerators":
            data["accelerators"][0].update(vals)
        else:
            data.setdefault(section, {}).update(vals)
    return SoCConfig.from_dict(data)


@pytest.mark.parametrize("workload,params", [("alexnet", {}), ("paradnn-rnn", {"layers": 2,
                                             "max_length": 6, "batch": 2})])
@pytest.mark.parametrize("config", ["smaug_baseline.toml", "systolic_soc.toml"])
@pytest.mark.parametrize("accelerators", [1, 3])
def test_breakdown_sums_to_end_to_end(workload, params, config, accelerators):
    cfg = load_soc_config(CONFIGS / config).with_changes(accelerators=accelerators)
    r = simulate(cfg, build_workload(workload, **params))
    assert set(r.breakdown_s) == set(CATEGORIES)
    assert math.fsum(r.breakdown_s.values()) == pytest.approx(r.latency_s, rel=1e-12)
    assert all(v >= 0 for v in r.breakdown_s.values())
    assert math.fsum(o.latency_s for o in r.operators) == pytest.approx(r.latency_s, rel=1e-12)
    for o in r.operators:
        assert math.fsum(o.breakdown_s.values()) == pytest.approx(o.latency_s, rel=1e-9,
                                                                  abs=1e-15)
    # Every MAC of the graph is executed once.
    graph = build_workload(workload, **params)
    expected_macs = sum(op.attrs.get("macs", 0) for op in graph if op.kind != "recurrent") + \
        sum(op.attrs["matmul_flops"] // 2 for op in graph if op.kind == "recurrent")
    assert r.macs == expected_macs


@pytest.mark.parametrize("m,k,n,caps,case", [
    (64, 300, 48, 4096, "reduction split"),    # nk > 1
    (256, 40, 300, 4096, "columns split"),     # nk == 1, nn > 1
    (200, 16, 16, 4096, "weights fit"),        # nk == 1, nn == 1
])
def test_bytes_moved_match_the_tiling(m, k, n, caps, case):
    g = WorkloadGraph("one-fc")
    x = TensorSpec("x", (m, k), "fp16")
    op = g.add(linear("fc", x, out_features=n, bias=False))
    cfg = _cfg(accelerators={"scratchpads": {"input_elements": caps, "weight_elements": caps,
                                             "output_elements": caps}})
    t = plan_operator(op, cfg.accelerators[0].scratchpads).tiling
    nm, nk, nn = t.n_rows, t.n_reduction, t.n_cols
    assert {"reduction split": nk > 1, "columns split": nk == 1 and nn > 1,
            "weights fit": nk == 1 and nn == 1}[case]
    # Loop order m-block, n-block, k-block on one accelerator; a tile equal to the one
    # resident in its scratchpad is not reloaded.
    eb = 2
    in_bytes = (1 if nk == 1 else nn) * m * k * eb
    w_bytes = (1 if nk == 1 and nn == 1 else nm) * k * n * eb
    r = simulate(cfg, g)
    assert r.transfers.input_bytes == in_bytes
    assert r.transfers.weight_bytes == w_bytes
    assert r.transfers.output_bytes == m * n * eb
    assert r.transfers.dram_bytes == in_bytes + w_bytes + m * n * eb


def _elementwise_graph(elements: int) -> WorkloadGraph:
    g = WorkloadGraph("add")
    a = TensorSpec("a", (elements,), "fp16")
    b = TensorSpec("b", (elements,), "fp16")
    g.add(elementwise("add", a, b))
    return g


def test_bandwidth_bound_closed_form_and_saturation():
    elements, tile, bw, lanes, freq = 1_000_000, 1000, 6e9, 1, 1e9
    g = _elementwise_graph(elements)
    spads = {"input_elements": tile, "weight_elements": tile, "output_elements": tile}
    cfg = _cfg(accelerators={"scratchpads": spads, "vector_lanes": lanes, "frequency_hz": freq},
               dram={"bandwidth_bytes_per_s": bw})
    dram_s = 3 * elements * 2 / bw          # a, b in and the sum out, every byte once
    compute_s = elements / lanes / freq     # one add per element
    prep_s = 3 * elements * 2 / 1e18        # tiling a, b and gathering the sum on the CPU
    one = simulate(cfg, g)
    # One single-buffered accelerator: transfers and compute never overlap.
    assert one.latency_s == pytest.approx(dram_s + compute_s + prep_s, rel=1e-12)
    latencies = {}
    for n in (2, 4, 8, 16, 32):
        latencies[n] = simulate(cfg.with_changes(accelerators=n), g).latency_s
    # Bandwidth-bound: the shared DRAM is busy the whole run; one tile's compute and
    # transfers are the most that can stick out.
    tile_s = tile / lanes / freq + 3 * tile * 2 / bw
    for n in (16, 32):
        assert dram_s <= latencies[n] <= dram_s + tile_s
    assert latencies[32] == pytest.approx(latencies[16], rel=1e-3)
    seq = [one.latency_s] + [latencies[n] for n in (2, 4, 8, 16, 32)]
    assert all(b <= a * (1 + 1e-12) for a, b in zip(seq, seq[1:], strict=False))


@pytest.mark.parametrize("config", ["smaug_baseline.toml", "systolic_soc.toml"])
def test_more_accelerators_never_slower(config):
    cfg = load_soc_config(CONFIGS / config)
    g = build_workload("alexnet")
    lat = [simulate(cfg.with_changes(accelerators=n), g).latency_s for n in (1, 2, 4, 8)]
    assert all(b <= a * (1 + 1e-9) for a, b in zip(lat, lat[1:], strict=False))
    assert lat[-1] < lat[0]


def test_acp_removes_flush_and_threads_shrink_prep():
    cfg = load_soc_config(CONFIGS / "smaug_baseline.toml")
    g = build_workload("alexnet")
    base = simulate(cfg, g)
    acp = simulate(cfg.with_changes(policy="acp"), g)
    assert acp.transfers.acp_bytes == base.transfers.dram_bytes
    assert acp.breakdown_s["data_transfer"] < base.breakdown_s["data_transfer"]
    mt = simulate(cfg.with_changes(threads=4), g)
    # Data preparation is split evenly over the threads: exactly a quarter of the prep time.
    assert mt.breakdown_s["data_prep"] == pytest.approx(base.breakdown_s["data_prep"] / 4,
                                                        rel=0.02)


def test_results_export(tmp_path):
    cfg = load_soc_config(CONFIGS / "smaug_baseline.toml")
    r = simulate(cfg, build_workload("paradnn-fc", layers=2, nodes=256, input_size=128,
                                     batch=4))
    files = r.write(tmp_path)
    names = sorted(p.name for p in files)
    assert names == ["breakdown.csv", "breakdown.png", "components.csv", "gantt.png",
                     "operators.csv", "result.json", "timeline.csv"]
    assert (tmp_path / "gantt.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import json

    data = json.loads((tmp_path / "result.json").read_text())
    assert data["summary"]["latency_s"] == pytest.approx(r.latency_s)
    assert len(data["operators"]) == len(r.operators)
    # rendered in a forked worker (as `archsim run` does), the figures are the same bytes
    with FigureRenderer() as renderer:
        r.write(tmp_path / "parallel", renderer=renderer)
    for name in ("gantt.png", "breakdown.png"):
        assert (tmp_path / "parallel" / name).read_bytes() == (tmp_path / name).read_bytes()


# -- the global buffer -------------------------------------------------------------------
def _gb(**over) -> dict:
    return {"capacity_bytes": 1 << 20, "technology": "edram", "bandwidth_bytes_per_s": 32e9,
            "latency_s": 0.0, **over}


def _tensors(graph: WorkloadGraph) -> set[str]:
    return {t.name for op in graph for t in (*op.inputs, *op.outputs)}


@pytest.mark.parametrize("double_buffered", [False, True])
def test_no_resident_tensors_is_the_run_without_a_global_buffer(double_buffered):
    from dataclasses import asdict

    base = load_soc_config(CONFIGS / "smaug_baseline.toml").with_changes(
        double_buffered=double_buffered, acp_hits="footprint", policy="acp")
    data = base.model_dump(exclude_unset=True)
    for acc, given in zip(data["accelerators"], base.accelerators, strict=True):
        acc["kind"] = given.kind
    with_gb = SoCConfig.from_dict({**data, "global_buffer": _gb()})
    g = build_workload("alexnet")
    ref = simulate(base, g)
    for resident in (None, ()):
        r = simulate(with_gb, g, resident=resident)
        assert r.latency_s == ref.latency_s
        assert r.breakdown_s == ref.breakdown_s
        assert r.timeline == ref.timeline
        assert asdict(r.transfers) == asdict(ref.transfers)
        assert r.energy == ref.energy
        assert [o.row() for o in r.operators] == [o.row() for o in ref.operators]
    assert ref.transfers.gb_bytes == 0.0 and ref.global_buffer_energy_j == {}


@pytest.mark.parametrize("m,k,n,caps", [(64, 300, 48, 4096), (256, 40, 300, 4096),
                                        (200, 16, 16, 4096)])
def test_everything_resident_moves_the_tile_bytes_on_chip(m, k, n, caps):
    g = WorkloadGraph("one-fc")
    op = g.add(linear("fc", TensorSpec("x", (m, k), "fp16"), out_features=n, bias=False))
    cfg = _cfg(accelerators={"scratchpads": {"input_elements": caps, "weight_elements": caps,
                                             "output_elements": caps}},
               global_buffer=_gb())
    plan = plan_operator(op, cfg.accelerators[0].scratchpads)
    # The tile bytes one accelerator loads, from the plan: a tile whose key is the one
    # resident in its scratchpad is not loaded again.
    last_in = last_w = None
    in_b = w_b = 0.0
    for job in plan.jobs:
        for st in job.steps:
            in_b += st.input_bytes if st.input_key != last_in else 0.0
            w_b += st.weight_bytes if st.weight_key != last_w else 0.0
            last_in, last_w = st.input_key, st.weight_key
    out_b = sum(j.output_bytes for j in plan.jobs)
    r = simulate(cfg, g, resident=_tensors(g))
    t = r.transfers
    assert t.dram_bytes == 0.0 and t.acp_bytes == 0.0 and t.offchip_bytes == 0.0
    assert t.gb_bytes == in_b + w_b + out_b
    assert t.onchip_read_bytes == {"activation": in_b, "weight": w_b}
    assert t.onchip_write_bytes == {"activation": out_b}
    assert t.offchip_read_bytes == {} and t.offchip_write_bytes == {}
    # Same tile traffic as the host-memory path takes without the buffer.
    assert t.gb_bytes == simulate(cfg, g).transfers.dram_bytes
    # Access energy from the eDRAM table: per bit, scaled by the macro size (45 nm, 0.9 V).
    from archsim.hw.models.memtech import memory_technology

    tech = memory_technology("edram")
    scale = ((1 << 20) * 8 / tech.reference_macro_bits) ** tech.energy_size_exponent
    gbe = r.global_buffer_energy_j
    assert gbe["access"] == pytest.approx(
        8 * ((in_b + w_b) * tech.read_energy_j_per_bit + out_b * tech.write_energy_j_per_bit)
        * scale, rel=1e-12)
    period = cfg.global_buffer.memory_model().refresh_period_s
    assert gbe["refresh_always"] == pytest.approx(
        r.latency_s / period * (1 << 20) * 8 * tech.refresh_energy_j_per_bit * scale,
        rel=1e-12)


def test_resident_tensors_take_the_global_buffer_closed_form():
    elements, tile, bw, gb_bw, gb_lat, lanes, freq = 1_000_000, 1000, 6e9, 20e9, 1e-9, 1, 1e9
    g = _elementwise_graph(elements)
    spads = {"input_elements": tile, "weight_elements": tile, "output_elements": tile}
    cfg = _cfg(accelerators={"scratchpads": spads, "vector_lanes": lanes, "frequency_hz": freq},
               dram={"bandwidth_bytes_per_s": bw},
               global_buffer=_gb(bandwidth_bytes_per_s=gb_bw, latency_s=gb_lat))
    jobs = elements // tile
    compute_s = elements / lanes / freq
    nb = 2 * elements
    everything = simulate(cfg, g, resident={"a", "b", "add.out"})
    # Every byte over the buffer, a latency per transfer (3 per job), no CPU preparation.
    assert everything.latency_s == pytest.approx(3 * nb / gb_bw + 3 * jobs * gb_lat +
                                                 compute_s, rel=1e-9)
    assert everything.breakdown_s["data_prep"] == 0.0
    mixed = simulate(cfg, g, resident={"a"})
    # a over the buffer; b and the sum over the DRAM, tiled and gathered by the CPU.
    assert mixed.latency_s == pytest.approx(nb / gb_bw + jobs * gb_lat + 2 * nb / bw +
                                            compute_s + 2 * nb / 1e18, rel=1e-6)
    t = mixed.transfers
    assert t.gb_bytes == nb and t.dram_bytes == 2 * nb
    assert t.onchip_read_bytes == {"activation": nb}
    assert t.offchip_read_bytes == {"activation": nb}
    assert t.offchip_write_bytes == {"activation": nb}


def test_partly_resident_second_operands_split_by_elements():
    g = WorkloadGraph("add3")
    a, b, c = (TensorSpec(x, (3000,), "fp16") for x in "abc")
    g.add(elementwise("add", a, b, c))
    cfg = _cfg(global_buffer=_gb())
    r = simulate(cfg, g, resident={"c"})
    # b and c are the weight-class operands of the vector unit, half of those bytes each.
    assert r.transfers.gb_bytes == 3000 * 2
    assert r.transfers.dram_bytes == 3 * 3000 * 2


def test_resident_errors_name_the_problem():
    g = _elementwise_graph(64)
    with pytest.raises(ConfigError) as exc:
        simulate(_cfg(), g, resident={"a"})
    assert str(exc.value) == ("field 'resident': resident tensors are held in a global "
                              "buffer, but the SoC config has no [global_buffer] section")
    with pytest.raises(ConfigError) as exc:
        simulate(_cfg(global_buffer=_gb()), g, resident={"a", "nope"})
    assert str(exc.value) == ("field 'resident': resident names tensor 'nope', which graph "
                              "'add' does not have")
