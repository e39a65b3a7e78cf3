"""The search's shortcuts (candidates built without re-validation, shard terms shared between
strategies) change nothing: checked against validated strategies and one-by-one evaluation."""

import pytest

from archsim.hw.models.base import OperatorCost
from archsim.sim.distributed import (
    LLMWorkload,
    Strategy,
    StrategyRejected,
    evaluate,
    make_cluster,
    search,
)
from archsim.sim.distributed.search import enumerate_strategies

_CASES = [
    ("llama-13b", 2048, "a100", 16, 64, "training"),
    ("llama-13b", 2048, "h100", 64, 256, "inference"),
    ("llama-70b", 4096, "h100", 64, 128, "decode"),
    ("llama-7b", 1024, "h100", 24, 48, "training"),
]


@pytest.mark.parametrize(("model", "seq", "gpu", "n", "gb", "mode"), _CASES)
def test_every_candidate_equals_its_validated_twin(model, seq, gpu, n, gb, mode):
    wl = LLMWorkload(model=model, seq_len=seq)
    cands = enumerate_strategies(wl, make_cluster(gpu=gpu, num_gpus=n), global_batch=gb,
                                 mode=mode)
    assert len(cands) > 10
    for c in cands:
        twin = Strategy(**c.model_dump())  # raises if c breaks any validator
        assert c == twin
        assert hash(c) == hash(twin)
        assert str(c) == str(twin)
        assert c.model_fields_set == twin.model_fields_set
        assert {k: type(v) for k, v in c.model_dump().items()} == {
            k: type(v) for k, v in twin.model_dump().items()}


class _CountingExecutor:
    """1 ps per FLOP plus 2 ps per byte; counts its calls."""

    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    def operator_cost(self, work):
        self.calls += 1
        return OperatorCost(latency_s=(work.flops + 2 * work.bytes_accessed) * 1e-12)


@pytest.mark.parametrize("executor", [None, "counting"])
@pytest.mark.parametrize(("model", "seq", "gpu", "n", "gb", "mode"), _CASES)
def test_search_equals_evaluating_each_candidate_alone(model, seq, gpu, n, gb, mode, executor):
    wl = LLMWorkload(model=model, seq_len=seq)
    cluster = make_cluster(gpu=gpu, num_gpus=n)
    ex = _CountingExecutor() if executor else None
    res = search(wl, cluster, global_batch=gb, mode=mode, executor=ex)
    if ex is not None:
        assert ex.calls > 0  # every compute cost came from the executor
    by_name = {r.strategy: r for r in res.ranked}
    rejected = dict(res.rejected)
    for c in enumerate_strategies(wl, cluster, global_batch=gb, mode=mode):
        try:
            alone = evaluate(wl, cluster, Strategy(**c.model_dump()), global_batch=gb,
                             mode=mode, executor=_CountingExecutor() if executor else None)
        except StrategyRejected as exc:
            assert rejected.pop(str(c)) == exc.reason
        else:
            assert by_name.pop(str(c)) == alone  # every field, bit for bit
    assert not by_name and not rejected
