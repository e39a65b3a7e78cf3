"""archsim.dsl.examples.edgebert: the EdgeBERT description and its encoder-layer program.

The real layer (MiniLM-L6 weights, a real sentence) runs in tests/test_sim_studies_edgebert_layer.py.
"""

import pytest

from archsim.dsl.examples.edgebert import (
    ADD_OP,
    EDGEBERT_POINTS,
    GELU_OP,
    MINILM_SHAPE,
    LayerBiases,
    LayerShape,
    edgebert_accelerator,
    encoder_layer_program,
    weight_chunks,
)
from archsim.hw.accel.vector import VECTOR_OPS
from archsim.hw.models.dvfs import default_adpll, default_ldo, default_vf_curve

BIASES = LayerBiases(x=5, wq=0, wk=2, wv=1, wo=3, w1=3, w2=5, q=3, k=5, v=4, p=2, ctx=4,
                     x1=7, h=7)


def test_opcodes_agree_with_the_vector_unit():
    assert ADD_OP == VECTOR_OPS["add"] and GELU_OP == VECTOR_OPS["gelu"]


def test_operating_points_are_realisable_and_as_fast_as_the_curve_allows():
    curve, ldo, adpll = default_vf_curve(), default_ldo(), default_adpll()
    points = list(EDGEBERT_POINTS.values())
    steps = [adpll.frequency(c) for c in range(adpll.codes)]
    for v, f in points:
        v_real = ldo.voltage(ldo.code(v))
        assert v_real == pytest.approx(v, abs=1e-6)
        # the fastest of the ADPLL's frequencies under f_max(V)
        assert f == pytest.approx(max(s for s in steps if s <= curve.f_max(v_real)), rel=1e-6)
    assert [v for v, _ in points] == sorted((v for v, _ in points), reverse=True)
    edgebert_accelerator().compile()  # the compiler's own realisability check


def test_description_follows_spec_h():
    acc = edgebert_accelerator()
    assert acc.buffers["input"].words == 16 * 4096 and acc.buffers["input"].width == 8
    assert acc.buffers["input"].banks == 16
    assert acc.buffers["dvfs_mem"].words == 256
    assert acc.buffers["envm"].technology == "reram"
    assert acc.units["pu"].params == {"size": 16, "acc_width": 16}
    assert set(acc.units) == {"pu", "decode", "to_fixed", "to_adpf", "eadd", "softmax",
                              "layernorm", "entropy", "dvfs"}


def test_weight_chunks_of_minilm():
    # 64 rows of a 384-wide weight (24576 elements) or 16 rows of the 1536-wide W2
    assert weight_chunks(MINILM_SHAPE, "wq") == (6, 64)
    assert weight_chunks(MINILM_SHAPE, "w1") == (24, 64)
    assert weight_chunks(MINILM_SHAPE, "w2") == (24, 16)


def test_layer_program_is_checked_and_fits_program_memory():
    acc = edgebert_accelerator()
    program, layout = encoder_layer_program(acc, BIASES)
    compiled = acc.compile()
    words = compiled.encode(program)  # checks every step against its unit and buffers
    assert len(words) <= acc.program_words
    # 6 + 6 + 6 + 6 + 24 + 24 weight chunks (a decode and a GEMM each), 2 x 12 attention
    # GEMMs, and 10 other steps
    assert len(program) == 2 * 72 + 24 + 10
    # the dense default: every chunk's packed codes follow the previous chunk's
    ends = [p + rows * 16 for chunks in layout.chunks.values() for (_, p, rows) in chunks]
    assert ends[-1] == 4 * 384 * 384 + 2 * 384 * 1536 == layout.addr("envm_end")


def test_each_steps_cycles_are_its_units_closed_form():
    acc = edgebert_accelerator()
    program, _ = encoder_layer_program(acc, BIASES)
    report = acc.compile().model(program)

    # The units' documented closed forms (their docstrings), evaluated here on the args.
    def formula(unit, a):
        if unit == "pu":
            return 16 * ((a["m"] // 16) * (a["n"] // 16) * (a["k"] // 16) + 2) + 2
        if unit == "decode":
            return a["rows"] + 3
        if unit in ("to_fixed", "to_adpf", "eadd"):
            return a["n"] // 16 + 3
        return None  # the SFUs' row passes: checked in tests/test_hw_accel_sfu.py

    checked = 0
    for step, model_step in zip(program.steps, report.steps, strict=True):
        expected = formula(step.unit, step.args)
        if expected is not None:
            assert model_step.unit_cycles == expected, step
            checked += 1
    assert checked == len(program) - 3  # all but softmax and the two LayerNorms
    assert report.exact
    # 256 MACs per cycle in the GEMMs' steady state: the layer's 28.3M MACs take at least
    # 110592 cycles of the processing unit
    pu = sum(s.unit_cycles for s in report.steps if s.target == "pu")
    macs = 16 * (4 * 384 * 384 + 2 * 384 * 1536) + 12 * 2 * 16 * 16 * 32
    assert macs // 256 <= pu < 1.2 * macs / 256


def test_bad_biases_and_shapes_are_named():
    with pytest.raises(ValueError, match=r"^LayerBiases\.h must be an int in 0\.\.7, not 8$"):
        LayerBiases(x=5, wq=0, wk=2, wv=1, wo=3, w1=3, w2=5, q=3, k=5, v=4, p=2, ctx=4,
                    x1=7, h=8)
    with pytest.raises(ValueError, match="does not fit the 64K-element input buffer"):
        encoder_layer_program(edgebert_accelerator(), BIASES,
                              shape=LayerShape(seq=64, d=384, heads=12, d_ff=1536))
