"""Missions per battery: a UAV design evaluated end to end (F-1 velocity, energy per mission).

A design is a :class:`~archsim.sim.uav.airframe.UavClass` carrying its sensor and a compute
load (:class:`ComputeLoad`: latency per decision, power drawn from the battery, mass carried
with its heatsink). Flying a mission of ``distance_m`` at the F-1 safe velocity takes
``t = distance_m / v_safe``; the energy is ``(P_hover(m) + P_compute + P_sensor) t``; the
number of missions is ``floor(E_usable / E_mission)`` (:func:`evaluate_design`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from ...errors import ConfigError
from .airframe import ComputePlatform, UavClass
from .f1 import (
    KNEE_FRACTION,
    action_period_s,
    bound_of,
    knee_action_hz,
    roof_velocity_mps,
    safe_velocity_mps,
)

__all__ = ["ComputeLoad", "MissionResult", "evaluate_design", "platform_load"]


@dataclass(frozen=True)
class ComputeLoad:
    """What the autonomy computer costs the UAV: seconds per decision, battery watts, kg."""

    name: str
    latency_s: float
    power_w: float
    mass_kg: float

    def __post_init__(self) -> None:
        if not self.latency_s > 0 or not math.isfinite(self.latency_s):
            raise ConfigError(f"latency_s must be positive, not {self.latency_s!r}",
                              field="latency_s")
        for name in ("power_w", "mass_kg"):
            value = getattr(self, name)
            if not value >= 0 or not math.isfinite(value):
                raise ConfigError(f"{name} must be >= 0, not {value!r}", field=name)


def platform_load(platform: ComputePlatform, ops: float) -> ComputeLoad:
    """A baseline board running a policy of ``ops`` operations per decision."""
    return ComputeLoad(name=platform.name, latency_s=platform.latency_s(ops),
                       power_w=platform.power_w, mass_kg=platform.carried_mass_kg)


@dataclass(frozen=True)
class MissionResult:
    """One design's physics and mission count (SI units)."""

    uav: str
    compute: str
    mass_kg: float
    a_max_mps2: float
    action_period_s: float
    v_safe_mps: float
    roof_mps: float
    knee_hz: float
    bound: str
    hover_power_w: float
    total_power_w: float
    mission_energy_j: float
    missions: int

    def row(self) -> dict[str, Any]:
        return dict(self.__dict__)


def evaluate_design(uav: UavClass, compute: ComputeLoad, *, distance_m: float,
                    a_max_form: Literal["horizontal", "net", "thrust"] = "horizontal",
                    knee_fraction: float = KNEE_FRACTION) -> MissionResult:
    """Missions per battery of ``uav`` carrying ``compute`` over ``distance_m`` missions; a
    design too heavy to hover flies 0 missions (``v_safe`` 0)."""
    if not distance_m > 0:
        raise ConfigError(f"distance_m must be positive, not {distance_m!r}",
                          field="distance_m")
    mass = uav.base_mass_kg + uav.sensor_mass_kg + compute.mass_kg
    a_max = uav.a_max_mps2(mass, form=a_max_form)
    period = action_period_s(sensor_fps=uav.sensor_fps, compute_latency_s=compute.latency_s)
    hover = uav.hover_power_w(mass)
    power = hover + compute.power_w + uav.sensor_power_w
    if a_max <= 0:
        return MissionResult(uav=uav.name, compute=compute.name, mass_kg=mass, a_max_mps2=0.0,
                             action_period_s=period, v_safe_mps=0.0, roof_mps=0.0,
                             knee_hz=math.inf, bound="cannot hover", hover_power_w=hover,
                             total_power_w=power, mission_energy_j=math.inf, missions=0)
    v = float(safe_velocity_mps(a_max_mps2=a_max, sensor_range_m=uav.sensor_range_m,
                                action_period_s=period))
    knee = knee_action_hz(a_max_mps2=a_max, sensor_range_m=uav.sensor_range_m,
                          fraction=knee_fraction)
    energy = power * distance_m / v
    return MissionResult(
        uav=uav.name, compute=compute.name, mass_kg=mass, a_max_mps2=a_max,
        action_period_s=period, v_safe_mps=v,
        roof_mps=roof_velocity_mps(a_max_mps2=a_max, sensor_range_m=uav.sensor_range_m),
        knee_hz=knee, bound=bound_of(sensor_fps=uav.sensor_fps,
                                     compute_latency_s=compute.latency_s, knee_hz=knee),
        hover_power_w=hover, total_power_w=power, mission_energy_j=energy,
        missions=int(uav.battery_energy_j // energy))
