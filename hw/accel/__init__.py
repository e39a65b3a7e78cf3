"""Accelerator-level hardware: units with the one unit contract, buffers, DVFS control.

The pieces an :class:`archsim.dsl.accel.Accelerator` is assembled from
(:mod:`archsim.compilers.accel` does the assembling).
"""

from .edram import EdramMacro
from .interface import ARG_WIDTH, Operand, Unit, UnitContract, read_port, write_port

__all__ = ["ARG_WIDTH", "Operand", "Unit", "UnitContract", "read_port", "write_port",
           "EdramMacro"]

from .fp32_add import FloatAdder, float_add_bits
from .gather_reduce import GatherReduce, gather_reduce_cycles, ndp_reduce_s

__all__ += ["FloatAdder", "float_add_bits", "GatherReduce", "gather_reduce_cycles",
            "ndp_reduce_s"]
