"""Layer helpers (convolution, pooling, fully connected, norms, recurrent cells) and CNN builders.

Every helper returns one :class:`~archsim.compilers.graph.ir.Operator` whose ``attrs``
carry the shape facts the SoC tiler needs; :class:`NetBuilder` chains helpers into a
:class:`~archsim.compilers.graph.ir.WorkloadGraph`, threading the activation tensor
through. Activations are NCHW.

Counting conventions (used by every builder in this package):

- ``flops`` of a convolution or matmul is ``2 x MACs``; bias additions are not counted
  (``attrs["macs"]`` holds the MACs).
- Element-wise operators (activations, adds, multiplies) cost one FLOP per output element;
  max/avg pooling one per window element read; batch norm at inference two per element
  (scale and shift); layer norm five, softmax five (as in :mod:`.transformer`).
- Parameters are every ``weight``-role tensor: conv/fc weights and biases, batch-norm
  scale and shift (``gamma``, ``beta``). Batch-norm running mean and variance are buffers,
  not parameters (as in PyTorch's ``parameters()``), and are not modelled as tensors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ...errors import ConfigError
from .ir import Operator, TensorSpec, WorkloadGraph, dtype_bytes

__all__ = [
    "RECURRENT_CELLS", "Padding", "conv_output_size", "resolve_padding",
    "conv2d", "pool2d", "global_avg_pool", "linear", "batch_norm", "layer_norm",
    "local_response_norm", "activation", "elementwise", "softmax", "data_movement",
    "embedding", "recurrent", "NetBuilder",
    "resnet50", "vgg16", "alexnet",
]

#: Padding as given by a user: an int (all sides), ``(pad_h, pad_w)``, a full
#: ``(top, bottom, left, right)`` tuple, or TensorFlow's ``"same"`` / ``"valid"``.
Padding = int | tuple[int, ...] | str

#: Gates per recurrent cell kind (matrix blocks in its input and recurrent weights) and the
#: point-wise FLOPs per hidden unit per step (non-linearities count one FLOP each).
#: LSTM: 3 sigmoid + 2 tanh + c = f*c + i*g (3) + h = o*tanh(c) (1) = 9.
#: GRU: 2 sigmoid + 1 tanh + r*(U h) (1) + h = (1-z)*n + z*h (4) = 8.
#: RNN: one activation.
RECURRENT_CELLS: dict[str, tuple[int, int]] = {"lstm": (4, 9), "gru": (3, 8), "rnn": (1, 1)}


def positive_int(name: str, value: object) -> int:
    """``value`` if it is a positive int (not a bool), else a :class:`ConfigError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"must be a positive integer, not {value!r}", field=name)
    return value


def _pair(name: str, value: int | Sequence[int]) -> tuple[int, int]:
    if isinstance(value, int):
        return positive_int(name, value), value
    vals = tuple(value)
    if len(vals) != 2:
        raise ConfigError(f"must be an int or a pair, not {value!r}", field=name)
    return positive_int(name, vals[0]), positive_int(name, vals[1])


def _nchw(x: TensorSpec, who: str) -> tuple[int, int, int, int]:
    if len(x.shape) != 4:
        raise ConfigError(f"{who} needs an NCHW input, but '{x.name}' has shape {x.shape}",
                          field="shape")
    n, c, h, w = x.shape
    return n, c, h, w


def resolve_padding(padding: Padding, *, in_hw: tuple[int, int], kernel_hw: tuple[int, int],
                    stride: int, dilation: int = 1) -> tuple[int, int, int, int]:
    """``(top, bottom, left, right)`` padding for ``padding`` as accepted by :data:`Padding`.

    ``"same"`` follows TensorFlow: the output is ``ceil(in / stride)`` and the odd pixel
    of padding goes to the bottom/right.
    """
    if isinstance(padding, str):
        mode = padding.lower()
        if mode == "valid":
            return (0, 0, 0, 0)
        if mode == "same":
            pads = []
            for size, k in zip(in_hw, kernel_hw, strict=True):
                eff = dilation * (k - 1) + 1
                out = -(-size // stride)
                total = max((out - 1) * stride + eff - size, 0)
                pads += [total // 2, total - total // 2]
            return (pads[0], pads[1], pads[2], pads[3])
        raise ConfigError(f"unknown padding '{padding}'", field="padding",
                          allowed=["same", "valid"])
    if isinstance(padding, int):
        vals: tuple[int, ...] = (padding,) * 4
    else:
        vals = tuple(int(p) for p in padding)
        if len(vals) == 2:
            vals = (vals[0], vals[0], vals[1], vals[1])
        elif len(vals) != 4:
            raise ConfigError(f"padding must have 1, 2 or 4 values, not {padding!r}",
                              field="padding")
    if any(p < 0 for p in vals):
        raise ConfigError(f"padding must not be negative, not {padding!r}", field="padding")
    return (vals[0], vals[1], vals[2], vals[3])


def conv_output_size(size: int, kernel: int, stride: int, pad_total: int,
                     dilation: int = 1, *, ceil_mode: bool = False) -> int:
    """Output length of a convolution/pooling window along one axis."""
    eff = dilation * (kernel - 1) + 1
    span = size + pad_total - eff
    if span < 0:
        raise ConfigError(f"window {eff} is larger than the padded input {size + pad_total}",
                          field="kernel")
    return (-(-span // stride) if ceil_mode else span // stride) + 1


def _weight(name: str, shape: Sequence[int], dtype: str) -> TensorSpec:
    return TensorSpec(name, tuple(shape), dtype, role="weight")


def conv2d(name: str, x: TensorSpec, *, out_channels: int, kernel: int | Sequence[int],
           stride: int = 1, padding: Padding = 0, dilation: int = 1, groups: int = 1,
           bias: bool = False, out: str | None = None) -> Operator:
    """A 2-D convolution of NCHW ``x`` with ``out_channels`` filters.

    Weights are ``(out_channels, in_channels / groups, kernel_h, kernel_w)``; ``attrs``
    hold ``batch, in_channels, out_channels, in_h, in_w, out_h, out_w, kernel_h, kernel_w,
    stride, padding`` (top, bottom, left, right), ``dilation, groups, macs``.
    """
    n, c, h, w = _nchw(x, f"conv2d '{name}'")
    positive_int("out_channels", out_channels)
    kh, kw = _pair("kernel", kernel)
    positive_int("stride", stride)
    positive_int("dilation", dilation)
    positive_int("groups", groups)
    if c % groups or out_channels % groups:
        raise ConfigError(f"conv2d '{name}': channels {c} -> {out_channels} are not divisible "
                          f"by groups {groups}", field="groups")
    pads = resolve_padding(padding, in_hw=(h, w), kernel_hw=(kh, kw), stride=stride,
                           dilation=dilation)
    oh = conv_output_size(h, kh, stride, pads[0] + pads[1], dilation)
    ow = conv_output_size(w, kw, stride, pads[2] + pads[3], dilation)
    cin_g = c // groups
    macs = n * out_channels * oh * ow * cin_g * kh * kw
    inputs = [x, _weight(f"{name}.weight", (out_channels, cin_g, kh, kw), x.dtype)]
    if bias:
        inputs.append(_weight(f"{name}.bias", (out_channels,), x.dtype))
    y = TensorSpec(out or f"{name}.out", (n, out_channels, oh, ow), x.dtype)
    attrs = {"batch": n, "in_channels": c, "out_channels": out_channels, "in_h": h, "in_w": w,
             "out_h": oh, "out_w": ow, "kernel_h": kh, "kernel_w": kw, "stride": stride,
             "padding": pads, "dilation": dilation, "groups": groups, "macs": macs}
    return Operator(name, "conv2d", tuple(inputs), (y,), 2.0 * macs, attrs)


def pool2d(name: str, x: TensorSpec, *, kernel: int | Sequence[int], stride: int | None = None,
           padding: Padding = 0, mode: str = "max", ceil_mode: bool = False,
           out: str | None = None) -> Operator:
    """Max or average pooling; one FLOP per window element read."""
    if mode not in ("max", "avg"):
        raise ConfigError(f"unknown pooling mode '{mode}'", field="mode", allowed=["avg", "max"])
    n, c, h, w = _nchw(x, f"pool2d '{name}'")
    kh, kw = _pair("kernel", kernel)
    s = positive_int("stride", kh if stride is None else stride)
    pads = resolve_padding(padding, in_hw=(h, w), kernel_hw=(kh, kw), stride=s)
    oh = conv_output_size(h, kh, s, pads[0] + pads[1], ceil_mode=ceil_mode)
    ow = conv_output_size(w, kw, s, pads[2] + pads[3], ceil_mode=ceil_mode)
    y = TensorSpec(out or f"{name}.out", (n, c, oh, ow), x.dtype)
    attrs = {"mode": mode, "batch": n, "channels": c, "in_h": h, "in_w": w, "out_h": oh,
             "out_w": ow, "kernel_h": kh, "kernel_w": kw, "stride": s, "padding": pads}
    return Operator(name, "pool", (x,), (y,), float(n * c * oh * ow * kh * kw), attrs)


def global_avg_pool(name: str, x: TensorSpec, *, out: str | None = None) -> Operator:
    """Average over the whole H x W plane: ``N x C x H x W -> N x C x 1 x 1``."""
    n, c, h, w = _nchw(x, f"global_avg_pool '{name}'")
    y = TensorSpec(out or f"{name}.out", (n, c, 1, 1), x.dtype)
    attrs = {"mode": "avg", "batch": n, "channels": c, "in_h": h, "in_w": w, "out_h": 1,
             "out_w": 1, "kernel_h": h, "kernel_w": w, "stride": 1, "padding": (0, 0, 0, 0)}
    return Operator(name, "pool", (x,), (y,), float(x.numel), attrs)


def linear(name: str, x: TensorSpec, *, out_features: int, bias: bool = True,
           weight_name: str | None = None, out: str | None = None) -> Operator:
    """A fully connected layer on the last axis of ``x`` (all leading axes are rows).

    A ``matmul`` with ``m`` = rows, ``k`` = in features, ``n`` = ``out_features``; the
    weight is ``(k, n)``. ``weight_name`` lets layers share one weight tensor.
    """
    if not x.shape:
        raise ConfigError(f"linear '{name}' needs a tensor with at least one axis",
                          field="shape")
    positive_int("out_features", out_features)
    k = x.shape[-1]
    m = math.prod(x.shape[:-1])
    wname = weight_name or f"{name}.weight"
    inputs = [x, _weight(wname, (k, out_features), x.dtype)]
    if bias:
        inputs.append(_weight(f"{wname.removesuffix('.weight')}.bias", (out_features,),
                              x.dtype))
    y = TensorSpec(out or f"{name}.out", (*x.shape[:-1], out_features), x.dtype)
    attrs = {"m": m, "n": out_features, "k": k, "batch": 1, "macs": m * out_features * k}
    return Operator(name, "matmul", tuple(inputs), (y,), 2.0 * m * out_features * k, attrs)


def batch_norm(name: str, x: TensorSpec, *, out: str | None = None) -> Operator:
    """Inference batch norm over axis 1: ``gamma`` and ``beta`` weights, 2 FLOPs/element."""
    if len(x.shape) < 2:
        raise ConfigError(f"batch_norm '{name}' needs a channel axis, got {x.shape}",
                          field="shape")
    c = x.shape[1]
    inputs = (x, _weight(f"{name}.gamma", (c,), x.dtype), _weight(f"{name}.beta", (c,), x.dtype))
    y = TensorSpec(out or f"{name}.out", x.shape, x.dtype)
    return Operator(name, "norm", inputs, (y,), 2.0 * x.numel, {"norm": "batch", "channels": c})


def layer_norm(name: str, x: TensorSpec, *, affine: bool = True,
               out: str | None = None) -> Operator:
    """Layer norm over the last axis: 5 FLOPs/element; ``gamma`` and ``beta`` if ``affine``."""
    d = x.shape[-1]
    inputs = [x]
    if affine:
        inputs += [_weight(f"{name}.gamma", (d,), x.dtype), _weight(f"{name}.beta", (d,), x.dtype)]
    y = TensorSpec(out or f"{name}.out", x.shape, x.dtype)
    return Operator(name, "norm", tuple(inputs), (y,), 5.0 * x.numel,
                    {"norm": "layer", "features": d})


def local_response_norm(name: str, x: TensorSpec, *, size: int,
                        out: str | None = None) -> Operator:
    """Cross-channel LRN (AlexNet): ``size`` MACs for the window sum plus 3 FLOPs/element."""
    positive_int("size", size)
    y = TensorSpec(out or f"{name}.out", x.shape, x.dtype)
    return Operator(name, "norm", (x,), (y,), float(x.numel * (2 * size + 3)),
                    {"norm": "lrn", "size": size})


def activation(name: str, x: TensorSpec, *, fn: str = "relu", out: str | None = None) -> Operator:
    """An element-wise non-linearity, one FLOP per element."""
    y = TensorSpec(out or f"{name}.out", x.shape, x.dtype)
    return Operator(name, "activation", (x,), (y,), float(x.numel), {"fn": fn})


def elementwise(name: str, *xs: TensorSpec, fn: str = "add", out: str | None = None) -> Operator:
    """An element-wise combination of same-shape tensors.

    One FLOP per output element per extra operand (``a + b`` is one, ``a + b + c`` two).
    """
    if not xs:
        raise ConfigError(f"elementwise '{name}' needs at least one input", field="inputs")
    shape = xs[0].shape
    for t in xs[1:]:
        if t.shape != shape:
            raise ConfigError(f"elementwise '{name}': shapes {shape} and {t.shape} differ",
                              field="shape")
    y = TensorSpec(out or f"{name}.out", shape, xs[0].dtype)
    return Operator(name, "elementwise", tuple(xs), (y,),
                    float(math.prod(shape) * max(len(xs) - 1, 1)), {"fn": fn})


def softmax(name: str, x: TensorSpec, *, out: str | None = None) -> Operator:
    """Softmax over the last axis, 5 FLOPs/element (max, subtract, exp, sum, divide)."""
    y = TensorSpec(out or f"{name}.out", x.shape, x.dtype)
    return Operator(name, "softmax", (x,), (y,), 5.0 * x.numel, {"axis": -1})


def data_movement(name: str, x: TensorSpec, shape: Sequence[int], *, fn: str = "reshape",
                  out: str | None = None) -> Operator:
    """A reshape/flatten/transpose to ``shape``: moves bytes, computes nothing."""
    shape = tuple(int(d) for d in shape)
    if math.prod(shape) != x.numel:
        raise ConfigError(f"{fn} '{name}': {x.shape} has {x.numel} elements, {shape} has "
                          f"{math.prod(shape)}", field="shape")
    y = TensorSpec(out or f"{name}.out", shape, x.dtype)
    return Operator(name, "data_movement", (x,), (y,), 0.0, {"fn": fn})


def embedding(name: str, ids: TensorSpec, *, vocab: int, dim: int, dtype: str,
              weight_name: str | None = None, out: str | None = None) -> Operator:
    """A table lookup: ``ids`` (any shape) -> ``(*ids.shape, dim)``; no FLOPs."""
    positive_int("vocab", vocab)
    positive_int("dim", dim)
    table = _weight(weight_name or f"{name}.weight", (vocab, dim), dtype)
    y = TensorSpec(out or f"{name}.out", (*ids.shape, dim), dtype)
    return Operator(name, "embedding", (ids, table), (y,), 0.0,
                    {"rows": ids.numel, "vocab": vocab, "dim": dim})


def recurrent(name: str, x: TensorSpec, *, hidden: int, cell: str = "lstm",
              bidirectional: bool = False, bias: bool = True, batch_first: bool = True,
              out: str | None = None) -> Operator:
    """One recurrent layer (LSTM, GRU or plain RNN cell) over a whole sequence.

    ``x`` is ``(batch, seq, input)`` (``(seq, batch, input)`` if not ``batch_first``).
    Weights are ``W`` ``(dirs, gates*hidden, input)``, ``R`` ``(dirs, gates*hidden,
    hidden)`` and, with ``bias``, ``B`` ``(dirs, gates*hidden)``. FLOPs are
    ``2 * dirs * seq * batch * gates * hidden * (input + hidden)`` for the matrix products
    plus the cell's point-wise FLOPs (:data:`RECURRENT_CELLS`). ``attrs`` give the
    per-step matmul (``m`` = batch, ``n`` = gates*hidden, ``k`` = input + hidden) and
    ``steps`` = seq: the steps are sequential, a simulator must not overlap them.
    """
    if cell not in RECURRENT_CELLS:
        raise ConfigError(f"unknown recurrent cell '{cell}'", field="cell",
                          allowed=sorted(RECURRENT_CELLS))
    if len(x.shape) != 3:
        raise ConfigError(f"recurrent '{name}' needs a 3-D (batch, seq, input) input, "
                          f"got {x.shape}", field="shape")
    positive_int("hidden", hidden)
    b, t, i = x.shape if batch_first else (x.shape[1], x.shape[0], x.shape[2])
    gates, pointwise = RECURRENT_CELLS[cell]
    dirs = 2 if bidirectional else 1
    inputs = [x, _weight(f"{name}.W", (dirs, gates * hidden, i), x.dtype),
              _weight(f"{name}.R", (dirs, gates * hidden, hidden), x.dtype)]
    if bias:
        inputs.append(_weight(f"{name}.B", (dirs, gates * hidden), x.dtype))
    mm_flops = 2.0 * dirs * t * b * gates * hidden * (i + hidden)
    pw_flops = float(dirs * t * b * hidden * pointwise)
    shape = (b, t, dirs * hidden) if batch_first else (t, b, dirs * hidden)
    y = TensorSpec(out or f"{name}.out", shape, x.dtype)
    attrs = {"cell": cell, "gates": gates, "batch": b, "seq_len": t, "input_size": i,
             "hidden_size": hidden, "directions": dirs, "steps": t, "m": b,
             "n": gates * hidden, "k": i + hidden, "matmul_flops": mm_flops,
             "pointwise_flops": pw_flops}
    return Operator(name, "recurrent", tuple(inputs), (y,), mm_flops + pw_flops, attrs)


class NetBuilder:
    """Appends layers to a :class:`WorkloadGraph`, threading the current activation through.

    Each method adds one operator named ``name`` and returns its output tensor, which
    becomes :attr:`x`; methods use :attr:`x` as input unless given ``x=``.
    """

    def __init__(self, graph: WorkloadGraph, x: TensorSpec) -> None:
        dtype_bytes(x.dtype)
        self.graph = graph
        self.x = x

    def _add(self, op: Operator) -> TensorSpec:
        self.graph.add(op)
        self.x = op.outputs[0]
        return self.x

    def conv(self, name: str, out_channels: int, kernel: int | Sequence[int], *,
             x: TensorSpec | None = None, **kw: Any) -> TensorSpec:
        return self._add(conv2d(name, self.x if x is None else x, out_channels=out_channels,
                                kernel=kernel, **kw))

    def bn(self, name: str, *, x: TensorSpec | None = None) -> TensorSpec:
        return self._add(batch_norm(name, self.x if x is None else x))

    def act(self, name: str, fn: str = "relu", *, x: TensorSpec | None = None) -> TensorSpec:
        return self._add(activation(name, self.x if x is None else x, fn=fn))

    def pool(self, name: str, kernel: int, stride: int | None = None, *,
             x: TensorSpec | None = None, **kw: Any) -> TensorSpec:
        return self._add(pool2d(name, self.x if x is None else x, kernel=kernel,
                                stride=stride, **kw))

    def gap(self, name: str) -> TensorSpec:
        return self._add(global_avg_pool(name, self.x))

    def lrn(self, name: str, size: int) -> TensorSpec:
        return self._add(local_response_norm(name, self.x, size=size))

    def flatten(self, name: str) -> TensorSpec:
        n = self.x.shape[0]
        return self._add(data_movement(name, self.x, (n, self.x.numel // n), fn="flatten"))

    def fc(self, name: str, out_features: int, *, x: TensorSpec | None = None,
           **kw: Any) -> TensorSpec:
        return self._add(linear(name, self.x if x is None else x, out_features=out_features,
                                **kw))

    def add(self, name: str, *xs: TensorSpec, fn: str = "add") -> TensorSpec:
        return self._add(elementwise(name, *xs, fn=fn))

    def softmax(self, name: str) -> TensorSpec:
        return self._add(softmax(name, self.x))

    def rnn(self, name: str, hidden: int, *, x: TensorSpec | None = None,
            **kw: Any) -> TensorSpec:
        return self._add(recurrent(name, self.x if x is None else x, hidden=hidden, **kw))

    def conv_bn_relu(self, name: str, out_channels: int, kernel: int, *, relu: bool = True,
                     x: TensorSpec | None = None, **kw: Any) -> TensorSpec:
        """Convolution (no bias) + batch norm (+ ReLU), the ResNet unit."""
        self.conv(name, out_channels, kernel, x=x, **kw)
        self.bn(name + ".bn")
        return self.act(name + ".relu") if relu else self.x


def _image(batch: int, dtype: str, channels: int = 3, size: int = 224) -> TensorSpec:
    positive_int("batch", batch)
    positive_int("image_size", size)
    return TensorSpec("image", (batch, channels, size, size), dtype, role="input")


def resnet50(batch: int = 1, *, dtype: str = "fp16", image_size: int = 224,
             num_classes: int = 1000) -> WorkloadGraph:
    """ResNet-50 as in torchvision (He et al. 2016, "v1.5": stride on the 3x3 conv).

    Models every conv (no bias), every batch norm (``gamma``, ``beta``), ReLUs, the
    residual adds, max/global-average pooling and the 2048 x ``num_classes`` classifier
    with bias: 25,557,032 parameters at 1000 classes, matching torchvision's count.
    """
    g = WorkloadGraph(f"resnet50-b{batch}", metadata={
        "model": "resnet50", "batch": batch, "dtype": dtype, "image_size": image_size,
        "source": "He et al. 2016, ResNet-50 (torchvision resnet50, stride on 3x3)"})
    nb = NetBuilder(g, _image(batch, dtype, size=image_size))
    nb.conv_bn_relu("conv1", 64, 7, stride=2, padding=3)
    nb.pool("maxpool", 3, 2, padding=1)
    in_c = 64
    for stage, (width, blocks, stride) in enumerate(
            [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)], start=1):
        for b in range(blocks):
            p = f"layer{stage}.{b}."
            s = stride if b == 0 else 1
            shortcut = nb.x
            nb.conv_bn_relu(p + "conv1", width, 1)
            nb.conv_bn_relu(p + "conv2", width, 3, stride=s, padding=1)
            y = nb.conv_bn_relu(p + "conv3", width * 4, 1, relu=False)
            if b == 0:
                shortcut = nb.conv_bn_relu(p + "downsample", width * 4, 1, stride=s,
                                           relu=False, x=shortcut)
            nb.add(p + "add", y, shortcut)
            nb.act(p + "relu")
            in_c = width * 4
    nb.gap("avgpool")
    nb.flatten("flatten")
    nb.fc("fc", num_classes)
    g.metadata["final_channels"] = in_c
    return g


# torchvision VGG-16 (configuration "D"); "M" is a 2x2/2 max pool.
_VGG16: list[int | str] = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M",
          512, 512, 512, "M"]


def vgg16(batch: int = 1, *, dtype: str = "fp16", num_classes: int = 1000) -> WorkloadGraph:
    """VGG-16 (Simonyan & Zisserman 2015, configuration D) as in torchvision, 224x224.

    13 3x3 convolutions with bias and ReLU, five 2x2 max pools, FC 25088-4096-4096-classes
    with bias (dropout is the identity at inference): 138,357,544 parameters.
    """
    g = WorkloadGraph(f"vgg16-b{batch}", metadata={
        "model": "vgg16", "batch": batch, "dtype": dtype,
        "source": "Simonyan & Zisserman 2015, VGG-16 (torchvision vgg16)"})
    nb = NetBuilder(g, _image(batch, dtype))
    conv_i = pool_i = 0
    for v in _VGG16:
        if isinstance(v, str):  # "M": a 2x2 max pool
            pool_i += 1
            nb.pool(f"pool{pool_i}", 2, 2)
        else:
            conv_i += 1
            nb.conv(f"conv{conv_i}", v, 3, padding=1, bias=True)
            nb.act(f"conv{conv_i}.relu")
    nb.flatten("flatten")
    for i, width in enumerate([4096, 4096, num_classes], start=6):
        nb.fc(f"fc{i}", width)
        if i < 8:
            nb.act(f"fc{i}.relu")
    return g


def alexnet(batch: int = 1, *, dtype: str = "fp16", num_classes: int = 1000) -> WorkloadGraph:
    """AlexNet as in torchvision (the one-GPU variant of Krizhevsky et al. 2012, 224x224).

    Five convolutions (64, 192, 384, 256, 256 filters) with bias, three 3x3/2 max pools,
    FC 9216-4096-4096-classes with bias: 61,100,840 parameters. The adaptive 6x6 average
    pool is the identity at 224x224 and is not modelled.
    """
    g = WorkloadGraph(f"alexnet-b{batch}", metadata={
        "model": "alexnet", "batch": batch, "dtype": dtype,
        "source": "Krizhevsky et al. 2012 (torchvision alexnet, after Krizhevsky 2014)"})
    nb = NetBuilder(g, _image(batch, dtype))
    for i, (c, k, s, p, pool) in enumerate([(64, 11, 4, 2, True), (192, 5, 1, 2, True),
                                            (384, 3, 1, 1, False), (256, 3, 1, 1, False),
                                            (256, 3, 1, 1, True)], start=1):
        nb.conv(f"conv{i}", c, k, stride=s, padding=p, bias=True)
        nb.act(f"conv{i}.relu")
        if pool:
            nb.pool(f"pool{i}", 3, 2)
    nb.flatten("flatten")
    for i, width in enumerate([4096, 4096, num_classes], start=6):
        nb.fc(f"fc{i}", width)
        if i < 8:
            nb.act(f"fc{i}.relu")
    return g
