"""EdgeBERT's entropy bins against the published thresholds, and the host policy that fills
the DVFS table against hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.hw.models.dvfs import OperatingPoint, VFCurve
from archsim.hw.models.entropy_dvfs import (
    bin_code_range,
    entropy_code,
    entropy_dvfs_table,
    scaled_entropy_bin,
    scaled_entropy_bins,
)

# The PUSH_VF comparisons of harvard-acc/EdgeBERT hw/cmod/Dvfs/Dvfs.h, typed from the paper
# notes (§1.1), not imported from the code under test.
PUBLISHED = np.array([256, 512, 1024, 2048, 3072, 4096, 5120, 6144, 8192, 10240, 12288, 16384,
                      20480, 24576, 28672])
ALL_CODES = np.arange(-(1 << 15), 1 << 15)


def reference_bins(codes: np.ndarray, scale: int) -> np.ndarray:
    # C's integer division truncates toward zero; |code| < 2**15, so the float quotient's
    # truncation is exact.
    scaled = np.trunc(codes / scale).astype(np.int64)
    return np.searchsorted(PUBLISHED, scaled, side="right")


@pytest.mark.parametrize("scale", [1, 2, 3, 7, 126, 255])
def test_bins_equal_searchsorted_on_the_published_thresholds_for_every_code(scale):
    assert np.array_equal(scaled_entropy_bins(ALL_CODES, scale), reference_bins(ALL_CODES, scale))


def test_scalar_bin_and_the_edges():
    assert scaled_entropy_bin(255, 1) == 0 and scaled_entropy_bin(256, 1) == 1
    assert scaled_entropy_bin(28671, 1) == 14 and scaled_entropy_bin(28672, 1) == 15
    assert scaled_entropy_bin(32767, 1) == 15
    # 3 * 256 = 768: 767 // 3 = 255 (bin 0), 768 // 3 = 256 (bin 1)
    assert scaled_entropy_bin(767, 3) == 0 and scaled_entropy_bin(768, 3) == 1
    assert scaled_entropy_bin(-32768, 1) == 0  # a negative quotient is below every edge
    # the authors' top-level enpy_scale 126 reaches only bins 0 and 1 (32767 // 126 = 260)
    assert set(scaled_entropy_bins(np.arange(1 << 15), 126).tolist()) == {0, 1}


@pytest.mark.parametrize("bad", [0, 256, -1, True, 1.5])
def test_enpy_scale_outside_1_to_255_is_rejected(bad):
    with pytest.raises(ConfigError, match=r"enpy_scale must be an int in 1\.\.255"):
        scaled_entropy_bin(100, bad)


def test_non_integer_codes_are_rejected():
    with pytest.raises(ConfigError, match="entropy codes must be integers"):
        scaled_entropy_bins(np.array([0.5]), 1)
    with pytest.raises(ConfigError, match="signed 16-bit"):
        scaled_entropy_bins(np.array([1 << 15]), 1)


@pytest.mark.parametrize("scale", [1, 5, 126])
def test_bin_code_range_is_the_inverse_on_nonnegative_codes(scale):
    codes = np.arange(1 << 15)
    ref = reference_bins(codes, scale)
    for b in range(16):
        first, end = bin_code_range(b, scale)
        assert np.array_equal(np.flatnonzero(ref == b), np.arange(first, end))


def test_entropy_code_rounds_half_up_and_saturates():
    assert entropy_code([0.5 / 1024, 0.49 / 1024, 1.0, math.log(2), 40.0, -1.0]).tolist() == \
        [1, 0, 1024, 710, 32767, 0]


# -- the policy -------------------------------------------------------------------------------

# V-f table (assumed for the test): f_max 500 / 700 / 850 / 1000 MHz at 0.5 / 0.6 / 0.7 / 0.8 V.
CURVE = VFCurve.table([(0.5, 500e6), (0.6, 700e6), (0.7, 850e6), (0.8, 1000e6)])
POINTS = [OperatingPoint(voltage_v=0.5, frequency_hz=400e6),    # 0
          OperatingPoint(voltage_v=0.6, frequency_hz=600e6),    # 1
          OperatingPoint(voltage_v=0.8, frequency_hz=800e6),    # 2: 800 MHz at a higher V
          OperatingPoint(voltage_v=0.7, frequency_hz=800e6),    # 3: 800 MHz, lowest V
          OperatingPoint(voltage_v=0.8, frequency_hz=1000e6),   # 4: the fastest
          OperatingPoint(voltage_v=0.5, frequency_hz=900e6)]    # 5: above f_max(0.5 V)
CASE = dict(operating_points=POINTS, curve=CURVE, cycles_per_layer=1_000_000,
            target_latency_s=13e-3, layer1_time_s=1e-3, switch_time_s=1e-3, enpy_scale=1)


def test_policy_against_the_closed_form():
    # 11 ms are left for L - 1 layers of 1e6 cycles: f_req = (L - 1) * 1e6 / 11e-3 Hz
    exit_layer = [1, 2, 5, 8, 12, 13, 7, 10, 1, 1, 1, 1, 1, 1, 1, 1]
    table = entropy_dvfs_table(exit_layer=exit_layer, **CASE)
    f_req = [(L - 1) * 1e6 / 11e-3 for L in exit_layer]
    assert table.f_req_hz == pytest.approx(f_req)
    # L=1, 2, 5 (0, 90.9, 363.6 MHz): 400 MHz; L=8 (636.4): 800 MHz at 0.7 V, not 0.8 V;
    # L=12 (1000.0): exactly the fastest; L=13 (1090.9): infeasible, the fastest, flagged;
    # L=7 (545.5): 600 MHz; L=10 (818.2): 1000 MHz (900 MHz at 0.5 V is not sustained)
    assert table.entries == (0, 0, 0, 3, 4, 4, 1, 4, 0, 0, 0, 0, 0, 0, 0, 0)
    assert table.feasible == tuple(b != 5 for b in range(16))
    assert not table.all_feasible
    assert table.reachable == (True,) * 16  # scale 1 reaches 28672 <= 32767
    assert table.words().tolist() == list(table.entries)


def test_policy_takes_the_worst_case_over_a_bin():
    # A non-monotone predictor: 12 layers for 0.30..0.31 nats only (inside bin 1,
    # 256..511 codes = 0.25..0.5 nats), else 2.
    def predictor(h):
        return np.where((h >= 0.30) & (h < 0.31), 12.0, 2.0)

    table = entropy_dvfs_table(exit_layer=predictor, max_entropy_nats=math.log(2), **CASE)
    assert table.reachable == (True, True, True) + (False,) * 13  # ln 2 = 710 codes
    assert table.exit_layer[:3] == (2.0, 12.0, 2.0)
    assert all(math.isnan(v) for v in table.exit_layer[3:])
    assert table.entries[:3] == (0, 4, 0)
    assert table.entries[3:] == (4,) * 13  # never used: the fastest point
    assert table.all_feasible


def test_policy_without_time_left_is_infeasible_except_for_layer_one_exits():
    case = dict(CASE, target_latency_s=2e-3)  # t_layer1 + t_switch = 2 ms: nothing left
    table = entropy_dvfs_table(exit_layer=[1] + [3] * 15, **case)
    assert table.entries == (0,) + (4,) * 15
    assert table.feasible == (True,) + (False,) * 15
    assert table.f_req_hz[0] == 0.0 and all(math.isinf(f) for f in table.f_req_hz[1:])


@pytest.mark.parametrize("change, field", [
    ({"cycles_per_layer": 0}, "cycles_per_layer"),
    ({"target_latency_s": -1.0}, "target_latency_s"),
    ({"enpy_scale": 0}, "enpy_scale"),
    ({"operating_points": []}, "operating_points"),
    ({"exit_layer": [1.0] * 15}, "exit_layer"),
    ({"exit_layer": lambda h: np.ones(3)}, "exit_layer"),
])
def test_policy_rejects_bad_arguments_naming_them(change, field):
    args = dict(CASE, exit_layer=[1.0] * 16)
    args.update(change)
    with pytest.raises(ConfigError) as info:
        entropy_dvfs_table(**args)
    assert info.value.field == field
