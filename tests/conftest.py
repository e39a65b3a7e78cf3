"""Suite-wide settings: headless plotting, reproducible Verilog."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("AMARANTH_USE_YOSYS", "builtin")
