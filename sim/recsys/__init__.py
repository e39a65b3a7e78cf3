"""Neural recommendation at scale: DeepRecInfra serving and DeepRecSched, CPU measurements.

``deeprecinfra``: the load generator, the engine pool with accelerator offload and
DeepRecSched's hill climbing, as the authors' code does them, as a simulation. ``measure``:
the models' real numpy forward passes timed on this CPU and the CPU cost model fitted to them.
"""

from .deeprecinfra import (
    LoadGenerator,
    QuerySizes,
    SchedulerSettings,
    ServingRun,
    ServingSystem,
    climb,
    deeprecsched,
    serve,
)
from .measure import CpuCostModel, CpuMeasurement, fit_cpu_model, group_work, measure_cpu

__all__ = ["CpuCostModel", "CpuMeasurement", "fit_cpu_model", "group_work", "measure_cpu",
           "LoadGenerator", "QuerySizes", "SchedulerSettings", "ServingRun", "ServingSystem",
           "climb", "deeprecsched", "serve"]
