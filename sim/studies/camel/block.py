"""A real reversible block for the CAMEL engine: a RevMLP trained on real digit images.

The engine in RTL (:mod:`archsim.dsl.examples.camel`) runs one RevNet additive-coupling block
with ``F(u) = relu(u @ WF)`` and ``G(u) = relu(u @ WG)``; :func:`real_block` trains
:class:`~archsim.sim.nn.revnet.RevMLP` -- exactly that block, twice, and a linear classifier
-- on scikit-learn's 8x8 digits pooled 2x2 to 4x4 (16 features, so each half is 8 wide, the
engine's 4 x 4 test array takes it in one fold) and returns block 0's operands for one real
training step: the input halves of a real batch, the trained weights and the loss gradients
at the block's outputs (back-propagated through the later block and the classifier), with
numpy's own float results of the block's backward pass to compare against.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....dsl.accel import Accelerator
from ....dsl.examples.camel import BlockShape, block_layout, camel_engine

__all__ = ["RealBlock", "real_block", "real_block_engine", "POOLED_FEATURES"]

#: Features after pooling the 8x8 digits 2x2: two halves of 8.
POOLED_FEATURES = 16


@dataclass(frozen=True)
class RealBlock:
    """Block 0 of a trained RevMLP on one real batch: ``x`` (``batch x 16``, both halves),
    ``wf``, ``wg`` (``8 x 8``, input x output), ``dy1``, ``dy2`` and numpy's float64 results
    ``expected`` (``y1, y2, dx1, dx2, dWF, dWG``); ``test_accuracy`` of the trained net."""

    x: np.ndarray
    wf: np.ndarray
    wg: np.ndarray
    dy1: np.ndarray
    dy2: np.ndarray
    expected: dict[str, np.ndarray]
    test_accuracy: float


def _pool(images: np.ndarray) -> np.ndarray:
    n, c, h, w = images.shape
    return images.reshape(n, c, h // 2, 2, w // 2, 2).mean(axis=(3, 5))


def real_block(*, batch: int = 16, seed: int = 0, epochs: int = 20) -> RealBlock:
    """Train the pooled-digits RevMLP (module docstring) and take block 0 on the first
    ``batch`` test images."""
    from ...nn.digits import ImageSet, load_digits
    from ...nn.revnet import RevMLP, evaluate, train

    data = load_digits()
    pooled = ImageSet(images=_pool(data.images), labels=data.labels, name=data.name + "/4x4",
                      source=data.source, licence=data.licence, index=data.index)
    train_set, test_set = pooled.split(seed)
    model = RevMLP(features=POOLED_FEATURES, blocks=2, seed=seed, dtype=np.float64)
    train(model, train_set, epochs=epochs, batch_size=32, lr=0.05, momentum=0.9, seed=seed)
    accuracy = evaluate(model, test_set)
    t = model.block_tensors(test_set.images[:batch], test_set.labels[:batch])
    expected = {k: t[k] for k in ("y1", "y2", "dx1", "dx2", "dWF", "dWG")}
    return RealBlock(x=np.concatenate([t["x1"], t["x2"]], axis=1), wf=t["WF"], wg=t["WG"],
                     dy1=t["dy1"], dy2=t["dy2"], expected=expected, test_accuracy=accuracy)


def real_block_engine(batch: int = 16) -> tuple[Accelerator, BlockShape]:
    """The :func:`~archsim.dsl.examples.camel.camel_engine` (4 x 4, at 25 C, buffers sized
    for the block) and the block shape a :func:`real_block` of ``batch`` rows runs on.

    ``batch`` 16 keeps the real loss gradients within the engine's Q1.14 gradient format
    (at batch 4 the mean loss is 4x steeper and ``dx2`` reaches 4.0, saturating at 2)."""
    shape = BlockShape(batch=batch, d=POOLED_FEATURES // 2)
    words = block_layout(shape).words
    engine = camel_engine(gb_words=1 << (words["gb"] - 1).bit_length(),
                          acc_words=max(512, 1 << (words["acc"] - 1).bit_length()),
                          temperature_c=25.0)
    return engine, shape
