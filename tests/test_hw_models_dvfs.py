"""archsim.hw.models.dvfs: V-f curves, the LDO and ADPLL models, DVFS transitions.

Expected values come from closed forms written out here, brute-force searches over the code
tables, and parameters chosen before the fit.
"""

import math
import re

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.hw.models.dvfs import (
    DVFS_DEFAULTS,
    DVFS_DEFAULTS_SOURCES,
    ADPLLModel,
    DVFSModel,
    LDOModel,
    OperatingPoint,
    VFCurve,
    cycles_for,
    default_adpll,
    default_ldo,
    default_vf_curve,
    dynamic_energy_scale,
    leakage_power_scale,
)


def small_ldo(**kw):
    args = dict(vin_v=1.0, vout_min_v=0.5, vout_max_v=0.9, step_v=0.01, dropout_v=0.1,
                quiescent_a=1e-4, settle_s=20e-9, settle_s_per_v=200e-9,
                output_capacitance_f=2e-9)
    args.update(kw)
    return LDOModel(**args)


# ---------------------------------------------------------------------------- V-f curve

@pytest.mark.parametrize("k, vt, alpha", [(2.0e9, 0.30, 1.30), (5.0e8, 0.42, 1.85),
                                          (1.2e9, 0.20, 1.05)])
def test_alpha_power_fit_recovers_the_parameters(k, vt, alpha):
    v = np.linspace(0.5, 1.1, 9)
    points = [(float(x), float(k * (x - vt) ** alpha / x)) for x in v]
    fit = VFCurve.fit(points)
    assert fit.kind == "alpha-power"
    assert fit.k == pytest.approx(k, rel=1e-6)
    assert fit.v_t_v == pytest.approx(vt, rel=1e-6)
    assert fit.alpha == pytest.approx(alpha, rel=1e-6)


def test_alpha_power_closed_form_and_below_threshold():
    c = VFCurve.alpha_power(k=1.5e9, v_t_v=0.35, alpha=1.4)
    assert c.f_max(0.75) == pytest.approx(1.5e9 * 0.4 ** 1.4 / 0.75, rel=1e-12)
    assert c.f_max(0.35) == 0.0
    assert c.f_max(0.2) == 0.0


def test_table_interpolates_linearly_between_points():
    c = VFCurve.table([(0.5, 200e6), (0.6, 400e6), (0.8, 1000e6)])
    assert c.f_max(0.55) == pytest.approx(300e6)
    assert c.f_max(0.7) == pytest.approx(700e6)    # halfway along the 0.6-0.8 segment
    assert c.f_max(0.8) == pytest.approx(1000e6)
    with pytest.raises(ConfigError, match=re.escape(
            "voltage 0.9 V is outside the V-f table's range 0.5..0.8 V")):
        c.f_max(0.9)


def test_check_rejects_an_overclocked_point_naming_v_f_and_fmax():
    c = VFCurve.alpha_power(k=2e9, v_t_v=0.3, alpha=1.3)
    fmax = 2e9 * 0.3 ** 1.3 / 0.6
    ok = OperatingPoint(0.6, fmax * 0.999)
    assert c.check(ok) is ok
    with pytest.raises(ConfigError) as err:
        c.check(OperatingPoint(0.6, 900e6))
    text = str(err.value)
    assert "0.6 V" in text and "900 MHz" in text and f"{fmax / 1e6:.6g} MHz" in text
    assert err.value.field == "frequency_hz"


def test_table_check_uses_interpolated_fmax():
    c = VFCurve.table([(0.5, 200e6), (0.8, 800e6)])
    c.check(OperatingPoint(0.65, 500e6))
    with pytest.raises(ConfigError, match="overclocked: 501 MHz exceeds f_max = 500 MHz"):
        c.check(OperatingPoint(0.65, 501e6))


@pytest.mark.parametrize("kwargs, message", [
    (dict(points=[(0.5, 1e8)]), "VFCurve needs at least 2 points, not 1"),
    (dict(points=[(0.6, 1e8), (0.5, 2e8)]),
     "VFCurve points must have strictly rising voltages: 0.5 V after 0.6 V"),
    (dict(points=[(0.5, 2e8), (0.6, 1e8)]),
     "VFCurve f_max must not fall as voltage rises: 1e+08 Hz at 0.6 V after 2e+08 Hz at 0.5 V"),
    (dict(k=1e9, v_t_v=0.3), "VFCurve needs points, or all of k, v_t_v and alpha"),
    (dict(points=[(0.5, 1e8), (0.6, 2e8)], alpha=1.3),
     "VFCurve takes either points or (k, v_t_v, alpha), not both"),
    (dict(k=-1.0, v_t_v=0.3, alpha=1.3), "k must be > 0, not -1.0"),
])
def test_vf_curve_bad_arguments(kwargs, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        VFCurve(**kwargs)


def test_fit_needs_three_points():
    with pytest.raises(ConfigError, match=re.escape("VFCurve.fit needs at least 3 points, "
                                                    "not 2")):
        VFCurve.fit([(0.5, 1e8), (0.6, 2e8)])


def test_operating_point_bad_arguments():
    with pytest.raises(ConfigError, match=re.escape("voltage_v must be > 0, not 0")):
        OperatingPoint(0, 1e8)
    with pytest.raises(ConfigError, match=re.escape("frequency_hz must be a finite number, "
                                                    "not 'fast'")):
        OperatingPoint(0.5, "fast")


# ---------------------------------------------------------------------------- LDO

def test_ldo_codes_and_voltage_closed_form():
    ldo = small_ldo()
    assert ldo.codes == 41 and ldo.code_width == 6
    for c in range(ldo.codes):
        assert ldo.voltage(c) == pytest.approx(0.5 + 0.01 * c, abs=1e-12)


def test_ldo_code_is_the_lowest_code_at_or_above_the_target():
    ldo = small_ldo()
    voltages = [0.5 + 0.01 * c for c in range(ldo.codes)]
    rng = np.random.default_rng(1)
    targets = list(rng.uniform(0.5, 0.9, 200)) + voltages
    for t in targets:
        brute = min(c for c, v in enumerate(voltages) if v >= t - 1e-9)
        assert ldo.code(float(t)) == brute, t


def test_ldo_efficiency_and_input_power_closed_forms():
    ldo = small_ldo()
    for vout, i_load in [(0.6, 1e-3), (0.8, 0.05), (0.9, 0.0), (0.5, 2e-2)]:
        eta = vout / 1.0 * i_load / (i_load + 1e-4)
        assert ldo.efficiency(vout, i_load) == pytest.approx(eta, rel=1e-12)
        p_load = vout * i_load
        p_in = 1.0 * (i_load + 1e-4)
        assert ldo.input_power_w(vout, p_load) == pytest.approx(p_in, rel=1e-12)
    with pytest.raises(ConfigError, match=re.escape(
            "output 0.95 V is above vin_v - dropout_v = 0.9 V")):
        ldo.efficiency(0.95, 1e-3)


def test_ldo_settling_and_transition_energy_closed_forms():
    ldo = small_ldo()
    assert ldo.settling_s(0.6, 0.6) == 0.0
    assert ldo.settling_s(0.6, 0.8) == pytest.approx(20e-9 + 200e-9 * 0.2)
    assert ldo.settling_s(0.8, 0.6) == pytest.approx(20e-9 + 200e-9 * 0.2)
    assert ldo.settling_s_codes(3, 13) == pytest.approx(20e-9 + 200e-9 * 0.1)
    assert ldo.transition_energy_j(0.6, 0.8) == pytest.approx(2e-9 * 0.2 * 1.0)
    assert ldo.transition_energy_j(0.8, 0.6) == 0.0


@pytest.mark.parametrize("kwargs, message", [
    (dict(vout_max_v=0.5), "vout_max_v (0.5 V) must be > vout_min_v (0.5 V)"),
    (dict(vin_v=0.95), "vout_max_v + dropout_v (0.9 V + 0.1 V) must be <= vin_v (0.95 V)"),
    (dict(step_v=0.5), "step_v (0.5 V) must be <= vout_max_v - vout_min_v (0.4 V)"),
    (dict(settle_s=0.0, settle_s_per_v=0.0),
     "LDOModel needs settle_s > 0 or settle_s_per_v > 0"),
    (dict(quiescent_a=-1e-6), "quiescent_a must be >= 0, not -1e-06"),
    (dict(step_v=True), "step_v must be a finite number, not True"),
])
def test_ldo_bad_arguments(kwargs, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        small_ldo(**kwargs)


def test_ldo_code_and_voltage_out_of_range():
    ldo = small_ldo()
    with pytest.raises(ConfigError, match=re.escape(
            "voltage 0.95 V is outside the LDO's output range 0.5..0.9 V")):
        ldo.code(0.95)
    with pytest.raises(ConfigError, match=re.escape("LDO code must be an int in 0..40, "
                                                    "not 41")):
        ldo.voltage(41)


# ---------------------------------------------------------------------------- ADPLL

def test_adpll_linear_table_closed_form():
    pll = ADPLLModel(f_min_hz=100e6, f_max_hz=1000e6, codes=10, lock_s=1e-7)
    assert pll.code_width == 4
    for c in range(10):
        assert pll.frequency(c) == pytest.approx(100e6 + 100e6 * c)


@pytest.mark.parametrize("table", [
    None, [50e6, 75e6, 130e6, 131e6, 400e6, 410e6, 800e6, 1.2e9],
])
def test_adpll_code_matches_a_brute_force_search(table):
    pll = (ADPLLModel(f_min_hz=100e6, f_max_hz=1e9, codes=64, lock_s=1e-7) if table is None
           else ADPLLModel(table_hz=table, lock_s=1e-7))
    freqs = [pll.frequency(c) for c in range(pll.codes)]
    rng = np.random.default_rng(7)
    targets = list(rng.uniform(1e6, freqs[-1], 300)) + freqs
    for t in targets:
        brute = min(c for c, f in enumerate(freqs) if f >= t * (1 - 1e-12))
        assert pll.code(float(t)) == brute
    for c, f in enumerate(freqs):
        assert pll.code(f, exact=True) == c


def test_adpll_bad_requests_and_arguments():
    pll = ADPLLModel(f_min_hz=100e6, f_max_hz=400e6, codes=4, lock_s=1e-7)
    with pytest.raises(ConfigError, match=re.escape(
            "frequency 500 MHz is above the ADPLL's f_max_hz (400 MHz)")):
        pll.code(500e6)
    with pytest.raises(ConfigError, match=re.escape(
            "frequency 150 MHz is not in the DCO table (allowed: '100 MHz', '200 MHz', "
            "'300 MHz', '400 MHz')")):
        pll.code(150e6, exact=True)
    for kwargs, message in [
        (dict(f_min_hz=1e8, f_max_hz=1e8, codes=4), "f_max_hz (1e+08) must be > f_min_hz "
                                                     "(1e+08)"),
        (dict(f_min_hz=1e8, f_max_hz=2e8, codes=1), "codes must be an int >= 2, not 1"),
        (dict(f_min_hz=1e8, f_max_hz=2e8), "ADPLLModel needs table_hz, or all of f_min_hz, "
                                           "f_max_hz and codes"),
        (dict(table_hz=[1e8, 1e8]), "table_hz must rise strictly: table_hz[1] = 1e+08 "
                                    "after 1e+08"),
        (dict(table_hz=[1e8, 2e8], codes=2), "ADPLLModel takes either table_hz or "
                                             "(f_min_hz, f_max_hz, codes), not both"),
        (dict(f_min_hz=1e8, f_max_hz=2e8, codes=4, lock_s=0.0), "lock_s must be > 0, not 0.0"),
    ]:
        kwargs.setdefault("lock_s", 1e-7)
        with pytest.raises(ConfigError, match=re.escape(message)):
            ADPLLModel(**kwargs)


# ---------------------------------------------------------------------------- transitions

def model_and_points():
    ldo = small_ldo()
    pll = ADPLLModel(f_min_hz=100e6, f_max_hz=1000e6, codes=10, lock_s=115e-9)
    curve = VFCurve.table([(0.5, 300e6), (0.9, 1000e6)])
    ops = [OperatingPoint(0.5, 300e6), OperatingPoint(0.6, 400e6),
           OperatingPoint(0.75, 700e6), OperatingPoint(0.9, 1000e6)]
    return DVFSModel(ldo=ldo, adpll=pll, curve=curve), ops


def expected_cycles(time_s, clock_hz):
    # the closed form, written independently: whole cycles covering the time
    return math.ceil(round(time_s * clock_hz, 6))


@pytest.mark.parametrize("clock_hz", [100e6, 1e9, 333e6])
def test_every_transition_of_a_table_against_closed_forms(clock_hz):
    model, ops = model_and_points()
    for a in ops:
        for b in ops:
            t = model.transition(a, b)
            dv = abs(b.voltage_v - a.voltage_v)
            settle = 0.0 if dv == 0 else 20e-9 + 200e-9 * dv
            lock = 0.0 if a.frequency_hz == b.frequency_hz else 115e-9
            assert t.time_s == pytest.approx(settle + lock, abs=1e-15)
            assert t.energy_j == pytest.approx(2e-9 * max(0.0, b.voltage_v - a.voltage_v))
            stall = sum(expected_cycles(x, clock_hz) + 1 for x in (settle, lock) if x > 0)
            assert t.stall_cycles(clock_hz) == stall, (a, b)
            both = settle > 0 and lock > 0
            assert t.serial_cost_s == pytest.approx(min(settle, lock) if both else 0.0)
            if b.frequency_hz > a.frequency_hz:
                assert t.order == "voltage-first"
            elif b.frequency_hz < a.frequency_hz:
                assert t.order == "frequency-first"
            else:
                assert t.order == "none"


def test_safe_order_keeps_every_intermediate_point_legal():
    model, ops = model_and_points()
    curve = model.curve
    for a in ops:
        for b in ops:
            v, f = a.voltage_v, a.frequency_hz
            for step in model.transition(a, b).steps:
                if step.kind == "voltage":
                    v = model.ldo.voltage(step.to_code)
                else:
                    f = model.adpll.frequency(step.to_code)
                curve.check(OperatingPoint(v, f))


def test_transition_rejects_an_overclocked_point():
    model, ops = model_and_points()
    with pytest.raises(ConfigError, match=re.escape(
            "operating point (0.5 V, 500 MHz) is overclocked: 500 MHz exceeds f_max = 300 MHz "
            "at 0.5 V")):
        model.transition(ops[0], OperatingPoint(0.5, 500e6))


def test_realised_point_rounding_up_past_fmax_is_rejected():
    # 0.5 V allows 300 MHz; 250 MHz is legal but the DCO's next code up is 300 MHz: legal.
    # 0.5 V with the table pinned at 260 MHz: the DCO's 300 MHz would overclock it.
    ldo = small_ldo()
    pll = ADPLLModel(f_min_hz=100e6, f_max_hz=1000e6, codes=10, lock_s=115e-9)
    curve = VFCurve.table([(0.5, 260e6), (0.9, 1000e6)])
    model = DVFSModel(ldo=ldo, adpll=pll, curve=curve)
    with pytest.raises(ConfigError, match="overclocked: 300 MHz exceeds f_max = 260 MHz"):
        model.realize(OperatingPoint(0.5, 250e6))


def test_cycles_for():
    assert cycles_for(0.0, 1e9) == 0
    assert cycles_for(30e-9, 1e9) == 30      # a round number of cycles is not rounded up
    assert cycles_for(30.5e-9, 1e9) == 31
    assert cycles_for(1e-15, 1e9) == 1
    with pytest.raises(ConfigError, match=re.escape("clock_hz must be > 0, not 0")):
        cycles_for(1e-9, 0)


# ---------------------------------------------------------------------------- scaling

def test_energy_scaling_closed_forms():
    assert dynamic_energy_scale(0.6, 0.8) == pytest.approx(0.5625)
    assert leakage_power_scale(0.6, 0.8) == pytest.approx(0.75)
    assert leakage_power_scale(0.6, 0.8, dibl_per_v=2.0) == pytest.approx(
        0.75 * math.exp(-0.4))
    with pytest.raises(ConfigError, match=re.escape("nominal_v must be > 0, not -0.8")):
        dynamic_energy_scale(0.6, -0.8)


# ---------------------------------------------------------------------------- defaults

def test_every_default_has_a_labelled_source():
    assert set(DVFS_DEFAULTS) == set(DVFS_DEFAULTS_SOURCES)
    for key, source in DVFS_DEFAULTS_SOURCES.items():
        assert source.startswith(("EdgeBERT, verified", "literature", "assumed", "derived")), key


def test_defaults_build_and_match_edgebert_code_widths():
    ldo, pll, curve = default_ldo(), default_adpll(), default_vf_curve()
    assert ldo.code_width == 8 and ldo.codes == 256
    assert pll.code_width == 6 and pll.codes == 64
    assert curve.f_max(0.8) == pytest.approx(1e9)
    model = DVFSModel(ldo=ldo, adpll=pll, curve=curve)
    t = model.transition(OperatingPoint(0.6, 400e6), OperatingPoint(0.8, 1e9))
    assert t.order == "voltage-first"
    assert t.time_s == pytest.approx(25.2e-9 + 100e-9 * 0.2 + 120e-9)
