"""F-1 safe velocity, airframe physics and missions against closed forms worked by hand."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.uav import (
    COMPUTE_PLATFORMS,
    UAV_CLASSES,
    ComputeLoad,
    F1Curve,
    action_period_s,
    bound_of,
    compute_platform,
    evaluate_design,
    knee_action_hz,
    load_uav_classes,
    platform_load,
    roof_velocity_mps,
    safe_velocity_mps,
    uav_class,
)

DATA = Path(__file__).resolve().parents[1] / "sim" / "uav" / "data"


def test_safe_velocity_meets_the_stopping_constraint_exactly() -> None:
    a, d, t = np.meshgrid([0.5, 3.0, 20.0], [0.5, 3.0, 10.0], [1e-3, 0.05, 0.5, 2.0])
    v = safe_velocity_mps(a_max_mps2=a, sensor_range_m=d, action_period_s=t)
    # v T + v^2 / (2 a) = d: travel during one decision plus braking fills the range.
    np.testing.assert_allclose(v * t + v * v / (2 * a), d, rtol=1e-12)
    # Limits: instant decisions reach the roof; slow ones give about d / T.
    assert float(safe_velocity_mps(a_max_mps2=4.0, sensor_range_m=2.0, action_period_s=1e-9)
                 ) == pytest.approx(math.sqrt(2 * 2.0 * 4.0), rel=1e-6)
    assert float(safe_velocity_mps(a_max_mps2=4.0, sensor_range_m=2.0, action_period_s=100.0)
                 ) == pytest.approx(2.0 / 100.0, rel=1e-3)
    assert roof_velocity_mps(a_max_mps2=4.0, sensor_range_m=2.0) == pytest.approx(4.0)


def test_knee_matches_a_brute_force_search() -> None:
    a, d, f = 6.0, 4.0, 0.95
    knee = knee_action_hz(a_max_mps2=a, sensor_range_m=d, fraction=f)
    hz = np.geomspace(0.01, 1e4, 400001)
    v = safe_velocity_mps(a_max_mps2=a, sensor_range_m=d, action_period_s=1 / hz)
    first = hz[np.argmax(v >= f * math.sqrt(2 * a * d))]
    assert first == pytest.approx(knee, rel=1e-4)
    curve = F1Curve(a_max_mps2=a, sensor_range_m=d)
    assert curve.knee_hz == knee and curve.roof_mps == pytest.approx(math.sqrt(48))


def test_action_period_and_bound() -> None:
    assert action_period_s(sensor_fps=30, compute_latency_s=0.01) == pytest.approx(1 / 30)
    assert action_period_s(sensor_fps=30, compute_latency_s=0.1) == 0.1
    assert action_period_s(sensor_fps=30, compute_latency_s=0.01, control_hz=10) == 0.1
    assert bound_of(sensor_fps=30, compute_latency_s=0.1, knee_hz=50) == "compute"
    assert bound_of(sensor_fps=30, compute_latency_s=0.001, knee_hz=50) == "sensor"
    assert bound_of(sensor_fps=60, compute_latency_s=0.001, knee_hz=50) == "physics"
    with pytest.raises(ConfigError, match="sensor_fps must be positive"):
        action_period_s(sensor_fps=0, compute_latency_s=0.1)


def test_airframe_physics_by_hand() -> None:
    nano = uav_class("nano")
    # 250 mAh x 3.7 V x 0.8 usable over 420 s of flight.
    assert nano.base_hover_power_w == pytest.approx(0.25 * 3600 * 3.7 * 0.8 / 420)
    assert nano.hover_power_w(2 * 0.027) == pytest.approx(nano.base_hover_power_w * 2 ** 1.5)
    m, f = 0.035, 0.57
    w = m * 9.80665
    assert nano.a_max_mps2(m) == pytest.approx(math.sqrt(f * f - w * w) / m)
    assert nano.a_max_mps2(m, form="net") == pytest.approx((f - w) / m)
    assert nano.a_max_mps2(m, form="thrust") == pytest.approx(f / m)
    assert nano.a_max_mps2(0.07) == 0.0  # heavier than its thrust
    # Momentum theory: (m g)^1.5 / sqrt(2 rho A), A = 4 pi (0.0225)^2.
    ideal = (0.027 * 9.80665) ** 1.5 / math.sqrt(2 * 1.225 * 4 * math.pi * 0.0225 ** 2)
    assert nano.implied_figure_of_merit() == pytest.approx(ideal / nano.base_hover_power_w)


def test_missions_by_hand_and_monotone_in_compute_cost() -> None:
    micro = uav_class("micro")
    load = ComputeLoad(name="x", latency_s=0.05, power_w=2.0, mass_kg=0.02)
    r = evaluate_design(micro, load, distance_m=200.0)
    m = 0.3 + 0.015 + 0.02
    a = math.sqrt(7.4 ** 2 - (m * 9.80665) ** 2) / m
    t = max(1 / 60, 0.05)
    v = a * (math.sqrt(t * t + 2 * 6.0 / a) - t)
    power = micro.base_hover_power_w * (m / 0.3) ** 1.5 + 2.0 + 1.0
    assert r.v_safe_mps == pytest.approx(v) and r.total_power_w == pytest.approx(power)
    assert r.missions == math.floor(micro.battery_energy_j / (power * 200.0 / v))
    heavier = evaluate_design(micro, ComputeLoad(name="y", latency_s=0.05, power_w=2.0,
                                                 mass_kg=0.1), distance_m=200.0)
    hotter = evaluate_design(micro, ComputeLoad(name="z", latency_s=0.05, power_w=8.0,
                                                mass_kg=0.02), distance_m=200.0)
    slower = evaluate_design(micro, ComputeLoad(name="w", latency_s=0.5, power_w=2.0,
                                                mass_kg=0.02), distance_m=200.0)
    assert heavier.missions < r.missions and hotter.missions < r.missions
    assert slower.missions < r.missions and slower.bound == "compute"
    stuck = evaluate_design(uav_class("nano"), platform_load(compute_platform("jetson-tx2"),
                                                             1e8), distance_m=100.0)
    assert stuck.missions == 0 and stuck.bound == "cannot hover"


def test_platform_latency_and_carried_mass() -> None:
    tx2 = compute_platform("jetson-tx2")
    assert tx2.latency_s(1e9) == pytest.approx(1e9 / (1.331e12 * 0.25))
    assert tx2.carried_mass_kg == pytest.approx(0.085 + 0.010 * 7.5)


def test_every_shipped_number_has_a_source_or_an_assumed_label() -> None:
    import tomllib

    for name in ("uav_classes.toml", "compute_platforms.toml"):
        data = tomllib.loads((DATA / name).read_text())
        for key, table in data.items():
            numbers = [k for k, v in table.items() if isinstance(v, int | float)
                       and not isinstance(v, bool)]
            labelled = set(table.get("sources", {})) | set(table.get("assumed", []))
            assert set(numbers) <= labelled, (name, key, set(numbers) - labelled)
    assert set(UAV_CLASSES) == set(load_uav_classes())
    assert all(compute_platform(p) for p in COMPUTE_PLATFORMS)


def test_loader_errors_name_file_and_field(tmp_path: Path) -> None:
    text = (DATA / "uav_classes.toml").read_text()
    bad = tmp_path / "u.toml"
    bad.write_text(text.replace('assumed = ["battery_usable_fraction", "sensor_mass_kg", '
                                '"sensor_power_w", "sensor_fps",\n           "sensor_range_m"]',
                                'assumed = ["battery_usable_fraction"]', 1))
    with pytest.raises(ConfigError, match="neither a source nor an 'assumed' label") as info:
        load_uav_classes(bad)
    assert info.value.file == str(bad) and info.value.field is not None
    assert info.value.field.startswith("nano")
    bad.write_text(text.replace("base_mass_kg = 0.027", "base_mass_kg = -1", 1))
    with pytest.raises(ConfigError) as info:
        load_uav_classes(bad)
    assert info.value.field == "nano.base_mass_kg"
    with pytest.raises(ConfigError, match="unknown UAV class"):
        uav_class("pico")
