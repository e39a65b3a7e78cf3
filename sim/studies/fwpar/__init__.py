"""Framework parallelism (Wang et al., arXiv 1908.04705): the paper's inter-op / intra-op
guidelines vs the Intel-recommended and TensorFlow-default settings, measured on this CPU
with archsim's graph executor and modelled on a many-core CPU (see README.md)."""

from .measure import CpuTopology, Setting, cpu_topology, paper_settings
from .model import SKYLAKE_2S, Calibration, CpuDescription, amdahl_fraction, simulate_graph
from .models import MODELS, build_model, inception_stack
from .study import PUBLISHED, analyze, load_full_run, measure_all, run

__all__ = ["CpuTopology", "Setting", "cpu_topology", "paper_settings", "SKYLAKE_2S",
           "Calibration", "CpuDescription", "amdahl_fraction", "simulate_graph", "MODELS",
           "build_model", "inception_stack", "PUBLISHED", "analyze", "load_full_run",
           "measure_all", "run"]
