"""RecSSD's near-data gather-reduce accelerator: golden == RTL == a numpy float32 oracle,
RTL cycles == model cycles, and the SSD model's reduce time from the same cycle formula."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.dsl.accel import Run
from archsim.dsl.examples import recssd as example
from archsim.dsl.examples.recssd import (
    group_by_page,
    ndp_inputs,
    ndp_request_program,
    read_results,
    recssd_ndp,
    reference_sls,
)
from archsim.errors import ConfigError, DSLError
from archsim.hw.accel.fp32_add import FloatAdder
from archsim.hw.accel.gather_reduce import GR_OPS, GatherReduce, ndp_reduce_s, pack_pair
from archsim.hw.checks import silence_unused
from archsim.hw.models.ssd import SSDConfig
from archsim.sim.recsys.recssd import locality_trace, recssd_sls
from archsim.sim.rtl.unit_run import run_unit

SHAPES = [  # dim, lanes: 1 beat (every pair stalls), 4 beats (= LATENCY + 2), 8 beats
    (8, 8), (8, 2), (16, 2)]


def _case(dim: int, lanes: int, seed: int, *, pages: int = 3, lookups: int = 20):
    page_words = 8 * dim  # 8 rows per page
    acc = recssd_ndp(dim=dim, lanes=lanes, page_words=page_words, page_slots=pages,
                     max_results=4, max_pairs=64)
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((8 * pages, dim)).astype(np.float32)
    table[0, 0] = np.float32(1e-40)          # a subnormal
    res = rng.integers(0, 4, lookups)
    emb = rng.integers(0, 8 * pages, lookups)
    res[:6] = 2                                # consecutive pairs on one result
    emb[:6] = np.arange(6)
    req = group_by_page(res, emb, dim=dim, page_words=page_words)
    program, layout = ndp_request_program(acc, req, n_results=4)
    return acc, table, req, program, layout


def test_opcodes_agree_with_the_unit():
    assert dict(example.GR_OP_CODES) == dict(GR_OPS)


def test_group_by_page_by_hand():
    # dim 8, 64-word pages: 8 rows per page; embeddings 9, 3, 4 -> pages 1, 0, 0
    req = group_by_page([0, 1, 0], [9, 3, 4], dim=8, page_words=64)
    assert req.pages == (0, 1)
    assert req.pairs == (((1, 3), (0, 4)), ((0, 1),))


def test_cycle_formula_by_hand():
    # dim 8, lanes 2: B = 4 beats, interval max(4, 2 + 2) = 4: 3 pairs -> 2*4 + 4 + 2 + 3
    u = GatherReduce(addr_width=8, dim=8, lanes=2, max_results=4, page_words=64)
    args = dict(op=0, n=3, page_addr=0, pairs_addr=0, acc_addr=0, acc_in_addr=0)
    assert FloatAdder.LATENCY == 2
    assert u.cycles(args) == 17
    assert u.cycles({**args, "op": 1}) == 3 * 4 + 1
    # dim 8 on 8 lanes: one beat, but pairs still 4 cycles apart (the static stall)
    u8 = GatherReduce(addr_width=8, dim=8, lanes=8, max_results=4, page_words=64)
    assert u8.cycles(args) == 2 * 4 + 1 + 2 + 3
    silence_unused(u)
    silence_unused(u8)
    with pytest.raises(ValueError, match=r"dim \(8\) must be a multiple of lanes \(16\)"):
        GatherReduce(addr_width=8, dim=8, lanes=16)
    with pytest.raises(ValueError, match="lanes must be a power of two, not 3"):
        GatherReduce(addr_width=8, dim=9, lanes=3)


@pytest.mark.parametrize(("dim", "lanes"), SHAPES)
def test_unit_pysim_with_stalls_equals_golden_and_cycles(dim, lanes):
    rng = np.random.default_rng(dim + lanes)
    kw = dict(addr_width=8, dim=dim, lanes=lanes, max_results=4, page_words=8 * dim)
    page = rng.standard_normal(8 * dim).astype(np.float32).view(np.uint32).astype(np.int64)
    pairs = np.array([pack_pair(r, p) for r, p in
                      [(0, 1), (0, 2), (1, 2), (1, 3), (1, 5), (3, 7), (0, 0)]], np.int64)
    acc = rng.standard_normal(4 * dim).astype(np.float32).view(np.uint32).astype(np.int64)
    args = dict(op=0, n=len(pairs), page_addr=0, pairs_addr=0, acc_addr=0, acc_in_addr=0)
    bind = {"page": "page", "pairs": "pairs", "acc_in": "acc", "acc": "acc"}
    out = run_unit(GatherReduce(**kw), {"page": page, "pairs": pairs, "acc": acc}, args,
                   bind=bind, stall_probability=0.2, seed=3)
    # oracle: numpy float32 adds in pair order
    want = acc.astype(np.uint32).view(np.float32).reshape(4, dim).copy()
    rows = page.astype(np.uint32).view(np.float32).reshape(8, dim)
    for w in pairs:
        want[int(w) >> 16] = want[int(w) >> 16] + rows[int(w) & 0xFFFF]
    assert np.array_equal(out.buffers["acc"][:4 * dim].astype(np.uint32),
                          want.view(np.uint32).ravel())
    unit = GatherReduce(**kw)
    silence_unused(unit)  # its model and golden views only
    assert out.cycles == unit.cycles(args)
    unit.golden({"page": page, "pairs": pairs, "acc": acc, "acc_in": acc}, args)
    assert np.array_equal(acc, out.buffers["acc"][:4 * dim])


@pytest.mark.parametrize(("dim", "lanes"), SHAPES)
def test_golden_equals_numpy_oracle(dim, lanes):
    acc, table, req, program, layout = _case(dim, lanes, seed=dim * lanes)
    got = read_results(layout, acc.compile().golden(program, ndp_inputs(layout, table)))
    want = reference_sls(req, table, n_results=4)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    # the oracle itself against an independent float64 sum (small rounding only)
    exact = np.zeros((4, dim))
    rows_per_page = req.page_words // dim
    for page, group in zip(req.pages, req.pairs, strict=True):
        for r, row in group:
            exact[r] += table[page * rows_per_page + row]
    assert np.allclose(want, exact, rtol=1e-5, atol=1e-5)


def test_program_shape():
    acc, _, req, program, _ = _case(8, 2, seed=0)
    runs = [s for s in program.steps if isinstance(s, Run)]
    assert runs[0].args["op"] == GR_OPS["clear"]
    assert [s.args["n"] for s in runs[1:]] == [len(g) for g in req.pairs]
    assert list(req.pages) == sorted(req.pages)


@pytest.mark.parametrize("backend", ["pysim", pytest.param("verilator", marks=pytest.mark.slow)])
@pytest.mark.parametrize(("dim", "lanes"), [(8, 8), (16, 2)])
def test_rtl_equals_golden_and_model_cycles(backend, dim, lanes):
    acc, table, req, program, layout = _case(dim, lanes, seed=7)
    compiled = acc.compile()
    inputs = ndp_inputs(layout, table)
    result = compiled.simulate(program, inputs, backend=backend)
    want = reference_sls(req, table, n_results=4)
    assert np.array_equal(read_results(layout, result.buffers).view(np.uint32),
                          want.view(np.uint32))
    assert np.array_equal(result.buffers["result"], compiled.golden(program, inputs)["result"])
    assert result.cycles == compiled.model(program).cycles


def test_ndp_reduce_s_equals_model_unit_cycles():
    acc, _, req, program, _ = _case(16, 2, seed=1)
    report = acc.compile().model(program)
    f = acc.domains["main"].operating_points["nominal"][1]
    reduce_s = ndp_reduce_s(dim=16, lanes=2, clock_hz=f)
    accum = [s for s in report.steps if s.kind == "run"][1:]
    assert len(accum) == len(req.pairs)
    for step, group in zip(accum, req.pairs, strict=True):
        assert reduce_s(len(group), 16) == pytest.approx(step.unit_cycles / f, rel=1e-12)
    assert reduce_s(0, 16) == 0.0
    with pytest.raises(ValueError, match="has dim 16, not 32"):
        reduce_s(3, 32)


def test_recssd_sls_with_the_unit():
    cfg = SSDConfig()
    dim, rows, tables, batch, lookups = 32, 100_000, 2, 4, 20
    idx = np.stack([locality_trace(rows, batch * lookups, reuse_locality=0.3, seed=t)
                    .reshape(batch, lookups) for t in range(tables)])
    calls: list[tuple[int, float]] = []
    unit = ndp_reduce_s(dim=dim, lanes=4, clock_hz=200e6)

    def spy(n: int, d: int) -> float:
        calls.append((n, unit(n, d)))
        return calls[-1][1]

    res = recssd_sls(cfg, idx, rows_per_table=rows, dim=dim, reduce_s=spy)
    assert calls and res.latency_s > 0
    # every call's time is the unit's closed form: (n - 1) * 8 + 8 + 2 + 3 cycles at 200 MHz
    for n, t in calls:
        assert t == pytest.approx(((n - 1) * 8 + 13) / 200e6 if n else 0.0, rel=1e-12)
    # compute = the FTL's cache probes + the unit's reductions + the host's adds
    host_s = (res.host_hits + tables * batch) * dim * cfg.host_add_s
    probe_s = (idx.size - res.host_hits) * cfg.ftl_lookup_s
    assert res.compute_s == pytest.approx(probe_s + host_s + sum(t for _, t in calls),
                                          rel=1e-12)
    arm = recssd_sls(cfg, idx, rows_per_table=rows, dim=dim)
    assert res.compute_s < arm.compute_s


def test_bad_input():
    with pytest.raises(ConfigError, match=r"dim \(8\) must be a multiple of lanes \(3\)"):
        recssd_ndp(dim=8, lanes=3)
    acc, _, req, _, _ = _case(8, 2, seed=0)
    with pytest.raises(ConfigError, match="n_results must be an int in 1..4"):
        ndp_request_program(acc, req, n_results=5)
    with pytest.raises(ConfigError, match="a pair's result_idx is not below"):
        ndp_request_program(acc, req, n_results=1)
    with pytest.raises(DSLError):
        recssd_ndp(dim=8, lanes=2, page_words=64, clock_hz=-1.0)


def test_unit_rejects_bad_arguments_and_pairs():
    u = GatherReduce(addr_width=8, dim=8, lanes=2, max_results=4, page_words=64)
    silence_unused(u)
    args = dict(op=0, n=1, page_addr=0, pairs_addr=0, acc_addr=0, acc_in_addr=0)
    with pytest.raises(ValueError, match="argument 'op' must be one of"):
        u.cycles({**args, "op": 2})
    with pytest.raises(ValueError, match="'page_addr' must be a multiple of lanes"):
        u.cycles({**args, "page_addr": 3})
    with pytest.raises(ValueError, match="acc_in_addr must equal acc_addr"):
        u.cycles({**args, "acc_in_addr": 8})
    with pytest.raises(ValueError, match="'n' must be at most 4 for clear"):
        u.cycles({**args, "op": 1, "n": 5})
    bufs = {"page": np.zeros(64, np.int64), "pairs": np.array([pack_pair(4, 0)], np.int64),
            "acc": np.zeros(32, np.int64)}
    bufs["acc_in"] = bufs["acc"]
    with pytest.raises(ValueError, match="result_idx 4 .< 4 allowed"):
        u.golden(bufs, args)
    with pytest.raises(ValueError, match="page_words .64. must be a multiple of dim .24."):
        GatherReduce(addr_width=8, dim=8 * 3, lanes=8, page_words=64)
    with pytest.raises(ValueError, match="result_idx must be an int in 0..65535"):
        pack_pair(1 << 16, 0)
