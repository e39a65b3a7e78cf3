"""Neural recommendation at scale: DeepRecInfra serving and DeepRecSched, CPU measurements, RecSSD.

``deeprecinfra``: the load generator, the engine pool with accelerator offload and
DeepRecSched's hill climbing, as the authors' code does them, as a simulation. ``measure``:
the models' real forward passes (numpy, or PyTorch) timed on this CPU and the CPU cost model fitted to them;
``gpu``: the same models on a GPU roofline (the GTX 1080 Ti of the authors' measurements).
``servers``: Haswell, Broadwell and Skylake (HPCA 2020) as a labelled parameterized
model scaled from this CPU's fitted cost model, and co-location of model instances.
``recssd``: SparseLengthsSum on a commodity SSD (block reads, host-side reduction) and inside
RecSSD's flash translation layer, on the SSD model of :mod:`archsim.hw.models.ssd`.
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
from .gpu import GPU_GROUPS, GpuRecModel
from .measure import CpuCostModel, CpuMeasurement, fit_cpu_model, group_work, measure_cpu
from .recssd import SLSResult, baseline_sls, locality_trace, recssd_sls, reuse_locality_of_k
from .servers import SERVERS, Colocation, ServerCpu, colocate, host_cpu, server_latency_s

__all__ = ["GPU_GROUPS", "GpuRecModel", "CpuCostModel", "CpuMeasurement", "fit_cpu_model", "group_work", "measure_cpu",
           "LoadGenerator", "QuerySizes", "SchedulerSettings", "ServingRun", "ServingSystem",
           "climb", "deeprecsched", "serve",
           "SERVERS", "Colocation", "ServerCpu", "colocate", "host_cpu", "server_latency_s",
           "SLSResult", "baseline_sls", "recssd_sls", "locality_trace", "reuse_locality_of_k"]
