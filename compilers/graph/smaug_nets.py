"""SMAUG's own networks: the eight models of SMAUG's experiments repository.

SMAUG (Xi et al., arXiv:1912.04481 / TACO 2020) evaluates its SoC on networks defined in the
``experiments`` submodule of harvard-acc/smaug (github.com/yaoyuannnn/experiments, commit
:data:`SMAUG_EXPERIMENTS_COMMIT`): ``models/<net>/<net>_network.py`` (``lstm.py``) builds each
graph with SMAUG's Python API and ``models/<net>/<net>_smv_topo.pbtxt`` is the graph it
wrote for the SMV backend (fp16), every tensor's shape included. That repository has no
license file: nothing of it is copied here. The builders below transcribe the architectures
-- layer types, shapes, strides, paddings, activations, which are facts -- into archsim's
own operators; each builder's docstring names its source files.

How SMAUG's operators map onto archsim's:

- ``Convolution3d`` -> :func:`~.cnn.conv2d`, ``InnerProduct`` -> :func:`~.cnn.linear`,
  ``BatchNorm`` -> :func:`~.cnn.batch_norm`, ``MaxPooling`` -> :func:`~.cnn.pool2d`,
  ``EltwiseAdd`` / ``EltwiseMul`` -> :func:`~.cnn.elementwise`, ``ReLU`` / ``Sigmoid`` /
  ``Tanh`` -> :func:`~.cnn.activation`; ``Reorder`` (NHWC to NC before a fully connected
  layer), ``Reshape`` and ``Split`` -> ``data_movement`` (a copy on the CPU, as in SMAUG,
  where they run on the host). ``Split`` has several outputs: it is an
  :class:`~.ir.Operator` of kind ``data_movement`` built here (archsim has no split
  constructor; one operator, as in SMAUG's graph).
- SMAUG fuses an activation into the operator that produces it (``act_params`` of a
  convolution, inner product or batch norm; its SMV kernels apply it to the output tile
  before the store). archsim has no fused-activation operator: the producing operator
  carries ``attrs["activation"]`` (and ``attrs["elu_alpha"]`` for ELU) and no separate
  activation operator is added, so the graph has SMAUG's operator count. The activation's
  one FLOP per element is not in ``flops`` (nearest equivalent; its cost is the SMV's,
  inside the producing kernel's output pass, which archsim's SMV model does not price).
- No SMAUG convolution or inner product has a bias. SMAUG's batch norm takes mean,
  variance, gamma and beta tensors; archsim models gamma and beta as the parameters
  (mean and variance are buffers, :mod:`.cnn`'s convention), so a batch norm over ``C``
  channels counts ``2C`` parameters here where SMAUG's graph holds ``4C`` values.
- Tensors are NCHW (archsim's layout); SMAUG's are NHWC. Shapes are the same up to the
  axis order; ``"same"`` padding follows TensorFlow, as SMAUG's does (the output shapes
  equal the pbtxt's, checked by the tests).
- SMAUG's LSTM (``models/lstm/lstm.py``) is unrolled in its graph: per layer and time step
  two inner products (input and recurrent weights), an add, a split into the four gates,
  three sigmoids, two tanh, three multiplies and an add. :func:`smaug_lstm` builds that
  unrolled graph (archsim's :func:`~.cnn.recurrent` is one operator per layer; SMAUG's
  framework pays its per-operator cost on every unrolled operator).

Every builder takes ``batch`` (SMAUG's models are batch 1) and ``dtype`` (SMV runs fp16).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .cnn import (
    NetBuilder,
    Padding,
    _image,
    activation,
    batch_norm,
    conv2d,
    data_movement,
    elementwise,
    linear,
    pool2d,
    positive_int,
)
from .ir import Operator, TensorSpec, WorkloadGraph

__all__ = [
    "SMAUG_EXPERIMENTS_REPO", "SMAUG_EXPERIMENTS_COMMIT", "SMAUG_NETWORKS",
    "smaug_minerva", "smaug_lenet5", "smaug_cnn10", "smaug_vgg", "smaug_elu16",
    "smaug_elu24", "smaug_resnet50", "smaug_lstm",
]

#: Where SMAUG's model definitions are: the ``experiments`` submodule of harvard-acc/smaug.
SMAUG_EXPERIMENTS_REPO = "github.com/yaoyuannnn/experiments"
#: The commit the architectures were read from (2021-10-22).
SMAUG_EXPERIMENTS_COMMIT = "435747732815c24e2bff4718597f31d8e6aa2cb1"
#: SMAUG's ELU networks use ``alpha = 0.1`` (``elu_params`` in their pbtxt).
_ELU_ALPHA = 0.1


def _source(path: str) -> str:
    return f"{SMAUG_EXPERIMENTS_REPO}@{SMAUG_EXPERIMENTS_COMMIT[:12]}: {path}"


def _fused(op: Operator, fn: str | None) -> Operator:
    """``op`` with SMAUG's fused activation ``fn`` recorded (``None``: no activation)."""
    if fn is None:
        return op
    attrs: dict[str, Any] = {**op.attrs, "activation": fn}
    if fn == "elu":
        attrs["elu_alpha"] = _ELU_ALPHA
    return dataclasses.replace(op, attrs=attrs)


class _Smaug(NetBuilder):
    """:class:`NetBuilder` with SMAUG's operators: fused activations, no biases."""

    def sconv(self, name: str, filters: int, kernel: int, *, stride: int = 1,
              padding: Padding = "same", act: str | None = None,
              x: TensorSpec | None = None) -> TensorSpec:
        op = conv2d(name, self.x if x is None else x, out_channels=filters, kernel=kernel,
                    stride=stride, padding=padding)
        return self._add(_fused(op, act))

    def sbn(self, name: str, *, act: str | None = None) -> TensorSpec:
        return self._add(_fused(batch_norm(name, self.x), act))

    def sfc(self, name: str, out_features: int, *, act: str | None = None) -> TensorSpec:
        if len(self.x.shape) != 2:  # SMAUG's Reorder: NHWC activations to NC, on the CPU
            n = self.x.shape[0]
            self._add(data_movement(f"{name}.reorder", self.x, (n, self.x.numel // n),
                                    fn="reorder"))
        return self._add(_fused(linear(name, self.x, out_features=out_features, bias=False),
                                act))

    def smaxpool(self, name: str, size: int, stride: int) -> TensorSpec:
        return self._add(pool2d(name, self.x, kernel=size, stride=stride))


def _graph(name: str, batch: int, dtype: str, path: str, **meta: Any) -> WorkloadGraph:
    positive_int("batch", batch)
    return WorkloadGraph(f"{name}-b{batch}", metadata={
        "model": name, "batch": batch, "dtype": dtype, "source": _source(path), **meta})


def smaug_minerva(batch: int = 1, *, dtype: str = "fp16") -> WorkloadGraph:
    """SMAUG's Minerva MLP (Reagen et al. 2016), MNIST 784-256-256-256-10.

    Source: ``models/minerva/minerva_network.py`` and ``minerva_smv_topo.pbtxt`` of SMAUG's
    experiments repository (:data:`SMAUG_EXPERIMENTS_REPO` at
    :data:`SMAUG_EXPERIMENTS_COMMIT`). A 28x28x1 image, reordered to 784 features, then four
    inner products without bias (ReLU fused into the first three).
    """
    g = _graph("smaug-minerva", batch, dtype, "models/minerva/minerva_network.py")
    nb = _Smaug(g, _image(batch, dtype, 1, 28))
    for i, (width, act) in enumerate([(256, "relu"), (256, "relu"), (256, "relu"),
                                      (10, None)]):
        nb.sfc(f"fc{i}", width, act=act)
    return g


def smaug_lenet5(batch: int = 1, *, dtype: str = "fp16") -> WorkloadGraph:
    """SMAUG's LeNet-5 (MNIST), 28x28x1.

    Two 3x3 valid convolutions of 32 filters, a 2x2 max pool, FC 4608-128-10.

    Source: ``models/lenet5/lenet5_network.py`` and ``lenet5_smv_topo.pbtxt`` of SMAUG's
    experiments repository (:data:`SMAUG_EXPERIMENTS_REPO` at
    :data:`SMAUG_EXPERIMENTS_COMMIT`). ReLU fused into both convolutions and the first
    inner product; no biases.
    """
    g = _graph("smaug-lenet5", batch, dtype, "models/lenet5/lenet5_network.py")
    nb = _Smaug(g, _image(batch, dtype, 1, 28))
    nb.sconv("conv0", 32, 3, padding="valid", act="relu")
    nb.sconv("conv1", 32, 3, padding="valid", act="relu")
    nb.smaxpool("pool0", 2, 2)
    nb.sfc("fc0", 128, act="relu")
    nb.sfc("fc1", 10)
    return g


def smaug_cnn10(batch: int = 1, *, dtype: str = "fp16") -> WorkloadGraph:
    """SMAUG's CIFAR-10 CNN, 32x32x3.

    Four 3x3 same convolutions (32, 32, 64, 64 filters), two 2x2 max pools, three batch
    norms, FC 4096-512-10.

    Source: ``models/cifar10-cnn/cnn_network.py`` and ``cnn_smv_topo.pbtxt`` of SMAUG's
    experiments repository (:data:`SMAUG_EXPERIMENTS_REPO` at
    :data:`SMAUG_EXPERIMENTS_COMMIT`). Order: conv-bn-conv-pool-bn-conv-conv-pool-bn-fc-fc,
    ReLU fused into every convolution and the first inner product; no biases.
    """
    g = _graph("smaug-cnn10", batch, dtype, "models/cifar10-cnn/cnn_network.py")
    nb = _Smaug(g, _image(batch, dtype, 3, 32))
    nb.sconv("conv0", 32, 3, act="relu")
    nb.sbn("bn0")
    nb.sconv("conv1", 32, 3, act="relu")
    nb.smaxpool("pool0", 2, 2)
    nb.sbn("bn1")
    nb.sconv("conv2", 64, 3, act="relu")
    nb.sconv("conv3", 64, 3, act="relu")
    nb.smaxpool("pool1", 2, 2)
    nb.sbn("bn2")
    nb.sfc("fc0", 512, act="relu")
    nb.sfc("fc1", 10)
    return g


#: SMAUG's CIFAR-10 VGG: filters per 3x3 convolution; "M" is a 2x2/2 max pool.
_VGG: tuple[int | str, ...] = (64, 128, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512,
                               "M")


def smaug_vgg(batch: int = 1, *, dtype: str = "fp16") -> WorkloadGraph:
    """SMAUG's CIFAR-10 VGG, 32x32x3.

    Ten 3x3 same convolutions (64, 128 | 128, 128 | 256 x3 | 512 x3, "|" a 2x2 max pool,
    four pools), FC 2048-512-10.

    Source: ``models/cifar10-vgg/vgg_network.py`` and ``vgg_smv_topo.pbtxt`` of SMAUG's
    experiments repository (:data:`SMAUG_EXPERIMENTS_REPO` at
    :data:`SMAUG_EXPERIMENTS_COMMIT`). ReLU fused into every convolution and the first
    inner product; no biases, no batch norm.
    """
    g = _graph("smaug-vgg", batch, dtype, "models/cifar10-vgg/vgg_network.py")
    nb = _Smaug(g, _image(batch, dtype, 3, 32))
    conv_i = pool_i = 0
    for v in _VGG:
        if isinstance(v, str):
            nb.smaxpool(f"pool{pool_i}", 2, 2)
            pool_i += 1
        else:
            nb.sconv(f"conv{conv_i}", v, 3, act="relu")
            conv_i += 1
    nb.sfc("fc0", 512, act="relu")
    nb.sfc("fc1", 10)
    return g


def _elu_net(g: WorkloadGraph, batch: int, dtype: str,
             stacks: tuple[tuple[tuple[int, int], ...], ...]) -> WorkloadGraph:
    """Stacks of same convolutions ``(filters, kernel)`` with ELU; a 2x2 max pool after
    each of the first five stacks (32x32 down to 1x1)."""
    nb = _Smaug(g, _image(batch, dtype, 3, 32))
    for s, convs in enumerate(stacks):
        for i, (filters, kernel) in enumerate(convs):
            nb.sconv(f"conv{i}_stack{s}", filters, kernel, act="elu")
        if s < 5:
            nb.smaxpool(f"pool_stack{s}", 2, 2)
    return g


def smaug_elu16(batch: int = 1, *, dtype: str = "fp16") -> WorkloadGraph:
    """SMAUG's CIFAR-100 ELU network (after Clevert et al. 2016), 32x32x3.

    Eleven same convolutions with ELU (alpha 0.1), five 2x2 max pools (16 operators), 100
    classes as a 1x1x100 output.

    Source: ``models/cifar100-elu/elu_network.py`` and ``elu_smv_topo.pbtxt`` of SMAUG's
    experiments repository (:data:`SMAUG_EXPERIMENTS_REPO` at
    :data:`SMAUG_EXPERIMENTS_COMMIT`): stacks (filters x kernel) 192x5 | 192x1, 240x3 |
    240x1, 260x2 | 260x1, 280x2 | 280x1, 300x2 | 300x1 | 100x1, a pool after each of the
    first five stacks. No biases.
    """
    g = _graph("smaug-elu16", batch, dtype, "models/cifar100-elu/elu_network.py")
    return _elu_net(g, batch, dtype, (
        ((192, 5),), ((192, 1), (240, 3)), ((240, 1), (260, 2)), ((260, 1), (280, 2)),
        ((280, 1), (300, 2)), ((300, 1),), ((100, 1),)))


def smaug_elu24(batch: int = 1, *, dtype: str = "fp16") -> WorkloadGraph:
    """SMAUG's CIFAR-100 large ELU network (after Clevert et al. 2016), 32x32x3.

    Nineteen same convolutions with ELU (alpha 0.1), five 2x2 max pools (24 operators), 100
    classes as a 1x1x100 output.

    Source: ``models/cifar100-large-elu/large_elu_network.py`` and
    ``large_elu_smv_topo.pbtxt`` of SMAUG's experiments repository
    (:data:`SMAUG_EXPERIMENTS_REPO` at :data:`SMAUG_EXPERIMENTS_COMMIT`): stacks (filters x
    kernel) 384x3 | 384x1, 384x2, 640x2, 640x2 | 640x1, 768x2, 768x2, 768x2 | 768x1, 896x2,
    896x2 | 896x3, 1024x2, 1024x2 | 1024x1, 1152x2 | 1152x1 | 100x1, a pool after each of
    the first five stacks. No biases.
    """
    g = _graph("smaug-elu24", batch, dtype, "models/cifar100-large-elu/large_elu_network.py")
    return _elu_net(g, batch, dtype, (
        ((384, 3),), ((384, 1), (384, 2), (640, 2), (640, 2)),
        ((640, 1), (768, 2), (768, 2), (768, 2)), ((768, 1), (896, 2), (896, 2)),
        ((896, 3), (1024, 2), (1024, 2)), ((1024, 1), (1152, 2)), ((1152, 1),),
        ((100, 1),)))


def smaug_resnet50(batch: int = 1, *, dtype: str = "fp16") -> WorkloadGraph:
    """SMAUG's ImageNet ResNet-50, 225x225x3, 10 classes.

    Source: ``models/imagenet-resnet/resnet_network.py`` and ``resnet_smv_topo.pbtxt`` of
    SMAUG's experiments repository (:data:`SMAUG_EXPERIMENTS_REPO` at
    :data:`SMAUG_EXPERIMENTS_COMMIT`); Keras-style v1 (the stride on the 3x3 convolution).
    Differences from torchvision's (``resnet50``): a
    225x225 input, so the 7x7/2 same convolution gives 113x113 and the 3x3/2 valid max
    pool 56x56; every convolution "same" and without bias, batch norm after each (ReLU
    fused into the block's first two and into ``bn0``), residual add then ReLU; no global
    average pool: the 7x7x2048 output is reordered to 100,352 features and one inner
    product (no bias) gives 10 classes.
    """
    g = _graph("smaug-resnet50", batch, dtype, "models/imagenet-resnet/resnet_network.py")
    nb = _Smaug(g, _image(batch, dtype, 3, 225))
    nb.sconv("conv0", 64, 7, stride=2)
    nb.sbn("bn0", act="relu")
    nb.smaxpool("pool", 3, 2)
    for stage, (f0, blocks, stride) in enumerate(
            [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)], start=2):
        for b in range(blocks):
            block = "abcdef"[b]
            p = f"res{stage}{block}"
            s = stride if b == 0 else 1
            shortcut = nb.x
            nb.sconv(p + "_2a", f0, 1)
            nb.sbn(f"bn{stage}{block}_2a", act="relu")
            nb.sconv(p + "_2b", f0, 3, stride=s)
            nb.sbn(f"bn{stage}{block}_2b", act="relu")
            nb.sconv(p + "_2c", 4 * f0, 1)
            y = nb.sbn(f"bn{stage}{block}_2c")
            if b == 0:
                nb.sconv(p + "_1", 4 * f0, 1, stride=s, x=shortcut)
                shortcut = nb.sbn(f"bn{stage}{block}_1")
            nb.add(f"add{stage}_{block}", y, shortcut)
            nb.act(f"relu{stage}_{block}")
    nb.sfc("fc", 10)
    return g


def smaug_lstm(batch: int = 1, *, dtype: str = "fp16") -> WorkloadGraph:
    """SMAUG's two-layer LSTM, 4 steps of 32 features, hidden 32, unrolled.

    Source: ``models/lstm/lstm.py`` and ``lstm_smv_topo.pbtxt`` of SMAUG's experiments
    repository (:data:`SMAUG_EXPERIMENTS_REPO` at :data:`SMAUG_EXPERIMENTS_COMMIT`).
    Weights ``W`` and ``U`` of each layer are 128x32 (four gates of 32), no bias. The
    input ``(batch, 4, 32)`` is split into time steps and squeezed (CPU copies); per layer
    and step: ``z = x W^T + h U^T``, split into four gates, ``i, f, o`` sigmoids and
    ``g`` a tanh, ``c = f c + i g``, ``h = o tanh(c)``; layer 1 reads layer 0's ``h`` of
    the same step. The initial ``h`` and ``c`` are state tensors. Output: the last ``h``.
    """
    g = _graph("smaug-lstm", batch, dtype, "models/lstm/lstm.py")
    steps, features, hidden, layers = 4, 32, 32, 2
    seq = TensorSpec("sequence", (batch, steps, features), dtype, role="input")
    split_outs = tuple(TensorSpec(f"lstm0.unstack.split.out{t}", (batch, 1, features), dtype)
                       for t in range(steps))
    g.add(Operator("lstm0.unstack.split", "data_movement", (seq,), split_outs, 0.0,
                   {"fn": "split", "axis": 1}))
    xs = [g.add(data_movement(f"lstm0.unstack.squeeze{t}", split_outs[t], (batch, features),
                              fn="reshape")).outputs[0] for t in range(steps)]
    for layer in range(layers):
        p = f"lstm{layer}"
        h = TensorSpec(f"{p}.h0", (batch, hidden), dtype, role="state")
        c = TensorSpec(f"{p}.c0", (batch, hidden), dtype, role="state")
        for t in range(steps):
            q = f"{p}.step{t}."

            def add(op: Operator) -> TensorSpec:
                return g.add(op).outputs[0]

            zf = add(linear(q + "mm_f", xs[t], out_features=4 * hidden, bias=False,
                            weight_name=f"{p}.W"))
            zu = add(linear(q + "mm_u", h, out_features=4 * hidden, bias=False,
                            weight_name=f"{p}.U"))
            z = add(elementwise(q + "add_z", zf, zu))
            gates = tuple(TensorSpec(f"{q}split.out{k}", (batch, hidden), dtype)
                          for k in range(4))
            g.add(Operator(q + "split", "data_movement", (z,), gates, 0.0,
                           {"fn": "split", "axis": 1}))
            i_g = add(activation(q + "sigmoid_i", gates[0], fn="sigmoid"))
            f_g = add(activation(q + "sigmoid_f", gates[1], fn="sigmoid"))
            fc = add(elementwise(q + "mul_f", f_g, c, fn="mul"))
            g_g = add(activation(q + "act0", gates[2], fn="tanh"))
            ig = add(elementwise(q + "mul_i", i_g, g_g, fn="mul"))
            c = add(elementwise(q + "add_c", fc, ig))
            o_g = add(activation(q + "sigmoid_o", gates[3], fn="sigmoid"))
            tc = add(activation(q + "act1", c, fn="tanh"))
            h = add(elementwise(q + "mul_h", o_g, tc, fn="mul"))
            xs[t] = h
    return g


#: Registry name -> builder, in the study's order.
SMAUG_NETWORKS = {
    "smaug-minerva": smaug_minerva,
    "smaug-lenet5": smaug_lenet5,
    "smaug-cnn10": smaug_cnn10,
    "smaug-vgg": smaug_vgg,
    "smaug-elu16": smaug_elu16,
    "smaug-elu24": smaug_elu24,
    "smaug-resnet50": smaug_resnet50,
    "smaug-lstm": smaug_lstm,
}
