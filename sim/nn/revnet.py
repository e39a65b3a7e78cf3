"""Standard and reversible residual networks in numpy, with hand-written backward passes.

Three models, trained by :func:`train` with SGD and momentum:

- :class:`ResNetSmall`: stem conv-bn-relu, basic residual blocks (conv-bn-relu-conv-bn + skip,
  relu), a stride-2 downsampling block between stages, global average pooling, a linear
  classifier (He et al. 2016).
- :class:`RevNetSmall`: the same skeleton with the basic blocks replaced by additive-coupling
  reversible blocks (Gomez, Ren, Urtasun, Grosse, "The Reversible Residual Network", NeurIPS
  2017): the channels split in halves, ``y1 = x1 + F(x2)``, ``y2 = x2 + G(y1)``, F and G each
  ``bn-relu-conv-bn-relu-conv`` on half the channels. Its backward pass RECOMPUTES each
  block's inputs from its outputs (``x2 = y2 - G(y1)``, ``x1 = y1 - F(x2)``) instead of
  reading stored activations; only the non-reversible stem, downsampling blocks and head keep
  what they need, plus each stage's output (as in RevNet).
- :class:`RevMLP`: the dense reversible block the CAMEL engine runs in RTL, on flattened
  images: ``F(u) = relu(u @ WF)``, ``G(u) = relu(u @ WG)`` (no bias), then a linear classifier.

A reversible block has half the channels in each of F and G, so it holds half the weights of
a basic block of the same width (4 convs of ``c/2 x c/2`` vs 2 of ``c x c``): the default
:class:`RevNetSmall` has twice as many blocks per stage as :class:`ResNetSmall`, which gives
both the same conv weights and the same forward MACs (RevNet-38 vs ResNet-32 in Gomez et al.
balances parameters the same way, by depth and width).

Every model reports :attr:`stored_activation_bytes`: the bytes of the arrays its last training
forward pass left cached for the backward pass, measured from the caches themselves (each
array counted once, however many layers hold it). Batch norm uses training-mode batch
statistics (and running statistics, momentum 0.1, for evaluation); a recomputation pass uses
the same batch statistics, so the recomputed F and G equal the forward ones.

:func:`reconstruction_error` runs a reversible model's forward pass in a training number
format (IEEE float64/32/16, bfloat16 via ``ml_dtypes``, or a fixed-point :class:`FixedPoint`
Q format), recomputes every reversible block's inputs from its outputs in the same format, and
reports the error against the stored inputs per block. In floating point the reversal is
inexact (``(x + f) - f != x`` after rounding) and the error accumulates down each stage's
chain; in fixed point the additions are exact, so the reversal is exact unless a sum
saturates (the reason MacKay et al., "Reversible Recurrent Neural Networks", NeurIPS 2018,
train reversible nets in fixed point).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

from ...errors import ConfigError
from ...hw.checks import check_int, check_positive
from .conv import col2im, im2col
from .digits import ImageSet

__all__ = ["Mode", "Layer", "Conv2d", "BatchNorm", "ReLU", "GlobalAvgPool", "Linear",
           "Sequential", "BasicBlock", "RevBlock", "softmax_cross_entropy", "Net",
           "ResNetSmall", "RevNetSmall", "RevMLP", "TrainReport", "train", "evaluate",
           "FixedPoint", "BlockReconstruction", "ReconstructionReport",
           "reconstruction_error", "FLOAT_FORMATS"]

Array = np.ndarray
Cache = tuple[object, ...]
Rounder = Callable[[Array], Array]

#: Batch-norm epsilon and running-statistics momentum (PyTorch's defaults; assumed).
BN_EPS = 1e-5
BN_MOMENTUM = 0.1


@dataclass(frozen=True, kw_only=True)
class Mode:
    """How a forward pass runs.

    Attributes
    ----------
    train : bool
        Batch statistics in batch norm (and caches kept for backward) when True; running
        statistics when False.
    update_stats : bool
        Whether batch norm updates its running statistics (False in a recomputation).
    q : callable, optional
        Rounds an array to the number format under study; applied to every operator's
        output and to the weights. None: compute in the arrays' own dtype.
    """

    train: bool = True
    update_stats: bool = True
    q: Rounder | None = None

    def r(self, a: Array) -> Array:
        """``a`` rounded to the format (unchanged without one)."""
        return a if self.q is None else self.q(a)


class Layer:
    """A layer: ``forward(x, mode) -> (y, cache)``, ``backward(dy, cache) -> dx``.

    Parameter gradients accumulate into :attr:`grads` (zero them with :meth:`zero_grad`).
    """

    def __init__(self) -> None:
        self.params: dict[str, Array] = {}
        self.grads: dict[str, Array] = {}

    def forward(self, x: Array, mode: Mode) -> tuple[Array, Cache]:
        raise NotImplementedError

    def backward(self, dy: Array, cache: Cache) -> Array:
        raise NotImplementedError

    def children(self) -> Iterator[tuple[str, Layer]]:
        """Sub-layers by name (none for a leaf)."""
        return iter(())

    def leaves(self, prefix: str = "") -> Iterator[tuple[str, Layer]]:
        """Every layer with parameters, by dotted name."""
        if self.params:
            yield prefix.rstrip("."), self
        for name, child in self.children():
            yield from child.leaves(f"{prefix}{name}.")

    def zero_grad(self) -> None:
        for _, leaf in self.leaves():
            for k, v in leaf.params.items():
                leaf.grads[k] = np.zeros_like(v)


class Conv2d(Layer):
    """A k x k convolution, "same" padding (``k // 2``), stride 1 or 2, no bias, via im2col.

    Caches only its input (the column matrix is rebuilt in backward), so the stored bytes are
    the activation, not the 9x larger im2col copy.
    """

    def __init__(self, *, cin: int, cout: int, k: int = 3, stride: int = 1,
                 rng: np.random.Generator, dtype: type[np.floating] = np.float32) -> None:
        super().__init__()
        check_positive("cin", cin)
        check_positive("cout", cout)
        if k not in (1, 3):
            raise ConfigError(f"kernel size {k!r} not supported", field="k", allowed=[1, 3])
        if stride not in (1, 2):
            raise ConfigError(f"stride {stride!r} not supported", field="stride",
                              allowed=[1, 2])
        self.k, self.stride = k, stride
        # He-normal initialization (He et al. 2015) for relu networks.
        w = rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k))
        self.params["w"] = w.astype(dtype)
        self.grads["w"] = np.zeros_like(self.params["w"])

    def _cols(self, x: Array) -> tuple[Array, tuple[int, int, int]]:
        p = self.k // 2
        cols = im2col(np.pad(x, ((0, 0), (0, 0), (p, p), (p, p))), k=self.k, stride=self.stride)
        n, ho, wo = cols.shape[:3]
        return cols.reshape(n * ho * wo, -1), (n, ho, wo)

    def forward(self, x: Array, mode: Mode) -> tuple[Array, Cache]:
        w = mode.r(self.params["w"])
        cols, (n, ho, wo) = self._cols(x)
        y = (cols @ w.reshape(w.shape[0], -1).T).reshape(n, ho, wo, w.shape[0])
        return mode.r(np.ascontiguousarray(y.transpose(0, 3, 1, 2))), (x,)

    def backward(self, dy: Array, cache: Cache) -> Array:
        (x,) = cache
        assert isinstance(x, np.ndarray)
        w = self.params["w"]
        cout, cin, k, s = w.shape[0], w.shape[1], self.k, self.stride
        cols, (n, ho, wo) = self._cols(x)
        dy2 = dy.transpose(0, 2, 3, 1).reshape(-1, cout)
        self.grads["w"] += (dy2.T @ cols).reshape(w.shape)
        dcols = dy2 @ w.reshape(cout, -1)
        p = k // 2
        dxp = col2im(dcols, (n, cin, x.shape[2] + 2 * p, x.shape[3] + 2 * p), k=k, stride=s,
                     dtype=dy.dtype)
        return dxp[:, :, p : p + x.shape[2], p : p + x.shape[3]]


class BatchNorm(Layer):
    """Batch normalization over every axis but the channel axis 1 (Ioffe & Szegedy 2015).

    Caches the normalized input and the per-channel inverse standard deviation.
    """

    def __init__(self, *, channels: int, dtype: type[np.floating] = np.float32) -> None:
        super().__init__()
        check_positive("channels", channels)
        self.params["gamma"] = np.ones(channels, dtype)
        self.params["beta"] = np.zeros(channels, dtype)
        self.zero_grad()
        self.running_mean = np.zeros(channels, dtype)
        self.running_var = np.ones(channels, dtype)

    @staticmethod
    def _axes(x: Array) -> tuple[tuple[int, ...], tuple[int, ...]]:
        axes = (0,) + tuple(range(2, x.ndim))
        shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        return axes, shape

    def forward(self, x: Array, mode: Mode) -> tuple[Array, Cache]:
        axes, shape = self._axes(x)
        if mode.train:
            mu = x.mean(axes)
            var = x.var(axes)
            if mode.update_stats:
                n = x.size // x.shape[1]
                m = BN_MOMENTUM
                self.running_mean = ((1 - m) * self.running_mean + m * mu).astype(
                    self.running_mean.dtype)
                self.running_var = ((1 - m) * self.running_var + m * var * n / max(n - 1, 1)
                                    ).astype(self.running_var.dtype)
        else:
            mu, var = self.running_mean, self.running_var
        inv = (1.0 / np.sqrt(var + BN_EPS)).astype(x.dtype)
        xhat = (x - mu.reshape(shape)) * inv.reshape(shape)
        gamma, beta = mode.r(self.params["gamma"]), mode.r(self.params["beta"])
        y = mode.r(xhat * gamma.reshape(shape) + beta.reshape(shape))
        return y, ((xhat, inv) if mode.train else ())

    def backward(self, dy: Array, cache: Cache) -> Array:
        xhat, inv = cache
        assert isinstance(xhat, np.ndarray) and isinstance(inv, np.ndarray)
        axes, shape = self._axes(dy)
        m = dy.size // dy.shape[1]
        self.grads["gamma"] += (dy * xhat).sum(axes)
        self.grads["beta"] += dy.sum(axes)
        dxhat = dy * self.params["gamma"].reshape(shape)
        return (inv.reshape(shape) / m) * (m * dxhat - dxhat.sum(axes).reshape(shape)
                                          - xhat * (dxhat * xhat).sum(axes).reshape(shape))


class ReLU(Layer):
    """``max(x, 0)``; caches its output (which the next layer usually caches too)."""

    def forward(self, x: Array, mode: Mode) -> tuple[Array, Cache]:
        y = np.maximum(x, 0)
        return y, (y,)

    def backward(self, dy: Array, cache: Cache) -> Array:
        (y,) = cache
        assert isinstance(y, np.ndarray)
        return dy * (y > 0)


class GlobalAvgPool(Layer):
    """Mean over the spatial axes: ``(N, C, H, W) -> (N, C)``; caches only the shape."""

    def forward(self, x: Array, mode: Mode) -> tuple[Array, Cache]:
        return mode.r(x.mean((2, 3))), (x.shape,)

    def backward(self, dy: Array, cache: Cache) -> Array:
        (shape,) = cache
        assert isinstance(shape, tuple)
        n, c, h, w = shape
        return np.broadcast_to((dy / (h * w))[:, :, None, None], shape).copy()


class Linear(Layer):
    """``y = x @ w (+ b)`` with ``w`` of shape ``(in, out)``; caches its input."""

    def __init__(self, *, fin: int, fout: int, bias: bool = True, gain: float = 1.0,
                 rng: np.random.Generator, dtype: type[np.floating] = np.float32) -> None:
        super().__init__()
        check_positive("fin", fin)
        check_positive("fout", fout)
        self.params["w"] = (rng.standard_normal((fin, fout)) * np.sqrt(gain / fin)).astype(dtype)
        if bias:
            self.params["b"] = np.zeros(fout, dtype)
        self.zero_grad()

    def forward(self, x: Array, mode: Mode) -> tuple[Array, Cache]:
        y = x @ mode.r(self.params["w"])
        if "b" in self.params:
            y = y + mode.r(self.params["b"])
        return mode.r(y), (x,)

    def backward(self, dy: Array, cache: Cache) -> Array:
        (x,) = cache
        assert isinstance(x, np.ndarray)
        self.grads["w"] += x.T @ dy
        if "b" in self.params:
            self.grads["b"] += dy.sum(0)
        return dy @ self.params["w"].T


class Sequential(Layer):
    """Layers in order; the cache is the tuple of their caches."""

    def __init__(self, layers: Sequence[Layer]) -> None:
        super().__init__()
        self.layers = list(layers)

    def children(self) -> Iterator[tuple[str, Layer]]:
        return ((str(i), layer) for i, layer in enumerate(self.layers))

    def forward(self, x: Array, mode: Mode) -> tuple[Array, Cache]:
        caches = []
        for layer in self.layers:
            x, c = layer.forward(x, mode)
            caches.append(c)
        return x, tuple(caches)

    def backward(self, dy: Array, cache: Cache) -> Array:
        for layer, c in zip(reversed(self.layers), reversed(cache), strict=True):
            assert isinstance(c, tuple)
            dy = layer.backward(dy, c)
        return dy


class BasicBlock(Layer):
    """``relu(bn(conv(relu(bn(conv(x))))) + skip(x))``; the skip is a 1x1 stride-s conv
    when the shape changes (a downsampling block), else the identity."""

    def __init__(self, *, cin: int, cout: int, stride: int = 1, rng: np.random.Generator,
                 dtype: type[np.floating] = np.float32) -> None:
        super().__init__()
        self.body = Sequential([
            Conv2d(cin=cin, cout=cout, k=3, stride=stride, rng=rng, dtype=dtype),
            BatchNorm(channels=cout, dtype=dtype), ReLU(),
            Conv2d(cin=cout, cout=cout, k=3, stride=1, rng=rng, dtype=dtype),
            BatchNorm(channels=cout, dtype=dtype)])
        self.proj = (Conv2d(cin=cin, cout=cout, k=1, stride=stride, rng=rng, dtype=dtype)
                     if stride != 1 or cin != cout else None)
        self.out = ReLU()

    def children(self) -> Iterator[tuple[str, Layer]]:
        yield "body", self.body
        if self.proj is not None:
            yield "proj", self.proj

    def forward(self, x: Array, mode: Mode) -> tuple[Array, Cache]:
        h, cb = self.body.forward(x, mode)
        s, cp = self.proj.forward(x, mode) if self.proj is not None else (x, ())
        y, co = self.out.forward(mode.r(h + s), mode)
        return y, (cb, cp, co)

    def backward(self, dy: Array, cache: Cache) -> Array:
        cb, cp, co = cache
        assert isinstance(cb, tuple) and isinstance(cp, tuple) and isinstance(co, tuple)
        dy = self.out.backward(dy, co)
        dx = self.body.backward(dy, cb)
        return dx + (self.proj.backward(dy, cp) if self.proj is not None else dy)


class RevBlock(Layer):
    """Additive coupling: ``y1 = x1 + F(x2)``, ``y2 = x2 + G(y1)`` (Gomez et al. 2017).

    :meth:`forward` keeps nothing; :meth:`backward_recompute` rebuilds the inputs from the
    outputs and back-propagates through F and G recomputed on the spot (their caches live only
    inside that call). :meth:`forward_stored` / :meth:`backward_stored` are the ordinary
    store-everything pair, kept as the reference for the recompute path.
    """

    def __init__(self, *, f: Layer, g: Layer) -> None:
        super().__init__()
        self.f, self.g = f, g

    def children(self) -> Iterator[tuple[str, Layer]]:
        yield "F", self.f
        yield "G", self.g

    def forward_pair(self, x1: Array, x2: Array, mode: Mode) -> tuple[Array, Array]:
        """The outputs ``(y1, y2)``; no activation is kept."""
        y1 = mode.r(x1 + self.f.forward(x2, mode)[0])
        return y1, mode.r(x2 + self.g.forward(y1, mode)[0])

    def forward_stored(self, x1: Array, x2: Array, mode: Mode,
                       ) -> tuple[Array, Array, Cache]:
        """The outputs and the caches of F and G (the conventional, storing forward)."""
        f, cf = self.f.forward(x2, mode)
        y1 = mode.r(x1 + f)
        g, cg = self.g.forward(y1, mode)
        return y1, mode.r(x2 + g), (cf, cg)

    def backward_stored(self, dy1: Array, dy2: Array, cache: Cache) -> tuple[Array, Array]:
        """``(dx1, dx2)`` from the caches of :meth:`forward_stored`."""
        cf, cg = cache
        assert isinstance(cf, tuple) and isinstance(cg, tuple)
        dz1 = dy1 + self.g.backward(dy2, cg)
        return dz1, dy2 + self.f.backward(dz1, cf)

    def inputs_from_outputs(self, y1: Array, y2: Array, mode: Mode) -> tuple[Array, Array]:
        """``x2 = y2 - G(y1)``, ``x1 = y1 - F(x2)`` (batch statistics, not updated)."""
        m = Mode(train=True, update_stats=False, q=mode.q)
        x2 = m.r(y2 - self.g.forward(y1, m)[0])
        return m.r(y1 - self.f.forward(x2, m)[0]), x2

    def backward_recompute(self, y1: Array, y2: Array, dy1: Array, dy2: Array, mode: Mode,
                           ) -> tuple[Array, Array, Array, Array]:
        """Recompute the inputs and back-propagate: ``(x1, x2, dx1, dx2)``."""
        m = Mode(train=True, update_stats=False, q=mode.q)
        g, cg = self.g.forward(y1, m)
        x2 = m.r(y2 - g)
        f, cf = self.f.forward(x2, m)
        x1 = m.r(y1 - f)
        dx1, dx2 = self.backward_stored(dy1, dy2, (cf, cg))
        return x1, x2, dx1, dx2



def _halves(x: Array) -> tuple[Array, Array]:
    c = x.shape[1] // 2
    return x[:, :c], x[:, c:]


def softmax_cross_entropy(logits: Array, labels: Array) -> tuple[float, Array]:
    """Mean cross-entropy of softmax(logits) and its gradient.

    Parameters
    ----------
    logits : numpy.ndarray
        ``(N, classes)``.
    labels : numpy.ndarray
        ``(N,)`` integer classes.

    Returns
    -------
    loss : float
        ``-mean(log softmax(logits)[n, labels[n]])``.
    dlogits : numpy.ndarray
        ``(softmax(logits) - onehot(labels)) / N``.
    """
    z = logits - logits.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    n = logits.shape[0]
    loss = -float(logp[np.arange(n), labels].mean())
    d = np.exp(logp)
    d[np.arange(n), labels] -= 1.0
    return loss, d / n


def _cached_bytes(obj: object, seen: set[int]) -> int:
    """Bytes of the arrays inside nested caches, each array object counted once."""
    if isinstance(obj, np.ndarray):
        if id(obj) in seen:
            return 0
        seen.add(id(obj))
        return int(obj.nbytes)
    if isinstance(obj, (tuple, list)):
        return sum(_cached_bytes(o, seen) for o in obj)
    return 0


class Net:
    """What :func:`train` needs of a model: forward, backward, parameters, stored bytes."""

    dtype: type[np.floating]

    def __init__(self) -> None:
        self._tape: list[object] | None = None
        self._stored_bytes: int | None = None

    def modules(self) -> Iterator[tuple[str, Layer]]:
        """The top-level layers by name."""
        raise NotImplementedError

    def _conv_stem(self, widths: Sequence[int], blocks_per_stage: Sequence[int],
                   in_channels: int, num_classes: int, seed: int,
                   dtype: type[np.floating], *, even: bool) -> np.random.Generator:
        """Validate a CNN's arguments, set its dtype and its stem (conv-bn-relu); the seeded
        generator the rest of its weights are drawn from."""
        _check_widths(widths, blocks_per_stage, even=even)
        check_positive("in_channels", in_channels)
        check_int("num_classes", num_classes, 2, 2**20)
        rng = np.random.default_rng(check_int("seed", seed, 0, 2**63 - 1))
        self.dtype = dtype
        self.stem = Sequential([Conv2d(cin=in_channels, cout=widths[0], rng=rng, dtype=dtype),
                                BatchNorm(channels=widths[0], dtype=dtype), ReLU()])
        return rng

    def leaves(self) -> Iterator[tuple[str, Layer]]:
        """Every layer with parameters, by dotted name."""
        for name, module in self.modules():
            yield from module.leaves(f"{name}.")

    def parameters(self) -> dict[str, Array]:
        """Every parameter array by ``layer.param`` name (the live arrays)."""
        return {f"{n}.{k}": v for n, leaf in self.leaves() for k, v in leaf.params.items()}

    def gradients(self) -> dict[str, Array]:
        """The gradients of the last :meth:`backward`, by the names of :meth:`parameters`."""
        return {f"{n}.{k}": v for n, leaf in self.leaves() for k, v in leaf.grads.items()}

    @property
    def num_parameters(self) -> int:
        """Trainable scalars (weights, biases, batch-norm scales and shifts)."""
        return sum(int(v.size) for v in self.parameters().values())

    @property
    def stored_activation_bytes(self) -> int:
        """Bytes the last training forward pass cached for the backward pass."""
        if self._stored_bytes is None:
            raise ConfigError("no training forward pass has run yet", field="stored_"
                              "activation_bytes")
        return self._stored_bytes

    def zero_grad(self) -> None:
        """Set every gradient to zero."""
        for _, module in self.modules():
            module.zero_grad()

    def _run(self, x: Array, mode: Mode, tape: list[object]) -> Array:
        raise NotImplementedError

    def forward(self, x: Array, *, train: bool = True) -> Array:
        """Logits ``(N, classes)``; in training mode keeps the caches for :meth:`backward`."""
        tape: list[object] = []
        logits = self._run(np.asarray(x, self.dtype), Mode(train=train), tape)
        if train:
            self._tape = tape
            self._stored_bytes = _cached_bytes(tape, set())
        return logits

    def _back(self, dlogits: Array, tape: list[object]) -> None:
        raise NotImplementedError

    def backward(self, dlogits: Array) -> None:
        """Gradients of the last training forward pass, into each layer's ``grads``."""
        if self._tape is None:
            raise ConfigError("backward needs a training forward pass first",
                              field="backward")
        self.zero_grad()
        self._back(np.asarray(dlogits, self.dtype), self._tape)
        self._tape = None  # the caches are consumed, as a training framework frees them


def _check_widths(widths: Sequence[int], blocks: Sequence[int], even: bool) -> None:
    if len(widths) < 1 or len(widths) != len(blocks):
        raise ConfigError(f"widths {tuple(widths)} and blocks_per_stage {tuple(blocks)} "
                          "must be non-empty and of equal length", field="blocks_per_stage")
    for w in widths:
        check_positive("widths", w)
        if even and w % 2:
            raise ConfigError(f"a reversible stage splits its channels in halves: width {w} "
                              "is odd", field="widths")
    for b in blocks:
        check_int("blocks_per_stage", b, 0 if not even else 1, 1024)


class ResNetSmall(Net):
    """A small standard residual CNN.

    Parameters
    ----------
    widths : tuple of int
        Channels of each stage.
    blocks_per_stage : tuple of int
        Basic residual blocks in each stage (a stride-2 downsampling residual block sits
        between consecutive stages, in addition).
    in_channels, num_classes : int
        Image channels and classes.
    seed : int
        Seed of the weight initialization.
    dtype : numpy float type
        Parameter and activation type.
    """

    def __init__(self, *, widths: Sequence[int] = (16, 32),
                 blocks_per_stage: Sequence[int] = (2, 2), in_channels: int = 1,
                 num_classes: int = 10, seed: int = 0,
                 dtype: type[np.floating] = np.float32) -> None:
        super().__init__()
        rng = self._conv_stem(widths, blocks_per_stage, in_channels, num_classes, seed, dtype,
                              even=False)
        blocks: list[Layer] = []
        for s, (w, n) in enumerate(zip(widths, blocks_per_stage, strict=True)):
            if s:
                blocks.append(BasicBlock(cin=widths[s - 1], cout=w, stride=2, rng=rng,
                                         dtype=dtype))
            blocks += [BasicBlock(cin=w, cout=w, rng=rng, dtype=dtype) for _ in range(n)]
        self.blocks = Sequential(blocks)
        self.pool = GlobalAvgPool()
        self.fc = Linear(fin=widths[-1], fout=num_classes, rng=rng, dtype=dtype)

    def modules(self) -> Iterator[tuple[str, Layer]]:
        yield from (("stem", self.stem), ("blocks", self.blocks), ("pool", self.pool),
                    ("fc", self.fc))

    def _run(self, x: Array, mode: Mode, tape: list[object]) -> Array:
        for _, module in self.modules():
            x, c = module.forward(x, mode)
            tape.append(c)
        return x

    def _back(self, dlogits: Array, tape: list[object]) -> None:
        d = dlogits
        for (_, module), c in zip(reversed(list(self.modules())), reversed(tape), strict=True):
            assert isinstance(c, tuple)
            d = module.backward(d, c)


def _rev_conv_branch(c: int, rng: np.random.Generator, dtype: type[np.floating]) -> Layer:
    return Sequential([BatchNorm(channels=c, dtype=dtype), ReLU(),
                       Conv2d(cin=c, cout=c, rng=rng, dtype=dtype),
                       BatchNorm(channels=c, dtype=dtype), ReLU(),
                       Conv2d(cin=c, cout=c, rng=rng, dtype=dtype)])


class _Reversible(Net):
    """Shared by the reversible nets: stages of :class:`RevBlock` with stored boundaries."""

    stages: list[list[RevBlock]]

    def _stage_forward(self, s: int, h: Array, mode: Mode) -> Array:
        x1, x2 = _halves(h)
        for blk in self.stages[s]:
            x1, x2 = blk.forward_pair(x1, x2, mode)
        return np.concatenate([x1, x2], axis=1)

    def _stage_backward(self, s: int, out: Array, dout: Array) -> Array:
        y1, y2 = _halves(out)
        dy1, dy2 = _halves(dout)
        for blk in reversed(self.stages[s]):
            y1, y2, dy1, dy2 = blk.backward_recompute(y1, y2, dy1, dy2, Mode())
        return np.concatenate([dy1, dy2], axis=1)

    def _stage_input(self, s: int, x: Array, mode: Mode) -> Array:
        """Input of stage ``s`` computed from the model input (no caches kept)."""
        raise NotImplementedError


class RevNetSmall(_Reversible):
    """A small reversible residual CNN (RevNet), the counterpart of :class:`ResNetSmall`.

    Parameters
    ----------
    widths : tuple of int
        Channels of each stage (even: F and G each work on half).
    blocks_per_stage : tuple of int
        Reversible blocks per stage (default twice :class:`ResNetSmall`'s, for the same conv
        weights; see the module docstring). Non-reversible stride-2 downsampling residual
        blocks sit between stages.
    in_channels, num_classes, seed, dtype
        As :class:`ResNetSmall`.
    """

    def __init__(self, *, widths: Sequence[int] = (16, 32),
                 blocks_per_stage: Sequence[int] = (4, 4), in_channels: int = 1,
                 num_classes: int = 10, seed: int = 0,
                 dtype: type[np.floating] = np.float32) -> None:
        super().__init__()
        rng = self._conv_stem(widths, blocks_per_stage, in_channels, num_classes, seed, dtype,
                              even=True)
        self.stages = [[RevBlock(f=_rev_conv_branch(w // 2, rng, dtype),
                                 g=_rev_conv_branch(w // 2, rng, dtype)) for _ in range(n)]
                       for w, n in zip(widths, blocks_per_stage, strict=True)]
        self.downs = [BasicBlock(cin=widths[s - 1], cout=widths[s], stride=2, rng=rng,
                                 dtype=dtype) for s in range(1, len(widths))]
        # The blocks are pre-activation (bn-relu inside F and G), so the head normalizes.
        self.head = Sequential([BatchNorm(channels=widths[-1], dtype=dtype), ReLU(),
                                GlobalAvgPool()])
        self.fc = Linear(fin=widths[-1], fout=num_classes, rng=rng, dtype=dtype)

    def modules(self) -> Iterator[tuple[str, Layer]]:
        yield "stem", self.stem
        for s, stage in enumerate(self.stages):
            if s:
                yield f"down{s}", self.downs[s - 1]
            for b, blk in enumerate(stage):
                yield f"stage{s}.{b}", blk
        yield "head", self.head
        yield "fc", self.fc

    def _run(self, x: Array, mode: Mode, tape: list[object]) -> Array:
        h, c = self.stem.forward(x, mode)
        tape.append(c)
        for s in range(len(self.stages)):
            if s:
                h, c = self.downs[s - 1].forward(h, mode)  # caches its input: stage s-1's out
                tape.append(c)
            h = self._stage_forward(s, h, mode)
            tape.append(h)  # the stage output, from which its blocks are recomputed
        for module in (self.head, self.fc):
            h, c = module.forward(h, mode)
            tape.append(c)
        return h

    def _back(self, dlogits: Array, tape: list[object]) -> None:
        t = list(tape)
        d = self.fc.backward(dlogits, _pop_tuple(t))
        d = self.head.backward(d, _pop_tuple(t))
        for s in reversed(range(len(self.stages))):
            out = t.pop()
            assert isinstance(out, np.ndarray)
            d = self._stage_backward(s, out, d)
            if s:
                d = self.downs[s - 1].backward(d, _pop_tuple(t))
        self.stem.backward(d, _pop_tuple(t))

    def _stage_input(self, s: int, x: Array, mode: Mode) -> Array:
        h = self.stem.forward(x, mode)[0]
        for k in range(s + 1):
            if k:
                h = self.downs[k - 1].forward(h, mode)[0]
            if k < s:
                h = self._stage_forward(k, h, mode)
        return h


def _pop_tuple(t: list[object]) -> Cache:
    c = t.pop()
    assert isinstance(c, tuple)
    return c


class RevMLP(_Reversible):
    """A dense reversible MLP on flattened images, then a linear classifier.

    Each block: ``y1 = x1 + relu(x2 @ WF)``, ``y2 = x2 + relu(y1 @ WG)`` with ``WF``, ``WG``
    of shape ``(features/2, features/2)`` (input x output) and no bias; the input vector is
    split into its first and second halves.

    Parameters
    ----------
    features : int
        Input features (64 for the 8x8 digits), even.
    blocks : int
        Reversible blocks.
    num_classes : int
        Classes.
    seed : int
        Seed of the weight initialization.
    dtype : numpy float type
        Parameter and activation type.
    """

    def __init__(self, *, features: int = 64, blocks: int = 2, num_classes: int = 10,
                 seed: int = 0, dtype: type[np.floating] = np.float32) -> None:
        super().__init__()
        _check_widths((features,), (blocks,), even=True)
        check_int("num_classes", num_classes, 2, 2**20)
        rng = np.random.default_rng(check_int("seed", seed, 0, 2**63 - 1))
        self.dtype = dtype
        self.features = features
        h = features // 2

        def branch() -> Layer:
            # Variance 0.5 / fan-in (assumed, not He's 2 / fan-in): the couplings only add
            # non-negative relu terms and nothing normalizes, so with He's gain 8 blocks
            # diverged at lr 0.05 on the digits; 0.5 trains 2 and 8 blocks alike.
            return Sequential([Linear(fin=h, fout=h, bias=False, gain=0.5, rng=rng,
                                      dtype=dtype), ReLU()])

        self.stages = [[RevBlock(f=branch(), g=branch()) for _ in range(blocks)]]
        self.fc = Linear(fin=features, fout=num_classes, rng=rng, dtype=dtype)

    def modules(self) -> Iterator[tuple[str, Layer]]:
        for b, blk in enumerate(self.stages[0]):
            yield f"block{b}", blk
        yield "fc", self.fc

    def _flat(self, x: Array) -> Array:
        x = x.reshape(x.shape[0], -1)
        if x.shape[1] != self.features:
            raise ConfigError(f"RevMLP has {self.features} input features, the batch has "
                              f"{x.shape[1]}", field="features", allowed=[x.shape[1]])
        return x

    def _run(self, x: Array, mode: Mode, tape: list[object]) -> Array:
        h = self._stage_forward(0, self._flat(x), mode)
        tape.append(h)
        logits, c = self.fc.forward(h, mode)
        tape.append(c)
        return logits

    def _back(self, dlogits: Array, tape: list[object]) -> None:
        t = list(tape)
        d = self.fc.backward(dlogits, _pop_tuple(t))
        out = t.pop()
        assert isinstance(out, np.ndarray)
        self._stage_backward(0, out, d)

    def _stage_input(self, s: int, x: Array, mode: Mode) -> Array:
        return self._flat(x)

    def block_tensors(self, x_batch: Array, labels: Array) -> dict[str, Array]:
        """Block 0's operands and results for one real training step (no weight update).

        Parameters
        ----------
        x_batch : numpy.ndarray
            ``(N, ...)`` images (flattened to ``features``).
        labels : numpy.ndarray
            ``(N,)`` classes.

        Returns
        -------
        dict of str to numpy.ndarray
            ``x1``, ``x2`` (block 0's input halves, ``(N, features/2)``), ``WF``, ``WG``,
            ``y1``, ``y2`` (its outputs), ``dy1``, ``dy2`` (the loss gradient at its outputs,
            from back-propagating the mean softmax cross-entropy through the later blocks and
            the classifier), and what block 0's backward pass gives: ``dx1``, ``dx2``,
            ``dWF``, ``dWG``.
        """
        mode = Mode(train=True, update_stats=False)
        x1, x2 = _halves(self._flat(np.asarray(x_batch, self.dtype)))
        blocks = self.stages[0]
        ys = [(x1, x2)]
        for blk in blocks:
            ys.append(blk.forward_pair(*ys[-1], mode))
        h = np.concatenate(ys[-1], axis=1)
        logits, c = self.fc.forward(h, mode)
        _, dlogits = softmax_cross_entropy(logits, np.asarray(labels))
        self.zero_grad()
        d1, d2 = _halves(self.fc.backward(dlogits, c))
        for k in reversed(range(1, len(blocks))):
            _, _, d1, d2 = blocks[k].backward_recompute(*ys[k + 1], d1, d2, mode)
        b0 = blocks[0]
        _, _, dx1, dx2 = b0.backward_recompute(*ys[1], d1, d2, mode)
        wf = next(b0.f.leaves())[1]
        wg = next(b0.g.leaves())[1]
        out = {"x1": x1, "x2": x2, "WF": wf.params["w"], "WG": wg.params["w"],
               "y1": ys[1][0], "y2": ys[1][1], "dy1": d1, "dy2": d2, "dx1": dx1, "dx2": dx2,
               "dWF": wf.grads["w"], "dWG": wg.grads["w"]}
        self.zero_grad()
        return {k: np.ascontiguousarray(v).copy() for k, v in out.items()}


@dataclass(frozen=True, kw_only=True)
class TrainReport:
    """What one :func:`train` run measured.

    Attributes
    ----------
    loss : tuple of float
        Mean training loss of each epoch.
    accuracy : tuple of float
        Training accuracy of each epoch (from the training-mode forward passes).
    wall_time_s : float
        Wall-clock time of the whole run.
    stored_activation_bytes : int
        Largest number of bytes a training iteration cached for its backward pass.
    iterations : int
        SGD steps taken.
    batch_size : int
        The batch size.
    """

    loss: tuple[float, ...]
    accuracy: tuple[float, ...]
    wall_time_s: float
    stored_activation_bytes: int
    iterations: int
    batch_size: int


def train(model: Net, train_set: ImageSet, *, epochs: int, batch_size: int, lr: float,
          momentum: float = 0.9, seed: int = 0, weight_decay: float = 0.0,
          schedule: str = "constant",
          progress: Callable[[int, float, float], None] | None = None) -> TrainReport:
    """Train with mini-batch SGD and momentum on softmax cross-entropy.

    Parameters
    ----------
    model : Net
        A :class:`ResNetSmall`, :class:`RevNetSmall` or :class:`RevMLP`; updated in place.
    train_set : ImageSet
        Training images.
    epochs, batch_size : int
        Passes over the data and images per step.
    lr, momentum, weight_decay : float
        ``v = momentum * v - lr * (grad + weight_decay * w)``; ``w += v``.
    schedule : {"constant", "cosine"}
        ``lr`` throughout, or ``lr * (1 + cos(pi * step / steps)) / 2`` (Loshchilov & Hutter
        2017, without restarts). The decay also lets batch norm's running statistics, an
        average over the last ~10 steps, catch up with the weights: at a constant lr 0.05
        they lagged enough on MNIST 5k to cost 7 points of test accuracy against batch
        statistics.
    seed : int
        Seed of the shuffling (with the model's own seed, the run is deterministic).
    progress : callable, optional
        Called after each epoch with ``(epoch, loss, accuracy)``.

    Returns
    -------
    TrainReport
    """
    check_positive("epochs", epochs)
    check_positive("batch_size", batch_size)
    if not lr > 0:
        raise ConfigError(f"lr must be positive, not {lr!r}", field="lr")
    if not 0 <= momentum < 1:
        raise ConfigError(f"momentum must be in [0, 1), not {momentum!r}", field="momentum")
    if schedule not in ("constant", "cosine"):
        raise ConfigError(f"unknown schedule {schedule!r}", field="schedule",
                          allowed=["constant", "cosine"])
    rng = np.random.default_rng(check_int("seed", seed, 0, 2**63 - 1))
    params = model.parameters()
    vel = {k: np.zeros_like(v) for k, v in params.items()}
    n = len(train_set)
    total_steps = epochs * -(-n // batch_size)
    losses, accs = [], []
    stored = steps = 0
    t0 = time.perf_counter()
    for epoch in range(epochs):
        order = rng.permutation(n)
        tot_loss = 0.0
        correct = 0
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            x, y = train_set.images[idx], train_set.labels[idx]
            logits = model.forward(x, train=True)
            stored = max(stored, model.stored_activation_bytes)
            loss, dlogits = softmax_cross_entropy(logits, y)
            model.backward(dlogits)
            grads = model.gradients()
            lr_t = (lr if schedule == "constant"
                    else lr * 0.5 * (1.0 + np.cos(np.pi * steps / total_steps)))
            for k, p in params.items():
                g = grads[k] + weight_decay * p if weight_decay else grads[k]
                vel[k] *= momentum
                vel[k] -= lr_t * g
                p += vel[k]
            tot_loss += loss * len(idx)
            correct += int((logits.argmax(1) == y).sum())
            steps += 1
        losses.append(tot_loss / n)
        accs.append(correct / n)
        if progress is not None:
            progress(epoch, losses[-1], accs[-1])
    return TrainReport(loss=tuple(losses), accuracy=tuple(accs),
                       wall_time_s=time.perf_counter() - t0, stored_activation_bytes=stored,
                       iterations=steps, batch_size=batch_size)


def evaluate(model: Net, test_set: ImageSet, *, batch_size: int = 256) -> float:
    """Accuracy of ``model`` (evaluation mode: batch norm's running statistics)."""
    check_positive("batch_size", batch_size)
    correct = 0
    for start in range(0, len(test_set), batch_size):
        x = test_set.images[start : start + batch_size]
        y = test_set.labels[start : start + batch_size]
        correct += int((model.forward(x, train=False).argmax(1) == y).sum())
    return correct / len(test_set)


@dataclass(frozen=True, kw_only=True)
class FixedPoint:
    """A signed two's-complement fixed-point (Q) format: ``bits`` in all, ``frac`` after the
    point; values ``k * 2**-frac`` for ``k`` in ``-2**(bits-1) .. 2**(bits-1) - 1``, rounded
    to nearest (ties to even) and saturated."""

    bits: int
    frac: int

    def __post_init__(self) -> None:
        check_int("bits", self.bits, 2, 24)  # float32 holds every such value exactly
        check_int("frac", self.frac, 0, self.bits - 1)

    @property
    def name(self) -> str:
        """E.g. ``"int16 Q7.8"`` (integer bits excluding the sign, fraction bits)."""
        return f"int{self.bits} Q{self.bits - 1 - self.frac}.{self.frac}"

    def quantize(self, a: Array) -> Array:
        """``a`` rounded and saturated to the format, as float32."""
        step = 2.0 ** -self.frac
        k = np.clip(np.rint(np.asarray(a, np.float64) / step), -(2 ** (self.bits - 1)),
                    2 ** (self.bits - 1) - 1)
        return (k * step).astype(np.float32)

    def saturated(self, a: Array) -> int:
        """How many elements of ``a`` lie outside the range (before rounding to it)."""
        k = np.rint(np.asarray(a, np.float64) * 2.0**self.frac)
        return int(np.count_nonzero((k < -(2 ** (self.bits - 1)))
                                    | (k > 2 ** (self.bits - 1) - 1)))


#: The floating-point training formats by name.
FLOAT_FORMATS: dict[str, type[np.generic]] = {
    "float64": np.float64, "float32": np.float32, "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16}


def _rounder(dtype: str | FixedPoint) -> tuple[str, type[np.floating], Rounder]:
    if isinstance(dtype, FixedPoint):
        return dtype.name, np.float32, dtype.quantize
    if dtype not in FLOAT_FORMATS:
        raise ConfigError(f"unknown number format {dtype!r}", field="dtype",
                          allowed=sorted(FLOAT_FORMATS) + ["FixedPoint(bits=, frac=)"])
    if dtype == "float64":
        return dtype, np.float64, lambda a: np.asarray(a, np.float64)
    fmt = FLOAT_FORMATS[dtype]
    # Each operator accumulates in float32 and rounds its result to the format (the usual
    # mixed-precision datapath: wide accumulators, narrow stored values).
    return dtype, np.float32, lambda a: np.asarray(a, np.float32).astype(fmt).astype(
        np.float32)


@dataclass(frozen=True, kw_only=True)
class BlockReconstruction:
    """The error of one reversible block's recomputed inputs.

    Attributes
    ----------
    stage, block : int
        Where the block sits.
    depth : int
        Blocks recomputed before it in its chain, this one included (1 = the stage's top
        block, recomputed straight from the stored stage output).
    max_abs_error : float
        ``max |x_recomputed - x_stored|`` over both halves.
    rel_rms_error : float
        ``rms(x_recomputed - x_stored) / rms(x_stored)``.
    """

    stage: int
    block: int
    depth: int
    max_abs_error: float
    rel_rms_error: float


@dataclass(frozen=True, kw_only=True)
class ReconstructionReport:
    """Per-block reconstruction errors of one reversible model in one number format.

    Attributes
    ----------
    format : str
        The number format.
    blocks : tuple of BlockReconstruction
        In forward order (stage 0 block 0 first).
    saturated_fraction : float
        For a fixed-point format, the share of all rounded values (forward and recompute)
        that fell outside its range and saturated; 0 for the float formats.
    """

    format: str
    blocks: tuple[BlockReconstruction, ...] = field(default=())
    saturated_fraction: float = 0.0

    @property
    def max_abs_error(self) -> float:
        """The largest absolute error over all blocks."""
        return max((b.max_abs_error for b in self.blocks), default=0.0)

    @property
    def max_rel_rms_error(self) -> float:
        """The largest relative RMS error over all blocks."""
        return max((b.rel_rms_error for b in self.blocks), default=0.0)


def reconstruction_error(model: RevNetSmall | RevMLP, x: Array, *,
                         dtype: str | FixedPoint) -> ReconstructionReport:
    """Recompute every reversible block's inputs from its outputs in a number format.

    The forward pass runs in the format (weights, and every operator's output, rounded to
    it; batch norm with the batch's statistics, as in training), storing each block's inputs
    for comparison only. Then, per stage, starting from the stored stage output (what the
    training backward pass starts from), each block's inputs are recomputed from the
    recomputed outputs above it, in the same format, so errors accumulate down the chain.

    Parameters
    ----------
    model : RevNetSmall or RevMLP
        The network (its weights are rounded to the format for this run only).
    x : numpy.ndarray
        A batch of inputs.
    dtype : str or FixedPoint
        ``"float64"``, ``"float32"``, ``"bfloat16"``, ``"float16"``, or a Q format.

    Returns
    -------
    ReconstructionReport
    """
    if not isinstance(model, _Reversible):
        raise ConfigError(f"reconstruction needs a reversible model, not "
                          f"{type(model).__name__}", field="model",
                          allowed=["RevNetSmall", "RevMLP"])
    name, cdt, rnd = _rounder(dtype)
    counts = [0, 0]  # values rounded, values saturated

    def q(a: Array) -> Array:
        counts[0] += a.size
        if isinstance(dtype, FixedPoint):
            counts[1] += dtype.saturated(a)
        return rnd(a)

    mode = Mode(train=True, update_stats=False, q=q)
    xin = q(np.asarray(x, cdt))
    rows = []
    for s, stage in enumerate(model.stages):
        h = q(model._stage_input(s, xin, mode))
        pairs = [_halves(h)]
        for blk in stage:
            pairs.append(blk.forward_pair(*pairs[-1], mode))
        y1, y2 = pairs[-1]
        for k in reversed(range(len(stage))):
            y1, y2 = stage[k].inputs_from_outputs(y1, y2, mode)
            ref = np.concatenate(pairs[k], axis=1).astype(np.float64)
            err = np.concatenate([y1, y2], axis=1).astype(np.float64) - ref
            rms_ref = float(np.sqrt(np.mean(ref**2)))
            rows.append(BlockReconstruction(
                stage=s, block=k, depth=len(stage) - k,
                max_abs_error=float(np.abs(err).max()),
                rel_rms_error=float(np.sqrt(np.mean(err**2))) / rms_ref if rms_ref else 0.0))
    rows.sort(key=lambda b: (b.stage, b.block))
    return ReconstructionReport(format=name, blocks=tuple(rows),
                                saturated_fraction=counts[1] / max(counts[0], 1))
