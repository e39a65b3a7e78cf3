"""Suite-wide settings: headless plotting, reproducible Verilog."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("AMARANTH_USE_YOSYS", "builtin")
# Native Verilator builds at -O1 (archsim.sim.rtl.native.NATIVE_OPT_ENV): the suite's
# simulations are short, and its cold -O3 builds of whole accelerators cost minutes.
os.environ.setdefault("ARCHSIM_NATIVE_OPT", "-O1")
