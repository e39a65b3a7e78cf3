"""Operation-type profiles of Fathom training steps: TensorFlow-like op types, the paper's
seven classes, a CPU roofline time per operator, cosine similarity and clustering.

Every operator of a :class:`~archsim.compilers.graph.training.TrainingGraph` (or of a
forward graph, for inference) is split into one or more :class:`Piece` s, each with the
TensorFlow op type that would run it in Fathom's reference code (TensorFlow 0.8) and one of
the paper's classes (:data:`OP_CLASSES`). The mapping (:func:`pieces`) is this study's, not
the paper's -- the paper's per-op assignment is not in the notes -- and is listed in the
study's assumptions:

- ``conv2d`` forward is ``Conv2D``, its data gradient ``Conv2DBackpropInput``; the weight
  gradient of a convolution (a ``matmul`` in the training graph) is
  ``Conv2DBackpropFilter``: all *convolution*. A convolution's bias gradient is
  ``BiasAddGrad`` (*reduction*).
- ``matmul`` is ``MatMul`` (``BatchMatMul`` when batched over activations): *matrix*.
- A ``recurrent`` layer (TensorFlow 0.8 builds LSTM/GRU/RNN cells from ``MatMul`` and
  point-wise ops) splits into its ``MatMul`` (*matrix*) and its cell point-wise ops
  (*elementwise*); the backward's ``cell_grad`` is *elementwise*.
- ``attention`` (``attention_decoder``'s additive scoring: add, tanh, multiply, sum) splits
  into the scoring products (*elementwise* when additive, *matrix* for dot-product) and its
  softmax (*reduction*); the backward likewise.
- ``activation`` and ``elementwise`` are *elementwise* (named by their ``fn``); an
  ``elementwise`` of phase ``update`` is the optimizer's ``Apply*`` op (*optimizer*).
- ``softmax`` (and the softmax cross-entropy loss), ``reduce``, ``pool`` are
  *reduction/expansion* (assumed for softmax and pooling); ``norm`` (LRN) is *elementwise*
  (assumed).
- ``embedding`` (``Gather``) and its sparse gradient (``ScatterAdd``), ``data_movement``
  (reshape, concat, broadcast) are *data movement*.
- Random draws (:data:`RANDOM_DRAWS`, the VAE's ``tf.random_normal``) are *random sampling*.

The roofline time of a piece is ``max(flops / ceiling, bytes / bandwidth)`` with the
ceiling of its class (:class:`CpuRoofline`: measured GEMM FLOP/s for matrix and
convolution, measured vector FLOP/s for the rest, measured normal draws per second for
random sampling) and the piece's compulsory traffic (each operand read once, each result
written once).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ....compilers.graph.ir import Operator, WorkloadGraph, dtype_bytes
from ....errors import ConfigError

__all__ = ["OP_CLASSES", "FAMILIES", "RANDOM_DRAWS", "CpuRoofline", "Piece", "pieces",
           "Profile", "profile", "cosine_similarity", "types_covering"]

#: The paper's operation classes (Adolf et al. 2016, [R] in the notes), in display order.
OP_CLASSES: tuple[str, ...] = ("elementwise", "matrix", "reduction", "convolution",
                               "random", "optimizer", "data_movement")

#: The model families the clustering is checked against, by architecture (assumed, not
#: the paper's list): convolutional, recurrent/sequence, and the two without a peer.
FAMILIES: dict[str, str] = {
    "alexnet": "cnn", "vgg": "cnn", "residual": "cnn", "deepq": "cnn",
    "seq2seq": "recurrent", "speech": "recurrent", "memnet": "memory", "autoenc": "vae"}

#: Graph input tensors drawn at random every step (name -> what draws them). The VAE's
#: ``eps`` is ``tf.random_normal`` in ``fathom/autoenc/variational.py``; the other
#: workloads' draws (DQN's epsilon-greedy scalar, seq2seq's 512 sampled-softmax
#: candidates) are negligible and not modelled.
RANDOM_DRAWS: dict[str, str] = {"eps": "RandomStandardNormal"}


@dataclass(frozen=True, kw_only=True)
class CpuRoofline:
    """The ceilings a piece's time is taken against (all measured on this machine).

    Parameters
    ----------
    gemm_flops_per_s
        Dense fp32 GEMM FLOP/s (matrix and convolution pieces).
    vector_flops_per_s
        fp32 element-wise FLOP/s on cache-resident arrays (the other computing pieces).
    mem_bw_bytes_per_s
        Memory bandwidth of large-array copies.
    normal_draws_per_s
        Standard-normal draws per second (random sampling).
    threads
        BLAS threads the figures were measured with.
    """

    gemm_flops_per_s: float
    vector_flops_per_s: float
    mem_bw_bytes_per_s: float
    normal_draws_per_s: float
    threads: int = 1

    def __post_init__(self) -> None:
        for name in ("gemm_flops_per_s", "vector_flops_per_s", "mem_bw_bytes_per_s",
                     "normal_draws_per_s"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not (
                    math.isfinite(v) and v > 0):
                raise ConfigError(f"must be a finite number > 0, not {v!r}", field=name)
        if isinstance(self.threads, bool) or not isinstance(self.threads, int) \
                or self.threads < 1:
            raise ConfigError(f"must be a positive integer, not {self.threads!r}",
                              field="threads")

    def ceiling(self, op_class: str) -> float:
        """The compute ceiling of ``op_class`` (FLOP/s; draws/s for ``random``)."""
        if op_class not in OP_CLASSES:
            raise ConfigError(f"unknown op class '{op_class}'", field="op_class",
                              allowed=OP_CLASSES)
        if op_class in ("matrix", "convolution"):
            return self.gemm_flops_per_s
        if op_class == "random":
            return self.normal_draws_per_s
        return self.vector_flops_per_s

    def time_s(self, piece: Piece) -> float:
        """``max(work / ceiling, bytes / bandwidth)`` of one piece."""
        compute = piece.flops / self.ceiling(piece.op_class) if piece.flops else 0.0
        return max(compute, piece.bytes / self.mem_bw_bytes_per_s)


@dataclass(frozen=True)
class Piece:
    """One TensorFlow-like op of an operator: its type, class, work and traffic.

    ``flops`` are draws for a ``random`` piece.
    """

    op: str
    op_type: str
    op_class: str
    flops: float
    bytes: float


_ATTN_SOFTMAX_GRAD_PER_SCORE = 4.0
# TensorFlow's optimizer kernels by (training.py's update fn, sparse gradient): a sparse
# SGD step is a ScatterSub of the looked-up rows.
_APPLY_OPS = {("sgd", False): "ApplyGradientDescent", ("sgd", True): "ScatterSub",
              ("sgd_momentum", False): "ApplyMomentum",
              ("sgd_momentum", True): "SparseApplyMomentum",
              ("adam", False): "ApplyAdam", ("adam", True): "SparseApplyAdam"}


def _camel(fn: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in fn.split("_"))


def pieces(op: Operator, *, forward_kinds: Mapping[str, str]) -> list[Piece]:
    """The TensorFlow-like op types of one operator (see the module docstring).

    Parameters
    ----------
    op
        An operator of a forward or training graph.
    forward_kinds
        Forward operator name -> kind, to tell a convolution's weight gradient (a
        ``matmul``) from a matrix multiply's.
    """
    a = op.attrs
    phase = a.get("phase", "forward")
    of_kind = forward_kinds.get(str(a.get("of", "")), "")
    nbytes = op.bytes_accessed
    fn = str(a.get("fn", ""))

    def one(op_type: str, op_class: str) -> list[Piece]:
        return [Piece(op.name, op_type, op_class, op.flops, nbytes)]

    k = op.kind
    if k == "conv2d":
        return one("Conv2D" if phase != "backward" else "Conv2DBackpropInput", "convolution")
    if k == "matmul":
        if phase == "backward" and of_kind == "conv2d":
            return one("Conv2DBackpropFilter", "convolution")
        batched = a.get("batch", 1) > 1 and not all(
            t.role == "weight" for t in op.inputs[1:2])
        return one("BatchMatMul" if batched else "MatMul", "matrix")
    if k == "recurrent":
        mm = float(a["matmul_flops"])
        pw = float(a["pointwise_flops"])
        # The gate pre-activations are written by the MatMul and read by the cell ops.
        gates = float(a["directions"] * a["batch"] * a["seq_len"] * a["gates"]
                      * a["hidden_size"]) * dtype_bytes(op.outputs[0].dtype)
        return [Piece(op.name, "MatMul", "matrix", mm, nbytes),
                Piece(op.name, f"{_camel(str(a['cell']))}CellPointwise", "elementwise", pw,
                      2.0 * gates)]
    if k == "attention":
        scores = float(a.get("batch", 1) * a.get("heads", 1) * a.get("q_len", 1)
                       * a.get("kv_len", 1))
        grad = fn == "grad"
        additive = a.get("kind") == "additive"
        if grad:  # training.py: twice the products plus 4 FLOPs per score
            soft = _ATTN_SOFTMAX_GRAD_PER_SCORE * scores
            products = max(op.flops - soft, 0.0)
        else:  # additive (fathom.py) counts its softmax in op.flops; dot-product does not
            soft = float(a.get("softmax_flops", 5.0 * scores))
            products = max(op.flops - soft, 0.0) if additive else op.flops
        suffix = "Grad" if grad else ""
        return [Piece(op.name, ("AttentionScoreAdditive" if additive else "BatchMatMul")
                      + suffix, "elementwise" if additive else "matrix", products, nbytes),
                Piece(op.name, "Softmax" + suffix, "reduction", soft,
                      2.0 * scores * dtype_bytes(op.outputs[0].dtype))]
    if k == "norm":
        base = "LRN" if a.get("norm") == "lrn" else _camel(str(a.get("norm", "norm")))
        return one(base + ("Grad" if fn == "grad" else ""), "elementwise")
    if k == "activation":
        return one(_camel(fn or "relu"), "elementwise")
    if k == "elementwise":
        if phase == "update":
            sparse = bool(a.get("sparse", False))
            return one(_APPLY_OPS.get((fn, sparse), ("SparseApply" if sparse else "Apply")
                                      + _camel(fn)), "optimizer")
        if fn == "cell_grad":
            return one(f"{_camel(str(a.get('cell', 'rnn')))}CellPointwiseGrad",
                       "elementwise")
        return one(_camel(fn or "add"), "elementwise")
    if k == "softmax":
        if fn == "cross_entropy":
            return one("SoftmaxCrossEntropyWithLogits", "reduction")
        return one("SoftmaxGrad" if fn == "grad" else "Softmax", "reduction")
    if k == "pool":
        mode = _camel(str(a.get("mode", "max")))
        return one(f"{mode}Pool" + ("Grad" if fn == "grad" else ""), "reduction")
    if k == "reduce":
        if phase == "backward" and of_kind == "conv2d":
            return one("BiasAddGrad", "reduction")
        return one(_camel(fn or "sum"), "reduction")
    if k == "embedding":
        return one("ScatterAdd" if fn == "scatter_add" else "Gather", "data_movement")
    if k == "data_movement":
        return one(_camel(fn or "reshape"), "data_movement")
    raise ConfigError(f"operator '{op.name}' has kind '{k}', which the Fathom profile does "
                      "not map", field="kind",
                      allowed=["conv2d", "matmul", "recurrent", "attention", "activation",
                               "norm", "elementwise", "softmax", "pool", "reduce",
                               "embedding", "data_movement"])


@dataclass(frozen=True)
class Profile:
    """A graph's time and FLOPs by op type and by class on one roofline.

    Attributes
    ----------
    name
        The workload.
    time_by_type_s, flops_by_type
        Per TensorFlow-like op type.
    class_of_type
        Op type -> class.
    """

    name: str
    time_by_type_s: dict[str, float]
    flops_by_type: dict[str, float]
    class_of_type: dict[str, str]

    @property
    def total_time_s(self) -> float:
        return float(sum(self.time_by_type_s.values()))

    @property
    def total_flops(self) -> float:
        return float(sum(f for t, f in self.flops_by_type.items()
                         if self.class_of_type[t] != "random"))

    def by_class(self, *, measure: str = "time") -> dict[str, float]:
        """Share (0..1) of time (``measure="time"``) or FLOPs (``"flops"``) per class."""
        if measure not in ("time", "flops"):
            raise ConfigError(f"unknown measure '{measure}'", field="measure",
                              allowed=["time", "flops"])
        src = self.time_by_type_s if measure == "time" else {
            t: f for t, f in self.flops_by_type.items() if self.class_of_type[t] != "random"}
        total = sum(src.values())
        out = dict.fromkeys(OP_CLASSES, 0.0)
        for t, v in src.items():
            out[self.class_of_type[t]] += v / total if total else 0.0
        return out

    def vector(self, types: Sequence[str]) -> np.ndarray:
        """Time shares over ``types`` (zeros for types this graph lacks)."""
        total = self.total_time_s
        return np.array([self.time_by_type_s.get(t, 0.0) / total for t in types])


def profile(graph: WorkloadGraph, roof: CpuRoofline, *,
            forward: WorkloadGraph | None = None) -> Profile:
    """The op-type profile of ``graph`` on ``roof``.

    Parameters
    ----------
    graph
        A forward graph or a training graph.
    roof
        The ceilings.
    forward
        The forward graph ``graph`` derives from (defaults to ``graph``): names the kinds of
        the operators backward operators derive from.
    """
    fwd = forward if forward is not None else graph
    kinds = {op.name: op.kind for op in fwd}
    times: dict[str, float] = {}
    flops: dict[str, float] = {}
    cls: dict[str, str] = {}
    ps = [p for op in graph for p in pieces(op, forward_kinds=kinds)]
    produced = {t.name for op in graph for t in op.outputs}
    for op in graph:
        for t in op.inputs:
            if t.name in RANDOM_DRAWS and t.name not in produced:
                produced.add(t.name)  # one draw per element per step, however many readers
                ps.append(Piece(f"{t.name}.draw", RANDOM_DRAWS[t.name], "random",
                                float(t.numel), t.nbytes))
    for p in ps:
        times[p.op_type] = times.get(p.op_type, 0.0) + roof.time_s(p)
        flops[p.op_type] = flops.get(p.op_type, 0.0) + p.flops
        cls[p.op_type] = p.op_class
    return Profile(graph.name, times, flops, cls)


def cosine_similarity(vectors: np.ndarray) -> np.ndarray:
    """Pairwise cosine similarity of the rows of ``vectors`` (rows must be non-zero)."""
    v = np.asarray(vectors, dtype=float)
    norms = np.linalg.norm(v, axis=1)
    if v.ndim != 2 or np.any(norms == 0):
        raise ConfigError("cosine similarity needs a 2-D array of non-zero rows",
                          field="vectors")
    u = v / norms[:, None]
    return np.clip(u @ u.T, -1.0, 1.0)


def types_covering(prof: Profile, share: float = 0.9) -> int:
    """The fewest op types whose time adds up to at least ``share`` of the total."""
    if not 0 < share <= 1:
        raise ConfigError(f"share must be in (0, 1], not {share}", field="share")
    vals = sorted(prof.time_by_type_s.values(), reverse=True)
    total = sum(vals)
    acc = 0.0
    for i, v in enumerate(vals, start=1):
        acc += v
        if acc >= share * total * (1 - 1e-12):
            return i
    return len(vals)
