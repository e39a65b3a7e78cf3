"""LeNet-300-100 and LeNet-5 in numpy, trainable with weight masks and frozen layers.

The two MNIST networks of the compression literature (LeCun et al. 1998; the variants of
Han et al., "Learning both Weights and Connections", NeurIPS 2015, and of Deep Compression):

- LeNet-300-100: fully connected 784-300-100-10 with ReLU (266,200 weights).
- LeNet-5 (Caffe's variant): conv 5x5 1->20, max-pool 2, conv 5x5 20->50, max-pool 2,
  fully connected 800-500 with ReLU, 500-10 (430,500 weights).

Every weighted layer keeps its weight as a 2-D matrix ``(fan_in, fan_out)`` (a convolution's
``(cin * kh * kw, cout)``, the im2col layout), so a compression pipeline handles both kinds
alike. :func:`train` runs Adam on softmax cross-entropy and honours a per-layer ``mask``
(pruned weights stay exactly zero) and ``trainable`` flag (frozen layers are not updated).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...errors import ConfigError
from ...hw.checks import check_int, check_positive
from .conv import col2im, im2col
from .digits import ImageSet
from .revnet import softmax_cross_entropy

__all__ = ["WeightedLayer", "LeNet", "lenet_300_100", "lenet_5", "LeNetTrainReport",
           "train_lenet", "lenet_accuracy", "ARCHITECTURES"]

Array = np.ndarray

#: The architectures :func:`LeNet.build` knows.
ARCHITECTURES = ("lenet-300-100", "lenet-5")


@dataclass(eq=False)
class WeightedLayer:
    """A fully connected or convolution layer.

    Attributes
    ----------
    name : str
        ``fc0``, ``conv1``, ...
    kind : {"fc", "conv"}
    weight : numpy.ndarray
        ``(fan_in, fan_out)`` float32 (a conv's ``(cin * k * k, cout)``).
    bias : numpy.ndarray
        ``(fan_out,)`` float32.
    kernel : int
        The square kernel side of a conv (0 for fc).
    mask : numpy.ndarray, optional
        Boolean, the shape of ``weight``: where weights may be non-zero (``None``: dense).
    trainable : bool
        Whether :func:`train_lenet` updates this layer.
    """

    name: str
    kind: str
    weight: Array
    bias: Array
    kernel: int = 0
    mask: Array | None = None
    trainable: bool = True

    @property
    def num_weights(self) -> int:
        """Weights of the layer (biases not counted)."""
        return int(self.weight.size)


def _init(rng: np.random.Generator, fan_in: int, fan_out: int) -> Array:
    # He-normal initialization for ReLU nets (He et al. 2015).
    return (rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32)


@dataclass(eq=False)
class LeNet:
    """A LeNet: its weighted layers in order and the architecture name.

    Use :func:`lenet_300_100` or :func:`lenet_5`; arch ``"mlp"`` is a stack of fully
    connected layers on flattened inputs (what :meth:`tail` returns).
    """

    arch: str
    layers: list[WeightedLayer] = field(default_factory=list)

    @classmethod
    def build(cls, arch: str, *, seed: int = 0) -> LeNet:
        """A freshly initialized network of architecture ``arch`` (see :data:`ARCHITECTURES`)."""
        rng = np.random.default_rng(check_int("seed", seed, 0, 2**63 - 1))
        z = np.zeros
        if arch == "lenet-300-100":
            sizes = [(784, 300), (300, 100), (100, 10)]
            layers = [WeightedLayer(name=f"fc{i}", kind="fc", weight=_init(rng, a, b),
                                    bias=z(b, np.float32)) for i, (a, b) in enumerate(sizes)]
        elif arch == "lenet-5":
            layers = [
                WeightedLayer(name="conv0", kind="conv", weight=_init(rng, 25, 20),
                              bias=z(20, np.float32), kernel=5),
                WeightedLayer(name="conv1", kind="conv", weight=_init(rng, 500, 50),
                              bias=z(50, np.float32), kernel=5),
                WeightedLayer(name="fc0", kind="fc", weight=_init(rng, 800, 500),
                              bias=z(500, np.float32)),
                WeightedLayer(name="fc1", kind="fc", weight=_init(rng, 500, 10),
                              bias=z(10, np.float32)),
            ]
        else:
            raise ConfigError(f"unknown architecture '{arch}'", field="arch",
                              allowed=list(ARCHITECTURES))
        return cls(arch=arch, layers=layers)

    def copy(self) -> LeNet:
        """A deep copy (weights, biases, masks and flags)."""
        return LeNet(arch=self.arch, layers=[WeightedLayer(
            name=ly.name, kind=ly.kind, weight=ly.weight.copy(), bias=ly.bias.copy(),
            kernel=ly.kernel, mask=None if ly.mask is None else ly.mask.copy(),
            trainable=ly.trainable) for ly in self.layers])

    @property
    def num_weights(self) -> int:
        """Weights of all layers (biases not counted)."""
        return sum(ly.num_weights for ly in self.layers)

    def layer(self, name: str) -> WeightedLayer:
        """The layer called ``name``."""
        for ly in self.layers:
            if ly.name == name:
                return ly
        raise ConfigError(f"{self.arch} has no layer '{name}'", field="layer",
                          allowed=[ly.name for ly in self.layers])

    def forward(self, images: Array) -> tuple[Array, list[tuple[object, ...]]]:
        """Logits of ``(N, 1, 28, 28)`` images and the caches for :meth:`backward`."""
        caches: list[tuple[object, ...]] = []
        if self.arch != "lenet-5":
            x = images.reshape(images.shape[0], -1)
            for i, ly in enumerate(self.layers):
                y = x @ ly.weight + ly.bias
                last = i == len(self.layers) - 1
                caches.append((x, None if last else y > 0))
                x = y if last else np.maximum(y, 0)
            return x, caches
        x = images
        for ly in self.layers[:2]:
            cols = im2col(x, k=ly.kernel)  # (N, H', W', cin k k)
            y = cols @ ly.weight + ly.bias  # (N, H', W', cout), no ReLU (Caffe's LeNet)
            pooled, arg = _maxpool2(y)
            caches.append((cols, x.shape, arg, y.shape))
            x = pooled.transpose(0, 3, 1, 2)  # back to (N, C, H, W)
        x = x.reshape(x.shape[0], -1)
        fc0, fc1 = self.layers[2:]
        h = x @ fc0.weight + fc0.bias
        caches.append((x, h > 0))
        h = np.maximum(h, 0)
        caches.append((h, None))
        return h @ fc1.weight + fc1.bias, caches

    def backward(self, dlogits: Array, caches: list[tuple[object, ...]], *, stop: int = 0,
                 ) -> list[tuple[Array, Array]]:
        """``(dW, db)`` of every layer from the loss gradient of the logits.

        Layers before ``stop`` get empty gradients (frozen layers need none, and the
        backward pass ends there).
        """
        grads: list[tuple[Array, Array]] = [(np.empty(0), np.empty(0))] * len(self.layers)
        d = dlogits
        n_fc = len(self.layers) if self.arch != "lenet-5" else 2
        first_fc = len(self.layers) - n_fc
        for i in range(len(self.layers) - 1, max(first_fc, stop) - 1, -1):
            x, relu = caches[i]
            assert isinstance(x, np.ndarray)
            if relu is not None:
                d = d * relu
            grads[i] = (x.T @ d, d.sum(0))
            if i > stop:
                d = d @ self.layers[i].weight.T
        if self.arch == "lenet-5" and stop < first_fc:
            d = d.reshape(-1, 50, 4, 4).transpose(0, 2, 3, 1)  # (N, 4, 4, 50)
            for i in range(1, stop - 1, -1):
                cols, x_shape, arg, y_shape = caches[i]
                assert isinstance(cols, np.ndarray) and isinstance(arg, np.ndarray)
                dy = _maxpool2_backward(d, arg, y_shape)  # type: ignore[arg-type]
                ly = self.layers[i]
                grads[i] = (cols.reshape(-1, cols.shape[-1]).T @ dy.reshape(-1, dy.shape[-1]),
                            dy.sum((0, 1, 2)))
                if i > stop:
                    dcols = dy @ ly.weight.T
                    d = col2im(dcols, x_shape, k=ly.kernel)  # type: ignore[arg-type]
                    d = d.transpose(0, 2, 3, 1)  # (N, H, W, C) for the pool below
        return grads

    def features(self, images: Array, *, layer: int, batch_size: int = 500) -> Array:
        """The input of weighted layer ``layer`` for ``images``, flattened to ``(N, F)``.

        LeNet-5 supports ``layer`` 2 (the flattened pooled conv output) and 3; an MLP any
        layer from 0.
        """
        low = 2 if self.arch == "lenet-5" else 0
        if isinstance(layer, bool) or not isinstance(layer, int) \
                or not low <= layer < len(self.layers):
            raise ConfigError(f"layer must be an int in {low}..{len(self.layers) - 1} for "
                              f"{self.arch}, not {layer!r}", field="layer")
        out = []
        for s in range(0, images.shape[0], batch_size):
            logits_caches = self.forward(images[s : s + batch_size])[1]
            x = logits_caches[layer][0]  # each fc cache starts with the layer's input
            assert isinstance(x, np.ndarray)
            out.append(x)
        return np.concatenate(out)

    def tail(self, layer: int) -> LeNet:
        """An MLP (arch ``"mlp"``) of copies of layers ``layer ..``, fed by :meth:`features`."""
        return LeNet(arch="mlp", layers=self.copy().layers[layer:])

    def predict(self, images: Array, *, batch_size: int = 500) -> Array:
        """Predicted classes of ``images``."""
        out = [self.forward(images[s : s + batch_size])[0].argmax(1)
               for s in range(0, images.shape[0], batch_size)]
        return np.concatenate(out)


def lenet_300_100(*, seed: int = 0) -> LeNet:
    """LeNet-300-100, He-initialized with ``seed``."""
    return LeNet.build("lenet-300-100", seed=seed)


def lenet_5(*, seed: int = 0) -> LeNet:
    """LeNet-5 (Caffe's variant), He-initialized with ``seed``."""
    return LeNet.build("lenet-5", seed=seed)


def _maxpool2(y: Array) -> tuple[Array, Array]:
    """2x2 max-pool of ``(N, H, W, C)`` (H, W even) and the argmax within each window."""
    n, h, w, c = y.shape
    win = y.reshape(n, h // 2, 2, w // 2, 2, c).transpose(0, 1, 3, 5, 2, 4).reshape(
        n, h // 2, w // 2, c, 4)
    arg = win.argmax(-1)
    return np.take_along_axis(win, arg[..., None], -1)[..., 0], arg


def _maxpool2_backward(d: Array, arg: Array, y_shape: tuple[int, int, int, int]) -> Array:
    n, h, w, c = y_shape
    win = np.zeros((n, h // 2, w // 2, c, 4), d.dtype)
    np.put_along_axis(win, arg[..., None], d[..., None], -1)
    return win.reshape(n, h // 2, w // 2, c, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(
        n, h, w, c)


@dataclass(frozen=True)
class LeNetTrainReport:
    """Per-epoch mean training loss, the wall time and the steps taken."""

    losses: list[float]
    wall_s: float
    steps: int


def train_lenet(model: LeNet, data: ImageSet, *, epochs: int, lr: float = 1e-3,
                batch_size: int = 64, weight_decay: float = 0.0, seed: int = 0,
                progress: Callable[[int, float], None] | None = None) -> LeNetTrainReport:
    """Train ``model`` in place with Adam (Kingma & Ba 2015; betas 0.9/0.999, eps 1e-8).

    Layers with ``trainable=False`` are not updated; a layer's ``mask`` zeroes its pruned
    weights after every step (their gradient is masked too).

    Parameters
    ----------
    model : LeNet
    data : ImageSet
        ``(N, 1, 28, 28)`` training images.
    epochs, batch_size : int
        Passes over ``data`` and images per step (>= 1).
    lr, weight_decay : float
        Adam's step size (> 0) and an L2 term added to the weights' gradients (>= 0).
    seed : int
        Seed of the shuffle.
    progress : callable, optional
        Called after each epoch with ``(epoch, mean loss)``.
    """
    check_positive("epochs", epochs)
    check_positive("batch_size", batch_size)
    if not lr > 0:
        raise ConfigError(f"lr must be positive, not {lr!r}", field="lr")
    if not weight_decay >= 0:
        raise ConfigError(f"weight_decay must be >= 0, not {weight_decay!r}",
                          field="weight_decay")
    if model.arch != "mlp" and data.images.shape[1:] != (1, 28, 28):
        raise ConfigError(f"LeNets take (N, 1, 28, 28) images, not {data.images.shape}",
                          field="data")
    rng = np.random.default_rng(check_int("seed", seed, 0, 2**63 - 1))
    stop = next((i for i, ly in enumerate(model.layers) if ly.trainable), len(model.layers))
    if stop == len(model.layers):
        raise ConfigError("every layer is frozen: nothing to train", field="trainable")
    state = [[np.zeros_like(p) for p in (ly.weight, ly.bias, ly.weight, ly.bias)]
             for ly in model.layers]
    b1, b2, eps = 0.9, 0.999, 1e-8
    n = len(data)
    losses: list[float] = []
    step = 0
    t0 = time.perf_counter()
    for epoch in range(epochs):
        order = rng.permutation(n)
        total = 0.0
        for s in range(0, n, batch_size):
            idx = order[s : s + batch_size]
            logits, caches = model.forward(data.images[idx])
            loss, dlogits = softmax_cross_entropy(logits, data.labels[idx])
            total += loss * idx.size
            grads = model.backward(dlogits.astype(np.float32), caches, stop=stop)
            step += 1
            corr1, corr2 = 1 - b1**step, 1 - b2**step
            for ly, (gw, gb), (mw, mb, vw, vb) in zip(model.layers, grads, state, strict=True):
                if not ly.trainable:
                    continue
                if weight_decay:
                    gw = gw + weight_decay * ly.weight
                if ly.mask is not None:
                    gw = gw * ly.mask
                for p, g, m, v in ((ly.weight, gw, mw, vw), (ly.bias, gb, mb, vb)):
                    m *= b1
                    m += (1 - b1) * g
                    v *= b2
                    v += (1 - b2) * g * g
                    p -= (lr * (m / corr1) / (np.sqrt(v / corr2) + eps)).astype(np.float32)
                if ly.mask is not None:
                    ly.weight *= ly.mask
        losses.append(total / n)
        if progress is not None:
            progress(epoch, losses[-1])
    return LeNetTrainReport(losses=losses, wall_s=time.perf_counter() - t0, steps=step)


def lenet_accuracy(model: LeNet, data: ImageSet | Sequence[Array]) -> float:
    """Top-1 accuracy of ``model`` on ``data`` (an ImageSet or ``(images, labels)``)."""
    images, labels = ((data.images, data.labels) if isinstance(data, ImageSet)
                      else (data[0], data[1]))
    return float((model.predict(images) == labels).mean())
