"""On-chip memory technologies (SRAM, gain-cell eDRAM, ReRAM) and the model of one buffer.

The numbers live in ``hw/data/memory_technologies.toml``, one ``{value, source}`` entry per
figure; :func:`memory_technology` loads one technology as a :class:`MemoryTechnology` whose
``sources`` name where each number comes from (a checked citation, "unverified" or
"assumed"). :class:`MemoryModel` prices a buffer of ``words x width`` bits in ``banks``:

* access energy: ``reads * width * e_read + writes * width * e_write`` (reads and writes
  counted in words, as :class:`archsim.hw.accel.memory.BufferMemory` counts them), the
  per-bit energies scaled from the table's macro size to one bank's by a power law and to
  another node/supply by :func:`archsim.hw.models.energy.node_scale` (first order, assumed);
* leakage: bits x leakage per bit x ``V / V_ref`` (linear in the supply: assumed);
* area: cells x bit-cell area / array efficiency, times ``(node / node_ref) ** 2`` (assumed);
* eDRAM retention, refresh period, refresh interval, refresh energy and stolen cycles.

Retention statistics
--------------------
Per-cell retention ``t`` is log-normal (Edri et al., IEEE TCAS-I 2016): ``ln t ~ N(mu,
sigma)``. The table anchors one quantile (``t_q`` at quantile ``q``: Harel et al.'s 16 us at
99.99 % bit yield), so ``mu = ln t_q - sigma * z_q`` with ``z_q`` the standard normal
quantile. Temperature shortens every cell's retention by a factor 2 per
``retention_halving_c`` degrees: ``mu(T) = mu(T_ref) - ln 2 * (T - T_ref) / halving``, with
``sigma`` unchanged (assumed).

A macro of ``N`` cells loses data when its *weakest* cell does. With independent cells,
``P(min t > T) = (1 - F(T)) ** N``; the refresh period is the ``T`` at which this equals
``refresh_percentile`` (the chance that every cell of the macro holds its data), i.e. the
per-cell quantile ``1 - refresh_percentile ** (1 / N)`` of the distribution (computed as
``-expm1(log(p) / N)``, accurate for large ``N``).

Refresh timer (exact, as the RTL implements it)
-----------------------------------------------
The buffer runs one refresh operation (``rows_per_refresh`` rows, a row being one address
across all banks) every ``I`` cycles, cycling through its rows, with a timer restarted by
``refresh_sync``: counting the cycle after the sync pulse as cycle 1, cycles ``I, 2I, 3I,
...`` are refresh cycles (stalls). With ``R`` operations per sweep, ``I`` is
``floor(refresh_period_s * clock_hz / (R + 1))``: every row is refreshed every ``R * I``
cycles, and the one spare interval covers a timer restart that postpones a due refresh.
A unit that needs ``B`` enabled cycles after the sync loses ``(B - 1) // (I - 1)`` of them to
refresh (:meth:`MemoryModel.stolen_cycles`), and ``n`` cycles after a sync hold ``n // I``
refreshes (:meth:`MemoryModel.refresh_count`).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from importlib import resources
from types import MappingProxyType

from ...errors import ConfigError
from ..checks import check_positive
from .energy import node_scale

__all__ = ["MemoryTechnology", "MemoryModel", "memory_technology", "memory_technology_names",
           "TECHNOLOGY_FILE"]

#: The table's file name inside ``archsim.hw``'s ``data`` folder.
TECHNOLOGY_FILE = "memory_technologies.toml"

_REFRESH_FIELDS = ("refresh_energy_j_per_bit", "retention_anchor_s",
                   "retention_anchor_quantile", "retention_sigma", "reference_temperature_c",
                   "retention_halving_c")


@dataclass(frozen=True)
class MemoryTechnology:
    """One memory technology at its reference node and supply (units in the field names).

    ``sources`` maps each numeric field to the text saying where its value comes from.
    The retention fields are ``None`` for technologies that are not refreshed.
    """

    name: str
    description: str
    node_nm: float
    voltage_v: float
    reference_macro_bits: float
    energy_size_exponent: float
    read_energy_j_per_bit: float
    write_energy_j_per_bit: float
    read_latency_s: float
    write_latency_s: float
    leakage_w_per_bit: float
    cell_area_um2: float
    array_efficiency: float
    refresh_energy_j_per_bit: float | None = None
    retention_anchor_s: float | None = None
    retention_anchor_quantile: float | None = None
    retention_sigma: float | None = None
    reference_temperature_c: float | None = None
    retention_halving_c: float | None = None
    endurance_cycles: float | None = None
    max_bits_per_cell: int = 1
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def refreshed(self) -> bool:
        """Whether cells lose their data without refresh (eDRAM)."""
        return self.retention_anchor_s is not None

    @property
    def retention_mu(self) -> float:
        """``mu`` of ``ln t`` (t in seconds) at the reference temperature."""
        from scipy.stats import norm

        sigma, anchor, q = self._retention()
        return math.log(anchor) - sigma * float(norm.ppf(q))

    @property
    def retention_median_s(self) -> float:
        """Median per-cell retention at the reference temperature, seconds."""
        return math.exp(self.retention_mu)

    def _retention(self) -> tuple[float, float, float]:
        if self.retention_sigma is None or self.retention_anchor_s is None \
                or self.retention_anchor_quantile is None:
            raise ValueError(f"memory technology {self.name!r} has no retention time (it is "
                             "not refreshed)")
        return self.retention_sigma, self.retention_anchor_s, self.retention_anchor_quantile


def _parse(name: str, entry: object, filename: str) -> MemoryTechnology:
    if not isinstance(entry, dict):
        raise ConfigError("a technology must be a table", file=filename, field=name)
    numeric = {f.name for f in fields(MemoryTechnology)} - {"name", "description", "sources"}
    required = numeric - set(_REFRESH_FIELDS) - {"endurance_cycles", "max_bits_per_cell"}
    known = numeric | {"description", "retention_distribution"}
    unknown = sorted(set(entry) - known)
    if unknown:
        raise ConfigError(f"unknown entry {unknown[0]!r}", file=filename,
                          field=f"{name}.{unknown[0]}", allowed=sorted(known))
    missing = sorted(required - set(entry))
    if missing:
        raise ConfigError("missing entry", file=filename, field=f"{name}.{missing[0]}")
    present = [f for f in _REFRESH_FIELDS if f in entry]
    if present and len(present) != len(_REFRESH_FIELDS):
        absent = next(f for f in _REFRESH_FIELDS if f not in entry)
        raise ConfigError("a refreshed technology needs every retention entry", file=filename,
                          field=f"{name}.{absent}")
    values: dict[str, float | int] = {}
    sources: dict[str, str] = {}
    for key in sorted(set(entry) - {"description"}):
        item = entry[key]
        where = f"{name}.{key}"
        if not isinstance(item, dict) or set(item) != {"value", "source"}:
            raise ConfigError("must be a table { value = ..., source = \"...\" }",
                              file=filename, field=where)
        source = item["source"]
        if not isinstance(source, str) or not source.strip():
            raise ConfigError("source must be a non-empty string", file=filename,
                              field=f"{where}.source")
        sources[key] = source
        value = item["value"]
        if key == "retention_distribution":
            if value != "lognormal":
                raise ConfigError(f"unsupported distribution {value!r}", file=filename,
                                  field=where, allowed=["lognormal"])
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 \
                or not math.isfinite(value):
            raise ConfigError(f"must be a finite number >= 0, not {value!r}", file=filename,
                              field=where)
        values[key] = int(value) if key == "max_bits_per_cell" else float(value)
    for key in ("node_nm", "voltage_v", "reference_macro_bits", "cell_area_um2",
                "array_efficiency"):
        if not values[key] > 0:
            raise ConfigError(f"must be > 0, not {values[key]!r}", file=filename,
                              field=f"{name}.{key}")
    if present and not 0 < values["retention_anchor_quantile"] < 1:
        raise ConfigError("must be in (0, 1)", file=filename,
                          field=f"{name}.retention_anchor_quantile")
    description = entry.get("description", "")
    return MemoryTechnology(name=name, description=str(description),
                            sources=MappingProxyType(sources), **values)  # type: ignore[arg-type]


@lru_cache(maxsize=1)
def _table() -> Mapping[str, MemoryTechnology]:
    text = resources.files("archsim.hw").joinpath(f"data/{TECHNOLOGY_FILE}").read_text(
        encoding="utf-8")
    data = tomllib.loads(text)
    return MappingProxyType({name: _parse(name, entry, TECHNOLOGY_FILE)
                             for name, entry in data.items()})


def memory_technology_names() -> list[str]:
    """Names of the technologies in the table, sorted."""
    return sorted(_table())


def memory_technology(name: str) -> MemoryTechnology:
    """The technology called ``name`` (``"sram"``, ``"edram"``, ``"reram"``).

    Raises
    ------
    ConfigError
        No such technology; the message lists the ones there are.
    """
    table = _table()
    if name not in table:
        raise ConfigError(f"unknown memory technology {name!r}", field="technology",
                          allowed=sorted(table))
    return table[name]


def _check_number(name: str, value: object, *, low: float, open_low: bool = False,
                  high: float | None = None, open_high: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        raise TypeError(f"{name} must be a finite number, not {value!r}")
    below = value <= low if open_low else value < low
    above = high is not None and (value >= high if open_high else value > high)
    if below or above:
        lo = "(" if open_low else "["
        hi = "" if high is None else (f"{high})" if open_high else f"{high}]")
        raise ValueError(f"{name} must be in {lo}{low}, {hi or 'inf)'}, not {value!r}")
    return float(value)


class MemoryModel:
    """Cost model of one buffer of ``words x width`` bits in ``banks`` of a technology.

    Parameters
    ----------
    technology : str or MemoryTechnology
        A name from the table (:func:`memory_technology`) or a technology object.
    words, width, banks, read_ports, write_ports : int
        The buffer's shape, as :class:`archsim.hw.accel.memory.BufferMemory` takes it
        (``words`` a multiple of ``banks``). Ports do not change the priced area or energy
        per access (assumed; a multi-ported cell is larger).
    temperature_c : float, optional
        Die temperature; default the technology's reference temperature (refreshed
        technologies) or 25.
    refresh_percentile : float
        Probability that every cell of the macro holds its data for :attr:`refresh_period_s`
        (see the module docstring), in (0, 1).
    node_nm, voltage_v : float, optional
        Technology node and supply; default the technology's reference.
    bits_per_cell : int
        Bits stored per cell (multi-level cells), ``1..technology.max_bits_per_cell``.
    rows_per_refresh : int
        Rows one refresh operation restores in parallel (one per sub-array, as macros with
        parallel refresh do, e.g. Harel et al., SSC-L 2022); the buffer needs
        ``ceil(rows / rows_per_refresh)`` refresh operations per period.
    """

    def __init__(self, *, technology: str | MemoryTechnology, words: int, width: int,
                 banks: int = 1, read_ports: int = 1, write_ports: int = 1,
                 temperature_c: float | None = None, refresh_percentile: float = 0.99,
                 node_nm: float | None = None, voltage_v: float | None = None,
                 bits_per_cell: int = 1, rows_per_refresh: int = 1) -> None:
        tech = technology if isinstance(technology, MemoryTechnology) \
            else memory_technology(technology)
        self.technology = tech
        self.words = check_positive("words", words)
        self.width = check_positive("width", width)
        self.banks = check_positive("banks", banks)
        if words % banks:
            raise ValueError(f"words ({words}) must be a multiple of banks ({banks})")
        self.read_ports = check_positive("read_ports", read_ports)
        self.write_ports = check_positive("write_ports", write_ports)
        default_t = tech.reference_temperature_c if tech.reference_temperature_c is not None \
            else 25.0
        self.temperature_c = _check_number("temperature_c", default_t if temperature_c is None
                                           else temperature_c, low=-273.15, open_low=True)
        self.refresh_percentile = _check_number("refresh_percentile", refresh_percentile,
                                                low=0.0, open_low=True, high=1.0,
                                                open_high=True)
        self.node_nm = _check_number("node_nm", tech.node_nm if node_nm is None else node_nm,
                                     low=0.0, open_low=True)
        self.voltage_v = _check_number("voltage_v", tech.voltage_v if voltage_v is None
                                       else voltage_v, low=0.0, open_low=True)
        self.bits_per_cell = check_positive("bits_per_cell", bits_per_cell)
        self.rows_per_refresh = check_positive("rows_per_refresh", rows_per_refresh)
        if rows_per_refresh > words // banks:
            raise ValueError(f"rows_per_refresh must be in 1..{words // banks} (the rows), "
                             f"not {rows_per_refresh}")
        if bits_per_cell > tech.max_bits_per_cell:
            raise ValueError(f"bits_per_cell must be in 1..{tech.max_bits_per_cell} for "
                             f"technology {tech.name!r}, not {bits_per_cell}")

    # --- shape -----------------------------------------------------------------------------
    @property
    def bits(self) -> int:
        """Bits stored."""
        return self.words * self.width

    @property
    def cells(self) -> int:
        """Cells holding :attr:`bits` (fewer than bits with multi-level cells)."""
        return -(-self.bits // self.bits_per_cell)

    @property
    def rows(self) -> int:
        """Refresh rows: one address across all banks (``words / banks``)."""
        return self.words // self.banks

    @property
    def row_bits(self) -> int:
        """Bits of one row (``banks * width``)."""
        return self.banks * self.width

    @property
    def refresh_operations(self) -> int:
        """Refresh operations per sweep of every row: ``ceil(rows / rows_per_refresh)``."""
        return -(-self.rows // self.rows_per_refresh)

    # --- energy ----------------------------------------------------------------------------
    @property
    def energy_scale(self) -> float:
        """Factor on the table's per-bit energies: node/supply (``node_scale``) times the
        macro-size power law at one bank's size."""
        tech = self.technology
        size = (self.bits / self.banks / tech.reference_macro_bits) ** tech.energy_size_exponent
        return size * node_scale(self.node_nm, self.voltage_v, reference_nm=tech.node_nm,
                                 reference_voltage_v=tech.voltage_v)

    @property
    def read_energy_j_per_bit(self) -> float:
        """Energy per bit read, joules."""
        return self.technology.read_energy_j_per_bit * self.energy_scale

    @property
    def write_energy_j_per_bit(self) -> float:
        """Energy per bit written, joules."""
        return self.technology.write_energy_j_per_bit * self.energy_scale

    def access_energy_j(self, reads: float, writes: float) -> float:
        """Energy of ``reads`` words read and ``writes`` words written, joules."""
        _check_number("reads", reads, low=0.0)
        _check_number("writes", writes, low=0.0)
        return self.width * (reads * self.read_energy_j_per_bit
                             + writes * self.write_energy_j_per_bit)

    def leakage_power_w(self, voltage_v: float | None = None) -> float:
        """Leakage of the whole buffer at ``voltage_v`` (default the model's), watts;
        linear in the supply (assumed) and not scaled with the node (assumed)."""
        v = self.voltage_v if voltage_v is None else _check_number("voltage_v", voltage_v,
                                                                   low=0.0, open_low=True)
        return self.cells * self.technology.leakage_w_per_bit * v / self.technology.voltage_v

    def leakage_energy_j(self, duration_s: float, voltage_v: float | None = None) -> float:
        """Leakage energy over ``duration_s``, joules."""
        return self.leakage_power_w(voltage_v) * _check_number("duration_s", duration_s,
                                                               low=0.0)

    # --- area and latency ------------------------------------------------------------------
    @property
    def area_mm2(self) -> float:
        """Macro area: cells x bit cell / array efficiency, scaled by ``(node/ref)**2``."""
        tech = self.technology
        return (self.cells * tech.cell_area_um2 / tech.array_efficiency
                * (self.node_nm / tech.node_nm) ** 2 * 1e-6)

    def read_latency_cycles(self, clock_hz: float) -> int:
        """Cycles of a read at ``clock_hz`` (at least 1; the RTL is a 1-cycle memory)."""
        hz = _check_number("clock_hz", clock_hz, low=0.0, open_low=True)
        return max(1, math.ceil(self.technology.read_latency_s * hz * (1 - 1e-12)))

    def write_latency_cycles(self, clock_hz: float) -> int:
        """Cycles of a write at ``clock_hz`` (at least 1)."""
        hz = _check_number("clock_hz", clock_hz, low=0.0, open_low=True)
        return max(1, math.ceil(self.technology.write_latency_s * hz * (1 - 1e-12)))

    # --- retention and refresh -------------------------------------------------------------
    @property
    def retention_mu(self) -> float:
        """``mu`` of ``ln t`` at :attr:`temperature_c` (seconds)."""
        tech = self.technology
        mu = tech.retention_mu
        assert tech.reference_temperature_c is not None and tech.retention_halving_c
        return mu - math.log(2) * (self.temperature_c - tech.reference_temperature_c) \
            / tech.retention_halving_c

    def retention_s(self, percentile: float) -> float:
        """Per-cell retention at quantile ``percentile`` (that fraction of cells holds data
        for less than it) at :attr:`temperature_c`, seconds."""
        from scipy.stats import lognorm

        q = _check_number("percentile", percentile, low=0.0, open_low=True, high=1.0,
                          open_high=True)
        sigma = self.technology._retention()[0]
        return float(lognorm.ppf(q, s=sigma, scale=math.exp(self.retention_mu)))

    @property
    def refresh_cell_quantile(self) -> float:
        """Per-cell quantile of the refresh period: ``1 - refresh_percentile ** (1 / cells)``."""
        return -math.expm1(math.log(self.refresh_percentile) / self.cells)

    @property
    def refresh_period_s(self) -> float:
        """Time every cell holds its data with probability :attr:`refresh_percentile`."""
        return self.retention_s(self.refresh_cell_quantile)

    def refresh_interval_cycles(self, clock_hz: float) -> int:
        """Cycles between two row refreshes at ``clock_hz``:
        ``floor(refresh_period_s * clock_hz / (refresh_operations + 1))``.

        Raises
        ------
        ValueError
            The interval would be under 2 cycles (refresh would take every port cycle).
        """
        hz = _check_number("clock_hz", clock_hz, low=0.0, open_low=True)
        interval = math.floor(self.refresh_period_s * hz / (self.refresh_operations + 1))
        if interval < 2:
            raise ValueError(f"{self.technology.name} buffer of {self.refresh_operations} "
                             f"refresh operations at "
                             f"{self.temperature_c} C cannot be refreshed at {hz} Hz: "
                             f"refresh period {self.refresh_period_s} s gives an interval "
                             f"of {interval} cycles (needs >= 2)")
        return interval

    def retention_cycles(self, clock_hz: float) -> int:
        """:attr:`refresh_period_s` in whole cycles at ``clock_hz`` (the longest age a read
        may find, for :class:`~archsim.hw.accel.memory.BufferMemory`'s retention checker)."""
        hz = _check_number("clock_hz", clock_hz, low=0.0, open_low=True)
        return math.floor(self.refresh_period_s * hz)

    def refresh_count(self, cycles: int, clock_hz: float) -> int:
        """Refresh operations in the ``cycles`` cycles after a ``refresh_sync`` (exact)."""
        if isinstance(cycles, bool) or not isinstance(cycles, int) or cycles < 0:
            raise ValueError(f"cycles must be an int >= 0, not {cycles!r}")
        return cycles // self.refresh_interval_cycles(clock_hz)

    def stolen_cycles(self, busy_cycles: int, clock_hz: float) -> int:
        """Refresh cycles among the first ``busy_cycles`` available ones after a sync:
        ``(busy_cycles - 1) // (interval - 1)`` (exact for the RTL's timer)."""
        if isinstance(busy_cycles, bool) or not isinstance(busy_cycles, int) or busy_cycles < 0:
            raise ValueError(f"busy_cycles must be an int >= 0, not {busy_cycles!r}")
        interval = self.refresh_interval_cycles(clock_hz)
        return 0 if busy_cycles == 0 else (busy_cycles - 1) // (interval - 1)

    @property
    def refresh_energy_per_operation_j(self) -> float:
        """Energy of one refresh operation (``rows_per_refresh * row_bits`` x refresh energy
        per bit, scaled)."""
        e = self.technology.refresh_energy_j_per_bit
        if e is None:
            raise ValueError(f"memory technology {self.technology.name!r} is not refreshed")
        return self.rows_per_refresh * self.row_bits * e * self.energy_scale

    def refresh_energy_j(self, duration_s: float, *, clock_hz: float | None = None) -> float:
        """Refresh energy over ``duration_s``, joules: with ``clock_hz``, the RTL's exact
        count over ``floor(duration_s * clock_hz)`` cycles after a sync; without, the ideal
        rate ``refresh_operations / refresh_period_s``. Zero for technologies that are not refreshed."""
        d = _check_number("duration_s", duration_s, low=0.0)
        if not self.technology.refreshed:
            return 0.0
        if clock_hz is None:
            return (d * self.refresh_operations / self.refresh_period_s
                    * self.refresh_energy_per_operation_j)
        cycles = math.floor(d * _check_number("clock_hz", clock_hz, low=0.0, open_low=True))
        return self.refresh_count(cycles, clock_hz) * self.refresh_energy_per_operation_j

    def energy_j(self, *, reads: float, writes: float, duration_s: float,
                 clock_hz: float | None = None) -> dict[str, float]:
        """Energy components over a run: ``access``, ``leakage``, ``refresh`` and their
        ``total``, joules."""
        parts = {"access": self.access_energy_j(reads, writes),
                 "leakage": self.leakage_energy_j(duration_s),
                 "refresh": self.refresh_energy_j(duration_s, clock_hz=clock_hz)}
        parts["total"] = parts["access"] + parts["leakage"] + parts["refresh"]
        return parts
