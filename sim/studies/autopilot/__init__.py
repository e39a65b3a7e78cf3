"""AutoPilot (Krishnan et al., arXiv 2102.02988): UAV co-design of a navigation policy and its DSL accelerator.

``study``: ``archsim study autopilot``: per UAV class and environment, Bayesian optimization
(Optuna TPE on the sweep engine) over trained CNN policies x DSL-generated systolic
accelerators priced by their model view and synthesis, missions per battery from the F-1
model, against Jetson TX2 / Xavier NX / GAP8 baselines, random search and exhaustive search.
"""

from .study import (
    ENVIRONMENTS,
    MISSION_DISTANCE_M,
    PUBLISHED_GAIN,
    SUCCESS_SLACK,
    AutopilotParams,
    accelerator_load,
    best_baseline,
    design_space,
    evaluate_point,
    policy_table,
    run,
    run_search,
    search_settings,
)

__all__ = ["run", "ENVIRONMENTS", "MISSION_DISTANCE_M", "PUBLISHED_GAIN", "SUCCESS_SLACK",
           "AutopilotParams", "accelerator_load", "best_baseline", "design_space",
           "evaluate_point", "policy_table", "run_search", "search_settings"]
