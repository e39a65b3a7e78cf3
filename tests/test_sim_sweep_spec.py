"""Sweep specs: validation errors name the field; grid / random / LHS designs; constraints."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.sweep import Expression, SweepSpec, load_spec, point_key

BASE = {"name": "t", "model": "gpu-roofline"}


def spec(**kw):
    return SweepSpec.from_dict({**BASE, **kw})


# -- malformed specs ---------------------------------------------------------------------------


def test_unknown_model_names_field_and_allowed():
    with pytest.raises(ConfigError) as e:
        SweepSpec.from_dict({"model": "no-such-model"})
    assert e.value.field == "model"
    assert "unknown sweep model 'no-such-model'" in str(e.value)
    assert "gpu-roofline" in e.value.allowed


def test_unknown_parameter_names_field():
    with pytest.raises(ConfigError) as e:
        spec(parameters={"batchsize": {"values": [1, 2]}})
    assert e.value.field == "parameters.batchsize"
    assert "has no parameter 'batchsize'" in str(e.value)
    assert "batch" in e.value.allowed
    with pytest.raises(ConfigError) as e:
        spec(fixed={"gpus": "a100"})
    assert e.value.field == "fixed.gpus"


@pytest.mark.parametrize("param, message", [
    ({"values": []}, "empty range: 'values' is an empty list"),
    ({"low": 8, "high": 2, "num": 3}, "empty range: high 8"),
    ({"low": 1, "high": 4, "num": 0}, "empty range: num must be >= 1"),
    ({"low": 1.2, "high": 1.8, "num": 2, "integer": True}, "empty range: no integer"),
    ({"low": 1, "high": 4}, "a range on a grid needs 'num'"),
    ({"values": [1], "low": 1, "high": 2}, "give either 'values' or 'low'/'high'"),
    ({"low": 0, "high": 4, "num": 2, "log": True}, "a log range needs low > 0"),
])
def test_bad_ranges_name_the_parameter(param, message):
    with pytest.raises(ConfigError) as e:
        spec(parameters={"batch": param})
    assert e.value.field == "parameters.batch"
    assert message.split(" 8")[0] in str(e.value)


def test_empty_range_message_exact():
    with pytest.raises(ConfigError) as e:
        spec(parameters={"batch": {"low": 8, "high": 2, "num": 3}})
    assert str(e.value) == "field 'parameters.batch': empty range: high 2 < low 8"


def test_structural_errors_name_file_and_field(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('model = "gpu-roofline"\nsampler = "grid"\n')
    with pytest.raises(ConfigError) as e:
        load_spec(path)
    assert e.value.field == "sampler" and e.value.file == str(path)
    assert "unknown field" in str(e.value) and "method" in e.value.allowed
    path.write_text('model = "gpu-roofline"\nmethod = "sobol"\n')
    with pytest.raises(ConfigError) as e:
        load_spec(path)
    assert e.value.field == "method"
    path.write_text('model = "gpu-roofline"\n[parameters]\nbatch = { vals = [1] }\n')
    with pytest.raises(ConfigError) as e:
        load_spec(path)
    assert e.value.field == "parameters.batch.vals"
    path.write_text("model = \n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_spec(path)
    with pytest.raises(ConfigError, match="cannot read sweep spec"):
        load_spec(tmp_path / "missing.toml")


def test_file_named_in_semantic_errors(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('model = "gpu-roofline"\n[parameters]\nbatch = { values = [] }\n')
    with pytest.raises(ConfigError) as e:
        load_spec(path)
    assert e.value.file == str(path) and e.value.field == "parameters.batch"
    assert str(e.value).startswith(f"{path}: field 'parameters.batch': empty range")


def test_sampling_and_objective_errors():
    with pytest.raises(ConfigError) as e:
        spec(method="lhs", parameters={"batch": {"low": 1, "high": 8}})
    assert e.value.field == "samples"
    with pytest.raises(ConfigError) as e:
        spec(samples=3, parameters={"batch": {"values": [1]}})
    assert e.value.field == "samples"
    with pytest.raises(ConfigError) as e:
        spec(method="random", samples=3, parameters={"batch": {"low": 1, "high": 8, "num": 2}})
    assert e.value.field == "parameters.batch"
    with pytest.raises(ConfigError) as e:
        spec(objectives=["latency_s", "area_mm2"])
    assert e.value.field == "objectives[1]" and "latency_s" in e.value.allowed
    with pytest.raises(ConfigError) as e:
        spec(fixed={"batch": 2}, parameters={"batch": {"values": [1]}})
    assert e.value.field == "parameters.batch"


def test_bad_values_are_rejected_naming_the_parameter():
    # Each value is checked when the spec is loaded, before any point is built.
    with pytest.raises(ConfigError) as e:
        spec(parameters={"gpu": {"values": ["a100-80gb", "tpu-v4"]}})
    assert e.value.field == "parameters.gpu" and "unknown GPU 'tpu-v4'" in str(e.value)
    with pytest.raises(ConfigError) as e:
        spec(fixed={"batch": 0})
    assert e.value.field == "fixed.batch"
    with pytest.raises(ConfigError) as e:
        spec(fixed={"batch": "8"})
    assert e.value.field == "fixed.batch"


def test_constraint_errors():
    with pytest.raises(ConfigError) as e:
        spec(constraints=["batch <= seq_len"])
    assert e.value.field == "constraints[0]" and "unknown name 'seq_len'" in str(e.value)
    with pytest.raises(ConfigError) as e:
        spec(constraints=["batch <= ", "True"])
    assert e.value.field == "constraints[0]" and "invalid expression" in str(e.value)
    with pytest.raises(ConfigError) as e:
        spec(constraints=["True", "__import__('os').system('true')"])
    assert e.value.field == "constraints[1]" and "unsupported syntax" in str(e.value)
    with pytest.raises(ConfigError) as e:
        spec(constraints=["batch > 100"], parameters={"batch": {"values": [1, 2]}}).points()
    assert e.value.field == "constraints" and "no point satisfies" in str(e.value)


def test_expression_evaluation():
    expr = Expression("a * 2 >= b and c in ('x', 'y') or not d")
    assert expr({"a": 2, "b": 4, "c": "x", "d": True})
    assert not expr({"a": 1, "b": 4, "c": "x", "d": True})
    assert expr({"a": 1, "b": 4, "c": "z", "d": False})


def test_expression_violation_by_hand():
    cases = [("a >= b", {"a": 1, "b": 3}, 2.0), ("a >= b", {"a": 3, "b": 3}, 0.0),
             ("a <= 2", {"a": 2.5}, 0.5), ("a == 2", {"a": -1}, 3.0),
             ("0 < a < 1", {"a": 3}, 2.0),  # 0 < 3 holds, 3 < 1 misses by 2
             ("a >= 1 and b <= 2", {"a": 0.5, "b": 4}, 2.5),
             ("a >= 1 or b <= 2", {"a": 0.5, "b": 4}, 0.5),
             ("a * 2 >= b", {"a": 1, "b": 5}, 3.0), ("a >= 2 ** b", {"a": 1, "b": 3}, 7.0),
             ("c in ('x', 'y')", {"c": "z"}, 1.0), ("not d", {"d": True}, 1.0),
             ("c != 'x'", {"c": "x"}, 1.0), ("a != 2", {"a": 2}, 1.0)]
    for text, values, expected in cases:
        assert Expression(text).violation(values) == expected, text
    # a strict comparison failing on equal sides is still positive
    assert 0.0 < Expression("a > b").violation({"a": 3, "b": 3}) < 1e-300


def test_expression_violation_is_positive_exactly_when_false():
    expr = Expression("a * 2 >= b and c in ('x', 'y') or not d and a < b")
    for a, b, c, d in itertools.product([0, 1, 2.5], [0, 2, 5], ["x", "z"], [True, False]):
        values = {"a": a, "b": b, "c": c, "d": d}
        # Python's own evaluation of the text is the reference
        truth = eval(expr.text, {}, dict(values))  # noqa: S307 - the test's literal text
        assert (expr.violation(values) == 0.0) == bool(truth) == expr(values)


# -- designs -----------------------------------------------------------------------------------


def test_grid_is_the_cartesian_product_with_defaults_filled():
    s = spec(fixed={"model": "llama-13b"},
             parameters={"gpu": {"values": ["a100-40gb", "h100-80gb"]},
                         "batch": {"low": 1, "high": 64, "num": 7, "log": True},
                         "compute_efficiency": {"low": 0.5, "high": 1.0, "num": 3}})
    pts = s.points()
    expected = list(itertools.product(["a100-40gb", "h100-80gb"], [1, 2, 4, 8, 16, 32, 64],
                                      [0.5, 0.75, 1.0]))
    assert [(p.params["gpu"], p.params["batch"], p.params["compute_efficiency"])
            for p in pts] == expected
    assert all(p.params["model"] == "llama-13b" and p.params["memory_efficiency"] == 1.0
               for p in pts)
    assert len({p.key for p in pts}) == len(pts)


def test_constraints_filter_like_enumeration():
    s = spec(parameters={"new_tokens": {"values": [1, 64, 512]},
                         "context_len": {"values": [32, 128, 1024]},
                         "batch": {"values": [1, 3]}},
             constraints=["context_len >= new_tokens", "batch * new_tokens <= 1024"])
    got = {(p.params["new_tokens"], p.params["context_len"], p.params["batch"])
           for p in s.points()}
    want = {(t, c, b) for t in (1, 64, 512) for c in (32, 128, 1024) for b in (1, 3)
            if c >= t and b * t <= 1024}
    assert got == want


def test_lhs_occupies_every_stratum_once_and_is_seeded():
    n = 40
    s = spec(method="lhs", samples=n, seed=7,
             parameters={"compute_efficiency": {"low": 0.2, "high": 1.0},
                         "memory_efficiency": {"low": 0.5, "high": 0.9}})
    pts = s.points()
    assert len(pts) == n
    for name, lo, hi in (("compute_efficiency", 0.2, 1.0), ("memory_efficiency", 0.5, 0.9)):
        u = (np.array([p.params[name] for p in pts]) - lo) / (hi - lo)
        strata = np.floor(u * n).astype(int)
        assert sorted(strata) == list(range(n))
    again = spec(method="lhs", samples=n, seed=7, parameters=dict(s.parameters)).points()
    assert [p.key for p in again] == [p.key for p in pts]
    other = spec(method="lhs", samples=n, seed=8, parameters=dict(s.parameters)).points()
    assert {p.key for p in other} != {p.key for p in pts}


def test_random_sampling_ranges_and_integers():
    s = spec(method="random", samples=200, seed=3,
             parameters={"batch": {"low": 2, "high": 5},
                         "context_len": {"low": 100, "high": 10000, "log": True,
                                         "integer": True},
                         "gpu": {"values": ["a100-40gb", "h100-80gb"]}})
    pts = s.points()
    batches = {p.params["batch"] for p in pts}
    assert batches == {2, 3, 4, 5}  # integers, both ends reachable
    ctx = np.array([p.params["context_len"] for p in pts])
    assert ctx.min() >= 100 and ctx.max() <= 10000
    # log-uniform: about half the mass below the geometric midpoint 1000
    assert 0.3 < np.mean(ctx < 1000) < 0.7
    assert {p.params["gpu"] for p in pts} == {"a100-40gb", "h100-80gb"}
    assert len(pts) <= 200  # duplicates collapse into one point


def test_point_key_depends_on_model_params_seed():
    a = point_key("m", {"x": 1, "y": 2.0}, 0)
    assert a == point_key("m", {"y": 2.0, "x": 1}, 0)
    assert len({a, point_key("m", {"x": 1, "y": 2.5}, 0), point_key("m2", {"x": 1, "y": 2.0}, 0),
                point_key("m", {"x": 1, "y": 2.0}, 1)}) == 4


def test_shipped_specs_load():
    from importlib.resources import files

    names = sorted(p.name for p in files("archsim.soc_configs").iterdir()
                   if p.name.startswith("sweep_") and p.name.endswith(".toml"))
    assert {"sweep_gpu_roofline.toml", "sweep_soc.toml", "sweep_serving.toml",
            "sweep_training.toml"} <= set(names)
    for name in names:
        s = load_spec(files("archsim.soc_configs") / name)
        pts = s.points()
        # every point carries every parameter of its model, defaults filled in
        assert pts and all(set(p.params) == set(s.sweep_model.parameter_names) for p in pts)
    training = load_spec(files("archsim.soc_configs") / "sweep_training.toml").points()
    # the constraint dp * tp * pp == 64 with tp <= 8, by enumeration of the grid
    want = {(dp, tp, pp) for dp in (1, 2, 4, 8, 16, 32, 64) for tp in (1, 2, 4, 8)
            for pp in (1, 2, 4, 8) if dp * tp * pp == 64}
    assert {(p.params["dp"], p.params["tp"], p.params["pp"]) for p in training} == want
    assert len(training) == len(want) * 2 * 2  # zero x recompute
