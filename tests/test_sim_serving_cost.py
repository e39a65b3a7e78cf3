"""Cost model of the serving simulator: tied to the shared transformer graph and to physics."""

import numpy as np
import pytest

from archsim.compilers.graph import get_transformer, transformer_graph
from archsim.errors import ConfigError
from archsim.hw.models.gpu import get_gpu
from archsim.sim.serving import BatchShape, CalibrationTable, CostModel, Deployment

POINTS = [(1, 1, 1), (4, 1, 100), (3, 17, 17), (2, 1, 513), (8, 64, 200)]


def _graph_totals(cfg, batch, new_tokens, ctx):
    g = transformer_graph(cfg, batch=batch, new_tokens=new_tokens, context_len=ctx)
    flops = sum(op.flops for op in g)
    nbytes = sum(op.bytes_accessed for op in g)
    kv = sum(t.nbytes for op in g for t in op.inputs if t.role == "kv_cache")
    weights = sum(t.nbytes for op in g for t in op.inputs if t.role == "weight")
    return flops, nbytes, kv, weights


@pytest.mark.parametrize("model", ["llama-13b", "gpt-j-6b", "opt-13b"])
@pytest.mark.parametrize("batch,new_tokens,ctx", POINTS)
def test_closed_forms_equal_graph_operator_sums(model, batch, new_tokens, ctx):
    cfg = get_transformer(model)
    cost = CostModel(model=cfg, gpu=get_gpu("a100-80gb"))
    dense, attn = cost.iteration_operators(BatchShape.uniform(batch=batch, new_tokens=new_tokens,
                                                              context_len=ctx))
    flops, nbytes, kv, weights = _graph_totals(cfg, batch, new_tokens, ctx)
    assert dense.flops + attn.flops == pytest.approx(flops, rel=1e-12)
    assert dense.bytes_accessed + attn.bytes_accessed == pytest.approx(nbytes, rel=1e-12)
    assert sum(t.nbytes for t in attn.inputs if t.role == "kv_cache") == pytest.approx(
        kv, rel=1e-12)
    assert dense.weight_bytes == pytest.approx(weights, rel=1e-12)
    assert cost.weight_bytes == pytest.approx(weights, rel=1e-12)
    # the attention group is exactly the graph's attention operators
    g = transformer_graph(cfg, batch=batch, new_tokens=new_tokens, context_len=ctx)
    graph_attn = [op for op in g if op.kind == "attention"]
    assert attn.flops == pytest.approx(sum(op.flops for op in graph_attn), rel=1e-12)
    assert attn.bytes_accessed == pytest.approx(sum(op.bytes_accessed for op in graph_attn),
                                                rel=1e-12)


def test_kv_bytes_per_token_is_two_layers_hidden_bytes():
    cfg = get_transformer("llama-13b")
    cost = CostModel(model=cfg, gpu=get_gpu("a100-80gb"))
    assert cost.kv_bytes_per_token == 2 * 40 * 5120 * 2


@pytest.mark.parametrize("tp", [1, 2, 4])
def test_no_iteration_beats_the_roofline_floor(tp):
    cfg = get_transformer("llama-33b")
    gpu = get_gpu("a100-80gb")
    cost = CostModel(model=cfg, gpu=gpu, tp=tp, compute_efficiency=1.0, memory_efficiency=1.0,
                     iteration_overhead_s=0.0)
    rng = np.random.default_rng(1)
    for _ in range(6):
        b, n = int(rng.integers(1, 64)), int(rng.choice([1, 1, 7, 128]))
        ctx = n + int(rng.integers(0, 1500))
        flops, nbytes, _, _ = _graph_totals(cfg, b, n, ctx)
        lat = float(cost.latency_s(BatchShape.uniform(batch=b, new_tokens=n,
                                                          context_len=ctx)))
        # weights + KV over aggregate HBM bandwidth, and FLOPs over aggregate peak
        w_kv = cfg.weight_bytes() + b * ctx * cfg.kv_cache_bytes_per_token()
        assert lat >= w_kv / (gpu.hbm_bw_bytes_per_s * tp) * (1 - 1e-12)
        assert lat >= nbytes / (gpu.hbm_bw_bytes_per_s * tp) * (1 - 1e-12)
        assert lat >= flops / (gpu.peak("fp16") * tp) * (1 - 1e-12)


def test_default_efficiencies_are_slower_than_the_floor():
    cost = CostModel(model=get_transformer("gpt-j-6b"), gpu=get_gpu("h100-80gb"))
    shape = BatchShape(tokens=np.array([1.0, 64, 4096]), sequences=np.array([1.0, 64, 8]),
                           attn_pairs=np.array([10.0, 64e3, 4096 * 512]),
                           context_tokens=np.array([10.0, 64e3, 4096]))
    assert np.all(cost.latency_s(shape) > cost.lower_bound_s(shape))


def test_allreduce_alpha_beta_closed_form():
    cfg = get_transformer("llama-65b")
    gpu = get_gpu("a100-80gb")
    cost = CostModel(model=cfg, gpu=gpu, tp=4, allreduce_alpha_s=1e-5)
    tokens = 100.0
    msg = tokens * 8192 * 2
    per = 2 * 3 * 1e-5 + 2 * 3 / 4 * msg / 300e9
    assert float(cost.allreduce_s(tokens)) == pytest.approx(2 * 80 * per, rel=1e-12)
    assert float(CostModel(model=cfg, gpu=gpu, tp=1).allreduce_s(tokens)) == 0.0


def test_calibration_table_replaces_roofline(tmp_path):
    path = tmp_path / "cal.csv"
    rows = ["batch,context_len,latency_s"]
    for b in (1, 9):
        for c in (100, 300):
            rows.append(f"{b},{c},{0.01 + 0.001 * b + 0.0001 * c}")
    path.write_text("\n".join(rows) + "\n")
    table = CalibrationTable.from_csv(path)
    cost = CostModel(model=get_transformer("gpt-j-6b"), gpu=get_gpu("a100-80gb"),
                     calibration=table)
    # a bilinear function is reproduced exactly by bilinear interpolation
    shape = BatchShape(tokens=5.0, sequences=5.0, attn_pairs=1000.0, context_tokens=1000.0)
    assert float(cost.latency_s(shape)) == pytest.approx(0.01 + 0.005 + 0.02, rel=1e-9)


def test_calibration_bad_inputs(tmp_path):
    path = tmp_path / "cal.csv"
    path.write_text("batch,context_len,latency_s\n1,100,0.01\n1,200,x\n")
    with pytest.raises(ConfigError, match="line 3"):
        CalibrationTable.from_csv(path)
    path.write_text("batch,context_len,latency_s\n1,100,0.01\n2,100,0.02\n1,200,0.02\n")
    with pytest.raises(ConfigError, match=r"missing the point .*\(2\.0, 200\.0\)"):
        CalibrationTable.from_csv(path)


def test_model_that_does_not_fit_names_the_sizes():
    with pytest.raises(ConfigError, match=r"llama-65b.*130\.\d GB.*1 x a100-40gb") as exc:
        Deployment.build(model="llama-65b", gpu="a100-40gb")
    assert exc.value.field == "model"


def test_bad_cost_parameters():
    cfg, gpu = get_transformer("gpt-j-6b"), get_gpu("a100-80gb")
    with pytest.raises(ConfigError, match="tensor parallelism must be a positive integer, not 0"):
        CostModel(model=cfg, gpu=gpu, tp=0)
    with pytest.raises(ConfigError, match=r"compute_efficiency.*not 1\.5"):
        CostModel(model=cfg, gpu=gpu, compute_efficiency=1.5)
    with pytest.raises(ConfigError, match="not a decoder"):
        CostModel(model=get_transformer("bert-base"), gpu=gpu)
    with pytest.raises(ConfigError, match="no peak rate for data type 'fp7'"):
        CostModel(model=cfg, gpu=gpu, dtype="fp7")


class _LinearExecutor:
    """A closed-form executor unlike a roofline: every operator costs a + b*flops + c*bytes,
    plus a surcharge on attention (so a model that ignored the operators' kinds would fail)."""

    name = "linear-test"

    def __init__(self, a: float = 2e-6, b: float = 3e-15, c: float = 7e-13,
                 attention_s: float = 5e-4) -> None:
        self.a, self.b, self.c, self.attention_s = a, b, c, attention_s
        self.calls = 0

    def operator_cost(self, work):
        from archsim.hw.models.base import OperatorCost, work_operator

        self.calls += 1
        extra = self.attention_s if work_operator(work).kind == "attention" else 0.0
        return OperatorCost(self.a + self.b * work.flops + self.c * work.bytes_accessed + extra,
                            bound="compute")


def _graph_group_sums(cfg, batch, new_tokens, ctx):
    """(flops, bytes) of the non-attention and attention operators of transformer_graph."""
    g = transformer_graph(cfg, batch=batch, new_tokens=new_tokens, context_len=ctx)
    dense = [op for op in g if op.kind != "attention"]
    attn = [op for op in g if op.kind == "attention"]
    return ((sum(op.flops for op in dense), sum(op.bytes_accessed for op in dense)),
            (sum(op.flops for op in attn), sum(op.bytes_accessed for op in attn)))


@pytest.mark.parametrize("tp", [1, 2])
@pytest.mark.parametrize("batch,new_tokens,ctx", POINTS)
def test_iteration_latency_is_the_executors_cost_of_the_iterations_operators(
        tp, batch, new_tokens, ctx):
    cfg = get_transformer("llama-13b")
    ex = _LinearExecutor()
    cost = CostModel(model=cfg, gpu=get_gpu("a100-80gb"), tp=tp, executor=ex,
                     iteration_overhead_s=1e-3, allreduce_alpha_s=1e-5)
    lat = float(cost.latency_s(BatchShape.uniform(batch=batch, new_tokens=new_tokens,
                                                  context_len=ctx)))
    # independently: the graph's FLOPs and bytes per group, 1/tp of each per GPU, priced by
    # the executor's closed form; two ring all-reduces per layer; the fixed overhead
    (df, db), (af, ab) = _graph_group_sums(cfg, batch, new_tokens, ctx)
    expected = (ex.a + ex.b * df / tp + ex.c * db / tp) \
        + (ex.a + ex.b * af / tp + ex.c * ab / tp + ex.attention_s) + 1e-3
    if tp > 1:
        msg = batch * new_tokens * cfg.hidden * 2
        expected += 2 * cfg.num_layers * (2 * (tp - 1) * 1e-5 + 2 * (tp - 1) / tp * msg / 300e9)
    assert lat == pytest.approx(expected, rel=1e-12)
    assert ex.calls == 2  # one dense group, one attention group


def test_default_executor_is_the_deployment_gpu_roofline():
    cfg, gpu = get_transformer("gpt-j-6b"), get_gpu("a100-40gb")
    cost = CostModel(model=cfg, gpu=gpu, compute_efficiency=0.5, memory_efficiency=0.7,
                     iteration_overhead_s=0.0)
    (df, db), (af, ab) = _graph_group_sums(cfg, 8, 64, 200)
    peak, bw = 312e12 * 0.5, 1555e9 * 0.7
    expected = max(df / peak, db / bw) + max(af / peak, ab / bw)
    lat = float(cost.latency_s(BatchShape.uniform(batch=8, new_tokens=64, context_len=200)))
    assert lat == pytest.approx(expected, rel=1e-12)
    assert cost.executor.name == "a100-40gb-roofline"


def test_bad_executor():
    with pytest.raises(ConfigError, match="has no operator_cost"):
        CostModel(model=get_transformer("gpt-j-6b"), gpu=get_gpu("a100-80gb"),
                  executor=object())


def test_measured_kernels_replace_the_dense_roofline_only():
    from archsim.hw.models import vidur_a100_llama2_7b

    m = get_transformer("llama-2-7b")
    roof_model = CostModel(model=m, gpu=get_gpu("a100-80gb"))
    measured = CostModel.measured(roof_model.config, vidur_a100_llama2_7b())
    profile = measured.executor.profile
    # a decode step of 8 sequences at context 300: the dense group from the table (32 layers
    # + embedding + the roofline's LM head), attention as the roofline prices it
    head_s = roof_model.executor.time_s(2.0 * 8 * m.hidden * m.vocab,
                                        2.0 * (m.hidden * m.vocab + 8 * (m.hidden + m.vocab)))[0]
    dense_s = 32 * profile.layer_time_s(8) + profile.embedding_time_s(8) + head_s
    attention_s = roof_model.attention_latency_s(8, 8 * 300, 8 * 300)
    got = measured.iteration_latency_s(8.0, 8.0, 8.0 * 300, 8.0 * 300)
    assert got == pytest.approx(dense_s + attention_s + roof_model.iteration_overhead_s,
                                rel=1e-12)
    assert measured.attention_latency_s(8, 2400, 2400) == attention_s
    with pytest.raises(ConfigError, match="measured at tensor-parallel degree 1, the "
                                          "deployment has 2"):
        CostModel.measured(CostModel(model=m, gpu=get_gpu("a100-80gb"), tp=2).config,
                           vidur_a100_llama2_7b())
