"""SMAUG: accelerator share of single-batch latency and SoC-level speedups (Xi et al. 2020).

Runs CNNs and an LSTM on the SMAUG-like SoC of soc_configs/smaug_baseline.toml and on the
same SoC with ACP, 8 accelerators and 8 data-preparation threads (see README.md).
"""

from .study import SCENARIOS, run

__all__ = ["SCENARIOS", "run"]
