"""The memory-technology table and MemoryModel against closed forms, scipy and enumeration.

Expected values are computed here from the TOML read directly (tomllib), scipy.stats and
the cited rules, never from the model's own helpers.
"""

from __future__ import annotations

import math
import tomllib
from importlib import resources

import numpy as np
import pytest
from scipy.stats import lognorm, norm

from archsim.errors import ConfigError
from archsim.hw.models import area, energy
from archsim.hw.models.memtech import (
    MemoryModel,
    _parse,
    memory_technology,
    memory_technology_names,
)

RAW = tomllib.loads(resources.files("archsim.hw").joinpath(
    "data/memory_technologies.toml").read_text(encoding="utf-8"))


def raw(tech: str, key: str) -> float:
    return RAW[tech][key]["value"]


def edram_mu(temperature_c: float) -> float:
    """mu of ln t from the anchor quantile, then 2x shorter per halving_c degrees."""
    mu_ref = math.log(raw("edram", "retention_anchor_s")) \
        - raw("edram", "retention_sigma") * norm.ppf(raw("edram", "retention_anchor_quantile"))
    dt = temperature_c - raw("edram", "reference_temperature_c")
    return mu_ref - math.log(2) * dt / raw("edram", "retention_halving_c")


# --- the table --------------------------------------------------------------------------


def test_table_has_the_three_technologies_each_number_sourced():
    assert memory_technology_names() == ["edram", "reram", "sram"]
    for name in memory_technology_names():
        tech = memory_technology(name)
        for key, item in RAW[name].items():
            if key == "description":
                continue
            assert set(item) == {"value", "source"}, (name, key)
            assert tech.sources[key] == item["source"] and len(item["source"]) > 10
    assert memory_technology("edram").refreshed
    assert not memory_technology("sram").refreshed and not memory_technology("reram").refreshed


def test_table_agrees_with_the_cited_figures_used_elsewhere():
    sram = memory_technology("sram")
    # Horowitz ISSCC 2014: 64-bit read of a 32 KB SRAM is 20 pJ.
    assert sram.read_energy_j_per_bit == pytest.approx(20e-12 / 64)
    assert sram.read_energy_j_per_bit == pytest.approx(
        energy.HOROWITZ_45NM.sram_32kb_pj_per_byte / 8 * 1e-12)
    # The size exponent reproduces Horowitz's 1 MB figure (100 pJ per 64 bits).
    one_mb = sram.read_energy_j_per_bit * (2 ** 23 / 2 ** 18) ** sram.energy_size_exponent
    assert one_mb == pytest.approx(100e-12 / 64, rel=1e-3)
    assert sram.cell_area_um2 == area.BIT_CELL_45NM_UM2
    # Harel et al. 2022: a 40 % smaller cell than 6T SRAM.
    assert memory_technology("edram").cell_area_um2 == pytest.approx(0.6 * 0.346)


def test_bad_table_entries_raise_config_errors_naming_the_field():
    good = {k: v for k, v in RAW["sram"].items()}
    bad = dict(good, cell_area_um2={"value": 0.3})
    with pytest.raises(ConfigError, match=r"field 'x.cell_area_um2': must be a table"):
        _parse("x", bad, "t.toml")
    bad = dict(good, leakage_w_per_bit={"value": 1e-9, "source": " "})
    with pytest.raises(ConfigError, match=r"field 'x.leakage_w_per_bit.source': source must"):
        _parse("x", bad, "t.toml")
    bad = {k: v for k, v in good.items() if k != "read_latency_s"}
    with pytest.raises(ConfigError, match=r"field 'x.read_latency_s': missing entry"):
        _parse("x", bad, "t.toml")
    bad = dict(good, retention_sigma={"value": 0.5, "source": "assumed"})
    with pytest.raises(ConfigError, match=r"needs every retention entry"):
        _parse("x", bad, "t.toml")
    with pytest.raises(ConfigError, match=r"unknown memory technology 'flash'.*'edram'"):
        memory_technology("flash")


# --- retention --------------------------------------------------------------------------


@pytest.mark.parametrize("q", [1e-9, 1e-4, 0.01, 0.5, 0.9])
@pytest.mark.parametrize("temperature_c", [0.0, 25.0, 60.0])
def test_retention_quantiles_are_lognormal(q, temperature_c):
    m = MemoryModel(technology="edram", words=64, width=8, temperature_c=temperature_c)
    mu, sigma = edram_mu(temperature_c), raw("edram", "retention_sigma")
    closed = math.exp(mu + sigma * norm.ppf(q))
    assert m.retention_s(q) == pytest.approx(closed, rel=1e-12)
    assert m.retention_s(q) == pytest.approx(lognorm(s=sigma, scale=math.exp(mu)).ppf(q),
                                             rel=1e-12)


def test_anchor_quantile_is_harels_16us_at_the_reference_temperature():
    m = MemoryModel(technology="edram", words=64, width=8)
    assert m.retention_s(1e-4) == pytest.approx(16e-6, rel=1e-12)
    assert memory_technology("edram").retention_median_s == pytest.approx(
        16e-6 * math.exp(-0.6 * norm.ppf(1e-4)), rel=1e-12)


def test_retention_halves_per_10_degrees():
    at = {t: MemoryModel(technology="edram", words=64, width=8, temperature_c=t)
          for t in (25.0, 35.0, 55.0, 15.0)}
    for q in (1e-6, 0.5):
        assert at[35.0].retention_s(q) / at[25.0].retention_s(q) == pytest.approx(0.5)
        assert at[55.0].retention_s(q) / at[25.0].retention_s(q) == pytest.approx(1 / 8)
        assert at[15.0].retention_s(q) / at[25.0].retention_s(q) == pytest.approx(2.0)
    assert at[55.0].refresh_period_s < at[25.0].refresh_period_s


def test_refresh_period_is_the_macro_worst_case_at_the_percentile():
    for words, p in ((16, 0.99), (4096, 0.999), (1 << 20, 0.9)):
        m = MemoryModel(technology="edram", words=words, width=8, refresh_percentile=p)
        dist = lognorm(s=raw("edram", "retention_sigma"), scale=math.exp(edram_mu(25.0)))
        # P(every one of the N cells outlives T) = sf(T) ** N
        assert dist.sf(m.refresh_period_s) ** (words * 8) == pytest.approx(p, rel=1e-9)
    # Bigger macros have weaker worst cells.
    small = MemoryModel(technology="edram", words=16, width=8)
    big = MemoryModel(technology="edram", words=4096, width=8)
    assert big.refresh_period_s < small.refresh_period_s


def test_refresh_period_against_monte_carlo():
    m = MemoryModel(technology="edram", words=16, width=8, refresh_percentile=0.9)
    rng = np.random.default_rng(7)
    macros = 20000
    t = rng.lognormal(mean=edram_mu(25.0), sigma=raw("edram", "retention_sigma"),
                      size=(macros, 128))
    held = float(np.mean(t.min(axis=1) > m.refresh_period_s))
    assert abs(held - 0.9) < 4 * math.sqrt(0.9 * 0.1 / macros)


# --- refresh timer ----------------------------------------------------------------------


def enumerate_timer(interval: int, busy: int) -> tuple[int, int]:
    """Walk cycles 1, 2, ... after a sync: cycle k is a refresh when k % interval == 0.
    Returns (stalls before the busy-th available cycle, elapsed cycles)."""
    k = available = stalls = 0
    while available < busy:
        k += 1
        if k % interval == 0:
            stalls += 1
        else:
            available += 1
    return stalls, k


def test_refresh_interval_is_the_period_over_operations_plus_one():
    m = MemoryModel(technology="edram", words=256, width=16, banks=4, rows_per_refresh=8)
    assert m.rows == 64 and m.refresh_operations == 8 and m.row_bits == 64
    for clock_hz in (1e8, 2.5e8, 1e9):
        assert m.refresh_interval_cycles(clock_hz) == math.floor(
            m.refresh_period_s * clock_hz / 9)
        assert m.retention_cycles(clock_hz) == math.floor(m.refresh_period_s * clock_hz)
    with pytest.raises(ValueError, match=r"cannot be refreshed at 1000000.0 Hz"):
        m.refresh_interval_cycles(1e6)


@pytest.mark.parametrize("clock_hz", [3e7, 1e8, 4e8])
def test_stolen_cycles_and_refresh_count_match_enumeration(clock_hz):
    m = MemoryModel(technology="edram", words=64, width=8, banks=2)
    interval = m.refresh_interval_cycles(clock_hz)
    for busy in [0, 1, 2, interval - 1, interval, interval + 1, 5 * interval, 777]:
        stalls, elapsed = enumerate_timer(interval, busy)
        assert m.stolen_cycles(busy, clock_hz) == stalls
        assert m.refresh_count(elapsed, clock_hz) == stalls
    for n in range(0, 3 * interval + 2):
        assert m.refresh_count(n, clock_hz) == sum(1 for k in range(1, n + 1)
                                                   if k % interval == 0)


def test_refresh_only_for_edram():
    m = MemoryModel(technology="sram", words=64, width=8)
    with pytest.raises(ValueError, match=r"memory technology 'sram' has no retention time"):
        m.retention_s(0.5)
    assert m.refresh_energy_j(1.0) == 0.0
    with pytest.raises(ValueError, match=r"memory technology 'reram' has no retention time"):
        _ = MemoryModel(technology="reram", words=64, width=8).refresh_period_s


# --- energy, leakage, area, latency -----------------------------------------------------


def test_access_energy_from_the_table_and_scaling():
    words, width, banks = 32768, 16, 4
    for tech in ("sram", "edram", "reram"):
        m = MemoryModel(technology=tech, words=words, width=width, banks=banks,
                        node_nm=22, voltage_v=0.8)
        bank_bits = words * width / banks
        scale = (bank_bits / raw(tech, "reference_macro_bits")) ** raw(
            tech, "energy_size_exponent") * (22 / 45) * (0.8 / 0.9) ** 2
        expected = width * (100 * raw(tech, "read_energy_j_per_bit")
                            + 30 * raw(tech, "write_energy_j_per_bit")) * scale
        assert m.access_energy_j(100, 30) == pytest.approx(expected, rel=1e-12)
    # A bank of the reference size at the reference node: the table's figure itself.
    m = MemoryModel(technology="sram", words=32768, width=8)
    assert m.access_energy_j(1, 0) == pytest.approx(8 * 20e-12 / 64)


def test_leakage_area_and_latency():
    for tech in ("sram", "edram", "reram"):
        m = MemoryModel(technology=tech, words=1024, width=32)
        bits = 1024 * 32
        assert m.leakage_power_w() == pytest.approx(bits * raw(tech, "leakage_w_per_bit"))
        assert m.leakage_power_w(0.45) == pytest.approx(m.leakage_power_w() / 2)
        assert m.area_mm2 == pytest.approx(
            bits * raw(tech, "cell_area_um2") / raw(tech, "array_efficiency") * 1e-6)
        m22 = MemoryModel(technology=tech, words=1024, width=32, node_nm=22.5)
        assert m22.area_mm2 == pytest.approx(m.area_mm2 / 4)
    sram = MemoryModel(technology="sram", words=1024, width=32)
    edram = MemoryModel(technology="edram", words=1024, width=32)
    assert sram.leakage_power_w() / edram.leakage_power_w() == pytest.approx(5.0)
    assert edram.area_mm2 / sram.area_mm2 == pytest.approx(0.6)
    assert sram.read_latency_cycles(1e9) == 1 and sram.read_latency_cycles(1.5e9) == 2
    reram = MemoryModel(technology="reram", words=1024, width=32)
    assert reram.write_latency_cycles(2e8) == 20 and reram.read_latency_cycles(2e8) == 1


def test_multi_level_reram_cells():
    m = MemoryModel(technology="reram", words=100, width=8, bits_per_cell=3)
    assert m.cells == 267  # ceil(800 / 3)
    assert m.area_mm2 == pytest.approx(267 * 0.1 / 0.5 * 1e-6)
    with pytest.raises(ValueError, match=r"bits_per_cell must be in 1..1 for technology "
                                         r"'sram', not 2"):
        MemoryModel(technology="sram", words=100, width=8, bits_per_cell=2)


def test_energy_components_sum_and_refresh_energy_counts():
    m = MemoryModel(technology="edram", words=256, width=16, banks=4, rows_per_refresh=4,
                    temperature_c=40.0)
    clock_hz = 2e8
    interval = m.refresh_interval_cycles(clock_hz)
    duration_s = 12345 / clock_hz
    parts = m.energy_j(reads=500, writes=200, duration_s=duration_s, clock_hz=clock_hz)
    assert parts["total"] == pytest.approx(parts["access"] + parts["leakage"]
                                           + parts["refresh"], rel=1e-15)
    per_op = 4 * 64 * raw("edram", "refresh_energy_j_per_bit") * m.energy_scale
    assert parts["refresh"] == pytest.approx(12345 // interval * per_op)
    assert parts["leakage"] == pytest.approx(256 * 16 * raw("edram", "leakage_w_per_bit")
                                             * duration_s)
    # The ideal rate: every operation once per refresh period.
    assert m.refresh_energy_j(m.refresh_period_s) == pytest.approx(16 * per_op)


def test_bad_model_arguments():
    with pytest.raises(ValueError, match=r"words \(10\) must be a multiple of banks \(4\)"):
        MemoryModel(technology="sram", words=10, width=8, banks=4)
    with pytest.raises(ValueError, match=r"refresh_percentile must be in \(0.0, 1.0\), not 1"):
        MemoryModel(technology="edram", words=16, width=8, refresh_percentile=1)
    with pytest.raises(TypeError, match=r"width must be an int, not 8.0"):
        MemoryModel(technology="sram", words=16, width=8.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"rows_per_refresh must be in 1..4 \(the rows\), "
                                         r"not 5"):
        MemoryModel(technology="edram", words=16, width=8, banks=4, rows_per_refresh=5)
    with pytest.raises(ValueError, match=r"reads must be in \[0.0, inf\), not -1"):
        MemoryModel(technology="sram", words=16, width=8).access_energy_j(-1, 0)
