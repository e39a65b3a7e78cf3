"""The obstacle world: ray-cast depth against closed forms, collision geometry, determinism."""

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.autonomy.world import (
    SensorSpec,
    StraightPolicy,
    World,
    WorldSpec,
    make_world,
    render_depth,
    run_episode,
)


def test_depth_of_one_cylinder_matches_closed_form() -> None:
    # UAV at the origin looking +x; a tall cylinder radius 1 at (5, 0): the centre ray's
    # horizontal distance is 5 - 1 = 4 m; a ray at azimuth a, elevation e hits at the first
    # root of s^2 - 10 s cos a + 24 = 0, range s / cos e.
    sensor = SensorSpec(rows=4, cols=8, hfov_deg=60.0, vfov_deg=20.0, range_m=20.0)
    depth = render_depth(x=0.0, y=0.0, heading=0.0, altitude_m=1.0,
                         centres=np.array([[5.0, 0.0]]), radii=np.array([1.0]),
                         heights=np.array([100.0]), half_width_m=None, sensor=sensor)
    az = np.deg2rad(60.0) * (0.5 - (np.arange(8) + 0.5) / 8)
    el = np.deg2rad(20.0) * (0.5 - (np.arange(4) + 0.5) / 4)
    for i in range(4):
        for j in range(8):
            disc = 25 * np.cos(az[j]) ** 2 - 24
            want = (5 * np.cos(az[j]) - np.sqrt(disc)) / np.cos(el[i]) if disc >= 0 else 20.0
            assert depth[i, j] == pytest.approx(want, rel=1e-9)


def test_short_cylinder_is_seen_only_below_its_top() -> None:
    # Height 1 m, camera at 1.5 m: upward rays miss; a downward ray at e hits the side when
    # z = 1.5 + 4 tan e <= 1, i.e. tan e <= -1/8, else maybe the cap at s = 0.5 / -tan e.
    sensor = SensorSpec(rows=2, cols=1, hfov_deg=1.0, vfov_deg=40.0, range_m=20.0)
    depth = render_depth(x=0.0, y=0.0, heading=0.0, altitude_m=1.5,
                         centres=np.array([[5.0, 0.0]]), radii=np.array([1.0]),
                         heights=np.array([1.0]), half_width_m=None, sensor=sensor)
    e = -np.deg2rad(10.0)  # the lower row's elevation
    s_cap = 0.5 / np.tan(-e)  # 2.84 m < 4: the ray is above the top on entry, so no cap
    assert depth[0, 0] == 20.0
    # ray enters the circle at s in [4, 6]; z(4) = 1.5 - 4 tan 10deg = 0.795 <= 1: side hit
    assert s_cap < 4
    assert depth[1, 0] == pytest.approx(4 / np.cos(e), rel=1e-9)


def test_wall_distance() -> None:
    sensor = SensorSpec(rows=1, cols=1, hfov_deg=1.0, vfov_deg=1.0, range_m=50.0)
    d = render_depth(x=0.0, y=1.0, heading=np.pi / 6, altitude_m=1.0, centres=np.zeros((0, 2)),
                     radii=np.zeros(0), heights=np.zeros(0), half_width_m=5.0, sensor=sensor)
    assert d[0, 0] == pytest.approx(4.0 / np.sin(np.pi / 6), rel=1e-9)


def test_collision_geometry() -> None:
    # One tall (3 m) and one short (1 m) cylinder of radius 0.5; UAV radius 0.25 at 1.5 m.
    spec = WorldSpec()
    w = World(spec=spec, density="low", seed=0, centres=np.array([[10.0, 0.0], [20.0, 2.0]]),
              radii=np.array([0.5, 0.5]), heights=np.array([3.0, 1.0]))
    assert w.collides(10.0 + 0.74, 0.0)
    assert not w.collides(10.0 + 0.76, 0.0)
    assert w.collides(10.0 + 0.74 * np.cos(1.0), 0.74 * np.sin(1.0))
    assert not w.collides(20.0, 2.0)  # flown over: shorter than the altitude
    assert w.collides(1.0, 5.0 - 0.24) and not w.collides(1.0, 5.0 - 0.26)  # the wall


def test_determinism_under_seed() -> None:
    a, b, c = make_world("dense", 7), make_world("dense", 7), make_world("dense", 8)
    assert np.array_equal(a.centres, b.centres) and np.array_equal(a.heights, b.heights)
    assert not (a.centres.shape == c.centres.shape and np.array_equal(a.centres, c.centres))
    ra, rb = run_episode(StraightPolicy(), a, 3), run_episode(StraightPolicy(), b, 3)
    assert ra == rb


def test_straight_flight_in_empty_world_succeeds() -> None:
    spec = WorldSpec()
    w = make_world("low", 0, spec)
    empty = type(w)(spec=spec, density="low", seed=0, centres=np.zeros((0, 2)),
                    radii=np.zeros(0), heights=np.zeros(0))
    r = run_episode(StraightPolicy(), empty, 0)
    assert r.success and r.steps == int(np.ceil(spec.length_m / spec.step_m))


def test_bad_density() -> None:
    with pytest.raises(ConfigError, match="density"):
        make_world("urban", 0)
