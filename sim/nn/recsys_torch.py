"""The eight DeepRecSys models' forward pass in PyTorch (CPU), with the numpy model's weights.

:class:`TorchRecModel` builds the numpy :class:`~archsim.sim.nn.recsys.RecModel` for the same
``config``, ``seed`` and ``table_rows_cap`` and wraps its arrays as tensors (no copy), so both
backends compute the same function and their outputs agree to float32 tolerance. The
operators are PyTorch's own kernels: SparseLengthsSum is ``embedding_bag(mode="sum")``, FC
``addmm``, DIEN's recurrent layers ``torch.nn.GRU`` / ``torch.nn.RNN`` (the gate order and
the new-gate formula of :func:`~archsim.sim.nn.recsys.gru_layer` are PyTorch's, with the
hidden-side bias zero), DIN's attention a batched ``matmul``. Timings per operator group are
the numpy model's (:data:`~archsim.sim.nn.recsys.OP_GROUPS`).

PyTorch is an optional extra (``pip install archsim[torch]``) and is imported when a model is
built; :func:`torch_available` says whether it can be.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ...compilers.graph.recsys import RecModelConfig
from ...errors import ToolchainError
from .recsys import GroupClock, RecModel, RecOutput, check_inputs, compose_towers

if TYPE_CHECKING:
    import torch

__all__ = ["TorchRecModel", "torch_available"]


def torch_available() -> bool:
    """Whether PyTorch can be imported (the ``torch`` extra is installed)."""
    return importlib.util.find_spec("torch") is not None


def _torch() -> ModuleType:
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ToolchainError("the PyTorch backend needs PyTorch",
                             install="the optional extra: pip install 'archsim[torch]'") from exc
    return torch


class TorchRecModel:
    """A DeepRecSys model in PyTorch with the weights of ``RecModel(config, seed=seed, ...)``.

    Parameters
    ----------
    config
        The model (:data:`~archsim.compilers.graph.recsys.RECSYS_MODELS`).
    seed
        Seed of every table and weight (the numpy model's).
    table_rows_cap
        If given, every table has ``min(rows, table_rows_cap)`` rows.
    """

    def __init__(self, config: RecModelConfig, *, seed: int,
                 table_rows_cap: int | None = None) -> None:
        th = _torch()
        ref = RecModel(config, seed=seed, table_rows_cap=table_rows_cap)
        self.config = ref.config
        self.seed = ref.seed
        self.table_rows = ref.table_rows
        t = th.from_numpy

        def mlp(layers: list[tuple[NDArray[np.float32], NDArray[np.float32]]]
                ) -> list[tuple[torch.Tensor, torch.Tensor]]:
            return [(t(w), t(b)) for w, b in layers]

        self.tables = [t(a) for a in ref.tables]
        self.bottom = mlp(ref.bottom)
        self.top = mlp(ref.top)
        self.final = mlp(ref.final)
        self.tasks = [mlp(tw) for tw in ref.tasks]
        self.attention = mlp(ref.attention)
        self.recurrent: list[torch.nn.Module] = []
        self.gru_att: tuple[torch.Tensor, torch.Tensor] | None = None
        if config.kind == "dien":
            assert ref.gru_att is not None
            self.gru_att = (t(ref.gru_att[0]), t(ref.gru_att[1]))
            cls = th.nn.GRU if config.rnn_cell == "gru" else th.nn.RNN
            for w, r, b in ref.grus:
                layer = cls(input_size=w.shape[1], hidden_size=r.shape[1], batch_first=True)
                layer.requires_grad_(False)
                layer.weight_ih_l0.copy_(t(w))
                layer.weight_hh_l0.copy_(t(r))
                layer.bias_ih_l0.copy_(t(b))
                layer.bias_hh_l0.zero_()  # the numpy cell has one bias, on the input side
                self.recurrent.append(layer)

    def forward(self, dense: NDArray[np.float32], indices: tuple[NDArray[np.int64], ...]
                | list[NDArray[np.int64]], lengths: tuple[NDArray[np.int32], ...]
                | list[NDArray[np.int32]], *,
                timings: dict[str, float] | None = None,
                timer: Callable[[], float] = time.perf_counter) -> RecOutput:
        """Run the model on one batch given as numpy arrays (wrapped without a copy);
        arguments, ``timings`` and ``timer`` as :meth:`archsim.sim.nn.recsys.RecModel.forward`."""
        th = _torch()
        c = self.config
        check_inputs(c, dense, indices, lengths)
        x_dense = th.from_numpy(np.ascontiguousarray(dense, dtype=np.float32))
        clock = GroupClock(timings, timer=timer)
        relu = th.nn.functional.relu

        def run_mlp(x: torch.Tensor, layers: list[tuple[torch.Tensor, torch.Tensor]],
                    last_relu: bool) -> torch.Tensor:
            for j, (w, b) in enumerate(layers):
                x = th.addmm(b, x, w)
                if last_relu or j < len(layers) - 1:
                    x = relu(x)
            return x

        with th.inference_mode():
            with clock("sls"):
                pooled = []
                for table, idx, ln in zip(self.tables, indices, lengths, strict=True):
                    ln_t = th.from_numpy(np.asarray(ln, dtype=np.int64))
                    offsets = th.cumsum(ln_t, 0) - ln_t
                    pooled.append(th.nn.functional.embedding_bag(
                        th.from_numpy(np.asarray(idx, dtype=np.int64)), table, offsets,
                        mode="sum"))
            logits = compose_towers(
                self, x_dense, pooled, clock=clock, run_mlp=run_mlp,
                cat=lambda parts: th.cat(parts, dim=1),
                din_attention=self._din_attention, dien_sequence=self._dien_sequence)
            probabilities = th.sigmoid(logits)
        return RecOutput(logits=logits.numpy(), probabilities=probabilities.numpy())

    def _din_attention(self, pooled: list[torch.Tensor]) -> torch.Tensor:
        th = _torch()
        nb = self.config.behavior_tables
        keys = th.stack(pooled[1:1 + nb])               # (nb, batch, d)
        ad = pooled[1 + nb]
        q = ad.expand_as(keys)
        x = th.cat([keys, q, keys + ad], dim=2)
        for w, b in self.attention:
            x = th.relu(th.baddbmm(b, x, w))
        return x.sum(dim=0)

    def _dien_sequence(self, pooled: list[torch.Tensor]) -> torch.Tensor:
        th = _torch()
        nb = self.config.behavior_tables
        seq = th.stack(pooled[1:1 + nb], dim=1)          # (batch, nb, d)
        h1, _ = self.recurrent[0](seq)
        assert self.gru_att is not None
        w, b = self.gru_att
        e = th.softmax(h1 @ w + b, dim=2)                # over the hidden axis (dien.py)
        out, _ = self.recurrent[1](h1 + e)
        result: torch.Tensor = out[:, -1]
        return result
