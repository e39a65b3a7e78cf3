"""The workload graph: one operator-graph representation for every model in archsim.

Nodes are operators (kind, tensor shapes, FLOPs, bytes); edges are the tensors
that flow between them. The SoC simulator, the serving model and the
distributed-training model all consume this one representation, and hardware
models (:mod:`archsim.hw.models`) price its operators (:mod:`archsim.operators`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import networkx as nx

from ...errors import ConfigError
from ...operators import DTYPE_BYTES, OP_KINDS, TENSOR_ROLES, Operator, TensorSpec, dtype_bytes

__all__ = ["DTYPE_BYTES", "OP_KINDS", "TENSOR_ROLES", "TensorSpec", "Operator", "WorkloadGraph",
           "dtype_bytes", "matmul"]


class WorkloadGraph:
    """A directed acyclic graph of :class:`Operator` joined by the tensors they share.

    An edge ``a -> b`` exists when an output tensor of ``a`` (by name) is an
    input of ``b``. Tensors no operator produces are the graph's inputs
    (weights, model inputs, caches).
    """

    def __init__(self, name: str, *, metadata: Mapping[str, Any] | None = None) -> None:
        self.name = name
        self.metadata: dict[str, Any] = dict(metadata or {})
        self._graph = nx.DiGraph()
        self._producer: dict[str, str] = {}
        self._ops: dict[str, Operator] = {}

    # construction -----------------------------------------------------------------------
    def add(self, op: Operator) -> Operator:
        """Add ``op``; its inputs produced by earlier operators become edges."""
        if op.name in self._ops:
            raise ConfigError(f"graph '{self.name}' already has an operator named '{op.name}'",
                              field="name")
        self._ops[op.name] = op
        self._graph.add_node(op.name)
        for t in op.inputs:
            producer = self._producer.get(t.name)
            if producer is not None:
                self._graph.add_edge(producer, op.name, tensor=t.name)
        for t in op.outputs:
            if t.name in self._producer:
                raise ConfigError(
                    f"tensor '{t.name}' is produced by both '{self._producer[t.name]}' and "
                    f"'{op.name}'", field="outputs")
            self._producer[t.name] = op.name
        return op

    def extend(self, ops: Iterable[Operator]) -> None:
        for op in ops:
            self.add(op)

    # queries ----------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._ops)

    def __iter__(self) -> Iterator[Operator]:
        """Operators in a topological order (insertion order breaks ties)."""
        order = {name: i for i, name in enumerate(self._ops)}
        for name in nx.lexicographical_topological_sort(self._graph, key=order.__getitem__):
            yield self._ops[name]

    def __getitem__(self, name: str) -> Operator:
        return self._ops[name]

    @property
    def nx_graph(self) -> nx.DiGraph:
        """The underlying networkx graph (operator names as nodes); read-only by convention."""
        return self._graph

    def predecessors(self, name: str) -> list[Operator]:
        return [self._ops[p] for p in self._graph.predecessors(name)]

    def successors(self, name: str) -> list[Operator]:
        return [self._ops[s] for s in self._graph.successors(name)]

    @property
    def total_flops(self) -> float:
        return sum(op.flops for op in self._ops.values())

    def weights(self) -> dict[str, TensorSpec]:
        """Distinct weight tensors by name."""
        out: dict[str, TensorSpec] = {}
        for op in self._ops.values():
            for t in op.inputs:
                if t.role == "weight":
                    out.setdefault(t.name, t)
        return out

    @property
    def weight_bytes(self) -> float:
        return sum(t.nbytes for t in self.weights().values())

    @property
    def parameter_count(self) -> int:
        return sum(t.numel for t in self.weights().values())

    def by_kind(self) -> dict[str, list[Operator]]:
        out: dict[str, list[Operator]] = {}
        for op in self:
            out.setdefault(op.kind, []).append(op)
        return out

    def flops_by_kind(self) -> dict[str, float]:
        return {k: sum(o.flops for o in ops) for k, ops in self.by_kind().items()}

    def validate(self) -> None:
        """Check the graph is acyclic; raise :class:`ConfigError` naming a cycle if not."""
        # A topological sort is linear; find_cycle restarts its edge DFS at every source
        # node (quadratic on graphs with many inputs), so it only runs to name a cycle.
        if nx.is_directed_acyclic_graph(self._graph):
            return
        try:
            cycle = nx.find_cycle(self._graph)
        except nx.NetworkXNoCycle:
            return
        raise ConfigError(f"graph '{self.name}' has a cycle through {[e[0] for e in cycle]}")

    def summary_rows(self) -> list[dict[str, Any]]:
        """One row per operator (name, kind, flops, bytes) for tables and CSV."""
        return [
            {"name": op.name, "kind": op.kind, "flops": op.flops,
             "input_bytes": op.input_bytes, "output_bytes": op.output_bytes,
             "weight_bytes": op.weight_bytes}
            for op in self
        ]

    def __repr__(self) -> str:
        return (f"WorkloadGraph({self.name!r}, operators={len(self)}, "
                f"flops={self.total_flops:.3g})")


def matmul(
    name: str,
    a: TensorSpec,
    b: TensorSpec,
    out: str,
    *,
    m: int,
    n: int,
    k: int,
    batch: int = 1,
    out_dtype: str | None = None,
    out_shape: Sequence[int] | None = None,
) -> Operator:
    """A (batched) ``[batch, m, k] x [k, n]`` matmul operator with ``2*batch*m*n*k`` FLOPs."""
    shape = tuple(out_shape) if out_shape is not None else ((batch, m, n) if batch > 1 else (m, n))
    o = TensorSpec(out, shape, out_dtype or a.dtype)
    return Operator(name, "matmul", (a, b), (o,), 2.0 * batch * m * n * k,
                    {"m": m, "n": n, "k": k, "batch": batch})
