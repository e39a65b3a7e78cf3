"""LLM serving simulator: continuous batching, KV-cache policies and S3 length prediction.

Typical use::

    from archsim.sim.serving import Deployment, generate_requests, make_policy, simulate

    dep = Deployment.build(model="llama-13b", gpu="a100-80gb")
    reqs = generate_requests(10_000, rate_per_s=5.0, dataset="alpaca", seed=0)
    result = simulate(dep, reqs, make_policy("s3"))
    print(result.metrics.throughput_tokens_per_s)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...lazy import lazy_exports

if TYPE_CHECKING:
    from .config import BatchShape, CalibrationTable, CostModel, Deployment
    from .engine import simulate
    from .metrics import SLO, ServingMetrics, ServingResult, Timeline, compute_metrics
    from .policies import (
        POLICY_NAMES,
        MemoryPolicy,
        OraclePolicy,
        PagedPolicy,
        S3Policy,
        WorstCasePolicy,
        make_policy,
    )
    from .predictor import (
        Buckets,
        ClassifierPredictor,
        ConfusionPredictor,
        ExactPredictor,
        LengthPredictor,
        SoftmaxClassifier,
        fit_softmax,
    )
    from .requests import (
        DATASETS,
        LengthDistribution,
        RequestSet,
        bursty_arrivals,
        generate_requests,
        load_trace,
        poisson_arrivals,
    )

#: Each public name and its submodule, imported on first use (see :mod:`archsim.lazy`).
_EXPORTS = {
    "BatchShape": ".config",
    "CalibrationTable": ".config",
    "CostModel": ".config",
    "Deployment": ".config",
    "simulate": ".engine",
    "SLO": ".metrics",
    "ServingMetrics": ".metrics",
    "ServingResult": ".metrics",
    "Timeline": ".metrics",
    "compute_metrics": ".metrics",
    "POLICY_NAMES": ".policies",
    "MemoryPolicy": ".policies",
    "OraclePolicy": ".policies",
    "PagedPolicy": ".policies",
    "S3Policy": ".policies",
    "WorstCasePolicy": ".policies",
    "make_policy": ".policies",
    "Buckets": ".predictor",
    "ClassifierPredictor": ".predictor",
    "SoftmaxClassifier": ".predictor",
    "fit_softmax": ".predictor",
    "ConfusionPredictor": ".predictor",
    "ExactPredictor": ".predictor",
    "LengthPredictor": ".predictor",
    "DATASETS": ".requests",
    "LengthDistribution": ".requests",
    "RequestSet": ".requests",
    "bursty_arrivals": ".requests",
    "generate_requests": ".requests",
    "load_trace": ".requests",
    "poisson_arrivals": ".requests",
}

__all__ = [
    "BatchShape", "CalibrationTable", "CostModel", "Deployment", "simulate",
    "SLO", "ServingMetrics", "ServingResult", "Timeline", "compute_metrics",
    "POLICY_NAMES", "MemoryPolicy", "OraclePolicy", "PagedPolicy", "S3Policy", "WorstCasePolicy",
    "make_policy", "Buckets", "ClassifierPredictor", "SoftmaxClassifier", "fit_softmax",
    "ConfusionPredictor", "ExactPredictor",
    "LengthPredictor", "DATASETS", "LengthDistribution", "RequestSet", "bursty_arrivals",
    "generate_requests", "load_trace", "poisson_arrivals",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
