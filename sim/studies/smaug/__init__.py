"""SMAUG: accelerator share of single-batch latency and SoC-level speedups (Xi et al. 2020).

Runs CNNs and an LSTM on the SMAUG-like SoC of soc_configs/smaug_calibrated.toml (CPU data
preparation measured by bench/smaug_data_prep.py) and on the
same SoC with ACP, 8 accelerators and 8 data-preparation threads (see README.md).
"""

from .study import SCENARIOS, Calibration, load_calibration, run

__all__ = ["SCENARIOS", "Calibration", "load_calibration", "run"]
