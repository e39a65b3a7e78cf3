import itertools

import pytest

from archsim.errors import ConfigError
from archsim.sim.distributed import (
    DLRMStrategy,
    DLRMWorkload,
    Efficiency,
    LLMWorkload,
    Strategy,
    StrategyRejected,
    evaluate,
    make_cluster,
    search,
)
from archsim.sim.distributed.search import enumerate_strategies

GIB = 1024**3


@pytest.fixture(scope="module")
def llama13():
    return LLMWorkload(model="llama-13b", seq_len=2048)


def _parts_sum(r):
    return r.compute_s + r.recompute_s + r.bubble_s + sum(r.exposed_comm_s.values())


def test_compute_never_beats_flops_over_aggregate_peak(llama13):
    cluster = make_cluster(gpu="a100", num_gpus=64, network="ib-hdr")
    eff = Efficiency(compute=1.0, memory=1.0)  # even at 100% of peak
    peak = cluster.gpu.peak("bf16") * cluster.num_gpus
    floor = llama13.training_flops(256) / peak
    strategies = enumerate_strategies(llama13, cluster, global_batch=256)
    checked = 0
    for st in strategies[::7]:
        try:
            r = evaluate(llama13, cluster, st, global_batch=256, efficiency=eff)
        except StrategyRejected:
            continue
        checked += 1
        assert r.compute_s >= floor * (1 - 1e-12), st
        assert r.iteration_s >= r.compute_s
        assert r.mfu <= 1.0
        assert r.iteration_s == pytest.approx(_parts_sum(r), rel=1e-12)
    assert checked > 50


def test_memory_adds_up_and_matches_hand_count(llama13):
    cfg = llama13.model
    cluster = make_cluster(gpu="a100", num_gpus=64, network="ib-hdr")
    dp, tp, pp = 4, 4, 4
    st = Strategy(dp=dp, tp=tp, pp=pp, zero=1, micro_batch=1, recompute="full")
    r = evaluate(llama13, cluster, st, global_batch=64)
    m = r.memory
    assert m.total_bytes == pytest.approx(m.weights_bytes + m.grads_bytes + m.optimizer_bytes
                                          + m.activations_bytes + m.buffers_bytes
                                          + m.reserved_bytes)
    params = (cfg.num_layers // pp * cfg.params_per_layer + cfg.vocab * cfg.hidden) / tp
    assert m.weights_bytes == pytest.approx(2 * params)
    assert m.grads_bytes == pytest.approx(2 * params)
    assert m.optimizer_bytes == pytest.approx(12 * params / dp)
    # full recompute keeps one bf16 [tokens, hidden] input per layer per in-flight micro-batch
    in_flight = min(pp, 64 // dp)
    stored = in_flight * (cfg.num_layers // pp) * 2048 * cfg.hidden * 2
    assert m.activations_bytes > stored
    # ZeRO-3 shards weights and gradients too
    z3 = evaluate(llama13, cluster, Strategy(dp=dp, tp=tp, pp=pp, zero=3, recompute="full"),
                  global_batch=64).memory
    assert z3.weights_bytes == pytest.approx(2 * params / dp)
    assert z3.grads_bytes == pytest.approx(2 * params / dp)


def test_pipeline_bubble_closed_form(llama13):
    # 1F1B: iteration = (m + pp - 1) x (forward + backward of one micro-batch) + DP tail. Two
    # batch sizes give the per-micro-batch time by difference; the bubble is (pp - 1) of them.
    cluster = make_cluster(gpu="h100", num_gpus=32)
    pp, dp = 8, 4
    st = Strategy(dp=dp, pp=pp, micro_batch=1, zero=1)
    r8 = evaluate(llama13, cluster, st, global_batch=8 * dp)
    r16 = evaluate(llama13, cluster, st, global_batch=16 * dp)
    per_mb = (r16.iteration_s - r8.iteration_s) / 8
    assert r8.bubble_s == pytest.approx((pp - 1) * per_mb, rel=1e-9)
    pipeline_s = r16.iteration_s - r16.exposed_comm_s["dp"] - r16.details["optimizer_s"]
    assert r16.bubble_s / pipeline_s == pytest.approx((pp - 1) / (16 + pp - 1), rel=1e-9)


def test_tensor_parallel_comm_is_exposed_and_grows_off_node():
    wl = LLMWorkload(model="llama-7b", seq_len=2048)  # 32 heads: TP 16 is legal
    fast = make_cluster(gpu="h100", num_gpus=16, gpus_per_node=16)
    slow = make_cluster(gpu="h100", num_gpus=16, gpus_per_node=8, network="roce-100")
    st = Strategy(dp=1, tp=16)
    a = evaluate(wl, fast, st, global_batch=8)
    b = evaluate(wl, slow, st, global_batch=8)
    assert b.exposed_comm_s["tp"] > a.exposed_comm_s["tp"] > 0


def test_inference_has_no_gradients_or_optimizer(llama13):
    cluster = make_cluster(gpu="h100", num_gpus=8)
    r = evaluate(llama13, cluster, Strategy(dp=1, tp=8), global_batch=8, mode="inference")
    assert r.memory.grads_bytes == r.memory.optimizer_bytes == 0
    assert r.model_flops == pytest.approx(8 * llama13.forward_flops_per_sequence())


def test_dlrm_strategies():
    wl = DLRMWorkload(model="dlrm-mlperf")
    cluster = make_cluster(gpu="a100", num_gpus=64, network="ib-hdr")
    with pytest.raises(StrategyRejected, match="needs .* GiB per GPU"):
        evaluate(wl, cluster, DLRMStrategy(embedding="replicated"), global_batch=65536)
    rows = {e: evaluate(wl, cluster, DLRMStrategy(embedding=e), global_batch=65536, mode="inference")
            for e in ("table", "column", "row", "node-row")}
    for r in rows.values():
        assert r.iteration_s == pytest.approx(_parts_sum(r), rel=1e-12)
        assert r.exposed_comm_s["all_to_all"] >= 0
    # row-wise moves the whole batch's pooled vectors through a reduce-scatter: the most traffic
    assert rows["row"].comm_s["all_to_all"] > rows["table"].comm_s["all_to_all"]
    # node-row keeps the all-to-all on NVLink
    assert rows["node-row"].comm_s["all_to_all"] < rows["column"].comm_s["all_to_all"]


def test_search_best_is_the_minimum_of_all_evaluations(llama13):
    cluster = make_cluster(gpu="a100", num_gpus=16, network="ib-hdr")
    res = search(llama13, cluster, global_batch=64)
    times = []
    for dp, tp, pp in itertools.product([1, 2, 4, 8, 16], [1, 2, 4, 8], [1, 2, 4, 8, 16]):
        if dp * tp * pp != 16:
            continue
        for zero, mb, rc, sp in itertools.product(range(4), (1, 2, 4, 8), ("none", "full"),
                                                  (False, True)):
            if (sp and tp == 1) or 64 % (dp * mb):
                continue
            try:
                times.append(evaluate(llama13, cluster, Strategy(
                    dp=dp, tp=tp, pp=pp, zero=zero, micro_batch=mb, recompute=rc,
                    sequence_parallel=sp), global_batch=64).iteration_s)
            except StrategyRejected:
                pass
    assert res.best.iteration_s <= min(times) * (1 + 1e-12)
    assert [r.iteration_s for r in res.ranked] == sorted(r.iteration_s for r in res.ranked)
    assert res.speedup >= 1.0


def test_bad_strategy_inputs(llama13):
    cluster = make_cluster(gpu="h100", num_gpus=16)
    with pytest.raises(StrategyRejected, match="global batch 30 is not divisible by dp x "
                                               "micro_batch = 8"):
        evaluate(llama13, cluster, Strategy(dp=4, tp=4, micro_batch=2), global_batch=30)
    with pytest.raises(StrategyRejected, match=r"dp\*tp\*pp\*cp = 8 but the cluster has 16"):
        evaluate(llama13, cluster, Strategy(dp=2, tp=4), global_batch=32)
    with pytest.raises(StrategyRejected, match="tp 16 does not divide the 40 attention heads"):
        evaluate(llama13, cluster, Strategy(dp=1, tp=16), global_batch=32)
    with pytest.raises(StrategyRejected, match="needs .* GiB per GPU .* but has 80.0 GiB"):
        evaluate(LLMWorkload(model="llama-70b"), cluster, Strategy(dp=16), global_batch=32)
    with pytest.raises(ConfigError, match="more than llama-13b can use with a global batch of 2"):
        search(llama13, make_cluster(gpu="h100", num_gpus=8192), global_batch=2)
    with pytest.raises(ConfigError, match="unknown ZeRO stage 4"):
        Strategy(dp=1, zero=4)
    with pytest.raises(ConfigError, match="sequence parallelism needs tp > 1"):
        Strategy(dp=1, sequence_parallel=True)
    with pytest.raises(ConfigError, match="unknown embedding sharding 'diagonal'"):
        DLRMStrategy(embedding="diagonal")
    with pytest.raises(ConfigError, match="unknown mode 'serving'"):
        evaluate(llama13, cluster, Strategy(dp=16), global_batch=32, mode="serving")
    with pytest.raises(ConfigError, match="no strategy runs llama-70b on 8 GPUs"):
        search(LLMWorkload(model="llama-70b"), make_cluster(gpu="a100-40gb", num_gpus=8),
               global_batch=8)


def test_table_sharding_heuristic_against_exhaustive_assignment():
    from archsim.sim.distributed.parallelism import _lpt_max_load

    loads = [7.0, 5.0, 4.0, 4.0, 3.0, 3.0, 2.0]
    bins = 3
    best = min(max(sum(w for w, b in zip(loads, assign, strict=True) if b == k)
                   for k in range(bins))
               for assign in itertools.product(range(bins), repeat=len(loads)))
    lpt, _ = _lpt_max_load(loads, loads, bins)
    assert best <= lpt <= 4 / 3 * best  # Graham's bound for longest-processing-time first


def test_interleaved_schedule_divides_the_bubble(llama13):
    cluster = make_cluster(gpu="h100", num_gpus=32)
    pp, dp, v = 4, 8, 2
    st = Strategy(dp=dp, pp=pp, zero=1, interleave=v)
    r8 = evaluate(llama13, cluster, st, global_batch=8 * dp)
    r16 = evaluate(llama13, cluster, st, global_batch=16 * dp)
    per_mb = (r16.iteration_s - r8.iteration_s) / 8
    assert r8.bubble_s == pytest.approx((pp - 1) * per_mb / v, rel=1e-9)
    with pytest.raises(StrategyRejected, match="40 layers do not split into pp x interleave = 24"):
        evaluate(llama13, make_cluster(gpu="h100", num_gpus=24),
                 Strategy(dp=3, pp=8, interleave=3), global_batch=24)
    with pytest.raises(StrategyRejected, match="micro-batch count 6 to be a multiple of pp 4"):
        evaluate(llama13, cluster, st, global_batch=6 * dp)
    with pytest.raises(ConfigError, match="an interleaved schedule needs pp > 1"):
        Strategy(dp=1, interleave=2)


def test_more_bad_inputs(llama13):
    from archsim.compilers.graph import TransformerConfig, get_dlrm

    cluster = make_cluster(gpu="h100", num_gpus=64)
    with pytest.raises(ConfigError, match="field 'compute': must be in \\(0, 1\\], not 1.5"):
        Efficiency(compute=1.5)
    with pytest.raises(ConfigError, match="unknown DLRM model 'dlrm-z'"):
        get_dlrm("dlrm-z")
    with pytest.raises(ConfigError, match="does not apply to model llama-13b"):
        evaluate(llama13, cluster, DLRMStrategy(embedding="row"), global_batch=64)
    with pytest.raises(StrategyRejected, match="pp 64 exceeds the 40 layers"):
        evaluate(llama13, cluster, Strategy(dp=1, pp=64), global_batch=64)
    with pytest.raises(StrategyRejected, match="cp 64 does not divide sequence length 2000"):
        evaluate(LLMWorkload(model="llama-13b", seq_len=2000), cluster, Strategy(dp=1, cp=64),
                 global_batch=64)
    gqa = TransformerConfig(name="gqa", num_layers=4, hidden=768, num_heads=12, ffn_hidden=3072,
                            vocab=1000, num_kv_heads=4)
    with pytest.raises(StrategyRejected, match="tp 6 and the 4 KV heads of .gqa. do not divide one another"):
        evaluate(LLMWorkload(model=gqa, seq_len=128), make_cluster(gpu="h100", num_gpus=48),
                 Strategy(dp=8, tp=6), global_batch=64)
    with pytest.raises(StrategyRejected, match="ZeRO and recomputation apply to training only"):
        evaluate(llama13, cluster, Strategy(dp=64, zero=1), global_batch=64, mode="inference")
    with pytest.raises(StrategyRejected, match="global batch 100 is not divisible by the 64"):
        evaluate(DLRMWorkload(model="dlrm-mlperf"), cluster, DLRMStrategy(embedding="row"), global_batch=100)
    with pytest.raises(ConfigError, match="must be a positive integer, not 0"):
        evaluate(llama13, cluster, Strategy(dp=64), global_batch=0)
    with pytest.raises(ConfigError, match="decode steps apply to LLMs only"):
        evaluate(DLRMWorkload(model="dlrm-mlperf"), cluster, DLRMStrategy(embedding="row"), global_batch=64,
                 mode="decode")


def test_decode_step_kv_cache_and_flops():
    wl = LLMWorkload(model="llama-70b", seq_len=4096)
    cfg = wl.model
    gb = 16
    r = evaluate(wl, make_cluster(gpu="h100", num_gpus=8), Strategy(dp=1, tp=8, micro_batch=gb),
                 global_batch=gb, mode="decode")
    kv = 2 * cfg.num_layers * cfg.kv_hidden * 2 * gb * 4096 / 8  # K and V, bf16, 8 KV heads / TP 8
    assert r.memory.activations_bytes >= kv
    assert r.memory.activations_bytes < kv * 1.05
    closed = cfg.forward_flops(batch=gb, new_tokens=1, context_len=4096)
    assert closed < r.model_flops < 1.01 * closed  # + norms and activations
    assert r.tokens_per_iteration == gb
    with pytest.raises(StrategyRejected, match="do not apply to decode steps"):
        evaluate(wl, make_cluster(gpu="h100", num_gpus=16), Strategy(dp=1, tp=8, cp=2),
                 global_batch=gb, mode="decode")


class _LinearExecutor:
    """A test executor with a closed-form cost: 1 ps per FLOP plus 1 ps per byte."""

    name = "linear"

    def operator_cost(self, work):
        from archsim.hw.models.base import OperatorCost

        return OperatorCost(latency_s=(work.flops + work.bytes_accessed) * 1e-12)


def test_swapped_executor_prices_llm_compute():
    from archsim.compilers.graph import get_transformer, transformer_graph

    cfg = get_transformer("llama-7b")
    seq, mb, dp, tp, pp, batch = 512, 2, 2, 4, 2, 8
    wl = LLMWorkload(model=cfg, seq_len=seq)
    cluster = make_cluster(gpu="h100", num_gpus=dp * tp * pp)
    st = Strategy(dp=dp, tp=tp, pp=pp, zero=1, micro_batch=mb)
    r = evaluate(wl, cluster, st, global_batch=batch, executor=_LinearExecutor())
    # Independently: every operator of one block of the shared graph, its activations times
    # the micro-batch, matmuls/attention/activations split over TP (Megatron), norms and adds not.
    g = transformer_graph(cfg, batch=1, new_tokens=seq, dtype="bf16", include_lm_head=False,
                          layers=1)
    layer = 0.0
    for op in g:
        if op.kind == "embedding":
            continue
        split = tp if op.kind in ("matmul", "attention", "activation", "softmax") else 1
        acts = sum(t.nbytes for t in op.inputs if t.role != "weight") + op.output_bytes
        layer += (op.flops * mb + acts * mb + op.weight_bytes) / split * 1e-12
    h, v = cfg.hidden, cfg.vocab
    head = (2 * mb * seq * h * v + 2 * (mb * seq * h + h * v + mb * seq * v)) / tp * 1e-12
    params_gpu = (cfg.num_layers // pp * cfg.params_per_layer + v * h) / tp
    adam = params_gpu / dp * 28 * 1e-12  # ZeRO-1: the optimizer step touches 1/dp of them
    m = batch // (dp * mb)
    expected = m * (cfg.num_layers // pp * 3 * layer + 3 * head) + adam
    assert r.compute_s == pytest.approx(expected, rel=1e-9)
    assert r.details["layer_fwd_s"] == pytest.approx(layer, rel=1e-9)
    # and the default executor gives a different answer (the swap took effect)
    assert evaluate(wl, cluster, st, global_batch=batch).compute_s != pytest.approx(expected)


def test_swapped_executor_prices_dlrm_compute():
    from archsim.compilers.graph import DLRMConfig

    cfg = DLRMConfig(name="tiny", table_rows=(1000, 2000), embedding_dim=16,
                     bottom_mlp=(13, 16), top_mlp=(8, 1))
    wl = DLRMWorkload(model=cfg)
    cluster = make_cluster(gpu="h100", num_gpus=8)
    batch = 8 * 64
    r = evaluate(wl, cluster, DLRMStrategy(embedding="replicated"), global_batch=batch,
                 mode="inference", executor=_LinearExecutor())
    b = batch // 8
    f, d, iw = 3, 16, 3 + 16  # 2 tables + dense; 3 pairwise dots + the dense vector
    layers = [(13, 16), (iw, 8), (8, 1)]
    flops = sum(2 * i * o + o for i, o in layers) + 2 * f * f * d  # matmul + ReLU; interaction
    acts = sum(i + 3 * o for i, o in layers) + f * d + f * f  # fp32 elements per sample
    mlp_params = sum(i * o + o for i, o in layers)
    dense = (b * flops + 4 * (b * acts + mlp_params)) * 1e-12
    bottom = dense * (13 * 16) / sum(i * o for i, o in layers)
    lookups = b * 2 * d * 4 * 1e-12  # every GPU reads its samples' rows from its replica
    assert r.compute_s == pytest.approx(max(bottom, lookups) + dense - bottom, rel=1e-9)


def test_fsdp_forward_only_gathers_weights_a_layer_ahead(llama13):
    # ZeRO-3 (FSDP) inference: weights sharded over the 64 ranks, each layer's weights
    # all-gathered (hierarchically: across the 8 nodes on each rail, then in the node) before
    # it runs, prefetched one layer ahead; no gradients, no reduce-scatter.
    cluster = make_cluster(gpu="a100-80gb", num_gpus=64, network="ib-hdr")
    plain = evaluate(llama13, cluster, Strategy(dp=64), global_batch=128, mode="inference")
    fsdp = evaluate(llama13, cluster, Strategy(dp=64, zero=3), global_batch=128,
                    mode="inference")
    assert fsdp.memory.weights_bytes == pytest.approx(plain.memory.weights_bytes / 64)
    assert fsdp.memory.grads_bytes == fsdp.memory.optimizer_bytes == 0
    layer_bytes = llama13.params_per_layer * 2  # bf16
    nodes, local = 8, 8
    # ring all-gather closed form (p-1) alpha + (p-1)/p n / b, per level
    ag = ((nodes - 1) * 5e-6 + (nodes - 1) / nodes * (layer_bytes / local) / 25e9
          + (local - 1) * 2e-6 + (local - 1) / local * layer_bytes / 300e9)
    f_layer = fsdp.details["layer_fwd_s"]
    layers, m = llama13.num_layers, 2  # 128 sequences / 64 ranks, micro-batch 1
    assert fsdp.exposed_comm_s["dp"] == pytest.approx(m * (ag + layers * max(0.0, ag - f_layer)))
    assert fsdp.comm_s["dp"] == pytest.approx(m * layers * ag)
    assert fsdp.iteration_s == pytest.approx(_parts_sum(fsdp))
    # the same compute as the unsharded forward; only the gathers are added
    assert fsdp.compute_s == pytest.approx(plain.compute_s)
    assert fsdp.iteration_s == pytest.approx(plain.iteration_s + fsdp.exposed_comm_s["dp"])
    with pytest.raises(StrategyRejected, match="ZeRO and recomputation apply to training only"):
        evaluate(llama13, cluster, Strategy(dp=64, zero=2), global_batch=128, mode="inference")
