"""CIFAR-style residual networks: He et al.'s ResNet and Gomez et al.'s reversible RevNet.

:func:`resnet_cifar` is the CIFAR ResNet of He et al. (2016, "Deep Residual Learning for
Image Recognition", section 4.2) with projection shortcuts; :func:`revnet_cifar` is its
reversible counterpart after Gomez et al. (2017, "The Reversible Residual Network:
Backpropagation Without Storing Activations"). Both take the same keywords, so a study can
compare a network and its reversible version of the same depth and widths.

A RevNet's structure -- which tensors are the two halves of each reversible block and which
operators compute its residual functions ``F`` and ``G`` -- is recorded in
``graph.metadata["reversible_blocks"]`` as :class:`ReversibleBlock` records, which
:func:`~archsim.compilers.graph.training.training_graph` reads to recompute block inputs
from outputs in the backward pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import ConfigError
from .cnn import NetBuilder, activation, batch_norm, conv2d, positive_int
from .ir import Operator, TensorSpec, WorkloadGraph, dtype_bytes

__all__ = ["ReversibleBlock", "resnet_cifar", "revnet_cifar", "parameter_counts"]


@dataclass(frozen=True)
class ReversibleBlock:
    """One reversible block ``y1 = x1 + F(x2)``, ``y2 = x2 + G(y1)`` of a RevNet graph.

    Attributes
    ----------
    name
        The block's name (the prefix of its operators' names).
    x1, x2, y1, y2
        Tensor names of the block's input halves and output halves.
    f_ops, g_ops
        Operator names of the residual functions ``F`` and ``G``, in execution order.
    f_out, g_out
        Tensor names of ``F(x2)`` and ``G(y1)``.
    """

    name: str
    x1: str
    x2: str
    y1: str
    y2: str
    f_ops: tuple[str, ...]
    g_ops: tuple[str, ...]
    f_out: str
    g_out: str


def _check_config(blocks_per_stage: Sequence[int], widths: Sequence[int], batch: int,
                  image_size: int, in_channels: int, num_classes: int,
                  dtype: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    blocks = tuple(blocks_per_stage)
    wide = tuple(widths)
    if not blocks:
        raise ConfigError("needs at least one stage", field="blocks_per_stage")
    for b in blocks:
        positive_int("blocks_per_stage", b)
    for w in wide:
        positive_int("widths", w)
    if len(wide) != len(blocks):
        raise ConfigError(f"widths has {len(wide)} entries but blocks_per_stage has "
                          f"{len(blocks)}; give one width per stage", field="widths")
    for name, value in (("batch", batch), ("image_size", image_size),
                        ("in_channels", in_channels), ("num_classes", num_classes)):
        positive_int(name, value)
    dtype_bytes(dtype)
    return blocks, wide


def _graph(model: str, blocks: tuple[int, ...], widths: tuple[int, ...], batch: int,
           image_size: int, dtype: str, source: str) -> WorkloadGraph:
    depth = 2 + 2 * sum(blocks)
    return WorkloadGraph(f"{model}{depth}-cifar-b{batch}", metadata={
        "model": f"{model}-cifar", "depth": depth, "blocks_per_stage": blocks,
        "widths": widths, "batch": batch, "image_size": image_size, "dtype": dtype,
        "source": source})


def _basic_block(nb: NetBuilder, p: str, width: int, stride: int) -> TensorSpec:
    """He et al.'s basic block: conv3x3-bn-relu-conv3x3-bn, + shortcut, relu.

    The shortcut is the identity, or a 1x1 strided convolution + batch norm (option B)
    when the block changes the shape.
    """
    shortcut = nb.x
    nb.conv_bn_relu(p + "conv1", width, 3, stride=stride, padding=1)
    y = nb.conv_bn_relu(p + "conv2", width, 3, padding=1, relu=False)
    if stride != 1 or shortcut.shape[1] != width:
        shortcut = nb.conv_bn_relu(p + "shortcut", width, 1, stride=stride, relu=False,
                                   x=shortcut)
    nb.add(p + "add", y, shortcut)
    return nb.act(p + "relu")


def _stem(nb: NetBuilder, width: int) -> TensorSpec:
    return nb.conv_bn_relu("stem.conv", width, 3, padding=1)


def _head(nb: NetBuilder, num_classes: int) -> TensorSpec:
    nb.gap("avgpool")
    nb.flatten("flatten")
    return nb.fc("fc", num_classes, bias=True)


def resnet_cifar(*, blocks_per_stage: Sequence[int] = (3, 3, 3),
                 widths: Sequence[int] = (16, 32, 64), batch: int = 32, image_size: int = 32,
                 in_channels: int = 3, num_classes: int = 10,
                 dtype: str = "fp16") -> WorkloadGraph:
    """He et al.'s CIFAR ResNet (ResNet-20 with the defaults), projection shortcuts.

    Stem conv3x3-bn-relu to ``widths[0]``; per stage ``blocks_per_stage[s]`` basic blocks
    (conv3x3-bn-relu-conv3x3-bn + shortcut, relu) of ``widths[s]`` channels, the first
    block of every stage after the first with stride 2; global average pool; a fully
    connected classifier with bias. Where a block changes the shape, the shortcut is a
    1x1 strided conv + batch norm (He et al.'s option B; their CIFAR runs used option A,
    zero-padded identity shortcuts, which has no parameters -- B is chosen because it is an
    operator every engine maps, and it is what the RevNet's downsampling block uses).

    Parameters
    ----------
    blocks_per_stage
        Basic blocks per stage; depth is ``2 + 2 * sum(blocks_per_stage)``.
    widths
        Channels per stage, one per entry of ``blocks_per_stage``.
    batch, image_size, in_channels, num_classes
        Input ``(batch, in_channels, image_size, image_size)`` and classifier width.
    dtype
        Element type of every tensor.

    Returns
    -------
    WorkloadGraph
        The forward pass; the logits are the output of operator ``"fc"``.
    """
    blocks, wide = _check_config(blocks_per_stage, widths, batch, image_size, in_channels,
                                 num_classes, dtype)
    g = _graph("resnet", blocks, wide, batch, image_size, dtype,
               "He et al. 2016, CIFAR ResNet (section 4.2), option-B projection shortcuts")
    nb = NetBuilder(g, TensorSpec("image", (batch, in_channels, image_size, image_size), dtype,
                                  role="input"))
    _stem(nb, wide[0])
    for s, (n_blocks, width) in enumerate(zip(blocks, wide, strict=True)):
        for b in range(n_blocks):
            _basic_block(nb, f"stage{s}.block{b}.", width, 2 if (s > 0 and b == 0) else 1)
    _head(nb, num_classes)
    return g


def _residual_fn(g: WorkloadGraph, p: str, x: TensorSpec, width: int, block: str,
                 branch: str) -> list[Operator]:
    """``bn-relu-conv3x3-bn-relu-conv3x3`` on ``x`` (``width`` -> ``width``), each op tagged."""
    ops: list[Operator] = []

    def tag(op: Operator) -> TensorSpec:
        op = Operator(op.name, op.kind, op.inputs, op.outputs, op.flops,
                      {**op.attrs, "block": block, "branch": branch})
        g.add(op)
        ops.append(op)
        return op.outputs[0]

    h = tag(batch_norm(p + "bn1", x))
    h = tag(activation(p + "relu1", h))
    h = tag(conv2d(p + "conv1", h, out_channels=width, kernel=3, padding=1))
    h = tag(batch_norm(p + "bn2", h))
    h = tag(activation(p + "relu2", h))
    tag(conv2d(p + "conv2", h, out_channels=width, kernel=3, padding=1))
    return ops


def _split(g: WorkloadGraph, name: str, x: TensorSpec) -> tuple[TensorSpec, TensorSpec]:
    n, c, h, w = x.shape
    halves = (TensorSpec(f"{name}.x1", (n, c // 2, h, w), x.dtype),
              TensorSpec(f"{name}.x2", (n, c - c // 2, h, w), x.dtype))
    g.add(Operator(name, "data_movement", (x,), halves, 0.0, {"fn": "split", "axis": 1}))
    return halves


def _concat(g: WorkloadGraph, name: str, a: TensorSpec, b: TensorSpec) -> TensorSpec:
    n, c, h, w = a.shape
    y = TensorSpec(f"{name}.out", (n, c + b.shape[1], h, w), a.dtype)
    g.add(Operator(name, "data_movement", (a, b), (y,), 0.0, {"fn": "concat", "axis": 1}))
    return y


def revnet_cifar(*, blocks_per_stage: Sequence[int] = (3, 3, 3),
                 widths: Sequence[int] = (16, 32, 64), batch: int = 32, image_size: int = 32,
                 in_channels: int = 3, num_classes: int = 10,
                 dtype: str = "fp16") -> WorkloadGraph:
    """A RevNet (Gomez et al. 2017) with :func:`resnet_cifar`'s stages, widths and head.

    Same stem and head as :func:`resnet_cifar`. Stage 0 is ``blocks_per_stage[0]``
    reversible blocks; every later stage starts with a *non-reversible* downsampling block
    (:func:`resnet_cifar`'s strided basic block with a projection shortcut: it widens the
    channels and halves the resolution, so it cannot be inverted, and its activations are
    stored as in RevNet) followed by ``blocks_per_stage[s] - 1`` reversible blocks.

    A run of reversible blocks works on a channel split ``x = (x1, x2)`` of ``w/2`` channels
    each (a ``data_movement`` ``split`` before the run, a ``concat`` after it):
    ``y1 = x1 + F(x2)``, ``y2 = x2 + G(y1)``, with ``F`` and ``G`` each
    ``bn-relu-conv3x3-bn-relu-conv3x3`` (``w/2 -> w/2``). That is the pre-activation
    residual function (He et al. 2016, "Identity Mappings") RevNet uses for its CIFAR
    basic blocks: a reversible block must not apply a non-linearity after the addition
    (it could not be undone), so the ReLUs move inside ``F`` and ``G``.

    With the same widths a RevNet has fewer parameters than the ResNet (``F`` and ``G``
    work on half the channels): 173,402 vs 272,474 for the ResNet-20 stages; widths
    ``(20, 40, 80)`` give a RevNet of ResNet-20's size (270,110).

    Each block is recorded in ``metadata["reversible_blocks"]`` (:class:`ReversibleBlock`),
    and every ``F``/``G`` operator carries ``attrs["block"]`` (the block's name) and
    ``attrs["branch"]`` (``"F"`` or ``"G"``).

    Parameters
    ----------
    blocks_per_stage, widths, batch, image_size, in_channels, num_classes, dtype
        As in :func:`resnet_cifar`; every width must be even (it is split in two halves).

    Returns
    -------
    WorkloadGraph
        The forward pass; the logits are the output of operator ``"fc"``.
    """
    blocks, wide = _check_config(blocks_per_stage, widths, batch, image_size, in_channels,
                                 num_classes, dtype)
    for w in wide:
        if w % 2:
            raise ConfigError(f"width {w} is odd; a reversible block splits its channels in "
                              f"two equal halves", field="widths")
    g = _graph("revnet", blocks, wide, batch, image_size, dtype,
               "Gomez et al. 2017, RevNet (reversible blocks, non-reversible downsampling), "
               "on He et al. 2016's CIFAR ResNet stages")
    nb = NetBuilder(g, TensorSpec("image", (batch, in_channels, image_size, image_size), dtype,
                                  role="input"))
    _stem(nb, wide[0])
    records: list[ReversibleBlock] = []
    for s, (n_blocks, width) in enumerate(zip(blocks, wide, strict=True)):
        first = 0
        if s > 0:
            _basic_block(nb, f"stage{s}.block0.", width, 2)
            first = 1
        if first >= n_blocks:
            continue
        x1, x2 = _split(g, f"stage{s}.split", nb.x)
        for b in range(first, n_blocks):
            blk = f"stage{s}.block{b}"
            f_ops = _residual_fn(g, blk + ".F.", x2, width // 2, blk, "F")
            f_out = f_ops[-1].outputs[0]
            y1 = nb.add(blk + ".y1", x1, f_out)
            g_ops = _residual_fn(g, blk + ".G.", y1, width // 2, blk, "G")
            g_out = g_ops[-1].outputs[0]
            y2 = nb.add(blk + ".y2", x2, g_out)
            records.append(ReversibleBlock(
                blk, x1.name, x2.name, y1.name, y2.name, tuple(o.name for o in f_ops),
                tuple(o.name for o in g_ops), f_out.name, g_out.name))
            x1, x2 = y1, y2
        nb.x = _concat(g, f"stage{s}.concat", x1, x2)
    _head(nb, num_classes)
    g.metadata["reversible_blocks"] = tuple(records)
    return g


def parameter_counts(graph: WorkloadGraph) -> dict[str, int]:
    """Parameters (elements of ``weight``-role tensors) per operator, in graph order.

    A weight shared by several operators is counted once, at its first consumer; operators
    without weights are left out. The values sum to ``graph.parameter_count``.
    """
    seen: set[str] = set()
    out: dict[str, int] = {}
    for op in graph:
        count = 0
        for t in op.inputs:
            if t.role == "weight" and t.name not in seen:
                seen.add(t.name)
                count += t.numel
        if count:
            out[op.name] = count
    return out
