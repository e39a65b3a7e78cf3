"""Operators and tensors: the unit of work every layer of archsim shares.

An :class:`Operator` (its kind, input and output :class:`TensorSpec`, FLOPs and
shape attributes) is what a workload graph (:mod:`archsim.compilers.graph`) is
made of and what every hardware model (:mod:`archsim.hw.models`) prices. It
lives on the ground floor so that the cost models below the compilers and the
engines above them speak of one type.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfigError

__all__ = ["DTYPE_BYTES", "OP_KINDS", "TENSOR_ROLES", "TensorSpec", "Operator", "dtype_bytes"]

#: Bytes per element of each data type archsim knows.
DTYPE_BYTES: dict[str, float] = {
    "fp64": 8, "fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int64": 8, "int32": 4,
    "int16": 2, "int8": 1, "uint8": 1, "int4": 0.5, "fp4": 0.5, "bool": 1,
}

#: The closed set of operator kinds. Importers map foreign operators onto these
#: and raise on anything else rather than skipping it.
OP_KINDS: frozenset[str] = frozenset({
    "matmul",          # (batched) matrix multiply / fully connected / linear
    "conv2d",          # dense 2-D convolution (grouped when attrs["groups"] > 1)
    "pool",            # max / average pooling
    "elementwise",     # add, mul, residual adds...
    "activation",      # relu, gelu, silu, sigmoid, tanh...
    "norm",            # layer norm, RMS norm, batch norm
    "softmax",
    "embedding",       # table lookups (dense or sparse-lengths-sum)
    "attention",       # fused attention (scores, softmax and context in one operator)
    "recurrent",       # an RNN / LSTM / GRU layer over a sequence (attrs["cell"] says which)
    "reduce",          # sum / mean over axes
    "data_movement",   # reshape, transpose, concat, gather that move bytes but compute nothing
    "fused",           # several operators run as one kernel group (attrs["fused"] lists kinds)
})

#: What a tensor is for; memory policies and parallelism treat roles differently.
TENSOR_ROLES: frozenset[str] = frozenset({"activation", "weight", "kv_cache", "gradient", "input",
                                          "output", "state"})


def dtype_bytes(dtype: str) -> float:
    """Bytes per element of ``dtype``; an unknown type is a :class:`ConfigError`."""
    try:
        return DTYPE_BYTES[dtype]
    except KeyError:
        raise ConfigError(f"unknown data type '{dtype}'", field="dtype",
                          allowed=sorted(DTYPE_BYTES)) from None


@dataclass(frozen=True)
class TensorSpec:
    """A tensor's name, shape, data type and role."""

    name: str
    shape: tuple[int, ...]
    dtype: str = "fp16"
    role: str = "activation"

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", tuple(int(d) for d in self.shape))
        if any(d < 0 for d in self.shape):
            raise ConfigError(f"tensor '{self.name}' has a negative dimension in {self.shape}",
                              field="shape")
        dtype_bytes(self.dtype)
        if self.role not in TENSOR_ROLES:
            raise ConfigError(f"tensor '{self.name}' has unknown role '{self.role}'",
                              field="role", allowed=TENSOR_ROLES)

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> float:
        return self.numel * dtype_bytes(self.dtype)


@dataclass(frozen=True)
class Operator:
    """One operator: its kind, input and output tensors, arithmetic and attributes.

    ``flops`` counts a multiply-accumulate as two operations. ``attrs`` carries
    kind-specific shape facts (``m``, ``n``, ``k`` for a matmul; ``batch``,
    ``in_channels``, ``out_channels``, ``kernel``, ``stride``... for a conv)
    that tiling and mapping need.
    """

    name: str
    kind: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    flops: float
    attrs: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in OP_KINDS:
            raise ConfigError(f"operator '{self.name}' has unsupported kind '{self.kind}'",
                              field="kind", allowed=OP_KINDS)
        if self.flops < 0:
            raise ConfigError(f"operator '{self.name}' has negative flops {self.flops}",
                              field="flops")
        object.__setattr__(self, "inputs", tuple(self.inputs))
        object.__setattr__(self, "outputs", tuple(self.outputs))

    @property
    def input_bytes(self) -> float:
        return sum(t.nbytes for t in self.inputs)

    @property
    def output_bytes(self) -> float:
        return sum(t.nbytes for t in self.outputs)

    @property
    def weight_bytes(self) -> float:
        return sum(t.nbytes for t in self.inputs if t.role == "weight")

    @property
    def bytes_accessed(self) -> float:
        """Bytes read and written once each (the roofline's compulsory traffic)."""
        return self.input_bytes + self.output_bytes

    @property
    def arithmetic_intensity(self) -> float:
        """FLOPs per byte accessed."""
        return self.flops / self.bytes_accessed if self.bytes_accessed else math.inf
