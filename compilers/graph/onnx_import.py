"""Import an ONNX model as a :class:`~archsim.compilers.graph.ir.WorkloadGraph`.

Shapes come from ``onnx.shape_inference.infer_shapes`` (strict mode); symbolic dimensions
(``"N"``, ``"batch"``...) are fixed with ``dim_params`` first. Every ONNX operator is mapped
onto one of :data:`~archsim.compilers.graph.ir.OP_KINDS` with FLOPs counted by the
conventions of :mod:`.cnn` (``2 x MACs`` for Conv/Gemm/MatMul/recurrent products, bias
additions not counted; one FLOP per element for element-wise operators; two per element
for BatchNormalization, five for LayerNormalization and Softmax; one per window element
for pooling). An operator outside :data:`SUPPORTED_ONNX_OPS` raises :class:`ConfigError`
naming its type and node: nothing is skipped silently. ``Constant`` nodes define constant
tensors rather than operators.

Tensor roles: initializers are ``weight`` (BatchNormalization running mean and variance
are ``state``: buffers, not parameters); graph inputs and constants are ``input``; graph
outputs ``output``; the rest ``activation``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import ConfigError, ToolchainError
from .cnn import RECURRENT_CELLS
from .ir import Operator, TensorSpec, WorkloadGraph

__all__ = ["SUPPORTED_ONNX_OPS", "ONNX_DTYPES", "from_onnx"]

#: ONNX ``TensorProto`` element type -> archsim dtype name.
ONNX_DTYPES: dict[int, str] = {
    1: "fp32", 2: "uint8", 3: "int8", 5: "int16", 6: "int32", 7: "int64", 9: "bool",
    10: "fp16", 11: "fp64", 16: "bf16",
}

_ACTIVATIONS = {"Relu", "Sigmoid", "Tanh", "Gelu", "LeakyRelu", "Elu", "Selu", "Clip", "Erf",
                "HardSigmoid", "HardSwish", "Softplus", "PRelu"}
_ELEMENTWISE = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sqrt", "Exp", "Log", "Neg",
                "Abs", "Reciprocal"}
_MOVEMENT_FIRST = {"Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Identity",
                   "Dropout", "Slice", "Expand", "Cast", "Split", "Shape"}
_REDUCE = {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin"}


@dataclass(frozen=True)
class _Node:
    name: str
    op_type: str
    inputs: list[TensorSpec | None]
    outputs: list[TensorSpec]
    attrs: dict[str, Any]


def _numel(t: TensorSpec) -> int:
    return math.prod(t.shape)


def _req(node: _Node, i: int, what: str) -> TensorSpec:
    if i >= len(node.inputs) or node.inputs[i] is None:
        raise ConfigError(f"ONNX node '{node.name}' ({node.op_type}) has no {what} input",
                          field="input")
    t = node.inputs[i]
    assert t is not None
    return t


def _conv(node: _Node) -> Operator:
    x, w = _req(node, 0, "data"), _req(node, 1, "weight")
    y = node.outputs[0]
    if len(x.shape) != 4:
        raise ConfigError(f"ONNX node '{node.name}' (Conv): only 2-D convolutions are "
                          f"supported, input '{x.name}' has shape {x.shape}", field="op_type")
    n, c, h, wd = x.shape
    m, cin_g, kh, kw = w.shape
    groups = int(node.attrs.get("group", 1))
    sh, sw = node.attrs.get("strides", [1, 1])
    dh, dw = node.attrs.get("dilations", [1, 1])
    _, _, oh, ow = y.shape
    pads = _pads(node, (h, wd), (oh, ow), (kh, kw), (sh, sw), (dh, dw))
    macs = n * m * oh * ow * cin_g * kh * kw
    attrs = {"batch": n, "in_channels": c, "out_channels": m, "in_h": h, "in_w": wd,
             "out_h": oh, "out_w": ow, "kernel_h": kh, "kernel_w": kw,
             "stride": sh if sh == sw else (sh, sw), "padding": pads,
             "dilation": dh if dh == dw else (dh, dw), "groups": groups, "macs": macs}
    return _op(node, "conv2d", 2.0 * macs, attrs)


def _pads(node: _Node, in_hw: Sequence[int], out_hw: Sequence[int], k_hw: Sequence[int],
          s_hw: Sequence[int], d_hw: Sequence[int] = (1, 1)) -> tuple[int, int, int, int]:
    auto = node.attrs.get("auto_pad", "NOTSET")
    if isinstance(auto, bytes):
        auto = auto.decode()
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        out: list[int] = []
        for size, o, k, s, d in zip(in_hw, out_hw, k_hw, s_hw, d_hw, strict=True):
            total = max((o - 1) * s + d * (k - 1) + 1 - size, 0)
            small, big = total // 2, total - total // 2
            out += [small, big] if auto == "SAME_UPPER" else [big, small]
        return (out[0], out[1], out[2], out[3])
    p = list(node.attrs.get("pads", [0, 0, 0, 0]))
    # ONNX orders pads as [h_begin, w_begin, h_end, w_end].
    return (int(p[0]), int(p[2]), int(p[1]), int(p[3]))


def _gemm(node: _Node) -> Operator:
    a, b = _req(node, 0, "A"), _req(node, 1, "B")
    ta, tb = int(node.attrs.get("transA", 0)), int(node.attrs.get("transB", 0))
    m, k = (a.shape[1], a.shape[0]) if ta else a.shape
    n = b.shape[0] if tb else b.shape[1]
    return _op(node, "matmul", 2.0 * m * n * k,
               {"m": m, "n": n, "k": k, "batch": 1, "macs": m * n * k,
                "trans_a": bool(ta), "trans_b": bool(tb)})


def _matmul(node: _Node) -> Operator:
    a, b = _req(node, 0, "A"), _req(node, 1, "B")
    sa = a.shape if len(a.shape) > 1 else (1, *a.shape)
    sb = b.shape if len(b.shape) > 1 else (*b.shape, 1)
    m, k = sa[-2], sa[-1]
    n = sb[-1]
    batch_shape = _broadcast(node, sa[:-2], sb[:-2])
    batch = math.prod(batch_shape)
    return _op(node, "matmul", 2.0 * batch * m * n * k,
               {"m": m, "n": n, "k": k, "batch": batch, "macs": batch * m * n * k})


def _broadcast(node: _Node, a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        da = a[-i] if i <= len(a) else 1
        db = b[-i] if i <= len(b) else 1
        if da != db and 1 not in (da, db):
            raise ConfigError(f"ONNX node '{node.name}' (MatMul): batch dimensions {tuple(a)} "
                              f"and {tuple(b)} do not broadcast", field="shape")
        out.append(max(da, db))
    return tuple(reversed(out))


def _pool(node: _Node) -> Operator:
    x, y = _req(node, 0, "data"), node.outputs[0]
    if len(x.shape) != 4:
        raise ConfigError(f"ONNX node '{node.name}' ({node.op_type}): only 2-D pooling is "
                          f"supported, input '{x.name}' has shape {x.shape}", field="op_type")
    kh, kw = node.attrs["kernel_shape"]
    sh, sw = node.attrs.get("strides", [1, 1])
    n, c, h, w = x.shape
    _, _, oh, ow = y.shape
    attrs = {"mode": "max" if node.op_type == "MaxPool" else "avg", "batch": n, "channels": c,
             "in_h": h, "in_w": w, "out_h": oh, "out_w": ow, "kernel_h": kh, "kernel_w": kw,
             "stride": sh if sh == sw else (sh, sw),
             "padding": _pads(node, (h, w), (oh, ow), (kh, kw), (sh, sw))}
    return _op(node, "pool", float(_numel(y) * kh * kw), attrs)


def _global_pool(node: _Node) -> Operator:
    x = _req(node, 0, "data")
    n, c, *spatial = x.shape
    attrs: dict[str, Any] = {"mode": "max" if node.op_type == "GlobalMaxPool" else "avg",
                             "batch": n, "channels": c, "global": True}
    if len(spatial) == 2:  # the same facts as cnn.global_avg_pool
        h, w = spatial
        attrs.update(in_h=h, in_w=w, out_h=1, out_w=1, kernel_h=h, kernel_w=w, stride=1,
                     padding=(0, 0, 0, 0))
    else:
        attrs["in_shape"] = tuple(spatial)
    return _op(node, "pool", float(_numel(x)), attrs)


def _recurrent(node: _Node) -> Operator:
    cell = {"LSTM": "lstm", "GRU": "gru", "RNN": "rnn"}[node.op_type]
    x, w = _req(node, 0, "X"), _req(node, 1, "W")
    gates, pointwise = RECURRENT_CELLS[cell]
    hidden = int(node.attrs["hidden_size"])
    dirs = w.shape[0]
    layout = int(node.attrs.get("layout", 0))
    t, b, i = (x.shape[1], x.shape[0], x.shape[2]) if layout else x.shape
    mm = 2.0 * dirs * t * b * gates * hidden * (i + hidden)
    pw = float(dirs * t * b * hidden * pointwise)
    attrs = {"cell": cell, "gates": gates, "batch": b, "seq_len": t, "input_size": i,
             "hidden_size": hidden, "directions": dirs, "steps": t, "m": b,
             "n": gates * hidden, "k": i + hidden, "matmul_flops": mm, "pointwise_flops": pw}
    return _op(node, "recurrent", mm + pw, attrs)


def _gather(node: _Node) -> Operator:
    data, idx = _req(node, 0, "data"), _req(node, 1, "indices")
    if data.role == "weight" and int(node.attrs.get("axis", 0)) == 0 and len(data.shape) == 2:
        return Operator(node.name, "embedding", (idx, data), tuple(node.outputs), 0.0,
                        {"rows": _numel(idx), "vocab": data.shape[0], "dim": data.shape[1]})
    return Operator(node.name, "data_movement", (data,), tuple(node.outputs), 0.0,
                    {"fn": "gather"})


def _op(node: _Node, kind: str, flops: float, attrs: dict[str, Any],
        inputs: Sequence[TensorSpec | None] | None = None) -> Operator:
    ins = tuple(t for t in (node.inputs if inputs is None else inputs) if t is not None)
    return Operator(node.name, kind, ins, tuple(node.outputs), flops,
                    {"onnx_op": node.op_type, **attrs})


def _simple(kind: str, per_elem: float, *, on_input: bool = False,
            first_only: bool = False) -> Callable[[_Node], Operator]:
    def build(node: _Node) -> Operator:
        base = _req(node, 0, "data") if on_input else node.outputs[0]
        ins = node.inputs[:1] if first_only else None
        return _op(node, kind, per_elem * _numel(base), {"fn": node.op_type.lower()}, ins)
    return build


_HANDLERS: dict[str, Callable[[_Node], Operator]] = {
    "Conv": _conv, "Gemm": _gemm, "MatMul": _matmul,
    "MaxPool": _pool, "AveragePool": _pool,
    "GlobalAveragePool": _global_pool, "GlobalMaxPool": _global_pool,
    "BatchNormalization": _simple("norm", 2.0),
    "LayerNormalization": _simple("norm", 5.0),
    "Softmax": _simple("softmax", 5.0), "LogSoftmax": _simple("softmax", 5.0),
    "Concat": _simple("data_movement", 0.0),
    "Gather": _gather,
    "LSTM": _recurrent, "GRU": _recurrent, "RNN": _recurrent,
    **{op: _simple("activation", 1.0) for op in _ACTIVATIONS},
    **{op: _simple("elementwise", 1.0) for op in _ELEMENTWISE},
    **{op: _simple("data_movement", 0.0, first_only=True) for op in _MOVEMENT_FIRST},
    **{op: _simple("reduce", 1.0, on_input=True, first_only=True) for op in _REDUCE},
}

#: ONNX operator types :func:`from_onnx` maps (plus ``Constant``, which defines a tensor).
SUPPORTED_ONNX_OPS: frozenset[str] = frozenset(_HANDLERS)


def _onnx() -> Any:
    try:
        import onnx
    except ImportError:
        raise ToolchainError("importing ONNX models needs the 'onnx' package",
                             install="onnx (pip install onnx)") from None
    return onnx


def _load(model: Any) -> tuple[Any, str | None]:
    onnx = _onnx()
    if isinstance(model, onnx.ModelProto):
        copy = onnx.ModelProto()
        copy.CopyFrom(model)
        _check_structure(copy, None, "")
        return copy, None
    if isinstance(model, str | os.PathLike):
        path = Path(model)
        if not path.is_file():
            raise ConfigError("ONNX file not found", file=str(path))
        size = path.stat().st_size
        if size == 0:
            raise ConfigError("not an ONNX model: the file is empty (0 bytes)", file=str(path))
        try:
            proto = onnx.load(str(path))
        except Exception as exc:  # protobuf raises DecodeError subclasses without a base
            raise ConfigError(f"not a readable ONNX model: {exc}", file=str(path)) from exc
        _check_structure(proto, str(path), f" ({size} bytes; truncated or not ONNX?)")
        return proto, str(path)
    raise ConfigError(f"expected a path or an onnx.ModelProto, not {type(model).__name__}",
                      field="model")


def _check_structure(proto: Any, file: str | None, why: str) -> None:
    """Reject what protobuf parses but is no model: protobuf accepts an empty or cut-short
    message (every field is optional), which would import as an empty graph."""
    if proto.ir_version <= 0:
        raise ConfigError(f"not an ONNX model: no IR version{why}", file=file)
    if not proto.HasField("graph"):
        raise ConfigError(f"not an ONNX model: no graph{why}", file=file)
    if not proto.graph.node:
        raise ConfigError(f"the ONNX graph '{proto.graph.name}' has no nodes{why}", file=file)
    if not proto.graph.output:
        raise ConfigError(f"the ONNX graph '{proto.graph.name}' has no outputs{why}", file=file)


def _fix_dims(model: Any, dim_params: Mapping[str, int]) -> None:
    for vi in list(model.graph.input) + list(model.graph.output):
        if not vi.type.HasField("tensor_type"):
            continue
        for d in vi.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param in dim_params:
                value = dim_params[d.dim_param]
                d.ClearField("dim_param")
                d.dim_value = int(value)


def from_onnx(model: str | os.PathLike[str] | Any, *, dim_params: Mapping[str, int] | None = None,
              name: str | None = None) -> WorkloadGraph:
    """Convert an ONNX model (a path or an ``onnx.ModelProto``) into a workload graph.

    Parameters
    ----------
    model
        Path of a ``.onnx`` file, or a loaded ``onnx.ModelProto`` (it is not modified).
    dim_params
        Values for symbolic dimensions of the graph inputs, e.g. ``{"N": 1}``.
    name
        Graph name; defaults to the ONNX graph's name or the file's stem.

    Raises
    ------
    ConfigError
        For an unreadable file, a failed shape inference, a tensor whose shape is still
        unknown (naming the symbolic dimension to fix) or an unsupported operator (naming
        its type and node).
    """
    onnx = _onnx()
    proto, file = _load(model)
    for k, v in (dim_params or {}).items():
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ConfigError(f"dimension '{k}' must be a positive integer, not {v!r}",
                              file=file, field="dim_params")
    _fix_dims(proto, dim_params or {})
    try:
        proto = onnx.shape_inference.infer_shapes(proto, strict_mode=True, data_prop=True)
    except Exception as exc:  # onnx raises InferenceError or ValidationError
        raise ConfigError(f"ONNX shape inference failed: {exc}", file=file) from exc
    graph = proto.graph

    shapes: dict[str, tuple[tuple[int | str | None, ...], int]] = {}
    for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
        tt = vi.type.tensor_type
        if not vi.type.HasField("tensor_type") or not tt.HasField("shape"):
            continue
        dims = tuple(d.dim_value if d.HasField("dim_value")
                     else (d.dim_param or None) for d in tt.shape.dim)
        shapes[vi.name] = (dims, tt.elem_type)
    initializers = {t.name: t for t in graph.initializer}
    for t in initializers.values():
        shapes[t.name] = (tuple(t.dims), t.data_type)
    graph_inputs = {vi.name for vi in graph.input} - set(initializers)
    graph_outputs = {vi.name for vi in graph.output}
    constants: set[str] = set()
    state_inits: set[str] = set()
    for node in graph.node:
        if node.op_type == "BatchNormalization":
            state_inits.update(n for n in node.input[3:5] if n in initializers)

    def spec(tname: str, node_name: str, how: str) -> TensorSpec:
        if tname not in shapes:
            raise ConfigError(f"shape of tensor '{tname}' ({how} node '{node_name}') is "
                              "unknown after ONNX shape inference", file=file, field="shape")
        dims, elem = shapes[tname]
        unknown = [d for d in dims if not isinstance(d, int)]
        if unknown:
            sym = unknown[0]
            hint = (f"; pass dim_params={{'{sym}': ...}}" if isinstance(sym, str) else "")
            raise ConfigError(f"tensor '{tname}' ({how} node '{node_name}') has an unknown "
                              f"dimension {sym!r} in {dims}{hint}", file=file,
                              field="dim_params")
        if elem not in ONNX_DTYPES:
            raise ConfigError(f"tensor '{tname}' ({how} node '{node_name}') has ONNX element "
                              f"type {elem}, which archsim does not model", file=file,
                              field="dtype", allowed=sorted(ONNX_DTYPES.values()))
        if tname in state_inits:
            role = "state"
        elif tname in initializers:
            role = "weight"
        elif tname in graph_inputs or tname in constants:
            role = "input"
        elif tname in graph_outputs:
            role = "output"
        else:
            role = "activation"
        # Every dimension is an int here (unknown ones raised above); the filter narrows the type.
        shape = tuple(d for d in dims if isinstance(d, int))
        return TensorSpec(tname, shape, ONNX_DTYPES[elem], role=role)

    g = WorkloadGraph(name or graph.name or (Path(file).stem if file else "onnx"),
                      metadata={"source": file or "onnx.ModelProto",
                                "opset": [f"{o.domain or 'ai.onnx'}:{o.version}"
                                          for o in proto.opset_import]})
    seen: dict[str, int] = {}
    for index, node in enumerate(graph.node):
        node_name = node.name or f"{node.op_type}_{index}"
        if node_name in seen:
            node_name = f"{node_name}_{index}"
        seen[node_name] = index
        if node.op_type == "Constant":
            constants.update(node.output)
            continue
        handler = _HANDLERS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
        if handler is None:
            domain = f" (domain '{node.domain}')" if node.domain else ""
            raise ConfigError(f"unsupported ONNX operator '{node.op_type}'{domain} in node "
                              f"'{node_name}'", file=file, field="op_type",
                              allowed=sorted(SUPPORTED_ONNX_OPS))
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        ins = [spec(t, node_name, "input of") if t else None for t in node.input]
        outs = [spec(t, node_name, "output of") for t in node.output if t]
        g.add(handler(_Node(node_name, node.op_type, ins, outs, attrs)))
    return g
