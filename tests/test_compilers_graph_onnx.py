"""ONNX import on graphs built here with onnx.helper; shapes and FLOPs checked against numpy
evaluations of the same layers."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from archsim.compilers.graph.onnx_import import SUPPORTED_ONNX_OPS, from_onnx
from archsim.errors import ConfigError

F = TensorProto.FLOAT


def _model(nodes, inputs, outputs, inits=(), opset=20):
    g = helper.make_graph(nodes, "t", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def _init(name, arr):
    return numpy_helper.from_array(np.asarray(arr, dtype=np.float32), name)


def _np_conv(x, w, stride, pads):
    """Direct convolution with numpy; returns the output and its multiply count."""
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    k = w.shape[2]
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))[:, :, ::stride,
                                                                             ::stride]
    y = np.einsum("nchwij,mcij->nmhw", win, w)
    n, c, oh, ow = win.shape[:4]
    return y, n * w.shape[0] * oh * ow * c * k * k


def test_cnn_graph_shapes_and_flops_match_numpy(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 17, 17)).astype(np.float32)
    w = rng.standard_normal((8, 3, 3, 3)).astype(np.float32)
    fc = rng.standard_normal((8 * 4 * 4, 10)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "W", "b"], ["c"], name="conv", pads=[1, 1, 1, 1],
                         strides=[2, 2]),
        helper.make_node("BatchNormalization", ["c", "g", "beta", "mu", "var"], ["bn"],
                         name="bn"),
        helper.make_node("Relu", ["bn"], ["r"], name="relu"),
        helper.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "FC", "fcb"], ["y"], name="fc"),
        helper.make_node("Softmax", ["y"], ["z"], name="softmax"),
    ]
    inits = [_init("W", w), _init("b", np.zeros(8)), _init("g", np.ones(8)),
             _init("beta", np.zeros(8)), _init("mu", np.zeros(8)), _init("var", np.ones(8)),
             _init("FC", fc), _init("fcb", np.zeros(10))]
    m = _model(nodes, [helper.make_tensor_value_info("x", F, ["N", 3, 17, 17])],
               [helper.make_tensor_value_info("z", F, None)], inits)
    path = tmp_path / "cnn.onnx"
    onnx.save(m, str(path))
    g = from_onnx(path, dim_params={"N": 2})

    y, conv_macs = _np_conv(x, w, 2, [1, 1, 1, 1])
    assert g["conv"].outputs[0].shape == y.shape == (2, 8, 9, 9)
    assert g["conv"].flops == 2 * conv_macs
    assert g["conv"].attrs["padding"] == (1, 1, 1, 1)
    r = np.maximum(y, 0)
    p = r[:, :, :8, :8].reshape(2, 8, 4, 2, 4, 2).max(axis=(3, 5))
    assert g["pool"].outputs[0].shape == p.shape
    assert g["pool"].flops == p.size * 4
    assert g["relu"].flops == r.size and g["bn"].flops == 2 * y.size
    out = p.reshape(2, -1) @ fc
    assert g["fc"].outputs[0].shape == out.shape
    assert g["fc"].flops == 2 * out.shape[0] * out.shape[1] * fc.shape[0]
    assert g["softmax"].flops == 5 * out.size
    # Parameters: conv, BN scale/shift, FC; BN running statistics are state, not parameters.
    assert g.parameter_count == w.size + 8 + 8 + 8 + fc.size + 10
    assert {t.role for t in g["bn"].inputs[3:]} == {"state"}
    assert g.metadata["source"] == str(path)
    assert [op.name for op in g] == ["conv", "bn", "relu", "pool", "flatten", "fc", "softmax"]


def test_batched_matmul_transformer_ops_and_auto_pad():
    a = np.zeros((2, 3, 4, 5), np.float32)
    b = np.zeros((5, 6), np.float32)
    ref = np.matmul(a, b)
    nodes = [
        helper.make_node("MatMul", ["a", "B"], ["mm"], name="mm"),
        helper.make_node("LayerNormalization", ["mm", "ln_g", "ln_b"], ["ln"], name="ln",
                         axis=-1),
        helper.make_node("Gelu", ["ln"], ["ge"], name="gelu"),
        helper.make_node("Transpose", ["ge"], ["tr"], name="tr", perm=[0, 1, 3, 2]),
        helper.make_node("Concat", ["tr", "tr"], ["cat"], name="cat", axis=1),
        helper.make_node("Reshape", ["cat", "shape"], ["rs"], name="rs"),
        helper.make_node("Add", ["rs", "rs"], ["sum"], name="add"),
        helper.make_node("Conv", ["img", "K"], ["cv"], name="same_conv", auto_pad="SAME_UPPER",
                         strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["cv"], ["gap"], name="gap"),
        helper.make_node("ReduceMean", ["sum", "axes"], ["mean"], name="mean"),
    ]
    inits = [_init("B", b), _init("ln_g", np.ones(6)), _init("ln_b", np.zeros(6)),
             numpy_helper.from_array(np.array([12, 12], np.int64), "shape"),
             _init("K", np.zeros((4, 2, 3, 3))),
             numpy_helper.from_array(np.array([1], np.int64), "axes")]
    m = _model(nodes, [helper.make_tensor_value_info("a", F, [2, 3, 4, 5]),
                       helper.make_tensor_value_info("img", F, [1, 2, 10, 10])],
               [helper.make_tensor_value_info("mean", F, None),
                helper.make_tensor_value_info("gap", F, None)], inits)
    g = from_onnx(m)
    assert g["mm"].outputs[0].shape == ref.shape
    assert g["mm"].flops == 2 * 2 * 3 * 4 * 5 * 6 and g["mm"].attrs["batch"] == 6
    assert g["ln"].kind == "norm" and g["ln"].flops == 5 * ref.size
    assert g["gelu"].kind == "activation"
    assert g["cat"].outputs[0].shape == (2, 6, 6, 4) and g["cat"].flops == 0
    assert g["rs"].outputs[0].shape == (12, 12) and len(g["rs"].inputs) == 1
    assert g["mean"].kind == "reduce" and g["mean"].flops == 144
    # SAME_UPPER: 10 -> ceil(10/2) = 5 needs 1 pixel of padding, at the end.
    assert g["same_conv"].outputs[0].shape == (1, 4, 5, 5)
    assert g["same_conv"].attrs["padding"] == (0, 1, 0, 1)
    assert g["gap"].flops == 4 * 5 * 5


def test_lstm_flops_closed_form_and_outputs():
    t, b, i, h = 7, 3, 5, 4
    nodes = [helper.make_node("LSTM", ["x", "W", "R", "B"], ["Y", "Y_h"], name="lstm",
                              hidden_size=h, direction="bidirectional")]
    inits = [_init("W", np.zeros((2, 4 * h, i))), _init("R", np.zeros((2, 4 * h, h))),
             _init("B", np.zeros((2, 8 * h)))]
    m = _model(nodes, [helper.make_tensor_value_info("x", F, [t, b, i])],
               [helper.make_tensor_value_info("Y", F, None)], inits)
    g = from_onnx(m)
    op = g["lstm"]
    assert op.kind == "recurrent"
    assert [o.shape for o in op.outputs] == [(t, 2, b, h), (2, b, h)]
    assert op.flops == 2 * 2 * t * b * 4 * h * (i + h) + 2 * t * b * h * 9
    assert g.parameter_count == 2 * 4 * h * i + 2 * 4 * h * h + 2 * 8 * h


def test_unsupported_operator_names_type_and_node():
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="ok"),
             helper.make_node("TopK", ["r", "k"], ["v", "idx"], name="pick_best", axis=-1)]
    m = _model(nodes, [helper.make_tensor_value_info("x", F, [2, 8])],
               [helper.make_tensor_value_info("v", F, None)],
               [numpy_helper.from_array(np.array([3], np.int64), "k")])
    with pytest.raises(ConfigError, match="unsupported ONNX operator 'TopK' in node "
                                          "'pick_best'") as info:
        from_onnx(m)
    assert info.value.field == "op_type"
    assert "Conv" in info.value.allowed and "LSTM" in SUPPORTED_ONNX_OPS
    unnamed = _model([helper.make_node("Einsum", ["x", "x"], ["y"], equation="ij,ij->i")],
                     [helper.make_tensor_value_info("x", F, [2, 8])],
                     [helper.make_tensor_value_info("y", F, None)], opset=17)
    with pytest.raises(ConfigError, match="'Einsum' in node 'Einsum_0'"):
        from_onnx(unnamed)


def test_bad_files_and_dimensions_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="ONNX file not found") as info:
        from_onnx(tmp_path / "missing.onnx")
    assert info.value.file.endswith("missing.onnx")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\x00\xffnot a protobuf" * 10)
    with pytest.raises(ConfigError, match="junk.onnx"):
        from_onnx(junk)
    m = _model([helper.make_node("Relu", ["x"], ["y"], name="act")],
               [helper.make_tensor_value_info("x", F, ["batch", 8])],
               [helper.make_tensor_value_info("y", F, None)])
    with pytest.raises(ConfigError, match=r"tensor 'x' \(input of node 'act'\) has an unknown "
                                          r"dimension 'batch'.*dim_params=\{'batch': \.\.\.\}"):
        from_onnx(m)
    assert from_onnx(m, dim_params={"batch": 4})["act"].outputs[0].shape == (4, 8)
    with pytest.raises(ConfigError, match="dimension 'batch' must be a positive integer"):
        from_onnx(m, dim_params={"batch": 0})
    with pytest.raises(ConfigError, match="expected a path or an onnx.ModelProto, not int"):
        from_onnx(3)


def _resnet50_onnx():
    """ResNet-50 v1.5 written directly as ONNX nodes (fp16 zero weights)."""
    nodes, inits = [], []

    def w(name, shape):
        inits.append(numpy_helper.from_array(np.zeros(shape, np.float16), name))
        return name

    def conv_bn(name, x, cin, cout, k, s):
        nodes.append(helper.make_node("Conv", [x, w(name + ".w", (cout, cin, k, k))], [name],
                                      name=name, strides=[s, s], pads=[k // 2] * 4))
        params = [w(f"{name}.bn.{p}", (cout,)) for p in ("scale", "bias", "mean", "var")]
        nodes.append(helper.make_node("BatchNormalization", [name, *params], [name + ".bn"],
                                      name=name + ".bn"))
        return name + ".bn"

    def relu(x):
        nodes.append(helper.make_node("Relu", [x], [x + ".relu"], name=x + ".relu"))
        return x + ".relu"

    x = relu(conv_bn("conv1", "image", 3, 64, 7, 2))
    nodes.append(helper.make_node("MaxPool", [x], ["pool"], name="pool", kernel_shape=[3, 3],
                                  strides=[2, 2], pads=[1, 1, 1, 1]))
    x, cin = "pool", 64
    for si, (width, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2),
                                                  (512, 3, 2)]):
        for b in range(blocks):
            p, s = f"s{si}b{b}", (stride if b == 0 else 1)
            y = relu(conv_bn(p + "c1", x, cin, width, 1, 1))
            y = relu(conv_bn(p + "c2", y, width, width, 3, s))
            y = conv_bn(p + "c3", y, width, 4 * width, 1, 1)
            sc = conv_bn(p + "ds", x, cin, 4 * width, 1, s) if b == 0 else x
            nodes.append(helper.make_node("Add", [y, sc], [p + "add"], name=p + "add"))
            x, cin = relu(p + "add"), 4 * width
    nodes += [helper.make_node("GlobalAveragePool", [x], ["gap"], name="gap"),
              helper.make_node("Flatten", ["gap"], ["flat"], name="flat"),
              helper.make_node("Gemm", ["flat", w("fc.w", (2048, 1000)), w("fc.b", (1000,))],
                               ["logits"], name="fc")]
    h16 = TensorProto.FLOAT16
    return _model(nodes, [helper.make_tensor_value_info("image", h16, [1, 3, 224, 224])],
                  [helper.make_tensor_value_info("logits", h16, None)], inits, opset=17)


def test_imported_resnet50_agrees_with_the_builder_and_torchvision():
    from archsim.compilers.graph.cnn import resnet50

    g = from_onnx(_resnet50_onnx())
    assert g.parameter_count == 25_557_032  # torchvision; BN statistics are state
    ref = resnet50(dtype="fp16")
    assert len(g) == len(ref)
    assert g.flops_by_kind() == ref.flops_by_kind()
    assert g.weight_bytes == ref.weight_bytes


def test_missing_onnx_package_is_a_toolchain_error(monkeypatch):
    from archsim.errors import ToolchainError

    monkeypatch.setitem(__import__("sys").modules, "onnx", None)
    with pytest.raises(ToolchainError, match="needs the 'onnx' package; install onnx"):
        from_onnx("model.onnx")


def test_empty_and_truncated_files_are_config_errors_not_empty_graphs(tmp_path):
    # Protobuf parses an empty or cut-short message (every field is optional); each must be
    # refused naming the file, never imported as an empty or partial graph.
    m = _model([helper.make_node("Relu", ["x"], ["y"], name="a"),
                helper.make_node("Relu", ["y"], ["z"], name="b")],
               [helper.make_tensor_value_info("x", F, [4, 8])],
               [helper.make_tensor_value_info("z", F, None)])
    data = m.SerializeToString()
    path = tmp_path / "cut.onnx"
    path.write_bytes(b"")
    with pytest.raises(ConfigError, match=r"cut\.onnx: not an ONNX model: the file is empty"):
        from_onnx(path)
    for n in range(1, len(data)):
        path.write_bytes(data[:n])
        with pytest.raises(ConfigError) as info:
            from_onnx(path)
        assert info.value.file == str(path), n
    path.write_bytes(data)
    assert [op.name for op in from_onnx(path)] == ["a", "b"]
    with pytest.raises(ConfigError, match="not an ONNX model: no graph"):
        from_onnx(onnx.ModelProto(ir_version=8))
    no_nodes = _model([], [helper.make_tensor_value_info("x", F, [4])],
                      [helper.make_tensor_value_info("x", F, [4])])
    with pytest.raises(ConfigError, match="has no nodes"):
        from_onnx(no_nodes)
