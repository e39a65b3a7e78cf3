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
from .recssd import SLSResult, baseline_sls, locality_trace, recssd_sls, reuse_locality_of_k

__all__ = ["LoadGenerator", "QuerySizes", "SchedulerSettings", "ServingRun", "ServingSystem",
           "climb", "deeprecsched", "serve",
           "SLSResult", "baseline_sls", "recssd_sls", "locality_trace", "reuse_locality_of_k"]
