"""GPU datasheets and the roofline model."""

import pytest

from archsim.compilers.graph import TensorSpec, matmul
from archsim.errors import ConfigError
from archsim.hw.models import HardwareModel
from archsim.hw.models.gpu import GPURoofline, get_gpu


def test_aliases_and_unknown_names():
    assert get_gpu("A100").name == "a100-80gb"
    with pytest.raises(ConfigError, match="unknown GPU 'v100'") as info:
        get_gpu("v100")
    assert info.value.field == "gpu"


def test_roofline_picks_the_binding_limit():
    spec = get_gpu("h100-80gb")
    model = GPURoofline(spec, dtype="fp16", compute_efficiency=0.5, memory_efficiency=0.8)
    assert isinstance(model, HardwareModel)
    m = n = k = 8192  # large square GEMM: compute bound
    a = TensorSpec("a", (m, k))
    b = TensorSpec("b", (k, n), role="weight")
    op = matmul("gemm", a, b, "c", m=m, n=n, k=k)
    cost = model.operator_cost(op)
    assert cost.bound == "compute"
    assert cost.latency_s == pytest.approx(2 * m * n * k / (989.4e12 * 0.5))
    assert cost.energy_j == pytest.approx(cost.latency_s * 700.0)
    # A matrix-vector product is memory bound: 2 bytes per weight over 80% of 3.35 TB/s.
    gemv = matmul("gemv", TensorSpec("x", (1, k)), b, "y", m=1, n=n, k=k)
    cost = model.operator_cost(gemv)
    assert cost.bound == "memory"
    assert cost.latency_s == pytest.approx((k + k * n + n) * 2 / (3.35e12 * 0.8))


def test_roofline_rejects_bad_parameters():
    with pytest.raises(ConfigError, match="must be in \\(0, 1\\], not 1.5"):
        GPURoofline(get_gpu("a100"), compute_efficiency=1.5)
    with pytest.raises(ConfigError, match="no peak rate for data type 'fp8'"):
        GPURoofline(get_gpu("a100"), dtype="fp8")


# --- CalibratedGPU: measured per-operator profiles ----------------------------------------

def _law(flops: float) -> float:
    """A known linear law the profile points are generated from: 5 us + flops / 80 TFLOP/s."""
    return 5e-6 + flops / 80e12


def test_calibrated_gpu_recovers_a_linear_law_between_and_beyond_its_points(tmp_path):
    from archsim.hw.models import CalibratedGPU

    measured = [1e6, 1e8, 1e10, 1e12]
    path = tmp_path / "profile.csv"
    path.write_text("kind,flops,latency_s,note\n" + "".join(
        f"matmul,{f!r},{_law(f)!r},x\n" for f in measured) + "conv2d,1e9,2e-5,y\n")
    gpu = CalibratedGPU.from_csv(path, power_w=300.0, name="a100-measured")
    assert isinstance(gpu, HardwareModel) and gpu.kinds == ["conv2d", "matmul"]
    for m, n, k in ((64, 64, 64), (512, 1024, 768), (8192, 8192, 4096), (3, 5, 7)):
        op = matmul("g", TensorSpec("a", (m, k)), TensorSpec("b", (k, n), role="weight"), "c",
                    m=m, n=n, k=k)
        cost = gpu.operator_cost(op)
        assert cost.latency_s == pytest.approx(_law(2 * m * n * k), rel=1e-9)
        assert cost.energy_j == pytest.approx(300.0 * _law(2 * m * n * k), rel=1e-9)
        assert cost.bound == "measured"
    # One point: proportional to the FLOPs.
    assert gpu.latency_s("conv2d", 3e9) == pytest.approx(6e-5)


def test_calibrated_gpu_errors(tmp_path):
    from archsim.hw.models import CalibratedGPU

    gpu = CalibratedGPU(profiles={"matmul": [(1e6, 1e-5), (1e9, 1e-3)]})
    op = matmul("g", TensorSpec("a", (2, 2)), TensorSpec("b", (2, 2), role="weight"), "c",
                m=2, n=2, k=2)
    assert gpu.operator_cost(op).latency_s >= 0
    from archsim.compilers.graph import TensorSpec as TS
    from archsim.compilers.graph.cnn import softmax

    with pytest.raises(ConfigError, match="no measured profile for operator kind 'softmax'") \
            as info:
        gpu.operator_cost(softmax("s", TS("x", (4, 4))))
    assert info.value.field == "kind" and info.value.allowed == ["matmul"]
    with pytest.raises(ConfigError, match="same FLOPs"):
        CalibratedGPU(profiles={"matmul": [(1e6, 1e-5), (1e6, 2e-5)]})
    with pytest.raises(ConfigError, match="no operator profiles"):
        CalibratedGPU(profiles={})
    bad = tmp_path / "bad.csv"
    bad.write_text("kind,flops\nmatmul,1\n")
    with pytest.raises(ConfigError, match="missing column") as info:
        CalibratedGPU.from_csv(bad)
    assert info.value.file == str(bad)
