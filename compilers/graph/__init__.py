"""Workload graphs: the one operator-graph representation, and builders for standard models."""

from .ir import (
    DTYPE_BYTES,
    OP_KINDS,
    TENSOR_ROLES,
    Operator,
    TensorSpec,
    WorkloadGraph,
    dtype_bytes,
    matmul,
)
from .transformer import (
    TRANSFORMER_PRESETS,
    TransformerConfig,
    get_transformer,
    transformer_graph,
)

__all__ = [
    "DTYPE_BYTES", "OP_KINDS", "TENSOR_ROLES", "Operator", "TensorSpec", "WorkloadGraph",
    "dtype_bytes", "matmul",
    "TRANSFORMER_PRESETS", "TransformerConfig", "get_transformer", "transformer_graph",
]
