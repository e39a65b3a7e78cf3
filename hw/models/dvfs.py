"""Clock and power domains with DVFS: operating points, the V-f relation, an LDO, an ADPLL,
and the time, energy and stall cycles of a change of operating point.

A domain runs at an :class:`OperatingPoint` (supply voltage, clock frequency). Which points
are legal is a :class:`VFCurve`: a measured table of ``(V, f_max)`` points (interpolated
linearly) or the alpha-power law of Sakurai & Newton ("Alpha-power law MOSFET model and its
applications to CMOS inverter delay and other formulas", IEEE JSSC 25(2), 1990), whose gate
delay ``~ C V / (V - V_t) ** alpha`` gives ``f_max = k (V - V_t) ** alpha / V``.

The supply comes from an :class:`LDOModel` (a linear regulator: output code -> voltage,
settling time of a step, efficiency ``vout / vin * I_load / (I_load + I_q)``), the clock from
an :class:`ADPLLModel` (a DCO code table, a relock time). :class:`DVFSModel` turns a change of
point into a :class:`DVFSTransition` in the standard safe order -- raise V before f when
speeding up, lower f before V when slowing down -- so every intermediate (V, f) is legal. The
cost of that order: the two steps run one after the other (settle, then lock, or the reverse),
never overlapped (:attr:`DVFSTransition.serial_cost_s`), and the domain is stalled for
both (conservative: a domain could keep running during the voltage ramp at its old, lower
frequency).

Energy: dynamic energy per action scales as ``C V**2`` (:func:`dynamic_energy_scale`);
leakage power to first order as ``V * I_leak`` (:func:`leakage_power_scale`, Butts & Sohi,
"A static power model for architects", MICRO 2000: ``P_static = V_cc N k_design I_leak``).

Every default, with its source, is in :data:`DVFS_DEFAULTS_SOURCES`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import ConfigError

__all__ = [
    "OperatingPoint", "VFCurve", "LDOModel", "ADPLLModel", "DVFSStep", "DVFSTransition",
    "DVFSModel", "dynamic_energy_scale", "leakage_power_scale", "cycles_for",
    "DVFS_DEFAULTS", "DVFS_DEFAULTS_SOURCES", "default_ldo", "default_adpll",
    "default_vf_curve", "STEP_KINDS",
]

#: The kinds of step a transition is made of.
STEP_KINDS = ("voltage", "frequency")

# Relative slack when comparing floats derived from the same decimal figures (a voltage
# computed as vmin + code * step against the same voltage typed by a user).
_REL = 1e-9


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
            value):
        raise ConfigError(f"{name} must be a finite number, not {value!r}", field=name)
    return float(value)


def _positive(name: str, value: object) -> float:
    v = _number(name, value)
    if not v > 0:
        raise ConfigError(f"{name} must be > 0, not {value!r}", field=name)
    return v


def _nonnegative(name: str, value: object) -> float:
    v = _number(name, value)
    if v < 0:
        raise ConfigError(f"{name} must be >= 0, not {value!r}", field=name)
    return v


def cycles_for(time_s: float, clock_hz: float) -> int:
    """Whole cycles of a ``clock_hz`` clock that cover ``time_s``: ``ceil(time_s *
    clock_hz)`` (0 for no time, at least 1 for any positive time).

    A product within ``1e-9`` cycles of an integer counts as that integer, so that a time
    written as a round number of cycles (``30e-9 s * 1e9 Hz``) is not rounded up by the
    float error of the product.
    """
    t = _nonnegative("time_s", time_s)
    f = _positive("clock_hz", clock_hz)
    if t == 0:
        return 0
    return max(1, math.ceil(t * f - 1e-9))


@dataclass(frozen=True)
class OperatingPoint:
    """A supply voltage and a clock frequency of one domain."""

    voltage_v: float
    frequency_hz: float

    def __post_init__(self) -> None:
        _positive("voltage_v", self.voltage_v)
        _positive("frequency_hz", self.frequency_hz)

    def __str__(self) -> str:
        return f"({self.voltage_v:g} V, {self.frequency_hz / 1e6:g} MHz)"


class VFCurve:
    """The maximum clock frequency a domain reaches at a supply voltage.

    Build one with :meth:`table` (measured points, interpolated linearly), :meth:`alpha_power`
    (the closed form ``f_max = k (V - V_t) ** alpha / V``, 0 at or below ``V_t``) or
    :meth:`fit` (the closed form fitted to points by :func:`scipy.optimize.curve_fit`).

    Attributes
    ----------
    kind : {"table", "alpha-power"}
    points : tuple of (float, float)
        The table's ``(voltage_v, f_max_hz)`` points, by rising voltage (empty for the law).
    k, v_t_v, alpha : float
        The law's parameters (``k`` in Hz V**(1 - alpha)); NaN for a table.
    """

    def __init__(self, *, points: Sequence[tuple[float, float]] | None = None,
                 k: float | None = None, v_t_v: float | None = None,
                 alpha: float | None = None) -> None:
        law = (k, v_t_v, alpha)
        if points is not None:
            if any(p is not None for p in law):
                raise ConfigError("VFCurve takes either points or (k, v_t_v, alpha), not both",
                                  field="points")
            pts = []
            for i, p in enumerate(points):
                if len(p) != 2:
                    raise ConfigError(f"VFCurve points[{i}] must be (voltage_v, f_max_hz), "
                                      f"not {p!r}", field="points")
                pts.append((_positive(f"points[{i}] voltage_v", p[0]),
                            _positive(f"points[{i}] f_max_hz", p[1])))
            if len(pts) < 2:
                raise ConfigError(f"VFCurve needs at least 2 points, not {len(pts)}",
                                  field="points")
            for (v0, f0), (v1, f1) in zip(pts[:-1], pts[1:], strict=True):
                if not v1 > v0:
                    raise ConfigError("VFCurve points must have strictly rising voltages: "
                                      f"{v1:g} V after {v0:g} V", field="points")
                if f1 < f0:
                    raise ConfigError("VFCurve f_max must not fall as voltage rises: "
                                      f"{f1:g} Hz at {v1:g} V after {f0:g} Hz at {v0:g} V",
                                      field="points")
            self.kind = "table"
            self.points: tuple[tuple[float, float], ...] = tuple(pts)
            self.k = self.v_t_v = self.alpha = math.nan
            self._v = np.array([p[0] for p in pts])
            self._f = np.array([p[1] for p in pts])
        else:
            if any(p is None for p in law):
                raise ConfigError("VFCurve needs points, or all of k, v_t_v and alpha",
                                  field="points")
            self.kind = "alpha-power"
            self.points = ()
            self.k = _positive("k", k)
            self.v_t_v = _nonnegative("v_t_v", v_t_v)
            self.alpha = _positive("alpha", alpha)

    @classmethod
    def table(cls, points: Sequence[tuple[float, float]]) -> VFCurve:
        """A measured table of ``(voltage_v, f_max_hz)`` points, interpolated linearly."""
        return cls(points=points)

    @classmethod
    def alpha_power(cls, *, k: float, v_t_v: float, alpha: float) -> VFCurve:
        """The alpha-power law ``f_max = k (V - V_t) ** alpha / V`` (Sakurai & Newton 1990)."""
        return cls(k=k, v_t_v=v_t_v, alpha=alpha)

    @classmethod
    def fit(cls, points: Sequence[tuple[float, float]]) -> VFCurve:
        """The alpha-power law fitted to ``(voltage_v, f_max_hz)`` points (at least 3) by
        least squares (:func:`scipy.optimize.curve_fit`, bounded: ``k > 0``, ``0 <= V_t <
        min V``, ``0.5 <= alpha <= 3``)."""
        from scipy.optimize import curve_fit

        table = cls.table(sorted(points)) if len(points) >= 2 else None
        if table is None or len(table.points) < 3:
            raise ConfigError(f"VFCurve.fit needs at least 3 points, not {len(points)}",
                              field="points")
        v = table._v
        scale = float(table._f.max())  # fit in units of the largest f_max: well conditioned
        f = table._f / scale
        v_min = float(v.min())

        def law(x: np.ndarray, k: float, vt: float, a: float) -> np.ndarray:
            return np.asarray(k * np.clip(x - vt, 0.0, None) ** a / x)

        vt0, a0 = 0.4 * v_min, 1.3
        k0 = float(f[-1] * v[-1] / (v[-1] - vt0) ** a0)
        popt, _ = curve_fit(law, v, f, p0=(k0, vt0, a0),
                            bounds=([1e-12, 0.0, 0.5], [np.inf, v_min * (1 - 1e-6), 3.0]),
                            xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=20000)
        k, vt, a = (float(p) for p in popt)
        return cls.alpha_power(k=k * scale, v_t_v=vt, alpha=a)

    def f_max(self, voltage_v: float) -> float:
        """The highest clock frequency (Hz) at ``voltage_v``.

        Raises
        ------
        ConfigError
            For a table, if ``voltage_v`` is outside its voltage range.
        """
        v = _positive("voltage_v", voltage_v)
        if self.kind == "table":
            lo, hi = self.points[0][0], self.points[-1][0]
            if not lo * (1 - _REL) <= v <= hi * (1 + _REL):
                raise ConfigError(f"voltage {v:g} V is outside the V-f table's range "
                                  f"{lo:g}..{hi:g} V", field="voltage_v",
                                  allowed=f"{lo:g}..{hi:g} V")
            return float(np.interp(v, self._v, self._f))
        if v <= self.v_t_v:
            return 0.0
        return self.k * (v - self.v_t_v) ** self.alpha / v

    def check(self, op: OperatingPoint) -> OperatingPoint:
        """Return ``op`` if its frequency is at most :meth:`f_max` of its voltage.

        Raises
        ------
        ConfigError
            Naming the voltage, the frequency and the maximum allowed.
        """
        f_max = self.f_max(op.voltage_v)
        if op.frequency_hz > f_max * (1 + _REL):
            raise ConfigError(
                f"operating point {op} is overclocked: {op.frequency_hz / 1e6:g} MHz exceeds "
                f"f_max = {f_max / 1e6:.6g} MHz at {op.voltage_v:g} V",
                field="frequency_hz", allowed=f"<= {f_max / 1e6:.6g} MHz at "
                f"{op.voltage_v:g} V")
        return op


class LDOModel:
    """A digitally programmed low-dropout (linear) regulator, behaviourally.

    Output code ``c`` (``0 .. codes - 1``) gives ``vout_min_v + c * step_v``. A step from
    ``V1`` to ``V2`` settles in ``settle_s + settle_s_per_v * |V2 - V1|`` (0 for no step).
    A linear regulator passes its load current from the input, plus its quiescent current,
    so its efficiency is ``vout / vin * I_load / (I_load + I_q)`` and it needs ``vout <= vin -
    dropout_v``. Raising the output charges ``output_capacitance_f`` from the input:
    ``C * (V2 - V1) * vin`` (assumed first-order model; lowering it draws nothing, the
    capacitor discharges into the load).

    Parameters
    ----------
    vin_v, vout_min_v, vout_max_v, step_v, dropout_v : float
        Volts. ``vout_max_v + dropout_v <= vin_v``.
    settle_s, settle_s_per_v : float
        Fixed and per-volt settling time (at least one > 0).
    quiescent_a : float
        Quiescent (ground) current.
    output_capacitance_f : float
        The capacitance on the output (regulator plus the domain's decoupling).
    """

    def __init__(self, *, vin_v: float, vout_min_v: float, vout_max_v: float, step_v: float,
                 dropout_v: float, quiescent_a: float, settle_s: float = 0.0,
                 settle_s_per_v: float = 0.0, output_capacitance_f: float = 0.0) -> None:
        self.vin_v = _positive("vin_v", vin_v)
        self.vout_min_v = _positive("vout_min_v", vout_min_v)
        self.vout_max_v = _positive("vout_max_v", vout_max_v)
        self.step_v = _positive("step_v", step_v)
        self.dropout_v = _nonnegative("dropout_v", dropout_v)
        self.quiescent_a = _nonnegative("quiescent_a", quiescent_a)
        self.settle_s = _nonnegative("settle_s", settle_s)
        self.settle_s_per_v = _nonnegative("settle_s_per_v", settle_s_per_v)
        self.output_capacitance_f = _nonnegative("output_capacitance_f", output_capacitance_f)
        if not self.vout_max_v > self.vout_min_v:
            raise ConfigError(f"vout_max_v ({self.vout_max_v:g} V) must be > vout_min_v "
                              f"({self.vout_min_v:g} V)", field="vout_max_v")
        if self.vout_max_v + self.dropout_v > self.vin_v * (1 + _REL):
            raise ConfigError(f"vout_max_v + dropout_v ({self.vout_max_v:g} V + "
                              f"{self.dropout_v:g} V) must be <= vin_v ({self.vin_v:g} V)",
                              field="vin_v", allowed=f">= {self.vout_max_v + self.dropout_v:g}")
        span = self.vout_max_v - self.vout_min_v
        if self.step_v > span * (1 + _REL):
            raise ConfigError(f"step_v ({self.step_v:g} V) must be <= vout_max_v - vout_min_v "
                              f"({span:g} V)", field="step_v")
        if self.settle_s == 0 and self.settle_s_per_v == 0:
            raise ConfigError("LDOModel needs settle_s > 0 or settle_s_per_v > 0 (a step "
                              "cannot settle in no time)", field="settle_s")
        #: Number of output codes.
        self.codes = int(math.floor(span / self.step_v + _REL)) + 1

    @property
    def code_width(self) -> int:
        """Bits of the code input."""
        return max(1, (self.codes - 1).bit_length())

    def voltage(self, code: int) -> float:
        """The output voltage of ``code``."""
        if isinstance(code, bool) or not isinstance(code, (int, np.integer)) or not (
                0 <= code < self.codes):
            raise ConfigError(f"LDO code must be an int in 0..{self.codes - 1}, not {code!r}",
                              field="code", allowed=f"0..{self.codes - 1}")
        return self.vout_min_v + int(code) * self.step_v

    def code(self, voltage_v: float) -> int:
        """The lowest code whose output is at least ``voltage_v`` (never below the target)."""
        v = _positive("voltage_v", voltage_v)
        if not self.vout_min_v * (1 - _REL) <= v <= self.vout_max_v * (1 + _REL):
            raise ConfigError(f"voltage {v:g} V is outside the LDO's output range "
                              f"{self.vout_min_v:g}..{self.vout_max_v:g} V", field="voltage_v",
                              allowed=f"{self.vout_min_v:g}..{self.vout_max_v:g} V")
        return min(self.codes - 1,
                   max(0, math.ceil((v - self.vout_min_v) / self.step_v - _REL * 1e3)))

    def settling_s(self, from_voltage_v: float, to_voltage_v: float) -> float:
        """Settling time of a step between two output voltages (0 for no step)."""
        dv = abs(_positive("to_voltage_v", to_voltage_v)
                 - _positive("from_voltage_v", from_voltage_v))
        if dv <= self.step_v * 1e-6:
            return 0.0
        return self.settle_s + self.settle_s_per_v * dv

    def settling_s_codes(self, from_code: int, to_code: int) -> float:
        """Settling time of a step between two codes (0 for the same code)."""
        if from_code == to_code:
            return 0.0
        return self.settle_s + self.settle_s_per_v * abs(to_code - from_code) * self.step_v

    def _check_out(self, voltage_v: float) -> float:
        v = _positive("voltage_v", voltage_v)
        if v > self.vin_v - self.dropout_v + self.vin_v * _REL:
            raise ConfigError(f"output {v:g} V is above vin_v - dropout_v = "
                              f"{self.vin_v - self.dropout_v:g} V", field="voltage_v",
                              allowed=f"<= {self.vin_v - self.dropout_v:g} V")
        return v

    def efficiency(self, voltage_v: float, load_a: float) -> float:
        """Power efficiency at output ``voltage_v`` and load current ``load_a``:
        ``vout / vin * I_load / (I_load + I_q)``."""
        v = self._check_out(voltage_v)
        i = _nonnegative("load_a", load_a)
        if i + self.quiescent_a == 0:
            return v / self.vin_v  # no current at all: the voltage ratio is the limit
        return v / self.vin_v * i / (i + self.quiescent_a)

    def input_power_w(self, voltage_v: float, load_power_w: float) -> float:
        """Power drawn from the input for a load taking ``load_power_w`` at ``voltage_v``:
        ``vin * (P_load / vout + I_q)``."""
        v = self._check_out(voltage_v)
        p = _nonnegative("load_power_w", load_power_w)
        return self.vin_v * (p / v + self.quiescent_a)

    def transition_energy_j(self, from_voltage_v: float, to_voltage_v: float) -> float:
        """Energy drawn from the input by a step: ``C * max(0, V2 - V1) * vin`` (assumed
        first-order model: the output capacitance's charge passes through the pass device)."""
        dv = _positive("to_voltage_v", to_voltage_v) - _positive("from_voltage_v",
                                                                  from_voltage_v)
        return self.output_capacitance_f * max(0.0, dv) * self.vin_v


class ADPLLModel:
    """An all-digital PLL: a DCO code selects a frequency; a new code relocks in ``lock_s``.

    The code table is either linear from ``f_min_hz`` (code 0) to ``f_max_hz`` (code
    ``codes - 1``) -- assumed: a DCO is monotone in its code and roughly linear -- or given
    as ``table_hz`` (strictly rising, one frequency per code).
    """

    def __init__(self, *, lock_s: float, f_min_hz: float | None = None,
                 f_max_hz: float | None = None, codes: int | None = None,
                 table_hz: Sequence[float] | None = None) -> None:
        self.lock_s = _positive("lock_s", lock_s)
        if table_hz is not None:
            if f_min_hz is not None or f_max_hz is not None or codes is not None:
                raise ConfigError("ADPLLModel takes either table_hz or (f_min_hz, f_max_hz, "
                                  "codes), not both", field="table_hz")
            table = tuple(_positive(f"table_hz[{i}]", f) for i, f in enumerate(table_hz))
            if len(table) < 2:
                raise ConfigError(f"table_hz needs at least 2 frequencies, not {len(table)}",
                                  field="table_hz")
            for i in range(1, len(table)):
                if not table[i] > table[i - 1]:
                    raise ConfigError(f"table_hz must rise strictly: table_hz[{i}] = "
                                      f"{table[i]:g} after {table[i - 1]:g}", field="table_hz")
        else:
            if f_min_hz is None or f_max_hz is None or codes is None:
                raise ConfigError("ADPLLModel needs table_hz, or all of f_min_hz, f_max_hz "
                                  "and codes", field="codes")
            lo, hi = _positive("f_min_hz", f_min_hz), _positive("f_max_hz", f_max_hz)
            if isinstance(codes, bool) or not isinstance(codes, int) or codes < 2:
                raise ConfigError(f"codes must be an int >= 2, not {codes!r}", field="codes")
            if not hi > lo:
                raise ConfigError(f"f_max_hz ({hi:g}) must be > f_min_hz ({lo:g})",
                                  field="f_max_hz")
            table = tuple(lo + (hi - lo) * c / (codes - 1) for c in range(codes))
        #: Frequency of each code, Hz.
        self.table_hz: tuple[float, ...] = table
        self.codes = len(table)
        self.f_min_hz = table[0]
        self.f_max_hz = table[-1]

    @property
    def code_width(self) -> int:
        """Bits of the DCO code input."""
        return max(1, (self.codes - 1).bit_length())

    def frequency(self, code: int) -> float:
        """The frequency of ``code``."""
        if isinstance(code, bool) or not isinstance(code, (int, np.integer)) or not (
                0 <= code < self.codes):
            raise ConfigError(f"DCO code must be an int in 0..{self.codes - 1}, not {code!r}",
                              field="code", allowed=f"0..{self.codes - 1}")
        return self.table_hz[int(code)]

    def code(self, frequency_hz: float, *, exact: bool = False) -> int:
        """The lowest code whose frequency is at least ``frequency_hz``; with ``exact``, the
        code whose frequency equals it (to 1e-9 relative)."""
        f = _positive("frequency_hz", frequency_hz)
        if exact:
            for c, fc in enumerate(self.table_hz):
                if abs(fc - f) <= _REL * f:
                    return c
            raise ConfigError(f"frequency {f / 1e6:g} MHz is not in the DCO table",
                              field="frequency_hz",
                              allowed=[f"{fc / 1e6:g} MHz" for fc in self.table_hz])
        for c, fc in enumerate(self.table_hz):
            if fc >= f * (1 - _REL):
                return c
        raise ConfigError(f"frequency {f / 1e6:g} MHz is above the ADPLL's f_max_hz "
                          f"({self.f_max_hz / 1e6:g} MHz)", field="frequency_hz",
                          allowed=f"<= {self.f_max_hz / 1e6:g} MHz")


@dataclass(frozen=True)
class DVFSStep:
    """One write of a transition: the LDO (``"voltage"``) or the ADPLL (``"frequency"``)
    moves from ``from_code`` to ``to_code`` and needs ``time_s`` to settle or lock."""

    kind: str
    from_code: int
    to_code: int
    time_s: float


@dataclass(frozen=True)
class DVFSTransition:
    """A change of operating point, as :meth:`DVFSModel.transition` plans it.

    Attributes
    ----------
    from_op, to_op : OperatingPoint
        The points as realised by the codes (the LDO's voltage, the DCO's frequency).
    steps : tuple of DVFSStep
        In the order they are made (empty for no change).
    energy_j : float
        Energy of the change itself (the LDO's output charge); the stalled domain's leakage
        over :attr:`time_s` is the caller's to add.
    """

    from_op: OperatingPoint
    to_op: OperatingPoint
    steps: tuple[DVFSStep, ...]
    energy_j: float

    @property
    def time_s(self) -> float:
        """Settling plus lock time, one after the other."""
        return sum(s.time_s for s in self.steps)

    @property
    def serial_cost_s(self) -> float:
        """What the safe order costs: :attr:`time_s` minus the time of the two steps
        overlapped (the shorter step's time; 0 with fewer than two steps)."""
        if len(self.steps) < 2:
            return 0.0
        return self.time_s - max(s.time_s for s in self.steps)

    @property
    def order(self) -> str:
        """``"voltage-first"``, ``"frequency-first"``, ``"voltage"``, ``"frequency"`` or
        ``"none"``."""
        kinds = [s.kind for s in self.steps]
        if len(kinds) == 2:
            return f"{kinds[0]}-first"
        return kinds[0] if kinds else "none"

    def stall_cycles(self, controller_clock_hz: float) -> int:
        """Cycles of the DVFS controller's clock the domain is stalled.

        Each step costs its settle/lock time in whole cycles (:func:`cycles_for`) plus one
        cycle in which the controller sees ``ready``/``lock`` and makes the next write (or
        lifts the stall) -- exactly what :class:`archsim.hw.accel.dvfs.DVFSController` does.
        No change costs 0 (the request is acknowledged in the next cycle without a stall).
        """
        return sum(cycles_for(s.time_s, controller_clock_hz) + 1 for s in self.steps)


class DVFSModel:
    """Plans changes of operating point for a domain supplied by ``ldo`` and clocked by
    ``adpll``; with ``curve``, every point (as realised by the codes) must be legal.

    A point is realised by the LDO's lowest code at or above its voltage and the DCO's lowest
    code at or above its frequency (:meth:`realize`).
    """

    def __init__(self, *, ldo: LDOModel, adpll: ADPLLModel,
                 curve: VFCurve | None = None) -> None:
        if not isinstance(ldo, LDOModel):
            raise ConfigError(f"ldo must be an LDOModel, not {ldo!r}", field="ldo")
        if not isinstance(adpll, ADPLLModel):
            raise ConfigError(f"adpll must be an ADPLLModel, not {adpll!r}", field="adpll")
        if curve is not None and not isinstance(curve, VFCurve):
            raise ConfigError(f"curve must be a VFCurve or None, not {curve!r}", field="curve")
        self.ldo = ldo
        self.adpll = adpll
        self.curve = curve

    def realize(self, op: OperatingPoint) -> tuple[int, int, OperatingPoint]:
        """``(ldo_code, dco_code, realised point)`` of ``op``, checked against the curve."""
        if not isinstance(op, OperatingPoint):
            raise ConfigError(f"expected an OperatingPoint, not {op!r}", field="op")
        lc = self.ldo.code(op.voltage_v)
        dc = self.adpll.code(op.frequency_hz)
        real = OperatingPoint(self.ldo.voltage(lc), self.adpll.frequency(dc))
        if self.curve is not None:
            self.curve.check(op)
            self.curve.check(real)
        return lc, dc, real

    def transition(self, from_op: OperatingPoint, to_op: OperatingPoint) -> DVFSTransition:
        """The steps, time and energy of moving from ``from_op`` to ``to_op``, in the safe
        order: when the frequency rises, the voltage is raised first; otherwise the
        frequency is lowered first."""
        l1, d1, r1 = self.realize(from_op)
        l2, d2, r2 = self.realize(to_op)
        v_step = (DVFSStep("voltage", l1, l2, self.ldo.settling_s_codes(l1, l2))
                  if l1 != l2 else None)
        f_step = DVFSStep("frequency", d1, d2, self.adpll.lock_s) if d1 != d2 else None
        ordered = (v_step, f_step) if d2 > d1 else (f_step, v_step)
        steps = tuple(s for s in ordered if s is not None)
        energy = self.ldo.transition_energy_j(r1.voltage_v, r2.voltage_v)
        return DVFSTransition(r1, r2, steps, energy)


def dynamic_energy_scale(voltage_v: float, nominal_v: float) -> float:
    """Dynamic energy per action at ``voltage_v`` relative to ``nominal_v``: ``(V / V_nom)
    ** 2`` (switched capacitance unchanged, ``E = C V**2``)."""
    return (_positive("voltage_v", voltage_v) / _positive("nominal_v", nominal_v)) ** 2


def leakage_power_scale(voltage_v: float, nominal_v: float, *,
                        dibl_per_v: float = 0.0) -> float:
    """Leakage power at ``voltage_v`` relative to ``nominal_v``.

    First order (Butts & Sohi, MICRO 2000: ``P_static = V_cc N k_design I_leak``) with the
    leakage current fixed: ``V / V_nom``. ``dibl_per_v`` adds the supply dependence of the
    subthreshold current through drain-induced barrier lowering, ``I_leak ~ exp(eta V / (n
    v_T))``: ``dibl_per_v = eta / (n v_T)`` (1/V, to be stated by the caller) multiplies the
    scale by ``exp(dibl_per_v * (V - V_nom))``.
    """
    v = _positive("voltage_v", voltage_v)
    vn = _positive("nominal_v", nominal_v)
    d = _nonnegative("dibl_per_v", dibl_per_v)
    return v / vn * math.exp(d * (v - vn))


# ----------------------------------------------------------------------------------------
# Defaults. EdgeBERT (Tambe et al., MICRO 2021; harvard-acc/EdgeBERT hw/cmod/Dvfs/Dvfs.h)
# verifies only the code widths; the rest come from cited literature or are assumed.

#: Default parameters (units in the names).
DVFS_DEFAULTS: dict[str, float] = {
    "ldo_code_bits": 8,
    "dco_code_bits": 6,
    "ldo_vout_min_v": 0.5,
    "ldo_vout_max_v": 0.8,
    "ldo_step_v": (0.8 - 0.5) / 255,
    "ldo_vin_v": 0.9,
    "ldo_dropout_v": 0.05,
    "ldo_quiescent_a": 2.7e-6,
    "ldo_settle_s": 25.2e-9,
    "ldo_settle_s_per_v": 100e-9,
    "ldo_output_capacitance_f": 1e-9,
    "adpll_f_min_hz": 100e6,
    "adpll_f_max_hz": 1e9,
    "adpll_codes": 64,
    "adpll_lock_s": 12 / 100e6,
    "vf_alpha": 1.3,
    "vf_v_t_v": 0.3,
    "vf_f_nominal_hz": 1e9,
    "vf_v_nominal_v": 0.8,
}

#: The source of each default in :data:`DVFS_DEFAULTS`.
DVFS_DEFAULTS_SOURCES: dict[str, str] = {
    "ldo_code_bits": "EdgeBERT, verified: ldo_sel_out is NVUINT8 (harvard-acc/EdgeBERT "
                     "hw/cmod/Dvfs/Dvfs.h)",
    "dco_code_bits": "EdgeBERT, verified: dco_sel_out is NVUINT6 (harvard-acc/EdgeBERT "
                     "hw/cmod/Dvfs/Dvfs.h)",
    "ldo_vout_min_v": "assumed (EdgeBERT's LDO range recalled as ~0.5-0.8 V, not verified)",
    "ldo_vout_max_v": "assumed (EdgeBERT's LDO range recalled as ~0.5-0.8 V, not verified)",
    "ldo_step_v": "derived: the assumed 0.5-0.8 V range over EdgeBERT's 8-bit code "
                  "(256 codes)",
    "ldo_vin_v": "assumed: the smallest round input above vout_max + dropout",
    "ldo_dropout_v": "assumed: 50 mV, the order of a digital LDO's dropout (cf. Okuma et "
                     "al., CICC 2010, 0.5 V in / 0.45 V out; recalled, not verified)",
    "ldo_quiescent_a": "assumed: 2.7 uA (cf. Okuma et al., CICC 2010, 'digital LDO with "
                       "98.7% current efficiency and 2.7-uA quiescent current'; recalled, "
                       "not verified)",
    "ldo_settle_s": "literature: 25.2 ns average settling of a 65 nm digital LDO (Zhang et "
                    "al., 'A Fast Transient Response Digital LDO with a TDC-Based Signal "
                    "Converter', Electronics 9(1):132, 2020, abstract)",
    "ldo_settle_s_per_v": "assumed: 10 mV/ns slew, consistent with the 'nanosecond-scale "
                          "voltage switching' of on-chip regulators (Kim, Gupta, Wei, "
                          "Brooks, HPCA 2008, abstract)",
    "ldo_output_capacitance_f": "assumed: 1 nF on-chip output/decoupling capacitance",
    "adpll_f_min_hz": "assumed",
    "adpll_f_max_hz": "assumed (EdgeBERT's ADPLL recalled as up to ~1 GHz, not verified)",
    "adpll_codes": "EdgeBERT, verified: a 6-bit DCO code gives 64 codes",
    "adpll_lock_s": "literature + assumed: 12 reference cycles (10 frequency + 2 phase "
                    "acquisition; Zhao & Kim, 'A Low-Power Digitally Controlled Oscillator "
                    "for All Digital Phase-Locked Loops', VLSI Design 2010, abstract) at an "
                    "assumed 100 MHz reference",
    "vf_alpha": "literature: Sakurai & Newton, IEEE JSSC 1990 (alpha between 1 and 2 for "
                "velocity-saturated devices); 1.3 assumed for the node",
    "vf_v_t_v": "assumed",
    "vf_f_nominal_hz": "assumed: f_max at the nominal voltage equals the ADPLL's f_max",
    "vf_v_nominal_v": "assumed: the LDO's top voltage",
}


def default_ldo() -> LDOModel:
    """The LDO of :data:`DVFS_DEFAULTS`."""
    d = DVFS_DEFAULTS
    return LDOModel(vin_v=d["ldo_vin_v"], vout_min_v=d["ldo_vout_min_v"],
                    vout_max_v=d["ldo_vout_max_v"], step_v=d["ldo_step_v"],
                    dropout_v=d["ldo_dropout_v"], quiescent_a=d["ldo_quiescent_a"],
                    settle_s=d["ldo_settle_s"], settle_s_per_v=d["ldo_settle_s_per_v"],
                    output_capacitance_f=d["ldo_output_capacitance_f"])


def default_adpll() -> ADPLLModel:
    """The ADPLL of :data:`DVFS_DEFAULTS`."""
    d = DVFS_DEFAULTS
    return ADPLLModel(f_min_hz=d["adpll_f_min_hz"], f_max_hz=d["adpll_f_max_hz"],
                      codes=int(d["adpll_codes"]), lock_s=d["adpll_lock_s"])


def default_vf_curve() -> VFCurve:
    """The alpha-power curve of :data:`DVFS_DEFAULTS`, with ``k`` set so that ``f_max`` at
    the nominal voltage is the nominal frequency."""
    d = DVFS_DEFAULTS
    vn, vt, a = d["vf_v_nominal_v"], d["vf_v_t_v"], d["vf_alpha"]
    return VFCurve.alpha_power(k=d["vf_f_nominal_hz"] * vn / (vn - vt) ** a, v_t_v=vt, alpha=a)
