"""What users write: kernels, hardware types and number formats.

>>> from archsim.dsl import kernel, Int, UInt, Fixed, Array, pipeline, unroll, partition
"""

from .kernel import Array, Kernel, kernel, partition, pipeline, unroll
from .types import Fixed, HWType, HWValue, Int, UInt

__all__ = ["kernel", "Kernel", "Int", "UInt", "Fixed", "HWType", "HWValue", "Array",
           "pipeline", "unroll", "partition"]
