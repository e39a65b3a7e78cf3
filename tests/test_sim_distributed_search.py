"""The search's shortcut (cost terms shared between the strategies of one search) changes
nothing: every result and rejection equals evaluating that candidate alone."""

import pytest

from archsim.hw.models.base import OperatorCost
from archsim.sim.distributed import (
    LLMWorkload,
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
            alone = evaluate(wl, cluster, c, global_batch=gb,
                             mode=mode, executor=_CountingExecutor() if executor else None)
        except StrategyRejected as exc:
            assert rejected.pop(str(c)) == exc.reason
        else:
            assert by_name.pop(str(c)) == alone  # every field, bit for bit
    assert not by_name and not rejected


def test_madmax_baseline_is_its_released_task_configuration():
    # samhsia/MADMax task_cfgs/llm/llm_train.json: transformer_parallel ["fsdp"] over every
    # device, local_transformer_bs 1; its inference is the forward stream of the same task.
    from archsim.errors import ConfigError
    from archsim.sim.distributed import Strategy, baseline_strategies

    wl = LLMWorkload(model="llama-7b", seq_len=2048)
    cluster = make_cluster(gpu="a100-80gb", num_gpus=16, network="ib-hdr")
    cands, _ = baseline_strategies(wl, cluster, mode="training", baseline="madmax")
    assert cands[0] == Strategy(dp=16, zero=3, micro_batch=1)
    assert cands[-1] == Strategy(dp=16, zero=3, micro_batch=1, recompute="full")
    cands, _ = baseline_strategies(wl, cluster, mode="inference", baseline="madmax")
    assert cands == [Strategy(dp=16, zero=3, micro_batch=1)]
    for mode in ("training", "inference"):
        res = search(wl, cluster, global_batch=32, mode=mode, baseline="madmax")
        assert res.baseline is not None and res.baseline.strategy.startswith("dp16-tp1-pp1-z3-mb1")
        # the baseline is ranked, so the best is never slower than it
        assert res.best.iteration_s <= res.baseline.iteration_s
        assert any(r.strategy == res.baseline.strategy for r in res.ranked)
    with pytest.raises(ConfigError, match="unknown baseline 'megatron'"):
        search(wl, cluster, global_batch=32, baseline="megatron")
