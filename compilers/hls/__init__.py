"""The HLS compiler: ``@kernel`` Python -> typed IR -> schedule -> Amaranth component.

Stages: :mod:`.frontend` (AST -> :mod:`.ir`), :mod:`.schedule` (list scheduling with chaining,
modulo scheduling of pipelined loops), :mod:`.codegen` (FSM + datapath), :mod:`.design` (the
object ``kernel.synthesize()`` returns).
"""

from .design import Design, Estimate, HLSReport, LoopReport, OperatorReport, compile_kernel
from .schedule import RESOURCE_KEYS, ScheduleOptions

__all__ = ["Design", "Estimate", "HLSReport", "LoopReport", "OperatorReport", "compile_kernel",
           "ScheduleOptions", "RESOURCE_KEYS"]
