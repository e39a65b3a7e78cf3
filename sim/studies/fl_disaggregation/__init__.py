"""Gradient disaggregation (Lam et al., ICML 2021): individual FedAvg updates from aggregates.

The participant matrix recovered user by user as a MILP (HiGHS), updates by least squares,
on the authors' noiseless setting and on a real FedAvg run on MNIST (see README.md).
"""

from .study import FULL_SETUPS, QUICK_SETUPS, FedAvgSetup, run, run_setup

__all__ = ["FULL_SETUPS", "QUICK_SETUPS", "FedAvgSetup", "run", "run_setup"]
