"""UAV physics for AutoPilot-style co-design: the F-1 safe velocity, airframes, missions.

``f1``: ``v_safe = a_max (sqrt(T_a^2 + 2 d / a_max) - T_a)`` with ``T_a`` the slowest of the
sensor's frame period and the compute latency; its roof ``sqrt(2 d a_max)`` and knee.
``airframe``: the nano / micro / mini classes (Crazyflie-, Spark-, Pelican-class) and the
baseline compute boards (Jetson TX2, Xavier NX, GAP8) as data tables with a source or an
"assumed" label per number; ``a_max`` from the thrust left after the weight, hover power by
momentum theory calibrated on each class's flight time. ``missions``: missions per battery
of a design at its safe velocity.
"""

from .airframe import (
    AIR_DENSITY_KG_M3,
    COMPUTE_PLATFORMS,
    G_MPS2,
    UAV_CLASSES,
    ComputePlatform,
    UavClass,
    compute_platform,
    load_compute_platforms,
    load_uav_classes,
    uav_class,
)
from .f1 import (
    KNEE_FRACTION,
    F1Curve,
    F1Point,
    action_period_s,
    bound_of,
    knee_action_hz,
    roof_velocity_mps,
    safe_velocity_mps,
)
from .missions import ComputeLoad, MissionResult, evaluate_design, platform_load

__all__ = ["AIR_DENSITY_KG_M3", "COMPUTE_PLATFORMS", "G_MPS2", "UAV_CLASSES", "ComputePlatform",
           "UavClass", "compute_platform", "load_compute_platforms", "load_uav_classes",
           "uav_class", "KNEE_FRACTION", "F1Curve", "F1Point", "action_period_s", "bound_of",
           "knee_action_hz", "roof_velocity_mps", "safe_velocity_mps", "ComputeLoad",
           "MissionResult", "evaluate_design", "platform_load"]
