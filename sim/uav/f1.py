"""F-1, the UAV roofline: safe velocity from sensor rate, compute latency and body dynamics.

Krishnan et al., "The Sky Is Not the Limit: A Visual Performance Model for Cyber-Physical
Co-Design in Autonomous Machines", IEEE CAL 19 (2020), and its Skyline tool: a UAV that
decides once per action period ``T_a`` and brakes at ``a_max`` must stop within its sensor
range ``d``: ``v T_a + v^2 / (2 a_max) <= d``, so

    v_safe = a_max (sqrt(T_a^2 + 2 d / a_max) - T_a),

whose roof (``T_a -> 0``) is ``sqrt(2 d a_max)``. The action period is the slowest of the
sensor's frame period, the compute latency and (optionally) the control period. The knee is
the action throughput beyond which more throughput buys little: here where ``v_safe``
reaches ``fraction`` of the roof (0.95 by default; the paper's exact criterion is an
unverified recollection), solved in closed form:
``T_knee = s (1 - f^2) / (2 f)`` with ``s = sqrt(2 d / a_max)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ...errors import ConfigError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["safe_velocity_mps", "roof_velocity_mps", "action_period_s", "knee_action_hz",
           "bound_of", "F1Point", "F1Curve", "KNEE_FRACTION"]

#: The fraction of the roof that defines the knee (assumed; see the module docstring).
KNEE_FRACTION = 0.95


def _positive(name: str, value: ArrayLike) -> NDArray[np.float64]:
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ConfigError(f"{name} must be positive and finite, not {value!r}", field=name)
    return arr


def safe_velocity_mps(*, a_max_mps2: ArrayLike, sensor_range_m: ArrayLike,
                      action_period_s: ArrayLike) -> NDArray[np.float64]:
    """The largest velocity from which the UAV stops within its sensor range (vectorized)."""
    a = _positive("a_max_mps2", a_max_mps2)
    d = _positive("sensor_range_m", sensor_range_m)
    t = _positive("action_period_s", action_period_s)
    return np.asarray(a * (np.sqrt(t * t + 2.0 * d / a) - t), dtype=float)


def roof_velocity_mps(*, a_max_mps2: float, sensor_range_m: float) -> float:
    """The physics bound ``sqrt(2 d a_max)``: the safe velocity with instant decisions."""
    a = float(_positive("a_max_mps2", a_max_mps2))
    d = float(_positive("sensor_range_m", sensor_range_m))
    return math.sqrt(2.0 * d * a)


def action_period_s(*, sensor_fps: float, compute_latency_s: float,
                    control_hz: float | None = None) -> float:
    """``T_a``: the slowest of the sensor's frame period, the compute latency and the control
    period (when given)."""
    fps = float(_positive("sensor_fps", sensor_fps))
    lat = float(_positive("compute_latency_s", compute_latency_s))
    periods = [1.0 / fps, lat]
    if control_hz is not None:
        periods.append(1.0 / float(_positive("control_hz", control_hz)))
    return max(periods)


def knee_action_hz(*, a_max_mps2: float, sensor_range_m: float,
                   fraction: float = KNEE_FRACTION) -> float:
    """The action throughput at which ``v_safe`` reaches ``fraction`` of the roof."""
    if isinstance(fraction, bool) or not 0 < fraction < 1:
        raise ConfigError(f"fraction must be in (0, 1), not {fraction!r}", field="fraction")
    a = float(_positive("a_max_mps2", a_max_mps2))
    d = float(_positive("sensor_range_m", sensor_range_m))
    s = math.sqrt(2.0 * d / a)
    return 2.0 * fraction / (s * (1.0 - fraction * fraction))


def bound_of(*, sensor_fps: float, compute_latency_s: float, knee_hz: float) -> str:
    """What limits a design: ``"physics"`` at or beyond the knee, else ``"sensor"`` or
    ``"compute"``, whichever sets the action period."""
    period = action_period_s(sensor_fps=sensor_fps, compute_latency_s=compute_latency_s)
    if 1.0 / period >= knee_hz:
        return "physics"
    return "sensor" if 1.0 / sensor_fps >= compute_latency_s else "compute"


@dataclass(frozen=True)
class F1Point:
    """One design on the F-1 plot: its action throughput and safe velocity."""

    label: str
    action_hz: float
    v_safe_mps: float
    bound: str


@dataclass(frozen=True)
class F1Curve:
    """The F-1 curve of one body (``a_max``) and sensor range, with designs on it."""

    a_max_mps2: float
    sensor_range_m: float
    points: tuple[F1Point, ...] = ()
    fraction: float = KNEE_FRACTION

    @property
    def roof_mps(self) -> float:
        return roof_velocity_mps(a_max_mps2=self.a_max_mps2, sensor_range_m=self.sensor_range_m)

    @property
    def knee_hz(self) -> float:
        return knee_action_hz(a_max_mps2=self.a_max_mps2, sensor_range_m=self.sensor_range_m,
                              fraction=self.fraction)

    def velocity_mps(self, action_hz: ArrayLike) -> NDArray[np.float64]:
        """``v_safe`` at the given action throughputs."""
        hz = _positive("action_hz", action_hz)
        return safe_velocity_mps(a_max_mps2=self.a_max_mps2,
                                 sensor_range_m=self.sensor_range_m, action_period_s=1.0 / hz)

    def plot(self, ax: Axes, *, label: str = "") -> None:
        """Draw the curve (log action throughput), its roof, its knee and the designs."""
        lo = min([0.5, *(p.action_hz / 4 for p in self.points)])
        hi = max([self.knee_hz * 10, *(p.action_hz * 4 for p in self.points)])
        hz = np.geomspace(lo, hi, 200)
        (line,) = ax.plot(hz, self.velocity_mps(hz), label=label or None)
        ax.axhline(self.roof_mps, color=line.get_color(), linestyle=":", linewidth=0.8)
        ax.axvline(self.knee_hz, color=line.get_color(), linestyle="--", linewidth=0.8)
        for p in self.points:
            ax.plot([p.action_hz], [p.v_safe_mps], "o", color=line.get_color())
            ax.annotate(p.label, (p.action_hz, p.v_safe_mps), fontsize=6,
                        xytext=(3, -8), textcoords="offset points")
        ax.set_xscale("log")
        ax.set_xlabel("action throughput (Hz)")
        ax.set_ylabel("safe velocity (m/s)")
