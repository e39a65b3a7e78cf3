"""The PyTorch forward pass of the DeepRecSys models against the numpy one (same weights)."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.compilers.graph.recsys import RECSYS_MODELS, get_recsys
from archsim.errors import ConfigError
from archsim.sim.nn.recsys import OP_GROUPS, RecModel, random_inputs
from archsim.sim.recsys.measure import measure_cpu

torch = pytest.importorskip("torch")

from archsim.sim.nn.recsys_torch import TorchRecModel, torch_available  # noqa: E402

CAP = 300


@pytest.mark.parametrize("name", list(RECSYS_MODELS))
def test_outputs_match_numpy_to_float32_tolerance(name: str) -> None:
    config = get_recsys(name)
    ref = RecModel(config, seed=7, table_rows_cap=CAP)
    mine = TorchRecModel(config, seed=7, table_rows_cap=CAP)
    x = random_inputs(config, 6, seed=2, table_rows_cap=CAP)
    want = ref.forward(x.dense, x.indices, x.lengths)
    got = mine.forward(x.dense, x.indices, x.lengths)
    # Two float32 implementations of the same sums in other orders: a few ulps per layer.
    np.testing.assert_allclose(got.logits, want.logits, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got.probabilities, want.probabilities, rtol=1e-4, atol=1e-6)


def test_sls_is_the_sum_of_gathered_rows_with_ragged_lengths() -> None:
    # NCF, batch 3, table 2 given ragged lengths; its pooled row enters the MLP, so compare
    # against the numpy model, whose SparseLengthsSum handles ragged lengths with add.at.
    config = get_recsys("NCF")
    ref = RecModel(config, seed=1, table_rows_cap=CAP)
    mine = TorchRecModel(config, seed=1, table_rows_cap=CAP)
    x = random_inputs(config, 3, seed=0, table_rows_cap=CAP)
    lengths = list(x.lengths)
    indices = list(x.indices)
    lengths[2] = np.array([0, 2, 1], dtype=np.int32)
    indices[2] = np.array([5, 9, 5], dtype=np.int64)
    want = ref.forward(x.dense, indices, lengths).logits
    got = mine.forward(x.dense, indices, lengths).logits
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_timings_cover_the_groups_the_model_has() -> None:
    config = get_recsys("DIEN")
    mine = TorchRecModel(config, seed=0, table_rows_cap=CAP)
    x = random_inputs(config, 2, seed=0, table_rows_cap=CAP)
    timings: dict[str, float] = {}
    mine.forward(x.dense, x.indices, x.lengths, timings=timings)
    assert set(timings) == {"sls", "gru", "concat", "fc"} <= set(OP_GROUPS)
    assert all(v > 0 for v in timings.values())


def test_bad_inputs_are_rejected_like_numpy() -> None:
    config = get_recsys("WnD")
    mine = TorchRecModel(config, seed=0, table_rows_cap=CAP)
    x = random_inputs(config, 2, seed=0, table_rows_cap=CAP)
    with pytest.raises(ConfigError) as err:
        mine.forward(x.dense[:, :3], x.indices, x.lengths)
    assert err.value.field == "dense"


def test_measure_cpu_torch_backend_restores_threads() -> None:
    assert torch_available()
    before = torch.get_num_threads()
    m = measure_cpu("NCF", batches=(1, 4), repeats=2, table_rows_cap=CAP, backend="torch")
    assert torch.get_num_threads() == before
    assert m.backend == "torch" and len(m.total_s) == 2 and len(m.total_std_s) == 2
    assert all(s >= 0 for s in m.total_std_s)


def test_measure_cpu_rejects_unknown_backend() -> None:
    with pytest.raises(ConfigError) as err:
        measure_cpu("NCF", backend="jax")
    assert err.value.field == "backend" and "torch" in err.value.allowed
