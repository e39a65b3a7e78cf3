"""Fathom (Adolf et al., IISWC 2016): op-type profiles of the eight workloads' training steps,
their similarity, training vs inference cost and measured CPU thread scaling (README.md)."""

from .study import (
    SCALING_WORKLOADS,
    WORKLOADS,
    ceilings_of,
    cluster_order,
    family_neighbour_agreement,
    load_measured,
    measure_scaling,
    roofline_check,
    run,
    similarity,
    workload_profiles,
)

__all__ = ["run", "WORKLOADS", "SCALING_WORKLOADS", "workload_profiles", "similarity",
           "cluster_order", "family_neighbour_agreement", "measure_scaling", "load_measured",
           "ceilings_of", "roofline_check"]
