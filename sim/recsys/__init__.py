"""Neural recommendation at scale: DeepRecInfra serving and DeepRecSched, RecSSD."""

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

__all__ = ["LoadGenerator", "QuerySizes", "SchedulerSettings", "ServingRun", "ServingSystem",
           "climb", "deeprecsched", "serve"]
