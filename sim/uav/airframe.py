"""UAV airframes and compute platforms as validated data tables, and their physics.

Each class of :data:`UAV_CLASSES` (``data/uav_classes.toml``) and each platform of
:data:`COMPUTE_PLATFORMS` (``data/compute_platforms.toml``) states, for every number, a
source or that it is assumed (the loader rejects a number with neither).

Physics (SI units):

* mass: ``m = base_mass (airframe, rotors, stock electronics, battery) + sensor + compute
  (board, heatsink)``;
* maximum acceleration (braking while holding altitude): the thrust left after carrying the
  weight, tilted horizontal, ``a_max = sqrt(F_max^2 - (m g)^2) / m`` (0 when ``F_max <= m
  g``); ``(F_max - m g) / m`` and ``F_max / m`` are options (``a_max_form``);
* hover power by momentum theory, ``P = (m g)^1.5 / (FM sqrt(2 rho A))``: with the rotors'
  disk area and figure of merit fixed it scales as ``m^1.5``, so each class is calibrated
  on its published flight time at its base mass, ``P(m) = P_base (m / m_base)^1.5`` with
  ``P_base = usable battery energy / flight time`` (the figure of merit this implies is
  reported: :meth:`UavClass.implied_figure_of_merit`). Forward flight is priced at hover
  power (a standard simplification for slow, obstacle-rich flight; assumed).
"""

from __future__ import annotations

import math
import tomllib
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ...errors import ConfigError

__all__ = ["UavClass", "ComputePlatform", "UAV_CLASSES", "COMPUTE_PLATFORMS", "load_uav_classes",
           "load_compute_platforms", "G_MPS2", "AIR_DENSITY_KG_M3", "uav_class",
           "compute_platform"]

#: Standard gravity (m/s^2).
G_MPS2 = 9.80665
#: ISA sea-level air density (kg/m^3).
AIR_DENSITY_KG_M3 = 1.225
_DATA = Path(__file__).resolve().parent / "data"


class _Sourced(BaseModel):
    """Every numeric field needs an entry in ``sources`` or its name in ``assumed``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sources: dict[str, str] = Field(default_factory=dict)
    assumed: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _every_number_has_a_source(self) -> _Sourced:
        numbers = [n for n, f in type(self).model_fields.items()
                   if f.annotation in (float, int, "float", "int")]
        for name in numbers:
            if name not in self.sources and name not in self.assumed:
                raise ValueError(f"'{name}' has neither a source nor an 'assumed' label")
        for name in [*self.sources, *self.assumed]:
            if name not in numbers:
                raise ValueError(f"sources/assumed name '{name}', which is not a number of "
                                 f"this table (allowed: {', '.join(numbers)})")
        return self

    def provenance(self, name: str) -> str:
        """Where a number comes from: its source, or ``"assumed"``."""
        return self.sources.get(name, "assumed")


class UavClass(_Sourced):
    """One UAV class: airframe, battery, rotors, stock sensor (module docstring)."""

    name: str
    airframe: str
    base_mass_kg: float = Field(gt=0)
    max_thrust_n: float = Field(gt=0)
    battery_capacity_mah: float = Field(gt=0)
    battery_voltage_v: float = Field(gt=0)
    battery_usable_fraction: float = Field(gt=0, le=1)
    flight_time_s: float = Field(gt=0)
    rotors: int = Field(ge=1)
    prop_diameter_m: float = Field(gt=0)
    sensor_mass_kg: float = Field(ge=0)
    sensor_power_w: float = Field(ge=0)
    sensor_fps: float = Field(gt=0)
    sensor_range_m: float = Field(gt=0)

    @property
    def battery_energy_j(self) -> float:
        """Usable battery energy."""
        return (self.battery_capacity_mah / 1000 * 3600 * self.battery_voltage_v
                * self.battery_usable_fraction)

    @property
    def base_hover_power_w(self) -> float:
        """Calibrated electrical hover power at the base mass."""
        return self.battery_energy_j / self.flight_time_s

    @property
    def disk_area_m2(self) -> float:
        return self.rotors * math.pi * (self.prop_diameter_m / 2) ** 2

    def hover_power_w(self, mass_kg: float) -> float:
        """Electrical hover power at ``mass_kg`` (``m^1.5`` scaling of the calibration)."""
        if not mass_kg > 0:
            raise ConfigError(f"mass_kg must be positive, not {mass_kg!r}", field="mass_kg")
        return self.base_hover_power_w * (mass_kg / self.base_mass_kg) ** 1.5

    def implied_figure_of_merit(self) -> float:
        """Ideal (momentum-theory) hover power over the calibrated one at the base mass: the
        rotors' figure of merit times the motors' and drivers' efficiency."""
        thrust = self.base_mass_kg * G_MPS2
        ideal = thrust ** 1.5 / math.sqrt(2 * AIR_DENSITY_KG_M3 * self.disk_area_m2)
        return ideal / self.base_hover_power_w

    def a_max_mps2(self, mass_kg: float, *,
                   form: Literal["horizontal", "net", "thrust"] = "horizontal") -> float:
        """Maximum acceleration at ``mass_kg`` (module docstring); 0 if it cannot hover."""
        weight = mass_kg * G_MPS2
        f = self.max_thrust_n
        if form == "thrust":
            return f / mass_kg
        if f <= weight:
            return 0.0
        if form == "net":
            return (f - weight) / mass_kg
        if form != "horizontal":
            raise ConfigError(f"unknown a_max form {form!r}", field="form",
                              allowed=["horizontal", "net", "thrust"])
        return math.sqrt(f * f - weight * weight) / mass_kg


class ComputePlatform(_Sourced):
    """A baseline compute board: its peak rate, an achieved fraction, power and mass."""

    name: str
    kind: str
    peak_ops_per_s: float = Field(gt=0)
    efficiency: float = Field(gt=0, le=1)
    power_w: float = Field(gt=0)
    mass_kg: float = Field(gt=0)
    heatsink_kg_per_w: float = Field(ge=0)

    def latency_s(self, ops: float) -> float:
        """Seconds for one inference of ``ops`` operations at ``efficiency`` of the peak."""
        if not ops > 0:
            raise ConfigError(f"ops must be positive, not {ops!r}", field="ops")
        return ops / (self.peak_ops_per_s * self.efficiency)

    @property
    def carried_mass_kg(self) -> float:
        """The board plus its heatsink (``heatsink_kg_per_w`` per watt)."""
        return self.mass_kg + self.heatsink_kg_per_w * self.power_w


def _load(path: Path, model: type[BaseModel]) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("no such file", file=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", file=str(path)) from None
    out: dict[str, Any] = {}
    for key, table in data.items():
        try:
            out[key] = model.model_validate(table)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join([key, *(str(p) for p in err["loc"])])
            raise ConfigError(err["msg"].removeprefix("Value error, "), file=str(path),
                              field=field) from None
    return out


def load_uav_classes(path: str | Path | None = None) -> dict[str, UavClass]:
    """Read UAV classes from a TOML file (default: the shipped table)."""
    return _load(Path(path) if path is not None else _DATA / "uav_classes.toml", UavClass)


def load_compute_platforms(path: str | Path | None = None) -> dict[str, ComputePlatform]:
    """Read compute platforms from a TOML file (default: the shipped table)."""
    return _load(Path(path) if path is not None else _DATA / "compute_platforms.toml",
                 ComputePlatform)


@cache
def _shipped() -> tuple[dict[str, UavClass], dict[str, ComputePlatform]]:
    return load_uav_classes(), load_compute_platforms()


def uav_class(name: str) -> UavClass:
    """A shipped UAV class by key (``nano``, ``micro``, ``mini``)."""
    classes = _shipped()[0]
    if name not in classes:
        raise ConfigError(f"unknown UAV class {name!r}", field="uav", allowed=sorted(classes))
    return classes[name]


def compute_platform(name: str) -> ComputePlatform:
    """A shipped compute platform by key."""
    platforms = _shipped()[1]
    if name not in platforms:
        raise ConfigError(f"unknown compute platform {name!r}", field="platform",
                          allowed=sorted(platforms))
    return platforms[name]


#: The shipped UAV classes' keys.
UAV_CLASSES: tuple[str, ...] = ("nano", "micro", "mini")
#: The shipped compute platforms' keys.
COMPUTE_PLATFORMS: tuple[str, ...] = ("jetson-tx2", "xavier-nx", "gap8")
