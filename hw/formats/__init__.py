"""RTL datapaths for the number formats of :mod:`archsim.dsl.formats`, bit-exact with them.

* :class:`AdaptivFloatMAC` -- AdaptivFloat(n, e) multiply with exact wide accumulation
  (EdgeBERT's datapath); ``acc * 2**scale_exp`` is the exact sum of products.
* :class:`MXBlockDot` -- one OCP MX block dot product; ``(acc, exp)`` equal
  :func:`archsim.dsl.formats.mx_block_dot_exact`.
* :class:`NxFPDecoder` -- NxFP code + block scale + tag to an exact
  ``(sign, mantissa, exponent)``, equal to :meth:`archsim.dsl.formats.NxFPFormat.decode`.

All are Amaranth ``wiring.Component``s with registered outputs in the ``sync`` domain.
"""

from .adaptivfloat_mac import AdaptivFloatMAC
from .mx_dot import MXBlockDot
from .nxfp_decoder import NxFPDecoder

__all__ = ["AdaptivFloatMAC", "MXBlockDot", "NxFPDecoder"]
