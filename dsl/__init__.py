"""What users write: kernels, hardware types and number formats.

>>> from archsim.dsl import kernel, Int, UInt, Fixed, Array, pipeline, unroll, partition
"""

from .kernel import Array, Kernel, bounded, kernel, partition, pipeline, unroll
from .types import Fixed, FormatType, HWType, HWValue, Int, UInt

__all__ = ["kernel", "Kernel", "Int", "UInt", "Fixed", "HWType", "HWValue", "FormatType", "Array",
           "pipeline", "unroll", "partition", "bounded"]
