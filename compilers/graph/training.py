"""One training iteration as a workload graph: forward, loss, backward (with recompute) and update.

:func:`training_graph` turns a forward :class:`~archsim.compilers.graph.ir.WorkloadGraph`
into a :class:`TrainingGraph` whose operators, in graph order, are one iteration of
mini-batch training: the forward pass (unchanged), a softmax cross-entropy loss, the
backward pass in reverse topological order of the forward (data and weight gradients) and
one optimizer update per weight. Every operator carries ``attrs["phase"]`` (one of
:data:`PHASES`) and, when it derives from a forward operator, ``attrs["of"]`` (that
operator's name).

For a RevNet (:func:`~archsim.compilers.graph.revnet.revnet_cifar`, whose
``metadata["reversible_blocks"]`` lists its reversible blocks) the backward pass of each
block first *recomputes* the block's inputs from its outputs (phase ``"recompute"``), and the
block's backward operators read those recomputed tensors, not the stored forward
activations -- so activations inside reversible blocks die in the forward pass.

As in RevNet, a run of reversible blocks reconstructs its whole input, but the first
block's ``x1`` (``x1.rc``) is read by nothing: the layer before the run is not reversible and
its backward reads its own stored activation.

The graph order is the order operators are emitted (it is a topological order), so the SoC
simulator runs the iteration in exactly this schedule and
:meth:`TrainingGraph.tensor_uses` gives every tensor's producer and last consumer in it.

Counting conventions (besides :mod:`.cnn`'s for the forward):

- A convolution's data gradient is a ``conv2d`` with input and output channels swapped and
  the same kernel, run on the output-gradient grid with stride 1 ("same" padding); for a
  strided forward convolution only the taps that hit non-zero (non-inserted) positions of the
  transposed convolution are computed, so its MACs equal the forward's, and the scatter of
  the result onto the stride-``s`` input grid moves data but computes nothing (the
  operator's output is the input-shaped gradient; ``attrs["grid_stride"]`` records ``s``).
  Its weight gradient is a ``matmul`` with ``m`` = output channels, ``k`` =
  batch x output pixels, ``n`` = input channels x kernel taps (per group; ``batch`` =
  groups): MACs equal the forward's.
- A ``matmul``'s two gradients are matmuls of the forward's MACs each.
- Per element, backward of ReLU 1 FLOP (a select), sigmoid / tanh 3, other activations 8
  (assumed); batch / layer norm 9 (x-hat 2, d-beta 1, d-gamma 2, dx 4); LRN twice its forward
  (assumed); pooling as its forward; softmax 4; an add / sub one FLOP per input gradient
  element (it forwards the output gradient); mul one per operand product.
- Loss: softmax cross-entropy, 6 FLOPs per logit (softmax 5, gradient ``p - onehot`` 1) plus
  one log per row.
- Update per weight element: SGD ``w - lr g`` 2; SGD with momentum ``v = mu v + g``,
  ``w - lr v`` 4; Adam 12 (first moment 3, second moment 4, ``w - lr m / (sqrt(v) + eps)`` 5).
  Updates run after the whole backward pass (``optimizer.step()`` after ``backward()``).
- A tensor read by several forward operators gets its gradient contributions summed by one
  ``elementwise`` add (phase ``"backward"``), one FLOP per element per extra contribution.
- Embedding: the table's gradient is *sparse* (TensorFlow's ``IndexedSlices``): one
  ``embedding`` operator (``fn = "scatter_add"``) writes the looked-up rows' gradients, a
  ``(rows, dim)`` tensor, one FLOP per element (the accumulation into its row). Several sparse
  contributions to one table are concatenated (``data_movement``, no FLOPs); a table that
  also gets a dense contribution has the sparse rows scatter-added into it (one FLOP per
  sparse element). The update of a table with a sparse gradient touches only those rows:
  the optimizer's FLOPs per element times ``rows x dim`` (TensorFlow's sparse apply ops).
  The ids get no gradient.
- Recurrent (back-propagation through time, per direction): the output gradient enters a
  point-wise cell backward (``elementwise``, ``fn = "cell_grad"``) of twice the cell's
  forward point-wise FLOPs (assumed: LSTM 18 per hidden unit and step, GRU 16, RNN 2), which
  yields the gate gradients ``(dirs, batch, seq, gates x hidden)``; the recursion
  ``dh_{t-1} = dgates_t R`` is a ``matmul`` (``steps`` = seq: sequential, interleaved with
  the cell backward step by step, aggregated into one operator as the forward is) of
  ``2 dirs seq batch gates hidden hidden`` FLOPs; the input gradient ``dx = dgates W`` (only
  when the input wants one) ``2 dirs seq batch gates hidden input`` -- the two together are
  the forward's matmul FLOPs -- and the weight gradients ``[dW dR] = dgates^T [x h]`` one
  ``matmul`` (``m`` = gates x hidden, ``k`` = batch x seq, ``n`` = input + hidden,
  ``batch`` = dirs) of the forward's matmul FLOPs again; the bias gradient a ``reduce`` of
  one FLOP per gate-gradient element. A bidirectional layer's per-direction input gradients
  are summed (``elementwise``, one FLOP per input element).
- Reduce (sum / weighted sum over axes, broadcasting smaller operands): an input at least as
  large as the output gets the output gradient expanded back over the reduced axes -- pure
  data movement (no FLOPs) for a plain ``sum``/``mean`` (one FLOP per element for ``mean``'s
  scale), one multiply per element when the reduction weighted it by other operands; an
  input smaller than the output (broadcast into it, such as a bias) gets the output gradient
  summed over the broadcast axes (a ``reduce``, one FLOP per output element).
- Attention (scores, softmax, context in one operator): with ``attrs`` ``batch``, ``heads``,
  ``q_len``, ``kv_len`` and ``head_dim`` the products (``4 batch heads q_len kv_len
  head_dim``: ``QK^T`` and ``PV``, or additive scoring's add, tanh, multiply-by-``v`` and the
  context sum) each have two gradients, so the backward is twice those FLOPs plus the
  softmax backward's 4 per score; without those attributes twice the forward FLOPs. One
  ``attention`` operator (``fn = "grad"``) writes every operand's gradient.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from ...errors import ConfigError
from .ir import Operator, TensorSpec, WorkloadGraph
from .revnet import ReversibleBlock

__all__ = ["PHASES", "OPTIMIZERS", "DIFFERENTIABLE_KINDS", "TensorUse", "TrainingGraph",
           "training_graph"]

#: The phases of a training iteration, in order.
PHASES: tuple[str, ...] = ("forward", "loss", "recompute", "backward", "update")

#: Optimizers and their FLOPs per weight element (with momentum for SGD: see ``momentum``).
OPTIMIZERS: tuple[str, ...] = ("sgd", "adam")

#: Operator kinds :func:`training_graph` can differentiate.
DIFFERENTIABLE_KINDS: frozenset[str] = frozenset({
    "conv2d", "matmul", "activation", "norm", "pool", "elementwise", "softmax",
    "data_movement", "embedding", "recurrent", "reduce", "attention"})

# Backward FLOPs per element of an activation (counted as in the module docstring; "other"
# activations are assumed) and whether the backward reads the forward output (else input).
_ACT_BACKWARD = {"relu": (1.0, True), "sigmoid": (3.0, True), "tanh": (3.0, True)}
_ACT_BACKWARD_OTHER = 8.0  # assumed: gelu / silu and friends recompute their derivative
_NORM_BACKWARD_PER_ELEMENT = 9.0
_SOFTMAX_BACKWARD_PER_ELEMENT = 4.0
_LOSS_PER_LOGIT = 6.0
# assumed: a recurrent cell's point-wise backward costs twice its forward (each gate's
# derivative and the product rule through the cell state), see the module docstring.
_CELL_BACKWARD_FACTOR = 2.0
_ATTN_SOFTMAX_BACKWARD_PER_SCORE = _SOFTMAX_BACKWARD_PER_ELEMENT
_UPDATE_FLOPS = {("sgd", False): 2.0, ("sgd", True): 4.0, ("adam", False): 12.0,
                 ("adam", True): 12.0}


@dataclass(frozen=True)
class TensorUse:
    """Where one tensor of a :class:`TrainingGraph` is written and read.

    Attributes
    ----------
    name, nbytes, role
        The tensor's name, size in bytes and role.
    producer
        The operator that writes it, or ``None`` for a graph input (weights, the image,
        labels, optimizer state).
    consumers
        The operators that read it, in graph order.
    last_consumer
        ``consumers[-1]``, or ``None`` if nothing reads it (updated weights, the loss).
    """

    name: str
    nbytes: float
    role: str
    producer: str | None
    consumers: tuple[str, ...]
    last_consumer: str | None


class TrainingGraph(WorkloadGraph):
    """A :class:`WorkloadGraph` holding one training iteration (see :func:`training_graph`).

    Parameters
    ----------
    name
        The graph's name.
    forward
        The forward graph it was derived from.
    logits
        The name of the forward tensor the loss reads.
    metadata
        Free-form facts (the forward graph's, plus ``"training"``).
    """

    def __init__(self, name: str, *, forward: WorkloadGraph, logits: str,
                 metadata: Mapping[str, Any] | None = None) -> None:
        super().__init__(name, metadata=metadata)
        self.forward = forward
        self.logits = logits

    def ops_in_phase(self, phase: str) -> list[Operator]:
        """The operators of ``phase`` (one of :data:`PHASES`), in graph order."""
        if phase not in PHASES:
            raise ConfigError(f"unknown phase '{phase}'", field="phase", allowed=PHASES)
        return [op for op in self if op.attrs.get("phase") == phase]

    def tensor_uses(self) -> dict[str, TensorUse]:
        """Every tensor's producer and consumers in graph order, by tensor name."""
        specs: dict[str, TensorSpec] = {}
        producer: dict[str, str] = {}
        consumers: dict[str, list[str]] = {}
        for op in self:
            for t in op.inputs:
                specs.setdefault(t.name, t)
                readers = consumers.setdefault(t.name, [])
                if not readers or readers[-1] != op.name:  # a tensor read twice by one op
                    readers.append(op.name)
            for t in op.outputs:
                specs.setdefault(t.name, t)
                producer[t.name] = op.name
                consumers.setdefault(t.name, [])
        return {name: TensorUse(name, spec.nbytes, spec.role, producer.get(name),
                                tuple(consumers[name]),
                                consumers[name][-1] if consumers[name] else None)
                for name, spec in specs.items()}

    def phase_flops(self) -> dict[str, float]:
        """FLOPs per phase (every phase of :data:`PHASES`, zero when it has no operator)."""
        out = dict.fromkeys(PHASES, 0.0)
        for op in self:
            out[op.attrs["phase"]] += op.flops
        return out

    @property
    def recompute_flops(self) -> float:
        """FLOPs spent recomputing reversible blocks' inputs in the backward pass."""
        return self.phase_flops()["recompute"]


def _grad_spec(name: str, like: TensorSpec) -> TensorSpec:
    return TensorSpec(name, like.shape, like.dtype, role="gradient")


class _Builder:
    """The state of one :func:`training_graph` call."""

    def __init__(self, fwd: WorkloadGraph, tg: TrainingGraph, live: set[str],
                 blocks: Sequence[ReversibleBlock]) -> None:
        self.fwd = fwd
        self.tg = tg
        self.live = live
        self.producer = {t.name: op.name for op in fwd for t in op.outputs}
        self.specs = {t.name: t for op in fwd for t in (*op.inputs, *op.outputs)}
        # Gradient contributions each tensor will receive: one per (live consumer, operand).
        self.expected: dict[str, int] = {}
        for op in fwd:
            if op.name in live:
                for t in op.inputs:
                    if self.wants_grad(t):
                        self.expected[t.name] = self.expected.get(t.name, 0) + 1
        self.contribs: dict[str, list[TensorSpec]] = {}
        # Names of sparse (looked-up rows) gradient tensors.
        self.sparse: set[str] = set()
        self.final: dict[str, TensorSpec] = {}
        # Forward tensor name -> the recomputed tensor the backward reads instead.
        self.recomputed: dict[str, TensorSpec] = {}
        self.block_of: dict[str, ReversibleBlock] = {}
        for blk in blocks:
            for name in (*blk.f_ops, *blk.g_ops, self.producer[blk.y1],
                         self.producer[blk.y2]):
                self.block_of[name] = blk
        self.done_blocks: set[str] = set()

    # -- tensors ---------------------------------------------------------------------------
    def wants_grad(self, t: TensorSpec) -> bool:
        """Weights, and activations some live forward operator produced (not the image)."""
        return t.role == "weight" or self.producer.get(t.name) in self.live

    def contribution(self, t: TensorSpec, consumer: str, pos: int, op: Operator, *,
                     sparse_shape: tuple[int, ...] | None = None) -> TensorSpec:
        """A name for ``consumer``'s gradient contribution to ``t`` (``t.grad`` if the only one).

        ``sparse_shape`` makes it a sparse (looked-up rows) gradient of that shape.
        """
        if self.expected[t.name] == 1:
            name = f"{t.name}.grad"
        else:
            dup = sum(1 for u in op.inputs if u.name == t.name) > 1
            name = f"{t.name}.grad@{consumer}" + (f"#{pos}" if dup else "")
        if sparse_shape is None:
            spec = _grad_spec(name, t)
        else:
            spec = TensorSpec(name, sparse_shape, t.dtype, role="gradient")
            self.sparse.add(name)
        self.contribs.setdefault(t.name, []).append(spec)
        return spec

    def gradient(self, name: str, of: str) -> TensorSpec | None:
        """The complete gradient of tensor ``name``, summing its contributions if several."""
        if name in self.final:
            return self.final[name]
        parts = self.contribs.get(name, [])
        if not parts:
            return None
        sparse = [p for p in parts if p.name in self.sparse]
        dense = [p for p in parts if p.name not in self.sparse]
        if len(parts) == 1:
            g = parts[0]
        elif not dense:  # sparse slices of one table are concatenated, not added
            rows = sum(p.numel for p in sparse) // sparse[0].shape[-1]
            g = TensorSpec(f"{name}.grad", (rows, sparse[0].shape[-1]), sparse[0].dtype,
                           role="gradient")
            self.sparse.add(g.name)
            self.add(Operator(f"{name}.grad_concat", "data_movement", tuple(parts), (g,), 0.0,
                              {"fn": "concat"}), "backward", of)
        else:
            g = _grad_spec(f"{name}.grad", self.specs[name])
            flops = g.numel * (len(dense) - 1) + sum(p.numel for p in sparse)
            self.add(Operator(f"{name}.grad_sum", "elementwise", tuple(parts), (g,),
                              float(flops), {"fn": "add"}),
                     "backward", of)
        self.final[name] = g
        return g

    def read(self, t: TensorSpec) -> TensorSpec:
        """The tensor a backward operator reads for forward tensor ``t`` (recomputed if so)."""
        return self.recomputed.get(t.name, t)

    def add(self, op: Operator, phase: str, of: str | None) -> None:
        attrs = {**op.attrs, "phase": phase}
        if of is not None:
            attrs["of"] = of
        self.tg.add(Operator(op.name, op.kind, op.inputs, op.outputs, op.flops, attrs))

    # -- recompute -------------------------------------------------------------------------
    def recompute(self, blk: ReversibleBlock) -> None:
        """Emit G(y1), x2 = y2 - G(y1), F(x2), x1 = y1 - F(x2) from the block's outputs."""
        self.done_blocks.add(blk.name)

        def rc(t: TensorSpec) -> TensorSpec:
            new = TensorSpec(f"{t.name}.rc", t.shape, t.dtype, t.role)
            self.recomputed[t.name] = new
            return new

        def replay(names: Iterable[str]) -> None:
            for name in names:
                op = self.fwd[name]
                ins = tuple(t if t.role == "weight" else self.read(t) for t in op.inputs)
                outs = tuple(rc(t) for t in op.outputs)
                self.add(Operator(f"{name}.recompute", op.kind, ins, outs, op.flops, op.attrs),
                         "recompute", name)

        def undo(x: str, y: str, fx: str, tag: str) -> None:
            a, b = self.read(self.specs[y]), self.read(self.specs[fx])
            out = rc(self.specs[x])
            self.add(Operator(f"{blk.name}.recompute.{tag}", "elementwise", (a, b), (out,),
                              float(out.numel), {"fn": "sub"}), "recompute",
                     self.producer[y])

        replay(blk.g_ops)
        undo(blk.x2, blk.y2, blk.g_out, "x2")
        replay(blk.f_ops)
        undo(blk.x1, blk.y1, blk.f_out, "x1")

    # -- backward of one forward operator --------------------------------------------------
    def backward(self, op: Operator) -> None:
        blk = self.block_of.get(op.name)
        if blk is not None and blk.name not in self.done_blocks:
            self.recompute(blk)
        dys = [g for t in op.outputs if (g := self.gradient(t.name, op.name)) is not None]
        if not dys:
            return  # nothing downstream of this operator reaches the loss
        getattr(self, f"_bw_{op.kind}")(op, dys)

    def _emit(self, op: Operator, suffix: str, kind: str, inputs: Sequence[TensorSpec],
              outputs: Sequence[TensorSpec], flops: float, attrs: Mapping[str, Any]) -> None:
        self.add(Operator(f"{op.name}.{suffix}", kind, tuple(inputs), tuple(outputs), flops,
                          dict(attrs)), "backward", op.name)

    def _targets(self, op: Operator) -> list[tuple[int, TensorSpec]]:
        return [(i, t) for i, t in enumerate(op.inputs) if self.wants_grad(t)]

    def _bias_grads(self, op: Operator, dy: TensorSpec, biases: Sequence[tuple[int, TensorSpec]],
                    axes: tuple[int, ...]) -> None:
        for i, b in biases:
            db = self.contribution(b, op.name, i, op)
            self._emit(op, "bgrad" if len(biases) == 1 else f"bgrad{i}", "reduce", (dy,), (db,),
                       float(dy.numel), {"fn": "sum", "axes": axes})

    def _bw_conv2d(self, op: Operator, dys: list[TensorSpec]) -> None:
        a = op.attrs
        dy = dys[0]
        x, w = op.inputs[0], op.inputs[1]
        n, g = a["batch"], a["groups"]
        cin, cout = a["in_channels"], a["out_channels"]
        kh, kw = a["kernel_h"], a["kernel_w"]
        oh, ow = a["out_h"], a["out_w"]
        dil = a["dilation"]
        dh, dw = dil if isinstance(dil, tuple) else (dil, dil)
        stride = a["stride"]
        if self.wants_grad(x):
            dx = self.contribution(x, op.name, 0, op)
            th, tw = dh * (kh - 1), dw * (kw - 1)
            macs = n * cin * oh * ow * (cout // g) * kh * kw
            self._emit(op, "dgrad", "conv2d", (dy, w), (dx,), 2.0 * macs, {
                "batch": n, "in_channels": cout, "out_channels": cin, "in_h": oh, "in_w": ow,
                "out_h": oh, "out_w": ow, "kernel_h": kh, "kernel_w": kw, "stride": 1,
                "padding": (th // 2, th - th // 2, tw // 2, tw - tw // 2), "dilation": dil,
                "groups": g, "macs": macs, "grid_stride": stride})
        dw_t = self.contribution(w, op.name, 1, op)
        m, k, nn = cout // g, n * oh * ow, (cin // g) * kh * kw
        self._emit(op, "wgrad", "matmul", (dy, self.read(x)), (dw_t,), 2.0 * g * m * k * nn,
                   {"m": m, "k": k, "n": nn, "batch": g, "macs": g * m * k * nn})
        self._bias_grads(op, dy, [(i, t) for i, t in enumerate(op.inputs) if i >= 2
                                  and t.role == "weight"], (0, 2, 3))

    def _bw_matmul(self, op: Operator, dys: list[TensorSpec]) -> None:
        a = op.attrs
        dy = dys[0]
        A, B = op.inputs[0], op.inputs[1]
        m, n, k, batch = a["m"], a["n"], a["k"], a.get("batch", 1)
        if self.wants_grad(A):
            dA = self.contribution(A, op.name, 0, op)
            self._emit(op, "dgrad", "matmul", (dy, self.read(B)),
                       (dA,), 2.0 * batch * m * n * k,
                       {"m": m, "k": n, "n": k, "batch": batch, "macs": batch * m * n * k})
        if self.wants_grad(B):
            dB = self.contribution(B, op.name, 1, op)
            if B.role == "weight" and batch > 1:  # one weight shared by every batch element
                shape = {"m": k, "k": batch * m, "n": n, "batch": 1}
            else:
                shape = {"m": k, "k": m, "n": n, "batch": batch}
            self._emit(op, "wgrad" if B.role == "weight" else "dgrad_b", "matmul",
                       (self.read(A), dy), (dB,), 2.0 * batch * m * n * k,
                       {**shape, "macs": batch * m * n * k})
        self._bias_grads(op, dy, [(i, t) for i, t in enumerate(op.inputs) if i >= 2
                                  and t.role == "weight"], tuple(range(len(dy.shape) - 1)))

    def _bw_activation(self, op: Operator, dys: list[TensorSpec]) -> None:
        x, y = op.inputs[0], op.outputs[0]
        if not self.wants_grad(x):
            return
        fn = op.attrs.get("fn", "relu")
        per, reads_out = _ACT_BACKWARD.get(fn, (_ACT_BACKWARD_OTHER, False))
        dx = self.contribution(x, op.name, 0, op)
        saved = self.read(y) if reads_out else self.read(x)
        self._emit(op, "grad", "activation", (dys[0], saved), (dx,), per * x.numel,
                   {**op.attrs, "fn": f"{fn}_grad"})

    def _bw_norm(self, op: Operator, dys: list[TensorSpec]) -> None:
        x = op.inputs[0]
        weights = [(i, t) for i, t in enumerate(op.inputs) if i > 0 and t.role == "weight"]
        outs = [self.contribution(t, op.name, i, op) for i, t in self._targets(op)]
        if not outs:
            return
        if op.attrs.get("norm") == "lrn":
            flops = 2.0 * op.flops
        else:
            flops = _NORM_BACKWARD_PER_ELEMENT * x.numel
        # It reads its input (to rebuild x-hat) and the scale, not the shift.
        scale = [weights[0][1]] if weights else []
        self._emit(op, "grad", "norm", (dys[0], self.read(x), *scale), outs, flops,
                   {**op.attrs, "fn": "grad"})

    def _bw_pool(self, op: Operator, dys: list[TensorSpec]) -> None:
        x = op.inputs[0]
        if not self.wants_grad(x):
            return
        dx = self.contribution(x, op.name, 0, op)
        ins = (dys[0], self.read(x)) if op.attrs.get("mode", "max") == "max" else (dys[0],)
        self._emit(op, "grad", "pool", ins, (dx,), op.flops, {**op.attrs, "fn": "grad"})

    def _bw_elementwise(self, op: Operator, dys: list[TensorSpec]) -> None:
        targets = self._targets(op)
        if not targets:
            return
        fn = op.attrs.get("fn", "add")
        outs = [self.contribution(t, op.name, i, op) for i, t in targets]
        numel = op.outputs[0].numel
        if fn in ("add", "sub"):
            ins: tuple[TensorSpec, ...] = (dys[0],)
            flops = float(numel * len(outs))
        else:
            ins = (dys[0], *(self.read(t) for t in op.inputs))
            flops = float(numel * len(outs) * max(len(op.inputs) - 1, 1))
        self._emit(op, "grad", "elementwise", ins, outs, flops,
                   {**op.attrs, "fn": f"{fn}_grad"})

    def _bw_softmax(self, op: Operator, dys: list[TensorSpec]) -> None:
        x, y = op.inputs[0], op.outputs[0]
        if not self.wants_grad(x):
            return
        dx = self.contribution(x, op.name, 0, op)
        self._emit(op, "grad", "softmax", (dys[0], self.read(y)), (dx,),
                   _SOFTMAX_BACKWARD_PER_ELEMENT * x.numel, {**op.attrs, "fn": "grad"})

    def _bw_data_movement(self, op: Operator, dys: list[TensorSpec]) -> None:
        outs = [self.contribution(t, op.name, i, op) for i, t in self._targets(op)]
        if outs:
            fn = op.attrs.get("fn", "reshape")
            self._emit(op, "grad", "data_movement", dys, outs, 0.0,
                       {**op.attrs, "fn": f"{fn}_grad"})

    def _bw_embedding(self, op: Operator, dys: list[TensorSpec]) -> None:
        table = op.inputs[1]
        if not self.wants_grad(table):
            return
        dy = dys[0]
        dim = table.shape[-1]
        rows = dy.numel // dim
        dt = self.contribution(table, op.name, 1, op, sparse_shape=(rows, dim))
        self._emit(op, "wgrad", "embedding", (dy, op.inputs[0]), (dt,), float(dy.numel),
                   {**op.attrs, "fn": "scatter_add", "rows": rows})

    def _bw_recurrent(self, op: Operator, dys: list[TensorSpec]) -> None:
        a = op.attrs
        dy = dys[0]
        x = op.inputs[0]
        y = op.outputs[0]
        dirs, b, t = a["directions"], a["batch"], a["seq_len"]
        gates, h, i = a["gates"], a["hidden_size"], a["input_size"]
        gh = gates * h
        steps = {"steps": t, "directions": dirs}
        dgates = TensorSpec(f"{op.name}.dgates", (dirs, b, t, gh), dy.dtype, role="gradient")
        self._emit(op, "cell_grad", "elementwise", (dy, self.read(y)), (dgates,),
                   _CELL_BACKWARD_FACTOR * a["pointwise_flops"],
                   {"fn": "cell_grad", "cell": a["cell"], **steps})
        dh = TensorSpec(f"{op.name}.dh", (dirs, b, t, h), dy.dtype, role="gradient")
        r_w = op.inputs[2]
        self._emit(op, "dgrad_h", "matmul", (dgates, r_w), (dh,), 2.0 * dirs * t * b * gh * h,
                   {"m": b, "k": gh, "n": h, "batch": dirs * t,
                    "macs": dirs * t * b * gh * h, **steps})
        if self.wants_grad(x):
            dx = self.contribution(x, op.name, 0, op)
            if dirs == 1:
                self._emit(op, "dgrad", "matmul", (dgates, op.inputs[1]), (dx,),
                           2.0 * t * b * gh * i,
                           {"m": b * t, "k": gh, "n": i, "batch": 1, "macs": t * b * gh * i})
            else:
                per_dir = TensorSpec(f"{op.name}.dx_dirs", (dirs, *x.shape), dy.dtype,
                                     role="gradient")
                self._emit(op, "dgrad", "matmul", (dgates, op.inputs[1]), (per_dir,),
                           2.0 * dirs * t * b * gh * i,
                           {"m": b * t, "k": gh, "n": i, "batch": dirs,
                            "macs": dirs * t * b * gh * i})
                self._emit(op, "dgrad_sum", "elementwise", (per_dir,), (dx,),
                           float((dirs - 1) * x.numel), {"fn": "add"})
        weights = [(j, w) for j, w in enumerate(op.inputs) if j >= 1 and w.role == "weight"]
        mats = [(j, w) for j, w in weights if j in (1, 2)]
        outs = [self.contribution(w, op.name, j, op) for j, w in mats]
        self._emit(op, "wgrad", "matmul", (dgates, self.read(x), self.read(y)), outs,
                   2.0 * dirs * gh * b * t * (i + h),
                   {"m": gh, "k": b * t, "n": i + h, "batch": dirs,
                    "macs": dirs * gh * b * t * (i + h)})
        for j, w in weights:
            if j >= 3:
                db = self.contribution(w, op.name, j, op)
                self._emit(op, "bgrad", "reduce", (dgates,), (db,), float(dgates.numel),
                           {"fn": "sum", "axes": (1, 2)})

    def _bw_reduce(self, op: Operator, dys: list[TensorSpec]) -> None:
        dy = dys[0]
        fn = op.attrs.get("fn", "sum")
        operands = len(op.inputs)
        for j, t in self._targets(op):
            d = self.contribution(t, op.name, j, op)
            suffix = "grad" if len(op.inputs) == 1 else f"grad{j}"
            if t.numel >= dy.numel:
                # Expanded back over the reduced axes; a weighted reduction multiplies by
                # the other operands (one FLOP per element), a mean scales.
                weighted = operands > 1
                if weighted or fn == "mean":
                    ins = (dy, *(self.read(u) for k, u in enumerate(op.inputs) if k != j))
                    self._emit(op, suffix, "elementwise", ins, (d,), float(t.numel),
                               {"fn": f"{fn}_grad"})
                else:
                    self._emit(op, suffix, "data_movement", (dy,), (d,), 0.0,
                               {"fn": "broadcast"})
            else:  # broadcast into the output: sum the gradient over the broadcast axes
                self._emit(op, suffix, "reduce", (dy,), (d,), float(dy.numel),
                           {"fn": "sum"})

    def _bw_attention(self, op: Operator, dys: list[TensorSpec]) -> None:
        targets = self._targets(op)
        if not targets:
            return
        a = op.attrs
        keys = ("batch", "heads", "q_len", "kv_len", "head_dim")
        if all(k in a for k in keys):
            scores = a["batch"] * a["heads"] * a["q_len"] * a["kv_len"]
            flops = 2.0 * 4.0 * scores * a["head_dim"] + _ATTN_SOFTMAX_BACKWARD_PER_SCORE * scores
        else:
            flops = 2.0 * op.flops
        outs = [self.contribution(t, op.name, j, op) for j, t in targets]
        self._emit(op, "grad", "attention", (dys[0], *(self.read(t) for t in op.inputs)),
                   outs, flops, {**a, "fn": "grad"})

    # -- update ----------------------------------------------------------------------------
    def update(self, w: TensorSpec, of: str, optimizer: str, momentum: bool) -> None:
        g = self.gradient(w.name, of)
        if g is None:
            return
        if optimizer == "adam":
            states = [TensorSpec(f"{w.name}.{s}", w.shape, w.dtype, role="state")
                      for s in ("adam_m", "adam_v")]
            fn = "adam"
        elif momentum:
            states = [TensorSpec(f"{w.name}.momentum", w.shape, w.dtype, role="state")]
            fn = "sgd_momentum"
        else:
            states = []
            fn = "sgd"
        outs = [TensorSpec(f"{w.name}.updated", w.shape, w.dtype, role="weight"),
                *(TensorSpec(f"{s.name}.updated", s.shape, s.dtype, role="state")
                  for s in states)]
        # A sparse gradient updates only the rows it holds (TensorFlow's sparse apply ops).
        touched = g.numel if g.name in self.sparse else w.numel
        self.add(Operator(f"{w.name}.update", "elementwise", (w, g, *states), tuple(outs),
                          _UPDATE_FLOPS[(optimizer, momentum)] * touched,
                          {"fn": fn, "sparse": g.name in self.sparse}),
                 "update", of)


def _logits(graph: WorkloadGraph) -> TensorSpec:
    consumed = {t.name for op in graph for t in op.inputs}
    outs = [t for op in graph for t in op.outputs if t.name not in consumed]
    if len(outs) != 1:
        raise ConfigError(f"graph '{graph.name}' must have exactly one output tensor (the "
                          f"logits) to attach the loss to, but has {len(outs)}: "
                          f"{[t.name for t in outs]}", field="graph")
    return outs[0]


def _reversible_blocks(graph: WorkloadGraph) -> tuple[ReversibleBlock, ...]:
    blocks = tuple(graph.metadata.get("reversible_blocks", ()))
    produced = {t.name for op in graph for t in op.outputs}
    for blk in blocks:
        if not isinstance(blk, ReversibleBlock):
            raise ConfigError(f"graph '{graph.name}': metadata['reversible_blocks'] holds "
                              f"{type(blk).__name__}, not ReversibleBlock",
                              field="reversible_blocks")
        missing = [n for n in (*blk.f_ops, *blk.g_ops) if n not in {o.name for o in graph}]
        missing += [t for t in (blk.y1, blk.y2, blk.f_out, blk.g_out) if t not in produced]
        if missing:
            raise ConfigError(f"reversible block '{blk.name}' names {missing}, which graph "
                              f"'{graph.name}' does not have", field="reversible_blocks")
    return blocks


def training_graph(graph: WorkloadGraph, *, optimizer: str = "sgd", momentum: bool = False,
                   reversible: bool = True) -> TrainingGraph:
    """One training iteration of ``graph``: forward, loss, (recompute,) backward, update.

    Parameters
    ----------
    graph
        A forward graph with exactly one output tensor (the logits) whose operators are of
        :data:`DIFFERENTIABLE_KINDS` (operators that do not reach the logits are not
        differentiated).
    optimizer
        ``"sgd"`` or ``"adam"`` (:data:`OPTIMIZERS`): the update operator per weight.
    momentum
        SGD with momentum (one ``state`` tensor per weight); Adam always keeps two.
    reversible
        Recompute the inputs of ``graph.metadata["reversible_blocks"]`` from their outputs
        in the backward pass; ``False`` trains the same graph by ordinary back-propagation,
        reading every stored forward activation.

    Returns
    -------
    TrainingGraph
        The iteration; ``metadata["training"]`` records the options.

    Raises
    ------
    ConfigError
        An unknown optimizer, a non-bool flag, a graph without a single output, an operator
        of a kind that cannot be differentiated (naming the operator and the kind), or a
        reversible-block record that does not match the graph.
    """
    if optimizer not in OPTIMIZERS:
        raise ConfigError(f"unknown optimizer '{optimizer}'", field="optimizer",
                          allowed=OPTIMIZERS)
    for name, flag in (("momentum", momentum), ("reversible", reversible)):
        if not isinstance(flag, bool):
            raise ConfigError(f"must be True or False, not {flag!r}", field=name,
                              allowed=[False, True])
    logits = _logits(graph)
    fwd_ops = list(graph)
    out_op = next(op for op in fwd_ops if logits in op.outputs)
    live = set(nx.ancestors(graph.nx_graph, out_op.name)) | {out_op.name}
    for op in fwd_ops:
        if op.name in live and op.kind not in DIFFERENTIABLE_KINDS:
            raise ConfigError(f"operator '{op.name}' has kind '{op.kind}', which "
                              f"training_graph cannot differentiate", field="kind",
                              allowed=sorted(DIFFERENTIABLE_KINDS))
    blocks = _reversible_blocks(graph) if reversible else ()
    tg = TrainingGraph(f"{graph.name}-train", forward=graph, logits=logits.name, metadata={
        **graph.metadata, "training": {"optimizer": optimizer, "momentum": momentum,
                                       "reversible": reversible,
                                       "recomputed_blocks": len(blocks)}})
    b = _Builder(graph, tg, live, blocks)
    for op in fwd_ops:
        b.add(op, "forward", None)
    # Softmax cross-entropy: the loss and d(logits) = softmax(logits) - onehot(labels).
    rows = logits.numel // logits.shape[-1] if logits.shape else 1
    labels = TensorSpec("labels", (rows,), "int32", role="input")
    b.expected[logits.name] = 1
    dlogits = b.contribution(logits, "loss", 0, out_op)
    b.add(Operator("loss", "softmax", (logits, labels),
                   (TensorSpec("loss", (1,), logits.dtype, role="output"), dlogits),
                   _LOSS_PER_LOGIT * logits.numel + rows,
                   {"fn": "cross_entropy", "axis": -1}), "loss", None)
    for op in reversed(fwd_ops):
        if op.name in live:
            b.backward(op)
    first_use: dict[str, tuple[TensorSpec, str]] = {}
    for op in fwd_ops:
        if op.name in live:
            for t in op.inputs:
                if t.role == "weight":
                    first_use.setdefault(t.name, (t, op.name))
    for w, of in first_use.values():
        b.update(w, of, optimizer, momentum)
    return tg
