"""HLS run-to-done under the native C++ harness: outputs and cycles equal pysim and the
design's own cycle count."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.dsl import Array, Int, kernel, pipeline
from archsim.dsl.library import gemm_tile_kernel
from archsim.errors import ConfigError
from archsim.sim.rtl.hls_native import HLSBusHarness


@kernel
def scaled_dot(a: Array[Int(8), 16], b: Array[Int(16), 16], reps: Int(8),
               k: Int(40)) -> Int(48):
    acc = Int(48)(0)
    for _r in range(reps):
        for i in pipeline(range(16), ii=1):
            acc += a[i] * b[i] * k
    return acc


@kernel
def wide(a: Array[Int(40), 4]) -> Int(40):
    s = Int(40)(0)
    for i in range(4):
        s += a[i]
    return s


@pytest.mark.slow
def test_native_equals_pysim_and_the_cycle_model():
    rng = np.random.default_rng(1)
    design = gemm_tile_kernel(m=4, k=4, n=4).synthesize(clock_ns=2.0)
    a, w = rng.integers(-128, 128, (4, 4)), rng.integers(-128, 128, (4, 4))
    acc = rng.integers(-(1 << 20), 1 << 20, (4, 4))
    native = design.simulate(a, w, acc, np.zeros((4, 4), np.int64), backend="native")
    assert np.array_equal(native.outputs["c"], acc + a @ w.T)  # numpy
    assert native.cycles == design.cycles(a, w, acc, None)
    dot = scaled_dot.synthesize(clock_ns=2.0)
    x, y = rng.integers(-128, 128, 16), rng.integers(-(1 << 15), 1 << 15, 16)
    k = -(1 << 35) + 12345  # a 40-bit scalar: both bus words carry it
    native = dot.simulate(x, y, 3, k, backend="native")
    expected = 3 * int(np.dot(x.astype(object), y.astype(object))) * k
    wrapped = (expected + (1 << 47)) % (1 << 48) - (1 << 47)  # Int(48) wraps
    assert native.value == wrapped == dot.simulate(x, y, 3, k, backend="pysim").value
    assert native.cycles == dot.cycles(x, y, 3, k)


def test_arrays_wider_than_a_bus_word_are_refused():
    with pytest.raises(ConfigError, match="array 'a' has 40-bit elements"):
        HLSBusHarness(wide.synthesize(clock_ns=2.0))
