"""PRISM (Golden et al.): ~9% GPU-time variability at 64k GPUs, P(finish by T), MLPerf TTT.

Training time as a random variable on the distributed-training model's best strategy
(see README.md).
"""

from .study import run

__all__ = ["run"]
