"""``archsim.sim.soc.cpu_calibration``: SMAUG's tiling copies replayed and the copy-cost fit.

Expected values come from numpy slicing, exhaustive coverage counts and closed forms worked
here by hand; no test asserts a wall-clock time.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from archsim.compilers.graph.cnn import (
    activation,
    conv2d,
    data_movement,
    elementwise,
    linear,
    pool2d,
    recurrent,
)
from archsim.errors import ConfigError
from archsim.operators import TensorSpec
from archsim.sim.soc.config import ScratchpadConfig
from archsim.sim.soc.cpu_calibration import (
    CopyTiming,
    CpuScaling,
    LinearFit,
    NetworkPrep,
    TileCopy,
    copy_tile,
    effective_bandwidth,
    fit_copy_cost,
    graph_copies,
    host_cpu_hz,
    network_prep,
    tile_copies,
    time_copies,
    untile,
)
from archsim.sim.soc.tiling import plan_operator

# Small scratchpads so that the small operators below are cut in several tiles per axis.
SPADS = ScratchpadConfig(input_elements=600, weight_elements=400, output_elements=300)


def _conv(stride: int = 1, padding: int = 1):
    x = TensorSpec("x", (1, 6, 9, 9), "fp16")
    return conv2d("c", x, out_channels=10, kernel=3, stride=stride, padding=padding)


def _fc():
    x = TensorSpec("x", (3, 50), "fp16")
    return linear("fc", x, out_features=20, bias=False)


@pytest.mark.parametrize("op", [_conv(), _conv(stride=2, padding=0), _fc()],
                         ids=["conv-s1", "conv-s2", "fc"])
def test_tiles_are_slices_and_cover_the_tensors(op):
    copies = tile_copies(op, SPADS)
    plan = plan_operator(op, SPADS)
    assert plan.num_tiles > 1  # the small scratchpads force tiling
    rng = np.random.default_rng(0)
    by_tensor: dict[str, list[TileCopy]] = {}
    for c in copies:
        by_tensor.setdefault(c.tensor, []).append(c)
    for name, cs in by_tensor.items():
        full = rng.standard_normal(cs[0].shape).astype(np.float16)
        count = np.zeros(cs[0].shape, dtype=int)
        for c in cs:
            tile = copy_tile(full, c)
            # The tile equals numpy's fancy-indexed region and is a contiguous fp16 buffer.
            ref = full[np.ix_(*[np.arange(a, b) for a, b in c.region])]
            assert tile.flags["C_CONTIGUOUS"] and tile.dtype == np.float16
            np.testing.assert_array_equal(tile, ref)
            count[c.slices] += 1
        if name in ("weight", "output"):
            # Weights are tiled once each; output tiles partition the output exactly.
            assert (count == 1).all(), name
        else:
            # Every input element is in some tile (halo rows may be copied twice).
            assert (count >= 1).all()
    # Bytes: each weight element once (2 bytes, fp16), the output once.
    w_spec = next(t for t in op.inputs if t.role == "weight")
    w_bytes = sum(c.nbytes for c in copies if c.role == "weight")
    assert w_bytes == 2 * w_spec.numel
    assert sum(c.nbytes for c in copies if c.role == "output") == 2 * op.outputs[0].numel
    # The copies move what the SoC simulator charges the data-preparation threads.
    assert math.isclose(sum(c.nbytes for c in copies if c.role != "output"), plan.prep_bytes)


def test_untile_reassembles_the_output():
    op = _conv()
    outs = [c for c in tile_copies(op, SPADS) if c.role == "output"]
    rng = np.random.default_rng(1)
    y = rng.standard_normal(outs[0].shape).astype(np.float16)
    rebuilt = np.zeros_like(y)
    for c in outs:
        untile(np.ascontiguousarray(y[c.slices]), c, rebuilt)
    np.testing.assert_array_equal(rebuilt, y)


def test_copy_into_given_buffer_and_bad_shapes():
    c = TileCopy("op", "input", "x", (4, 5), ((1, 3), (0, 2)))
    x = np.arange(20, dtype=np.float16).reshape(4, 5)
    buf = np.empty((2, 2), dtype=np.float16)
    assert copy_tile(x, c, buf) is buf
    np.testing.assert_array_equal(buf, [[5, 6], [10, 11]])
    with pytest.raises(ConfigError, match="field 'tensor'"):
        copy_tile(np.zeros((3, 5), np.float16), c)
    with pytest.raises(ConfigError, match="field 'region'.*outside"):
        TileCopy("op", "input", "x", (4, 5), ((1, 5), (0, 2)))
    with pytest.raises(ConfigError, match="field 'role'.*allowed: 'input', 'output', 'weight'"):
        TileCopy("op", "bias", "x", (4,), ((0, 1),))


def test_fit_recovers_an_exact_linear_relation():
    x = np.array([1_000, 4_096, 20_000, 65_536, 131_072], dtype=float)
    y = 0.7e-6 + x / 9.5e9
    f = fit_copy_cost(x, y)
    assert math.isclose(f.bytes_per_s, 9.5e9, rel_tol=1e-9)
    assert math.isclose(f.fixed_s, 0.7e-6, rel_tol=1e-6)
    assert f.r2 == pytest.approx(1.0, abs=1e-12) and f.samples == 5
    assert f.slope_stderr_s_per_byte == pytest.approx(0.0, abs=1e-20)


def test_fit_closed_form_with_noise():
    # x = [0, 1, 2], y = [1, 3, 4] worked by hand: x mean 1, y mean 8/3, Sxx = 2, Sxy = 3;
    # slope 3/2, intercept 8/3 - 3/2 = 7/6; residuals -1/6, 1/3, -1/6, SSE = 1/6, one degree
    # of freedom: sigma^2 = 1/6; var(slope) = sigma^2 / Sxx = 1/12;
    # var(intercept) = sigma^2 (1/n + xbar^2 / Sxx) = 5/36; SST = 42/9, R^2 = 1 - 1/28.
    f = fit_copy_cost([0, 1, 2], [1, 3, 4])
    assert f.bytes_per_s == pytest.approx(2 / 3)
    assert f.fixed_s == pytest.approx(7 / 6)
    assert f.slope_stderr_s_per_byte == pytest.approx(math.sqrt(1 / 12))
    assert f.fixed_stderr_s == pytest.approx(math.sqrt(5) / 6)
    assert f.r2 == pytest.approx(27 / 28)
    # +-2 standard errors on the slope, as bandwidths.
    assert f.bytes_per_s_low == pytest.approx(1 / (1.5 + 2 * math.sqrt(1 / 12)))
    assert f.bytes_per_s_high == pytest.approx(1 / (1.5 - 2 * math.sqrt(1 / 12)))


@pytest.mark.parametrize(("x", "y", "match"), [
    ([1, 2], [1, 2], "at least 3"),
    ([5, 5, 5], [1, 2, 3], "same size"),
    ([1, 2, 3], [3, 2, 1], "not positive"),
    ([1, 2, 3], [1, 2], "one length"),
    ([1, 2, float("nan")], [1, 2, 3], "finite"),
])
def test_fit_rejects_bad_samples(x, y, match):
    with pytest.raises(ConfigError, match=match):
        fit_copy_cost(x, y)


def test_effective_bandwidth_folds_the_fixed_cost():
    f = LinearFit(bytes_per_s=10e9, fixed_s=1e-6, slope_stderr_s_per_byte=0.0,
                  fixed_stderr_s=0.0, r2=1.0, samples=3)
    # 1 MB in 100 copies: 100 us + 100 us = 200 us -> 5 GB/s.
    assert effective_bandwidth(f, nbytes=1e6, copies=100) == pytest.approx(5e9)
    with pytest.raises(ConfigError, match="field 'nbytes'"):
        effective_bandwidth(f, nbytes=0, copies=1)


def test_cpu_scaling_by_clock():
    s = CpuScaling(host_hz=2.6e9, target_hz=2.5e9)
    assert s.factor == pytest.approx(2.5 / 2.6)
    assert s.bandwidth(13e9) == pytest.approx(12.5e9)
    assert s.fixed_time(1e-6) == pytest.approx(1.04e-6)
    with pytest.raises(ConfigError, match="field 'target_hz'"):
        CpuScaling(host_hz=1e9, target_hz=0)


def test_host_cpu_hz(tmp_path):
    p = tmp_path / "cpuinfo"
    p.write_text("processor\t: 0\nmodel name\t: X\ncpu MHz\t\t: 2596.094\n")
    assert host_cpu_hz(p) == pytest.approx(2.596094e9)
    p.write_text("processor\t: 0\n")
    with pytest.raises(ConfigError, match="no 'cpu MHz'"):
        host_cpu_hz(p)
    with pytest.raises(ConfigError, match="cannot read"):
        host_cpu_hz(tmp_path / "missing")


def test_time_copies_and_record_round_trip():
    ops = [_conv(), _fc()]
    copies = graph_copies(ops, SPADS)
    timings = time_copies(copies, repeats=3, evict_bytes=1 << 16)
    assert [(t.op_name, t.role, t.nbytes) for t in timings] == \
        [(c.op_name, c.role, c.nbytes) for c in copies]
    assert all(t.repeats == 3 and t.median_s == sorted(t.runs_s)[1] for t in timings)
    with pytest.raises(ConfigError, match="field 'repeats'"):
        time_copies(copies, repeats=0)
    with pytest.raises(ConfigError, match="field 'evict_bytes'"):
        time_copies(copies, evict_bytes=-1)


def test_network_prep_from_synthetic_timings():
    # Four copies at t = 1 us + bytes / 5 GB/s in pass 0, twice that in pass 1, three times
    # in pass 2: medians are pass 1's; quartiles 1.5x and 2.5x the base.
    sizes = [1_000, 10_000, 50_000, 100_000]
    base = [1e-6 + b / 5e9 for b in sizes]
    timings = [CopyTiming("op", "input", b, 2 * t, (t, 2 * t, 3 * t))
               for b, t in zip(sizes, base, strict=True)]
    prep = network_prep("net", timings)
    assert prep.copies == 4 and prep.nbytes == sum(sizes)
    assert prep.total_s == pytest.approx(2 * sum(base))
    assert prep.total_q25_s == pytest.approx(1.5 * sum(base))
    assert prep.total_q75_s == pytest.approx(2.5 * sum(base))
    assert prep.fit.bytes_per_s == pytest.approx(2.5e9)  # medians: 2 us + bytes / 2.5 GB/s
    assert prep.fit.fixed_s == pytest.approx(2e-6)
    # OLS with an intercept: the fit's prediction of the total equals the measured total.
    assert prep.fit.predict_s(prep.nbytes, prep.copies) == pytest.approx(prep.total_s)
    assert prep.achieved_bytes_per_s == pytest.approx(sum(sizes) / (2 * sum(base)))
    assert NetworkPrep.from_record(prep.to_record()) == prep
    with pytest.raises(ConfigError, match="lacks 'fit'"):
        NetworkPrep.from_record({"name": "x"})


def test_network_prep_fallback_slope_when_no_slope_fits():
    # Larger copies faster than smaller ones: no positive slope of their own.
    sizes = [64, 64, 256, 256]
    secs = [8e-6, 9e-6, 7e-6, 8e-6]
    timings = [CopyTiming("op", "input", b, t, (t, t, t)) for b, t in zip(sizes, secs,
                                                                          strict=True)]
    with pytest.raises(ConfigError, match="not positive"):
        network_prep("lstm", timings)
    other = LinearFit(bytes_per_s=5e9, fixed_s=1e-6, slope_stderr_s_per_byte=1e-12,
                      fixed_stderr_s=1e-8, r2=0.5, samples=100)
    prep = network_prep("lstm", timings, fallback_fit=other)
    assert prep.fit.bytes_per_s == 5e9
    assert prep.fit.slope_stderr_s_per_byte == 1e-12
    # The per-copy cost is the mean of t - bytes / 5 GB/s, so the fit predicts the total.
    expected_fixed = sum(t - b / 5e9 for b, t in zip(sizes, secs, strict=True)) / 4
    assert prep.fit.fixed_s == pytest.approx(expected_fixed, rel=1e-12)
    assert prep.fit.predict_s(prep.nbytes, prep.copies) == pytest.approx(sum(secs))
    # A network whose own fit works ignores the fallback.
    good = [CopyTiming("op", "input", b, 1e-6 + b / 2e9, (1e-6 + b / 2e9,) * 3)
            for b in (1_000, 10_000, 100_000)]
    assert network_prep("n", good, fallback_fit=other).fit.bytes_per_s == pytest.approx(2e9)


def test_unsupported_kind_is_named():
    op = _conv()
    fake = type(op)(name="f", kind="fused", inputs=op.inputs, outputs=op.outputs,
                    flops=op.flops, attrs=op.attrs)
    with pytest.raises(ConfigError, match="field 'kind'.*'fused'.*allowed"):
        tile_copies(fake, SPADS)


def _other_kinds():
    x = TensorSpec("x", (1, 8, 12, 12), "fp16")
    y = TensorSpec("y", (1, 8, 12, 12), "fp16")
    seq = TensorSpec("s", (1, 7, 24), "fp16")
    return [pool2d("p", x, kernel=2), elementwise("e", x, y), activation("a", x),
            data_movement("r", x, (1, 8 * 144)), recurrent("l", seq, hidden=16)]


@pytest.mark.parametrize("op", _other_kinds(), ids=lambda op: op.kind)
def test_other_kinds_move_what_the_simulator_charges(op):
    plan = plan_operator(op, SPADS)
    copies = tile_copies(op, SPADS)
    if plan.target == "cpu":  # one contiguous copy of the output
        assert [c.nbytes for c in copies] == [plan.cpu_bytes]
        return
    assert math.isclose(sum(c.nbytes for c in copies if c.role != "output"), plan.prep_bytes)
    assert math.isclose(sum(c.nbytes for c in copies if c.role == "output"), plan.output_bytes)
    outs = [c for c in copies if c.role == "output"]
    count = np.zeros(outs[0].shape, dtype=int)
    for c in outs:
        count[c.slices] += 1
    assert (count == 1).all()  # output tiles partition the output


def test_attention_copies_match_the_plan():
    from archsim.compilers.graph import build_workload

    spads = ScratchpadConfig()
    ops = [op for op in build_workload("fathom-seq2seq", batch=1, dtype="fp16")
           if op.kind == "attention"]
    assert ops
    for op in ops:
        plan = plan_operator(op, spads)
        copies = tile_copies(op, spads)
        assert math.isclose(sum(c.nbytes for c in copies if c.role != "output"),
                            plan.prep_bytes)
        assert math.isclose(sum(c.nbytes for c in copies if c.role == "output"),
                            plan.output_bytes)
