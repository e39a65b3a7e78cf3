"""A small numpy executor of forward workload graphs, with inter-op and intra-op threads.

Every operator of a :class:`~archsim.compilers.graph.ir.WorkloadGraph` runs for real on
random tensors of the graph's shapes: matmuls through ``np.matmul`` (BLAS), convolutions
as im2col (a strided window view copied by ``np.tensordot``) + GEMM, recurrent layers as a
loop of per-step GEMMs, and so on. Two knobs mirror a deep-learning framework's
(TensorFlow's ``inter_op_parallelism_threads`` / ``intra_op_parallelism_threads``):

- **inter-op**: a :class:`concurrent.futures.ThreadPoolExecutor` of ``inter_op_threads``
  workers; a ready-list scheduler launches each operator as soon as all its predecessors
  have finished. numpy releases the GIL inside BLAS and most array loops, so concurrent
  GEMM-heavy operators really overlap. ``inter_op_threads=1`` runs synchronously in the
  calling thread (no pool), as a framework's synchronous executor does.
- **intra-op**: ``threadpoolctl.threadpool_limits(intra_op_threads)``, the number of BLAS
  (OpenBLAS/MKL) threads each GEMM may use. The limit is process-wide, as an OpenMP
  thread count is.

Numerics are float32 whatever the graph's dtype says (numpy has no fast fp16 GEMM); integer
input tensors (token ids, lookup indices) are drawn inside the bounds of the tables they
index. :func:`graph_width` gives the paper's "average graph width".
"""

from __future__ import annotations

import math
import os
import statistics
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from threadpoolctl import threadpool_limits

from ..compilers.graph.ir import Operator, TensorSpec, WorkloadGraph
from ..errors import ConfigError
from .nn.conv import conv_windows

__all__ = ["ExecutionResult", "OpEvent", "GraphRun", "MAX_GRAPH_BYTES", "supported_kinds",
           "execute_graph", "evaluate_graph", "make_inputs", "graph_width",
           "critical_path_ops"]

#: Largest total tensor footprint (float32 bytes of every tensor) the executor accepts: the
#: shared 2-core machine has a few GB; bigger graphs should be built at smaller shapes.
MAX_GRAPH_BYTES = 1 << 30

Array = np.ndarray
_Kernel = Callable[[Operator, list[Array]], list[Array]]


@dataclass(frozen=True)
class OpEvent:
    """When one operator ran: ``start_s``/``end_s`` from :func:`time.perf_counter`, and the
    name of the thread that ran it."""

    name: str
    kind: str
    start_s: float
    end_s: float
    thread: str

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s


@dataclass(frozen=True)
class GraphRun:
    """One execution of a graph: every tensor's value, the per-operator events and the wall
    time of the whole run (scheduling included, input generation excluded)."""

    values: dict[str, Array]
    events: tuple[OpEvent, ...]
    wall_s: float


@dataclass(frozen=True)
class ExecutionResult:
    """Measured execution of a graph at one (inter-op, intra-op) setting.

    Attributes
    ----------
    wall_s : float
        Median wall time of the timed repeats, seconds.
    wall_s_all : tuple of float
        Every timed repeat, seconds (warm-up runs excluded).
    per_kind_s : dict
        Seconds per operator kind, summed over the graph's operators, from a synchronous
        (``inter_op_threads=1``) run at the same intra-op setting: the median over repeats
        when the setting itself is synchronous, else one extra profiling run.
    inter_op_threads, intra_op_threads : int
        The setting measured.
    load_avg : tuple of float
        ``os.getloadavg()`` (1, 5, 15 minutes) read right after the timed repeats.
    """

    wall_s: float
    wall_s_all: tuple[float, ...]
    per_kind_s: dict[str, float]
    inter_op_threads: int
    intra_op_threads: int
    load_avg: tuple[float, float, float]
    graph: str = ""
    per_op_s: dict[str, float] = field(default_factory=dict)

    @property
    def spread_s(self) -> float:
        """Max minus min of the timed repeats, seconds."""
        return max(self.wall_s_all) - min(self.wall_s_all)


# -- kernels ------------------------------------------------------------------------------

def _as(x: Array, shape: tuple[int, ...], op: Operator, what: str) -> Array:
    """``x`` reshaped to ``shape``; sizes must agree (a view when possible)."""
    if x.size != math.prod(shape):
        raise ConfigError(f"operator '{op.name}' ({op.kind}): {what} has {x.size} elements, "
                          f"cannot view it as {shape}", field="shape")
    return x.reshape(shape)


def _matmul(op: Operator, xs: list[Array]) -> list[Array]:
    m, n, k = int(op.attrs["m"]), int(op.attrs["n"]), int(op.attrs["k"])
    batch = int(op.attrs.get("batch", 1))
    out_shape = op.outputs[0].shape
    a = xs[0]
    if batch > 1:
        a = _as(a, (batch, m, k), op, "input A")
    else:
        a = _as(a, (m, k), op, "input A")
    b = xs[1]
    if b.ndim >= 2 and b.shape[-2:] == (k, n):
        pass
    elif b.ndim >= 2 and b.shape[-2:] == (n, k):
        b = np.swapaxes(b, -1, -2)  # e.g. scores = u @ memories^T
    else:
        b = _as(b, (k, n), op, "input B")
    y = np.matmul(a, b)
    if len(xs) > 2 and xs[2].shape == (n,):
        y += xs[2]
    return [_as(y, out_shape, op, "result")]


def _pad_hw(x: Array, pads: tuple[int, int, int, int], value: float) -> Array:
    t, b, l_, r = pads
    if not any(pads):
        return x
    return np.pad(x, ((0, 0), (0, 0), (t, b), (l_, r)), constant_values=value)


def _fit_pads(h: int, w: int, pads: tuple[int, int, int, int], *, kh: int, kw: int,
              stride: int, dilation: int, oh: int, ow: int) -> tuple[int, int, int, int]:
    """Pads extended at the bottom/right so ``oh x ow`` windows fit (ceil-mode pooling)."""
    need_h = (oh - 1) * stride + dilation * (kh - 1) + 1 - (h + pads[0] + pads[1])
    need_w = (ow - 1) * stride + dilation * (kw - 1) + 1 - (w + pads[2] + pads[3])
    return (pads[0], pads[1] + max(need_h, 0), pads[2], pads[3] + max(need_w, 0))


def _conv2d(op: Operator, xs: list[Array]) -> list[Array]:
    a = op.attrs
    x, wt = xs[0], xs[1]
    n, c, h, w = x.shape
    kh, kw, s, dil = int(a["kernel_h"]), int(a["kernel_w"]), int(a["stride"]), int(a["dilation"])
    oh, ow, groups = int(a["out_h"]), int(a["out_w"]), int(a.get("groups", 1))
    o = wt.shape[0]
    pads = _fit_pads(h, w, tuple(a["padding"]), kh=kh, kw=kw, stride=s, dilation=dil,
                     oh=oh, ow=ow)
    win = conv_windows(_pad_hw(x, pads, 0.0), kh=kh, kw=kw, stride=s, dilation=dil, oh=oh, ow=ow)
    cg, og = c // groups, o // groups
    parts = []
    for g in range(groups):
        # tensordot copies the windows into an im2col matrix and runs one GEMM on it.
        parts.append(np.tensordot(win[:, g * cg:(g + 1) * cg], wt[g * og:(g + 1) * og],
                                  axes=([1, 4, 5], [1, 2, 3])))
    y = parts[0] if groups == 1 else np.concatenate(parts, axis=-1)
    y = np.ascontiguousarray(np.moveaxis(y, -1, 1))
    if len(xs) > 2:
        y += xs[2].reshape(1, o, 1, 1)
    return [y]


def _pool(op: Operator, xs: list[Array]) -> list[Array]:
    a = op.attrs
    x = xs[0]
    _, _, h, w = x.shape
    kh, kw, s = int(a["kernel_h"]), int(a["kernel_w"]), int(a["stride"])
    oh, ow = int(a["out_h"]), int(a["out_w"])
    mode = a.get("mode", "max")
    if mode == "avg" and kh == h and kw == w and oh == 1 and ow == 1:
        return [x.mean(axis=(2, 3), keepdims=True)]
    pads = _fit_pads(h, w, tuple(a["padding"]), kh=kh, kw=kw, stride=s, dilation=1,
                     oh=oh, ow=ow)
    fill = -np.inf if mode == "max" else 0.0
    win = conv_windows(_pad_hw(x, pads, fill), kh=kh, kw=kw, stride=s, dilation=1, oh=oh, ow=ow)
    # Average pooling counts padded zeros (PyTorch's count_include_pad=True).
    y = win.max(axis=(4, 5)) if mode == "max" else win.mean(axis=(4, 5))
    return [np.ascontiguousarray(y)]


def _broadcast_to(x: Array, shape: tuple[int, ...], op: Operator) -> Array:
    if x.shape == shape:
        return x
    try:
        return np.broadcast_to(x, shape)
    except ValueError:
        return _as(x, shape, op, "operand")


_ELEMENTWISE_FNS = ("add", "sub", "mul", "reparameterize")


def _elementwise(op: Operator, xs: list[Array]) -> list[Array]:
    shape = op.outputs[0].shape
    fn = op.attrs.get("fn", "add")
    ops = [_broadcast_to(x, shape, op) for x in xs]
    if fn == "reparameterize":  # z = mean + sqrt(exp(log_var)) * eps
        mean, log_var, eps = ops
        return [mean + np.sqrt(np.exp(log_var)) * eps]
    y = np.array(ops[0], dtype=np.float32, copy=True)
    for t in ops[1:]:
        if fn == "add":
            y += t
        elif fn == "sub":
            y -= t
        elif fn == "mul":
            y *= t
        else:
            raise ConfigError(f"operator '{op.name}': unsupported elementwise fn '{fn}'",
                              field="attrs.fn", allowed=_ELEMENTWISE_FNS)
    return [y]


def _sigmoid(x: Array) -> Array:
    return 0.5 * (np.tanh(0.5 * x) + 1.0)  # overflow-free logistic


def _gelu(x: Array) -> Array:
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


_ACTIVATIONS: dict[str, Callable[[Array], Array]] = {
    "relu": lambda x: np.maximum(x, 0.0),
    "clipped_relu": lambda x: np.clip(x, 0.0, 20.0),  # Deep Speech clips at 20
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "gelu": _gelu,
    "silu": lambda x: x * _sigmoid(x),
}


def _activation(op: Operator, xs: list[Array]) -> list[Array]:
    fn = op.attrs.get("fn", "relu")
    if fn not in _ACTIVATIONS:
        raise ConfigError(f"operator '{op.name}': unsupported activation '{fn}'",
                          field="attrs.fn", allowed=sorted(_ACTIVATIONS))
    return [_as(_ACTIVATIONS[fn](xs[0]), op.outputs[0].shape, op, "result")]


def _softmax_last(x: Array) -> Array:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    e /= e.sum(axis=-1, keepdims=True)
    return e


def _softmax(op: Operator, xs: list[Array]) -> list[Array]:
    return [_as(_softmax_last(xs[0]), op.outputs[0].shape, op, "result")]


def _norm(op: Operator, xs: list[Array]) -> list[Array]:
    kind = op.attrs.get("norm", "layer")
    x = xs[0]
    if kind == "batch":  # inference batch norm: per-channel scale and shift on axis 1
        shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        return [x * xs[1].reshape(shape) + xs[2].reshape(shape)]
    if kind == "lrn":  # cross-channel window sum of squares (AlexNet)
        size = int(op.attrs["size"])
        sq = np.pad(x * x, ((0, 0), (size // 2, (size - 1) // 2), (0, 0), (0, 0)))
        acc = sliding_window_view(sq, size, axis=1).sum(axis=-1)
        return [x / (2.0 + 1e-4 * acc) ** 0.75]
    if kind in ("layer", "rms"):
        if kind == "layer":
            mu = x.mean(axis=-1, keepdims=True)
            xc = x - mu
            y = xc / np.sqrt((xc * xc).mean(axis=-1, keepdims=True) + 1e-5)
        else:
            y = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-5)
        if len(xs) > 1:
            y = y * xs[1]
        if len(xs) > 2:
            y = y + xs[2]
        return [_as(y, op.outputs[0].shape, op, "result")]
    raise ConfigError(f"operator '{op.name}': unsupported norm '{kind}'", field="attrs.norm",
                      allowed=["batch", "layer", "lrn", "rms"])


def _embedding(op: Operator, xs: list[Array]) -> list[Array]:
    ids, table = xs[0], xs[-1]
    rows = table[ids.reshape(-1)]
    out_shape = op.outputs[0].shape
    if op.attrs.get("pooling") == "sum":  # SparseLengthsSum with fixed lookups per sample
        per = rows.shape[0] // out_shape[0]
        return [_as(rows, (out_shape[0], per, table.shape[1]), op, "gathered rows").sum(axis=1)]
    return [_as(rows, out_shape, op, "gathered rows")]


def _reduce(op: Operator, xs: list[Array]) -> list[Array]:
    fn = op.attrs.get("fn", "sum")
    axis = int(op.attrs.get("axis", -1))
    shape = op.outputs[0].shape
    if fn in ("sum", "mean"):
        y = xs[0].sum(axis=axis) if fn == "sum" else xs[0].mean(axis=axis)
    elif fn in ("weighted_sum", "weighted_sum_plus_time"):
        # Position-encoded bag of words (memory networks): sum_j x[..., j, :] * enc[j, :].
        y = np.einsum("...je,je->...e", xs[0], xs[1])
        if fn == "weighted_sum_plus_time":
            y = y + xs[2]
    else:
        raise ConfigError(f"operator '{op.name}': unsupported reduce fn '{fn}'",
                          field="attrs.fn",
                          allowed=["mean", "sum", "weighted_sum", "weighted_sum_plus_time"])
    return [_as(y, shape, op, "result")]


def _attention(op: Operator, xs: list[Array]) -> list[Array]:
    a = op.attrs
    out_shape = op.outputs[0].shape
    if a.get("kind") == "additive":  # Bahdanau: score_ij = v . tanh(k_j + q_i)
        q, k, v_states, v = xs
        e = np.tanh(k[:, None, :, :] + q[:, :, None, :]) @ v  # (b, tq, tk)
        return [_as(_softmax_last(e) @ v_states, out_shape, op, "result")]
    b, hds, d = int(a["batch"]), int(a["heads"]), int(a["head_dim"])
    tq, tk = int(a["q_len"]), int(a["kv_len"])
    if len(xs) != 3:
        raise ConfigError(f"operator '{op.name}': attention needs separate q, k, v inputs "
                          f"(got {len(xs)})", field="inputs")
    q = _as(xs[0], (b, tq, hds, d), op, "q").transpose(0, 2, 1, 3)
    k = _as(xs[1], (b, tk, hds, d), op, "k").transpose(0, 2, 3, 1)
    v = _as(xs[2], (b, tk, hds, d), op, "v").transpose(0, 2, 1, 3)
    p = _softmax_last((q @ k) * (1.0 / math.sqrt(d)))
    return [_as(np.ascontiguousarray((p @ v).transpose(0, 2, 1, 3)), out_shape, op,
                "result")]


def _recurrent(op: Operator, xs: list[Array]) -> list[Array]:
    a = op.attrs
    cell, hid = a["cell"], int(a["hidden_size"])
    x, wt, rt = xs[0], xs[1], xs[2]
    bias = xs[3] if len(xs) > 3 else np.zeros(wt.shape[:2], np.float32)
    if x.shape[0] != int(a["batch"]):  # time-major input
        x = np.swapaxes(x, 0, 1)
    b, steps, _ = x.shape
    outs = []
    for d in range(wt.shape[0]):
        xin = x if d == 0 else x[:, ::-1]
        # Input projections of every step in one GEMM; the recurrence is sequential.
        pre = np.matmul(xin, wt[d].T) + bias[d]
        h = np.zeros((b, hid), np.float32)
        c = np.zeros((b, hid), np.float32)
        hs = np.empty((b, steps, hid), np.float32)
        for t in range(steps):
            if cell == "lstm":
                z = pre[:, t] + h @ rt[d].T
                i, f, g, o = np.split(z, 4, axis=1)
                c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
                h = _sigmoid(o) * np.tanh(c)
            elif cell == "gru":
                rh = h @ rt[d].T
                xr, xz, xn = np.split(pre[:, t], 3, axis=1)
                hr, hz, hn = np.split(rh, 3, axis=1)
                r, zg = _sigmoid(xr + hr), _sigmoid(xz + hz)
                h = (1.0 - zg) * np.tanh(xn + r * hn) + zg * h
            else:
                h = np.tanh(pre[:, t] + h @ rt[d].T)
            hs[:, t] = h
        outs.append(hs if d == 0 else hs[:, ::-1])
    y = outs[0] if len(outs) == 1 else np.concatenate(outs, axis=-1)
    if op.outputs[0].shape != y.shape:
        y = np.swapaxes(y, 0, 1)
    return [_as(np.ascontiguousarray(y), op.outputs[0].shape, op, "result")]


def _data_movement(op: Operator, xs: list[Array]) -> list[Array]:
    fn = op.attrs.get("fn", "reshape")
    shape = op.outputs[0].shape
    if fn == "concat":
        if len({x.shape for x in xs}) == 1 and len(shape) == xs[0].ndim + 1:
            # Same-shape parts stacked on a new axis (DIN's behaviours, DIEN's sequence).
            for ax in range(len(shape)):
                if shape[ax] == len(xs) and shape[:ax] + shape[ax + 1:] == xs[0].shape:
                    return [np.stack(xs, axis=ax)]
        axis = int(op.attrs.get("axis", -1)) % len(shape)
        try:
            # Concatenation along ``axis``; a lower-rank part is broadcast over the leading
            # axes (DIN's candidate ad joined to every behaviour).
            parts = [np.broadcast_to(x.reshape((1,) * (len(shape) - x.ndim) + x.shape),
                                     shape[:axis] + x.shape[-1:] + shape[axis + 1:])
                     if x.ndim < len(shape) else x for x in xs]
            return [_as(np.concatenate(parts, axis=axis), shape, op, "result")]
        except ValueError:
            return [_as(np.concatenate([x.reshape(-1) for x in xs]), shape, op, "result")]
    if fn == "slice":  # the last step of a sequence, or a leading block of the bytes
        x = xs[0]
        if x.ndim == len(shape) + 1 and x.shape[0] == shape[0] and x.shape[2:] == shape[1:]:
            return [np.ascontiguousarray(x[:, -1])]
        return [x.reshape(-1)[:math.prod(shape)].reshape(shape).copy()]
    # reshape / flatten / transpose / squeeze / expand: the bytes are copied into the new shape
    return [_as(np.ascontiguousarray(xs[0]).copy(), shape, op, "input")]


_KERNELS: dict[str, _Kernel] = {
    "matmul": _matmul, "conv2d": _conv2d, "pool": _pool, "elementwise": _elementwise,
    "activation": _activation, "norm": _norm, "softmax": _softmax, "embedding": _embedding,
    "attention": _attention, "recurrent": _recurrent, "reduce": _reduce,
    "data_movement": _data_movement,
}


def supported_kinds() -> tuple[str, ...]:
    """Operator kinds the executor runs (sorted); others raise :class:`ConfigError`."""
    return tuple(sorted(_KERNELS))


# -- inputs -------------------------------------------------------------------------------

def _check(graph: WorkloadGraph) -> None:
    graph.validate()
    total = 0
    for op in graph:
        if op.kind not in _KERNELS:
            raise ConfigError(f"operator '{op.name}' has kind '{op.kind}', which the graph "
                              f"executor does not run", field="kind", allowed=supported_kinds())
        total += sum(4 * t.numel for t in op.outputs)
    total += sum(4 * t.numel for t in _graph_inputs(graph).values())
    if total > MAX_GRAPH_BYTES:
        raise ConfigError(f"graph '{graph.name}' needs {total / 2**20:.0f} MiB of float32 "
                          f"tensors, more than the executor's {MAX_GRAPH_BYTES / 2**20:.0f} MiB;"
                          " build it at smaller shapes", field="graph")


def _graph_inputs(graph: WorkloadGraph) -> dict[str, TensorSpec]:
    produced = {t.name for op in graph for t in op.outputs}
    out: dict[str, TensorSpec] = {}
    for op in graph:
        for t in op.inputs:
            if t.name not in produced:
                out.setdefault(t.name, t)
    return out


def make_inputs(graph: WorkloadGraph, *, seed: int = 0) -> dict[str, Array]:
    """Random values for every tensor no operator produces (weights, inputs, states).

    Matrix weights are float32 normal draws scaled by ``1/sqrt(fan_in)`` (the fan-in of
    the consuming conv or matmul), so that activations stay of order one through deep
    chains; norm scales are ``1 + 0.1 N``, biases and shifts ``0.1 N``; model inputs and
    states ``N(0, 1)``. Integer tensors that index an embedding table are uniform over its
    rows; other integer tensors are zeros (lengths, unused ids).
    """
    rng = np.random.default_rng(seed)
    bound: dict[str, int] = {}
    fan_in: dict[str, int] = {}
    gammas: set[str] = set()
    for op in graph:
        if op.kind == "embedding":
            bound[op.inputs[0].name] = int(op.inputs[-1].shape[0])
        for i, t in enumerate(op.inputs):
            if t.role != "weight":
                continue
            if len(t.shape) >= 2:
                if op.kind == "conv2d" and i == 1:
                    fan = math.prod(t.shape[1:])
                elif op.kind == "matmul" and i == 1:
                    fan = int(op.attrs.get("k", t.shape[-2]))
                else:
                    fan = t.shape[-1]
                fan_in.setdefault(t.name, max(fan, 1))
            elif op.kind == "norm" and i == 1:
                gammas.add(t.name)
    vals: dict[str, Array] = {}
    for name, t in _graph_inputs(graph).items():
        if t.dtype.startswith(("int", "uint", "bool")):
            hi = bound.get(name)
            vals[name] = (rng.integers(0, hi, size=t.shape, dtype=np.int64) if hi
                          else np.zeros(t.shape, np.int64))
            continue
        x = rng.standard_normal(t.shape, dtype=np.float32)
        if name in fan_in:
            x *= np.float32(1.0 / math.sqrt(fan_in[name]))
        elif name in gammas:
            x = np.float32(1.0) + np.float32(0.1) * x
        elif t.role == "weight":
            x *= np.float32(0.1)
        vals[name] = x
    return vals


# -- scheduling ---------------------------------------------------------------------------

def _run_op(op: Operator, values: dict[str, Array]) -> OpEvent:
    xs = [values[t.name] for t in op.inputs]
    t0 = time.perf_counter()
    ys = _KERNELS[op.kind](op, xs)
    t1 = time.perf_counter()
    for spec, y in zip(op.outputs, ys, strict=True):
        values[spec.name] = y
    return OpEvent(op.name, op.kind, t0, t1, threading.current_thread().name)


def _run(graph: WorkloadGraph, inputs: Mapping[str, Array],
         pool: ThreadPoolExecutor | None) -> GraphRun:
    """One execution: synchronous in this thread without a pool, else the ready list."""
    values: dict[str, Array] = dict(inputs)
    events: list[OpEvent] = []
    t0 = time.perf_counter()
    if pool is None:
        for op in graph:
            events.append(_run_op(op, values))
    else:
        g = graph.nx_graph
        pending = {n: g.in_degree(n) for n in g.nodes}
        order = {op.name: i for i, op in enumerate(graph)}
        running: dict[Future[OpEvent], str] = {}

        def launch(names: list[str]) -> None:
            for n in sorted(names, key=order.__getitem__):
                running[pool.submit(_run_op, graph[n], values)] = n

        launch([n for n, d in pending.items() if d == 0])
        while running:
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            ready: list[str] = []
            for fut in done:
                name = running.pop(fut)
                events.append(fut.result())  # re-raises an operator's error
                for s in g.successors(name):
                    pending[s] -= 1
                    if pending[s] == 0:
                        ready.append(s)
            launch(ready)
    return GraphRun(values=values, events=tuple(events), wall_s=time.perf_counter() - t0)


def _interop_pool(inter: int) -> ThreadPoolExecutor | None:
    # A framework keeps its inter-op pool alive across runs, so thread start-up is not
    # part of a run's time; one pool serves every repeat of a call.
    return ThreadPoolExecutor(max_workers=inter, thread_name_prefix="interop") \
        if inter > 1 else None


def _positive(name: str, v: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ConfigError(f"{name} must be a positive integer, not {v!r}", field=name)
    return v


def evaluate_graph(graph: WorkloadGraph, *, inter_op_threads: int = 1,
                   intra_op_threads: int = 1, seed: int = 0,
                   inputs: Mapping[str, Array] | None = None) -> GraphRun:
    """Run ``graph`` once and return every tensor's value and every operator's event.

    Parameters
    ----------
    graph : WorkloadGraph
        A forward graph whose operator kinds are in :func:`supported_kinds`.
    inter_op_threads, intra_op_threads : int
        Inter-op pool size (1 = synchronous in the calling thread) and BLAS threads.
    seed : int
        Seed of :func:`make_inputs` when ``inputs`` is not given.
    inputs : mapping, optional
        Values of the graph's input tensors (missing ones are drawn at random).
    """
    inter = _positive("inter_op_threads", inter_op_threads)
    intra = _positive("intra_op_threads", intra_op_threads)
    _check(graph)
    vals = make_inputs(graph, seed=seed)
    if inputs:
        vals.update({k: np.asarray(v, dtype=vals[k].dtype if k in vals else None)
                     for k, v in inputs.items()})
    pool = _interop_pool(inter)
    try:
        with threadpool_limits(limits=intra):
            return _run(graph, vals, pool)
    finally:
        if pool is not None:
            pool.shutdown()


def execute_graph(graph: WorkloadGraph, *, inter_op_threads: int = 1,
                  intra_op_threads: int = 1, seed: int = 0, repeats: int = 3,
                  warmup: int = 1) -> ExecutionResult:
    """Time ``graph`` at one (inter-op, intra-op) setting.

    Inputs are drawn once (untimed); ``warmup`` untimed runs are followed by ``repeats``
    timed ones. See :class:`ExecutionResult` for what is reported.

    Raises
    ------
    ConfigError
        For a non-positive thread count or repeat count, an operator kind outside
        :func:`supported_kinds` (naming the operator and the allowed kinds) or a graph
        larger than :data:`MAX_GRAPH_BYTES`.
    """
    inter = _positive("inter_op_threads", inter_op_threads)
    intra = _positive("intra_op_threads", intra_op_threads)
    _positive("repeats", repeats)
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ConfigError(f"warmup must be a non-negative integer, not {warmup!r}",
                          field="warmup")
    _check(graph)
    vals = make_inputs(graph, seed=seed)
    walls: list[float] = []
    per_op_runs: list[dict[str, float]] = []
    pool = _interop_pool(inter)
    try:
        with threadpool_limits(limits=intra):
            for _ in range(warmup):
                _run(graph, vals, pool)
            for _ in range(repeats):
                r = _run(graph, vals, pool)
                walls.append(r.wall_s)
                if pool is None:
                    per_op_runs.append({e.name: e.duration_s for e in r.events})
            load = os.getloadavg()
            if pool is not None:  # the per-kind profile comes from a synchronous run
                r = _run(graph, vals, None)
                per_op_runs.append({e.name: e.duration_s for e in r.events})
    finally:
        if pool is not None:
            pool.shutdown()
    per_op = {n: statistics.median(run[n] for run in per_op_runs) for n in per_op_runs[0]}
    per_kind: dict[str, float] = {}
    for op in graph:
        per_kind[op.kind] = per_kind.get(op.kind, 0.0) + per_op[op.name]
    return ExecutionResult(wall_s=statistics.median(walls), wall_s_all=tuple(walls),
                           per_kind_s=per_kind, inter_op_threads=inter,
                           intra_op_threads=intra,
                           load_avg=(load[0], load[1], load[2]), graph=graph.name,
                           per_op_s=per_op)


# -- graph structure ----------------------------------------------------------------------

def critical_path_ops(graph: WorkloadGraph) -> int:
    """Number of operators on the longest dependency chain of ``graph`` (0 if empty)."""
    g = graph.nx_graph
    if g.number_of_nodes() == 0:
        return 0
    return len(nx.dag_longest_path(g))


def graph_width(graph: WorkloadGraph) -> float:
    """The average graph width: operators / operators on the critical path.

    Equivalently, the mean number of operators per level of an as-soon-as-possible schedule
    with unit-time operators (the number of levels is the critical path's length), i.e. the
    average number of independent operators available to an inter-op pool. A chain has width
    1; ``k`` independent chains of equal length have width ``k``.
    """
    n = len(graph)
    if n == 0:
        raise ConfigError(f"graph '{graph.name}' has no operators", field="graph")
    return n / critical_path_ops(graph)
