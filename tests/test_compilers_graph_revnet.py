"""CIFAR ResNet and RevNet builders: parameter counts by hand, reversible-block structure."""

from __future__ import annotations

import pytest

from archsim.compilers.graph import (
    ReversibleBlock,
    build_workload,
    parameter_counts,
    resnet_cifar,
    revnet_cifar,
)
from archsim.errors import ConfigError


def _resnet_params_by_hand(blocks, widths, cin, classes):
    """He et al.'s CIFAR ResNet, counted layer by layer (conv KxK: out*in*K*K; bn: 2*C)."""
    total = cin * widths[0] * 9 + 2 * widths[0]                # stem conv + bn
    prev = widths[0]
    for s, (n, w) in enumerate(zip(blocks, widths, strict=True)):
        for b in range(n):
            total += prev * w * 9 + 2 * w + w * w * 9 + 2 * w  # conv1 bn1 conv2 bn2
            if prev != w or (s > 0 and b == 0):
                total += prev * w + 2 * w                      # 1x1 projection + bn
            prev = w
    return total + prev * classes + classes                    # fc with bias


def _revnet_params_by_hand(blocks, widths, cin, classes):
    """Stem; stage 0 all reversible; later stages a downsampling basic block then reversible
    blocks; F and G each bn(h) conv(h->h,3x3) bn(h) conv(h->h,3x3), h = w/2."""
    total = cin * widths[0] * 9 + 2 * widths[0]
    prev = widths[0]
    for s, (n, w) in enumerate(zip(blocks, widths, strict=True)):
        rev = n
        if s > 0:
            total += prev * w * 9 + 2 * w + w * w * 9 + 2 * w + prev * w + 2 * w
            rev = n - 1
        h = w // 2
        total += rev * 2 * (2 * h + h * h * 9 + 2 * h + h * h * 9)
        prev = w
    return total + prev * classes + classes


def test_resnet_parameter_count_small_config_by_hand():
    g = resnet_cifar(blocks_per_stage=(1, 1), widths=(4, 8), batch=1, image_size=8)
    # stem 3*4*9 + 8; stage0 block 144+8+144+8; stage1 288+16+576+16 + proj 32+16; fc 80+10
    assert g.parameter_count == 108 + 8 + 304 + 944 + 90 == 1454
    assert sum(parameter_counts(g).values()) == g.parameter_count
    counts = parameter_counts(g)
    assert counts["stem.conv"] == 108 and counts["stem.conv.bn"] == 8
    assert counts["stage1.block0.shortcut"] == 32 and counts["fc"] == 90


@pytest.mark.parametrize("blocks,widths", [((3, 3, 3), (16, 32, 64)), ((2, 1), (6, 10))])
def test_resnet_parameter_count_matches_the_closed_form(blocks, widths):
    g = resnet_cifar(blocks_per_stage=blocks, widths=widths, batch=1, image_size=8)
    assert g.parameter_count == _resnet_params_by_hand(blocks, widths, 3, 10)


def test_resnet20_has_the_published_size():
    # ResNet-20 with option-A shortcuts has 0.27M parameters (He et al. 2016, Table 6);
    # option B adds two 1x1 projections + bn: 16*32 + 64 + 32*64 + 128 = 2752.
    g = resnet_cifar()
    assert g.parameter_count - 2752 == pytest.approx(0.27e6, rel=0.01)
    assert g.metadata["depth"] == 20


@pytest.mark.parametrize("blocks,widths", [((2, 2), (4, 8)), ((3, 3, 3), (16, 32, 64)),
                                           ((1, 2), (4, 6))])
def test_revnet_parameter_count_matches_the_closed_form(blocks, widths):
    g = revnet_cifar(blocks_per_stage=blocks, widths=widths, batch=1, image_size=8)
    assert g.parameter_count == _revnet_params_by_hand(blocks, widths, 3, 10)
    assert sum(parameter_counts(g).values()) == g.parameter_count


def test_revnet_small_config_by_hand():
    g = revnet_cifar(blocks_per_stage=(2, 2), widths=(4, 8), batch=1, image_size=8)
    # stem 116; stage0 2 blocks x (F+G) x (4+36+4+36); stage1 downsample 944 + 1 block of
    # (F+G) x (8+144+8+144); fc 90.
    assert g.parameter_count == 116 + 2 * 160 + 944 + 608 + 90 == 2078


def test_reversible_blocks_have_the_expected_structure():
    batch, size = 2, 8
    g = revnet_cifar(blocks_per_stage=(3, 2, 1), widths=(8, 16, 32), batch=batch,
                     image_size=size)
    blocks = g.metadata["reversible_blocks"]
    assert all(isinstance(b, ReversibleBlock) for b in blocks)
    # stage 0: 3 reversible; stage 1: downsample + 1; stage 2: downsample only.
    assert [b.name for b in blocks] == ["stage0.block0", "stage0.block1", "stage0.block2",
                                        "stage1.block1"]
    producer = {t.name: op for op in g for t in op.outputs}
    consumers: dict[str, list[str]] = {}
    for op in g:
        for t in op.inputs:
            consumers.setdefault(t.name, []).append(op.name)
    half = {"stage0": 4, "stage1": 8}
    hw = {"stage0": size, "stage1": size // 2}
    for b in blocks:
        stage = b.name.split(".")[0]
        for ops, out, first_in, branch in ((b.f_ops, b.f_out, b.x2, "F"),
                                           (b.g_ops, b.g_out, b.y1, "G")):
            kinds = [g[n].kind for n in ops]
            assert kinds == ["norm", "activation", "conv2d", "norm", "activation", "conv2d"]
            assert g[ops[0]].inputs[0].name == first_in
            assert g[ops[-1]].outputs[0].name == out
            for n in ops:
                assert g[n].attrs["block"] == b.name and g[n].attrs["branch"] == branch
                assert g[n].outputs[0].shape == (batch, half[stage], hw[stage], hw[stage])
            for n in ops[1:]:  # a chain: each op reads the previous op's output
                assert g[n].inputs[0].name == g[ops[ops.index(n) - 1]].outputs[0].name
            for n in (ops[2], ops[5]):
                a = g[n].attrs
                assert (a["in_channels"], a["out_channels"], a["kernel_h"], a["stride"]) == \
                    (half[stage], half[stage], 3, 1)
        y1, y2 = producer[b.y1], producer[b.y2]
        assert y1.kind == y2.kind == "elementwise"
        assert {t.name for t in y1.inputs} == {b.x1, b.f_out}
        assert {t.name for t in y2.inputs} == {b.x2, b.g_out}
        assert "block" not in y1.attrs  # the adds are not part of F or G
    # Consecutive blocks of a stage chain (y1, y2) -> (x1, x2); a run starts at a split and
    # ends at a concat.
    assert (blocks[1].x1, blocks[1].x2) == (blocks[0].y1, blocks[0].y2)
    assert producer[blocks[0].x1].attrs["fn"] == "split"
    assert producer[blocks[3].x2].attrs["fn"] == "split"
    assert consumers[blocks[2].y2] == ["stage0.concat"]
    assert consumers[blocks[3].y1] == ["stage1.block1.G.bn1", "stage1.concat"]
    # The downsampling blocks are ordinary strided basic blocks, not reversible.
    for s, cin, cout in ((1, 8, 16), (2, 16, 32)):
        a = g[f"stage{s}.block0.conv1"].attrs
        assert (a["stride"], a["in_channels"], a["out_channels"]) == (2, cin, cout)
        assert "block" not in a
    assert g["fc"].outputs[0].shape == (batch, 10)
    g.validate()


def test_bad_configurations_name_the_field():
    with pytest.raises(ConfigError) as e:
        revnet_cifar(widths=(16, 33, 64))
    assert e.value.field == "widths"
    with pytest.raises(ConfigError) as e:
        resnet_cifar(blocks_per_stage=(3, 3), widths=(16, 32, 64))
    assert e.value.field == "widths"
    with pytest.raises(ConfigError) as e:
        resnet_cifar(blocks_per_stage=(3, 0, 3))
    assert e.value.field == "blocks_per_stage"
    with pytest.raises(ConfigError) as e:
        revnet_cifar(batch=0)
    assert e.value.field == "batch"
    with pytest.raises(ConfigError) as e:
        resnet_cifar(dtype="fp12")
    assert e.value.field == "dtype"


def test_registered_by_name():
    g = build_workload("revnet-cifar", batch=2, image_size=8)
    assert len(g.metadata["reversible_blocks"]) == 3 + 2 + 2
    assert build_workload("resnet-cifar", batch=2).parameter_count == \
        _resnet_params_by_hand((3, 3, 3), (16, 32, 64), 3, 10)
