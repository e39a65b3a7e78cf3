"""The CAMEL training engine: a reversible block's forward, recompute, backward and update --
golden == an independent integer numpy reference, close to float64, RTL == golden in pysim
and Verilator, the model's cycles == the RTL's with the eDRAM's refresh stalls."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.dsl.accel import Run
from archsim.dsl.examples import camel as example
from archsim.dsl.examples.camel import (
    ACT_FRAC_BITS,
    GRAD_FRAC_BITS,
    PHASES,
    WEIGHT_FRAC_BITS,
    BlockShape,
    block_inputs,
    block_layout,
    camel_engine,
    gemm_tile_program,
    read_block_outputs,
    reference_block_fixed,
    reference_block_float,
    reversible_block_program,
    soc_camel,
)
from archsim.errors import ConfigError, DSLError
from archsim.hw.accel.vector import VECTOR_OPS
from archsim.hw.models.memtech import MemoryModel

SMALL = BlockShape(batch=4, d=8)


def block_data(shape: BlockShape, seed: int) -> tuple[np.ndarray, ...]:
    """Seeded float inputs of the scales a trained block sees: unit-variance activations,
    He-scaled weights, small loss gradients."""
    rng = np.random.default_rng(seed)
    b, d = shape.batch, shape.d
    return (rng.normal(0, 1, (b, 2 * d)), rng.normal(0, np.sqrt(1 / d), (d, d)),
            rng.normal(0, np.sqrt(1 / d), (d, d)), rng.normal(0, 0.05, (b, d)),
            rng.normal(0, 0.05, (b, d)))


def errors(fixed: dict[str, np.ndarray], ref: dict[str, np.ndarray]
           ) -> dict[str, tuple[float, float, float]]:
    """Per output: max abs error, max abs error over max |reference|, correlation."""
    out = {}
    for name in example.OUTPUT_FRAC_BITS:
        a, b = fixed[f"{name}_f"].ravel(), ref[f"{name}_f"].ravel()
        err = float(np.abs(a - b).max())
        out[name] = (err, err / float(np.abs(b).max()), float(np.corrcoef(a, b)[0, 1]))
    return out


def test_opcodes_agree_with_the_vector_unit():
    assert {k: VECTOR_OPS[k] for k in example._OP} == example._OP


@pytest.mark.parametrize(("engine", "shape", "seed"), [
    (camel_engine, SMALL, 0), (camel_engine, BlockShape(batch=8, d=4, lr_shift=2), 1),
    (soc_camel, BlockShape(batch=32, d=64), 2)])
def test_golden_equals_the_integer_reference_and_recomputes_x_exactly(engine, shape, seed):
    acc = engine()
    program, layout = reversible_block_program(acc, shape)
    data = block_data(shape, seed)
    out = read_block_outputs(layout, acc.compile().golden(program, block_inputs(layout, *data)))
    ref = reference_block_fixed(*data, lr_shift=shape.lr_shift)
    for name, codes in ref.items():
        assert np.array_equal(out[name], codes), name
    # no sum saturated, so the additive coupling inverts exactly in integers
    lim = (1 << 15) - 1
    assert all(np.abs(out[n]).max() < lim for n in ("y1", "y2", "dx1", "dx2"))
    d = shape.d
    x = np.floor(data[0] * 2 ** ACT_FRAC_BITS + 0.5)
    assert np.array_equal(out["x1r"], x[:, :d]) and np.array_equal(out["x2r"], x[:, d:])
    # against float64 (measured: relative errors 3e-4..2e-3 of the largest value; at batch
    # 32, d 64 two of 2048 ReLU masks of zF flip where |zF| < 0.003, which moves gF, hence
    # dx2, dWF and the new WF, by up to 8 % of their largest value)
    floats = reference_block_float(*data, lr_shift=shape.lr_shift)
    for name, (_, rel_err, corr) in errors(out, floats).items():
        assert corr > 0.999, (name, corr)
        limit = 0.1 if name in ("dx2", "dwf", "wf_new") else 0.005
        assert rel_err < limit, (name, rel_err)


def test_the_fixed_reference_against_float_by_hand_on_one_element():
    # a 4 x 4 block whose products are exact in every format: x = 1, weights 1/4, dy 1/8
    x = np.ones((4, 8))
    w = np.full((4, 4), 0.25)
    dy = np.full((4, 4), 0.125)
    fixed = reference_block_fixed(x, w, w, dy, dy, lr_shift=1)
    # y1 = 1 + relu(4 * 0.25) = 2; y2 = 1 + relu(4 * 2 * 0.25) = 3
    assert (fixed["y1"] == 2 << ACT_FRAC_BITS).all() and (fixed["y2"] == 3 << ACT_FRAC_BITS).all()
    # gG = dy2 = 1/8; dWG = y1^T gG = 4 * 2 * 1/8 = 1; dy1t = 1/8 + 4 * 1/8 * 1/4 = 1/4
    assert (fixed["dwg"] == 1 << (ACT_FRAC_BITS + GRAD_FRAC_BITS)).all()
    assert (fixed["dx1"] == 1 << (GRAD_FRAC_BITS - 2)).all()
    # dx2 = 1/8 + 4 * 1/4 * 1/4 = 3/8; dWF = x2^T gF = 4 * 1 * 1/4 = 1
    assert (fixed["dx2"] == 3 << (GRAD_FRAC_BITS - 3)).all()
    # WG_new = 1/4 - 1 / 2 = -1/4
    assert (fixed["wg_new"] == -(1 << (WEIGHT_FRAC_BITS - 2))).all()
    assert (fixed["wf_new"] == -(1 << (WEIGHT_FRAC_BITS - 2))).all()


@pytest.fixture(scope="module")
def pysim_run():
    engine = camel_engine()
    program, layout = reversible_block_program(engine, SMALL)
    compiled = engine.compile()
    inputs = block_inputs(layout, *block_data(SMALL, 0))
    golden = compiled.golden(program, inputs)
    result = compiled.simulate(program, inputs, backend="pysim")
    return compiled, program, layout, golden, result


def test_rtl_equals_golden_and_model_cycles_in_pysim(pysim_run):
    compiled, program, layout, golden, result = pysim_run
    assert result.error_code == 0
    for name in golden:
        assert np.array_equal(result.buffers[name], golden[name]), name
    report = compiled.model(program)
    assert result.cycles == report.cycles
    # the eDRAM's refresh timer (a whole-buffer 99 % refresh period at 65 C) is short:
    # every third cycle refreshes one of its 64 rows, freezing the units bound to it
    interval = MemoryModel(technology="edram", words=1024, width=16, banks=16,
                           read_ports=2, temperature_c=65.0).refresh_interval_cycles(500e6)
    assert compiled.refresh_interval_cycles("gb") == interval == 3
    assert result.stats["refreshes_gb"] == report.stats["refreshes_gb"] \
        == result.cycles // interval
    assert result.stats["stall_cycles"] > 0
    # the units bound only to SRAM (the GEMM) are never frozen
    gemm = [s for s in report.steps if s.target == "gemm"]
    assert gemm and all(s.stall_cycles == 0 for s in gemm)
    # every phase's steps are accounted for
    assert [layout.phase_steps[p] for p in PHASES] == [(0, 12), (12, 24), (24, 42), (42, 46)]


def test_model_statistics_equal_the_rtl_counters(pysim_run):
    compiled, program, _, _, result = pysim_run
    assert result.stats == compiled.model(program).stats


@pytest.mark.slow
def test_block_in_verilator_equals_golden_and_model():
    engine = camel_engine()
    program, layout = reversible_block_program(engine, SMALL)
    compiled = engine.compile()
    inputs = block_inputs(layout, *block_data(SMALL, 4))
    golden = compiled.golden(program, inputs)
    result = compiled.simulate(program, inputs, backend="verilator")
    for name in golden:
        assert np.array_equal(result.buffers[name], golden[name]), name
    report = compiled.model(program)
    assert result.cycles == report.cycles
    assert result.stats["refreshes_gb"] == report.stats["refreshes_gb"]
    out = read_block_outputs(layout, result.buffers)
    ref = reference_block_fixed(*block_data(SMALL, 4), lr_shift=SMALL.lr_shift)
    assert all(np.array_equal(out[k], v) for k, v in ref.items())
    # a training GEMM tile runs on the same build
    tile = gemm_tile_program(engine, m=4, k=8, n=4)
    rng = np.random.default_rng(5)
    words = {"gb": rng.integers(0, 1 << 16, 64)}
    second = compiled.simulate(tile, words, backend="verilator")
    assert second.build_cached
    tile_golden = compiled.golden(tile, words)
    assert all(np.array_equal(second.buffers[b], tile_golden[b]) for b in tile_golden)
    assert second.cycles == compiled.model(tile).cycles


def test_gemm_tile_golden_against_numpy():
    engine = camel_engine()
    m, k, n = 4, 8, 8
    rng = np.random.default_rng(9)
    at = rng.integers(-2000, 2000, (k, m))
    w = rng.integers(-2000, 2000, (k, n))
    words = np.concatenate([at.ravel(), w.ravel()]) & 0xFFFF
    out = engine.compile().golden(gemm_tile_program(engine, m=m, k=k, n=n), {"gb": words})
    c = at.T @ w
    assert np.array_equal(out["acc"][:m * n], c.ravel() & 0xFFFFFFFF)
    expect = np.clip((c + 2048) // 4096, -32768, 32767).ravel() & 0xFFFF
    assert np.array_equal(out["gb"][k * (m + n):k * (m + n) + m * n], expect)


def test_soc_instance_model_prices_a_block_per_phase():
    engine = soc_camel()
    shape = BlockShape(batch=32, d=64)
    program, layout = reversible_block_program(engine, shape)
    compiled = engine.compile()
    report = compiled.model(program)
    per_phase = example.phase_cycles(report, layout)
    assert list(per_phase) == list(PHASES)
    # forward and recompute run the same two branches (one add becomes a sub)
    assert per_phase["forward"] == per_phase["recompute"]
    # the phases' steps cover the run but for the HALT's few cycles
    assert 0 < report.cycles - sum(per_phase.values()) < 10
    # the GEMM alone: folds * (R + C + K - 2) + R + 2 for each product (closed form)
    def gemm_cycles(m, k, n):
        return (m // 16) * (n // 16) * (16 + 16 + k - 2) + 16 + 2
    fwd = [s for s in report.steps[slice(*layout.phase_steps["forward"])] if s.target == "gemm"]
    assert [s.unit_cycles for s in fwd] == [gemm_cycles(32, 64, 64)] * 2
    assert report.stats["refreshes_gb"] == report.cycles // compiled.refresh_interval_cycles("gb")


def test_layout_fits_and_aliases():
    layout = block_layout(SMALL)
    assert layout.words == {"gb": 14 * 32 + 5 * 64, "spa": 32, "spb": 64, "acc": 3 * 32 + 2 * 64}
    assert layout.places["dx1"] == layout.places["dy1t"]
    program, _ = reversible_block_program(camel_engine(), SMALL, phases=("forward",))
    assert all(isinstance(s, Run) for s in program.steps) and len(program) == 12


def test_errors_have_exact_messages():
    engine = camel_engine()
    with pytest.raises(ConfigError) as info:
        reversible_block_program(engine, BlockShape(batch=6, d=8))
    assert str(info.value) == "field 'batch': batch (6) must be a multiple of the array's " \
        "rows (4)"
    with pytest.raises(ConfigError) as info:
        reversible_block_program(engine, BlockShape(batch=4, d=6))
    assert str(info.value) == "field 'd': d (6) must be a multiple of the array's rows (4) " \
        "and cols (4)"
    with pytest.raises(ConfigError) as info:
        reversible_block_program(engine, BlockShape(batch=4, d=16))
    assert str(info.value) == "field 'gb_words': a block of batch 4 and d 16 needs 2176 " \
        "words of buffer 'gb'; accelerator 'camel' has 1024"
    with pytest.raises(ConfigError, match=r"^field 'phases': phases must be a non-empty "
                       r"prefix of \('forward', 'recompute', 'backward', 'update'\), not "
                       r"\('backward',\) \(allowed: "):
        reversible_block_program(engine, SMALL, phases=("backward",))
    with pytest.raises(ConfigError) as info:
        BlockShape(batch=0, d=8)
    assert str(info.value) == "field 'batch': batch must be a positive int, not 0"
    with pytest.raises(ConfigError) as info:
        BlockShape(batch=4, d=8, lr_shift=60)
    assert str(info.value) == "field 'lr_shift': lr_shift must be an int in 0..53, not 60"
    with pytest.raises(ConfigError) as info:
        camel_engine(rows=4, sp_words=250)
    assert str(info.value) == "field 'sp_words': sp_words (250) must be a multiple of the " \
        "array's rows and cols (4)"
    with pytest.raises(ConfigError) as info:
        camel_engine(cols=0)
    assert str(info.value) == "field 'cols': cols must be a positive int, not 0"
    with pytest.raises(DSLError, match="buffer 'gb': words \\(1000\\) must be a multiple of "
                                       "banks \\(16\\)"):
        camel_engine(gb_words=1000)
    with pytest.raises(ConfigError) as info:
        block_inputs(block_layout(SMALL), np.zeros((4, 8)), *block_data(SMALL, 0)[1:])
    assert str(info.value) == "field 'x': x must have shape (4, 16), not (4, 8)"
    npu_like = example.Accelerator(name="other")
    with pytest.raises(ConfigError) as info:
        reversible_block_program(npu_like, SMALL)
    assert str(info.value) == "field 'engine': accelerator 'other' is not a camel_engine(): " \
        "it has no unit 'gemm'"
