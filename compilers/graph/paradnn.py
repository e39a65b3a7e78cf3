"""ParaDnn's parameterized FC, CNN and RNN model generators (Wang, Wei & Brooks,
"Benchmarking TPU, GPU, and CPU Platforms for Deep Learning", arXiv:1907.10701, 2019).

Model structure follows the reference code, github.com/Emma926/paradnn
(``paradnn/fc.py``, ``paradnn/cnn.py`` with ``resnet_model.py``, ``paradnn/rnn.py``):

- FC: ``input -> [dense(nodes) + ReLU] x layers -> dense(output)``.
- CNN: a ResNet v1 -- conv 7x7/2 + BN + ReLU, max pool 3x3/2, four groups of
  residual (two 3x3 convs) or bottleneck (1x1, 3x3, 1x1 with 4x expansion) blocks with the
  same number of blocks per group, filters doubling per group from ``filters``, a
  projection shortcut on every group's first block, a 7x7/1 "valid" average pool and a
  dense classifier. Convs have no bias; batch norms have ``gamma``/``beta``.
- RNN: ``embedding(vocab, E) -> [RNN|LSTM|GRU cell, E units] x layers -> dense(vocab)``
  at every position of the sequence.

:data:`PARADNN_SWEEPS` holds the swept values. They are the loop values (active and
commented out) of the reference run scripts ``paradnn/run/{fc_cpu,fc_tpu,cnn_tpu,
rnn_tpu}.sh``; FC layers use ``fc_cpu.sh`` (4, 16, 32, 64, 128). Those scripts pass
``--input_size=node --output_size=node`` to the FC model although they loop over input
2000 and output 1000; the sweep keeps the looped dataset sizes. The CNN scripts also list
image size 100, which the model cannot run (the final 7x7 "valid" average pool exceeds the
4x4 feature map; TensorFlow rejects it), so the CNN sweep uses 200 and 300.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ...errors import ConfigError
from .cnn import RECURRENT_CELLS, NetBuilder, embedding, positive_int
from .ir import TensorSpec, WorkloadGraph

__all__ = ["PARADNN_SWEEPS", "CNN_BLOCKS", "paradnn_fc", "paradnn_cnn", "paradnn_rnn",
           "paradnn_sweep", "paradnn_model"]

_SRC = "Wang, Wei & Brooks 2019 (ParaDnn); structure from github.com/Emma926/paradnn"

#: The residual-network block kinds of the CNN family.
CNN_BLOCKS: tuple[str, ...] = ("residual", "bottleneck")


def _doubling(lo: int, hi: int) -> tuple[int, ...]:
    out = [lo]
    while out[-1] * 2 <= hi:
        out.append(out[-1] * 2)
    return tuple(out)


#: Swept hyperparameter values per family (see the module docstring for their source).
PARADNN_SWEEPS: dict[str, dict[str, tuple[Any, ...]]] = {
    "fc": {"layers": (4, 16, 32, 64, 128), "nodes": _doubling(32, 8192),
           "input_size": (2000,), "output_size": (1000,), "batch": _doubling(64, 16384)},
    "cnn": {"block": CNN_BLOCKS, "blocks": tuple(range(1, 9)), "filters": (16, 32, 64),
            "image_size": (200, 300), "output_size": (500, 1000, 1500),
            "batch": _doubling(64, 1024)},
    "rnn": {"cell": ("rnn", "lstm", "gru"), "layers": (1, 5, 9, 13),
            "max_length": (10, 50, 90), "vocab_size": (1, 5, 9),
            "embedding_size": (100, 500, 900), "batch": _doubling(64, 1024)},
}



def paradnn_fc(*, layers: int = 4, nodes: int = 1024, input_size: int = 2000,
               output_size: int = 1000, batch: int = 64, dtype: str = "fp32") -> WorkloadGraph:
    """A ParaDnn fully connected model (``paradnn/fc.py``); dense layers have biases."""
    for k, v in [("layers", layers), ("nodes", nodes), ("input_size", input_size),
                 ("output_size", output_size), ("batch", batch)]:
        positive_int(k, v)
    g = WorkloadGraph(f"paradnn-fc-l{layers}-n{nodes}-b{batch}", metadata={
        "model": "paradnn-fc", "layers": layers, "nodes": nodes, "input_size": input_size,
        "output_size": output_size, "batch": batch, "dtype": dtype, "source": _SRC})
    nb = NetBuilder(g, TensorSpec("inputs", (batch, input_size), dtype, role="input"))
    for i in range(layers):
        nb.fc(f"fc_{i}", nodes)
        nb.act(f"fc_{i}.relu")
    nb.fc(f"fc_{layers}", output_size)
    return g


def paradnn_cnn(*, block: str = "residual", blocks: int = 1, filters: int = 64,
                image_size: int = 224, output_size: int = 1000, batch: int = 64,
                dtype: str = "fp32") -> WorkloadGraph:
    """A ParaDnn ResNet-like CNN (``paradnn/cnn.py`` and ``resnet_model.py``).

    ``blocks`` blocks in each of the four groups (ParaDnn keeps every group the same
    depth); ``filters`` is the first group's width.
    """
    if block not in CNN_BLOCKS:
        raise ConfigError(f"unknown block '{block}'", field="block", allowed=CNN_BLOCKS)
    for k, v in [("blocks", blocks), ("filters", filters), ("image_size", image_size),
                 ("output_size", output_size), ("batch", batch)]:
        positive_int(k, v)
    if -(-image_size // 32) < 7:
        raise ConfigError(f"image_size {image_size} leaves a {-(-image_size // 32)}x"
                          f"{-(-image_size // 32)} map for the final 7x7 average pool; "
                          "ParaDnn's CNN needs image_size >= 193", field="image_size")
    g = WorkloadGraph(f"paradnn-cnn-{block}-x{blocks}-f{filters}-i{image_size}-b{batch}",
                      metadata={"model": "paradnn-cnn", "block": block, "blocks": blocks,
                                "filters": filters, "image_size": image_size,
                                "output_size": output_size, "batch": batch, "dtype": dtype,
                                "source": _SRC})
    nb = NetBuilder(g, TensorSpec("images", (batch, 3, image_size, image_size), dtype,
                                  role="input"))
    # Strided convs pad k-1 in total ("fixed padding") then run "valid": that is exactly
    # TensorFlow's "same" output size, ceil(in / stride).
    nb.conv_bn_relu("initial_conv", filters, 7, stride=2, padding="same")
    nb.pool("initial_max_pool", 3, 2, padding="same")
    for gi in range(4):
        width = filters * 2 ** gi
        for bi in range(blocks):
            p = f"block_group{gi + 1}_block{bi}"
            s = (1 if gi == 0 else 2) if bi == 0 else 1
            block_in = shortcut = nb.x
            if bi == 0:
                out_c = 4 * width if block == "bottleneck" else width
                shortcut = nb.conv_bn_relu(p + "_proj_conv", out_c, 1, stride=s,
                                           padding="same", relu=False, x=block_in)
                nb.x = block_in
            if block == "residual":
                nb.conv_bn_relu(p + "_conv0", width, 3, stride=s, padding="same")
                y = nb.conv_bn_relu(p + "_conv1", width, 3, padding="same", relu=False)
            else:
                nb.conv_bn_relu(p + "_conv0", width, 1)
                nb.conv_bn_relu(p + "_conv1", width, 3, stride=s, padding="same")
                y = nb.conv_bn_relu(p + "_conv2", 4 * width, 1, relu=False)
            nb.add(p + "_add", y, shortcut)
            nb.act(p + "_relu")
    nb.pool("final_avg_pool", 7, 1, mode="avg", padding="valid")
    nb.flatten("flatten")
    nb.fc("final_dense", output_size)
    return g


def paradnn_rnn(*, cell: str = "rnn", layers: int = 5, max_length: int = 50,
                vocab_size: int = 1024, embedding_size: int = 100, batch: int = 64,
                dtype: str = "fp32") -> WorkloadGraph:
    """A ParaDnn recurrent model (``paradnn/rnn.py``): cells of ``embedding_size`` units and
    a dense layer (with bias) to the vocabulary at every position."""
    if cell not in RECURRENT_CELLS:
        raise ConfigError(f"unknown recurrent cell '{cell}'", field="cell",
                          allowed=sorted(RECURRENT_CELLS))
    for k, v in [("layers", layers), ("max_length", max_length), ("vocab_size", vocab_size),
                 ("embedding_size", embedding_size), ("batch", batch)]:
        positive_int(k, v)
    g = WorkloadGraph(f"paradnn-rnn-{cell}-l{layers}-t{max_length}-e{embedding_size}-b{batch}",
                      metadata={"model": "paradnn-rnn", "cell": cell, "layers": layers,
                                "max_length": max_length, "vocab_size": vocab_size,
                                "embedding_size": embedding_size, "batch": batch,
                                "dtype": dtype, "source": _SRC})
    ids = TensorSpec("inputs", (batch, max_length), "int32", role="input")
    g.add(embedding("embeddings", ids, vocab=vocab_size, dim=embedding_size, dtype=dtype))
    nb = NetBuilder(g, g["embeddings"].outputs[0])
    for i in range(layers):
        nb.rnn(f"cell_{i}", embedding_size, cell=cell)
    nb.fc("logits", vocab_size)
    return g


_BUILDERS: dict[str, Callable[..., WorkloadGraph]] = {"fc": paradnn_fc, "cnn": paradnn_cnn, "rnn": paradnn_rnn}


def paradnn_model(family: str, **params: int | str) -> WorkloadGraph:
    """Build one model of ``family`` (``"fc"``, ``"cnn"`` or ``"rnn"``)."""
    try:
        builder = _BUILDERS[family]
    except KeyError:
        raise ConfigError(f"unknown ParaDnn family '{family}'", field="family",
                          allowed=sorted(_BUILDERS)) from None
    return builder(**params)


def paradnn_sweep(family: str, *, overrides: Mapping[str, Any] | None = None
                  ) -> Iterator[dict[str, Any]]:
    """Every parameter combination of ``family``'s sweep, as keyword dicts for
    :func:`paradnn_model`. ``overrides`` replaces a swept axis by a value or a tuple of
    values (e.g. ``{"batch": 64}`` to fix the batch)."""
    try:
        axes = dict(PARADNN_SWEEPS[family])
    except KeyError:
        raise ConfigError(f"unknown ParaDnn family '{family}'", field="family",
                          allowed=sorted(PARADNN_SWEEPS)) from None
    for k, v in (overrides or {}).items():
        if k not in axes:
            raise ConfigError(f"'{k}' is not a swept parameter of ParaDnn {family}",
                              field=k, allowed=sorted(axes))
        axes[k] = tuple(v) if isinstance(v, list | tuple) else (v,)
    names = list(axes)
    for combo in itertools.product(*(axes[n] for n in names)):
        yield dict(zip(names, combo, strict=True))
