"""LLC capacity behind the coherent port, double-buffered scratchpads, tile-aligned tiling."""

from __future__ import annotations

import math

import pytest

from archsim.compilers.graph import TensorSpec, WorkloadGraph, linear
from archsim.errors import ConfigError
from archsim.sim.soc import ScratchpadConfig, SoCConfig, best_tiling, plan_operator, simulate


def _fc(m: int, k: int, n: int, dtype: str = "fp16") -> WorkloadGraph:
    g = WorkloadGraph("fc")
    g.add(linear("fc", TensorSpec("x", (m, k), dtype), out_features=n, bias=False))
    return g


def _acp_config(llc_bytes: int, hits: str) -> SoCConfig:
    return SoCConfig.from_dict({
        "accelerators": [{"kind": "smv"}],
        "host_memory": {"inputs": "acp", "weights": "acp", "outputs": "acp"},
        "llc": {"size_bytes": llc_bytes, "acp_hits": hits}})


def _busy(result, resource: str) -> list[float]:
    return [e - s for r, _, _, s, e in result.timeline if r == resource]


def test_acp_hits_when_the_footprint_fits_the_llc():
    # 8x64 input, 64x32 weight, 8x32 output of fp16: 1024 + 4096 + 512 bytes, one tile each.
    footprint = (8 * 64 + 64 * 32 + 8 * 32) * 2
    g = _fc(8, 64, 32)
    hit = simulate(_acp_config(footprint, "footprint"), g)
    assert hit.transfers.llc_miss_bytes == 0 and hit.transfers.acp_bytes == footprint
    assert _busy(hit, "dram") == []
    # Each ACP transfer: setup 0.5 us + port latency 20 ns + bytes at 25.6 GB/s.
    want = sorted(0.5e-6 + 20e-9 + b / 25.6e9 for b in (1024, 4096, 512))
    assert sorted(_busy(hit, "acp")) == pytest.approx(want, rel=1e-12)

    miss = simulate(_acp_config(footprint - 1, "footprint"), g)
    assert miss.transfers.llc_miss_bytes == footprint == miss.transfers.acp_bytes
    assert _busy(miss, "acp") == []
    # A miss goes through the port to the DRAM: + 100 ns DRAM latency, at min(25.6, 25.6) GB/s.
    want = sorted(0.5e-6 + 20e-9 + 100e-9 + b / 25.6e9 for b in (1024, 4096, 512))
    assert sorted(_busy(miss, "dram")) == pytest.approx(want, rel=1e-12)
    # DRAM energy: 1.3 nJ per 64 bits (Horowitz) for the missed bytes; LLC energy unchanged.
    assert miss.energy.dram_j == pytest.approx(footprint * 8 * 1.3e-9 / 64)
    assert miss.energy.llc_j == pytest.approx(hit.energy.llc_j)
    assert miss.latency_s > hit.latency_s

    always = simulate(_acp_config(16, "always"), g)
    assert always.transfers.llc_miss_bytes == 0


def test_acp_hits_config_error():
    with pytest.raises(ConfigError) as exc:
        SoCConfig.from_dict({"accelerators": [{"kind": "smv"}], "llc": {"acp_hits": "lru"}})
    assert exc.value.field == "llc.acp_hits"
    assert sorted(exc.value.allowed) == ["always", "footprint"]


def test_double_buffered_tiles_fit_half_the_scratchpads():
    op = next(iter(_fc(64, 512, 256)))
    full = ScratchpadConfig(input_elements=4096, weight_elements=8192, output_elements=2048)
    half = ScratchpadConfig(input_elements=2048, weight_elements=4096, output_elements=1024)
    db = full.model_copy(update={"double_buffered": True})
    assert plan_operator(op, db).tiling == plan_operator(op, half).tiling
    assert plan_operator(op, db).tiling != plan_operator(op, full).tiling


def test_double_buffering_hides_compute_under_the_next_load():
    """One job of four reduction steps on a 1x1 systolic array: loads take longer than the
    compute, so double buffering hides all but the last step's compute."""
    m, k, n = 2, 64, 2
    spads = {"input_elements": 32, "weight_elements": 32, "output_elements": 32}
    acc = {"kind": "systolic", "rows": 1, "cols": 1, "dataflow": "os"}
    single = SoCConfig.from_dict({"accelerators": [{**acc, "scratchpads": spads}]})
    double = SoCConfig.from_dict({"accelerators": [{**acc, "scratchpads": {
        "input_elements": 64, "weight_elements": 64, "output_elements": 64,
        "double_buffered": True}}]})
    g = _fc(m, k, n)
    a, b = simulate(single, g), simulate(double, g)
    plan = plan_operator(next(iter(g)), double.accelerators[0].scratchpads)
    assert (len(plan.jobs), len(plan.jobs[0].steps)) == (1, 4)  # 2x16 by 16x2 blocks
    # SCALE-Sim OS on a 1x1 array: ceil(2/1) * ceil(2/1) folds of 1 + 1 + 16 - 2 cycles.
    compute_s = 4 * (1 + 1 + 16 - 2) / 1e9
    load_s = 2 * (0.5e-6 + 100e-9 + 64 / 25.6e9)  # input and weight tiles of 64 bytes
    assert load_s > compute_s
    assert a.latency_s - b.latency_s == pytest.approx(3 * compute_s, rel=1e-9)
    assert a.transfers.total_bytes == b.transfers.total_bytes
    for r in (a, b):
        assert sum(r.breakdown_s.values()) == pytest.approx(r.latency_s, rel=1e-12)


def test_double_buffering_conserves_work_on_a_pool():
    cfg = SoCConfig.from_dict({"accelerators": [{"kind": "smv", "count": 3, "scratchpads": {
        "double_buffered": True}}]})
    g = _fc(96, 1024, 512)
    r = simulate(cfg, g)
    plan = plan_operator(next(iter(g)), cfg.accelerators[0].scratchpads)
    assert r.macs == 96 * 1024 * 512 == sum(st.macs for j in plan.jobs for st in j.steps)
    assert r.operators[0].jobs == len(plan.jobs) > 3
    assert r.transfers.output_bytes == pytest.approx(96 * 512 * 2)
    assert sum(r.breakdown_s.values()) == pytest.approx(r.latency_s, rel=1e-12)


def _invocations(plan, tile=16) -> int:
    return sum(math.ceil(m / tile) * math.ceil(k / tile) * math.ceil(n / tile)
               for job in plan.jobs for (m, k, n) in (st.gemm for st in job.steps))


def test_tile_aligned_tiling_avoids_partial_kernel_tiles():
    op = next(iter(_fc(1, 9216, 4096, "int8")))
    spads = ScratchpadConfig(element_bytes=1)
    plain = plan_operator(op, spads)
    aligned = plan_operator(op, spads, align=(16, 16, 16))
    t = aligned.tiling
    assert t.reduction % 16 == 0 and t.cols % 16 == 0
    assert plain.tiling.cols % 16 != 0
    assert _invocations(aligned) < _invocations(plain)
    assert sum(st.macs for j in aligned.jobs for st in j.steps) == 9216 * 4096


def test_aligned_search_falls_back_when_nothing_aligned_fits():
    kw = {"rows": 4, "reduction": 40, "cols": 4, "in_per_row": 1, "in_fixed_rows": 1,
          "w_per": 1, "out_per_row": 1, "in_cap": 8, "w_cap": 8, "out_cap": 8}
    assert best_tiling(**kw, reduction_align=16) == best_tiling(**kw)
    assert best_tiling(**kw, reduction_align=16) is not None


def test_with_changes_switches_double_buffering_and_llc_model():
    base = SoCConfig.from_dict({"accelerators": [{"kind": "smv", "count": 2},
                                                 {"kind": "systolic"}]})
    cfg = base.with_changes(double_buffered=True, acp_hits="footprint")
    assert all(a.scratchpads.double_buffered for a in cfg.accelerators)
    assert cfg.llc.acp_hits == "footprint" and cfg.accelerators[0].count == 2
    with pytest.raises(ConfigError) as exc:
        base.with_changes(acp_hits="never")
    assert exc.value.field == "llc.acp_hits"
