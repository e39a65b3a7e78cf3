"""SoC descriptions: the shipped files load; bad input names file, field and allowed values."""

from __future__ import annotations

from pathlib import Path

import pytest

from archsim.errors import ConfigError
from archsim.sim.soc import SoCConfig, load_soc_config

CONFIGS = Path(__file__).resolve().parents[1] / "soc_configs"

BASE = """
[[accelerators]]
kind = "smv"
"""


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "soc.toml"
    p.write_text(text)
    return p


def test_shipped_smaug_baseline_is_smaug_smv():
    cfg = load_soc_config(CONFIGS / "smaug_baseline.toml")
    acc = cfg.accelerators[0]
    assert (acc.kind, acc.pes, acc.macs_per_pe, acc.count) == ("smv", 8, 32, 1)
    sp = acc.scratchpads
    assert (sp.input_elements, sp.weight_elements, sp.output_elements) == (32768,) * 3
    assert cfg.host_memory.policy("input") == "dma"
    assert cfg.cpu.data_prep_threads == 1


def test_shipped_systolic_soc():
    cfg = load_soc_config(CONFIGS / "systolic_soc.toml")
    assert cfg.accelerators[0].kind == "systolic"
    assert cfg.accelerators[0].macs_per_cycle == 16 * 16


def test_bad_kind_names_file_field_and_allowed(tmp_path):
    p = _write(tmp_path, '[[accelerators]]\nkind = "tpu"\n')
    with pytest.raises(ConfigError) as exc:
        load_soc_config(p)
    e = exc.value
    assert e.file == str(p)
    assert e.field == "accelerators[0].kind"
    assert sorted(e.allowed) == ["accelerator", "dsl", "model", "smv", "systolic"]
    assert str(p) in str(e) and "accelerators[0].kind" in str(e) and "'systolic'" in str(e)


def test_bad_policy_and_dataflow(tmp_path):
    p = _write(tmp_path, BASE + '[host_memory]\nweights = "cache"\n')
    with pytest.raises(ConfigError) as exc:
        load_soc_config(p)
    assert exc.value.field == "host_memory.weights"
    assert sorted(exc.value.allowed) == ["acp", "dma"]
    p = _write(tmp_path, '[[accelerators]]\nkind = "systolic"\ndataflow = "is"\n')
    with pytest.raises(ConfigError) as exc:
        load_soc_config(p)
    assert exc.value.field == "accelerators[0].dataflow"
    assert sorted(exc.value.allowed) == ["os", "ws"]


def test_unknown_field_lists_allowed(tmp_path):
    p = _write(tmp_path, BASE + "[dram]\nbandwith_bytes_per_s = 1e9\n")
    with pytest.raises(ConfigError) as exc:
        load_soc_config(p)
    assert exc.value.field == "dram.bandwith_bytes_per_s"
    assert "bandwidth_bytes_per_s" in exc.value.allowed
    assert "unknown field" in str(exc.value)


def test_nested_unknown_field(tmp_path):
    p = _write(tmp_path, BASE + "[accelerators.scratchpads]\ninputs = 3\n")
    with pytest.raises(ConfigError) as exc:
        load_soc_config(p)
    assert exc.value.field == "accelerators[0].scratchpads.inputs"
    assert "input_elements" in exc.value.allowed


def test_missing_accelerators_and_negative_value(tmp_path):
    with pytest.raises(ConfigError) as exc:
        load_soc_config(_write(tmp_path, "[cpu]\ncores = 2\n"))
    assert exc.value.field == "accelerators" and "missing" in str(exc.value)
    with pytest.raises(ConfigError) as exc:
        load_soc_config(_write(tmp_path, BASE + "[dram]\nbandwidth_bytes_per_s = -1\n"))
    assert exc.value.field == "dram.bandwidth_bytes_per_s"


def test_threads_beyond_cores(tmp_path):
    with pytest.raises(ConfigError) as exc:
        load_soc_config(_write(tmp_path, BASE + "[cpu]\ncores = 2\ndata_prep_threads = 4\n"))
    assert exc.value.field == "cpu"
    assert "data_prep_threads (4) exceeds cores (2)" in str(exc.value)


def test_mixed_scratchpads_rejected(tmp_path):
    text = BASE + '[[accelerators]]\nkind = "systolic"\n[accelerators.scratchpads]\n' \
        "input_elements = 16\n"
    with pytest.raises(ConfigError, match="same scratchpads"):
        load_soc_config(_write(tmp_path, text))


def test_unreadable_and_invalid_toml(tmp_path):
    with pytest.raises(ConfigError, match="cannot read SoC description") as exc:
        load_soc_config(tmp_path / "nope.toml")
    assert exc.value.file == str(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_soc_config(_write(tmp_path, "[[accelerators]\n"))


def test_with_changes_validates():
    cfg = SoCConfig.from_dict({"accelerators": [{"kind": "smv"}]})
    c2 = cfg.with_changes(accelerators=4, policy="acp", threads=8)
    assert c2.accelerators[0].count == 4
    assert c2.host_memory.policy("weight") == "acp"
    assert c2.cpu.data_prep_threads == 8 and c2.cpu.cores >= 8
    with pytest.raises(ConfigError) as exc:
        cfg.with_changes(accelerators=0)
    assert exc.value.field == "accelerators[0].count"


def test_each_kind_is_its_own_model(tmp_path):
    from archsim.sim.soc import (
        DSLAcceleratorConfig,
        ModelAcceleratorConfig,
        SMVAcceleratorConfig,
        SystolicAcceleratorConfig,
    )

    for name in ("smaug_baseline", "systolic_soc", "dsl_soc"):
        load_soc_config(CONFIGS / f"{name}.toml")  # the shipped files, unchanged
    text = ('[[accelerators]]\nkind = "systolic"\n[[accelerators]]\nkind = "smv"\n'
            '[[accelerators]]\nkind = "model"\ncycles_model = "a:b"\n'
            '[[accelerators]]\nkind = "dsl"\nkernel = "a:b"\n')
    # Structure only: load_soc_config also loads what the entries name ("a:b" does not exist).
    import tomllib

    cfg = SoCConfig.from_dict(tomllib.loads(text))
    assert [type(a) for a in cfg.accelerators] == [
        SystolicAcceleratorConfig, SMVAcceleratorConfig, ModelAcceleratorConfig,
        DSLAcceleratorConfig]
    assert "rows" not in SMVAcceleratorConfig.model_fields
    assert "kernel" not in SystolicAcceleratorConfig.model_fields


def test_field_of_another_kind_names_the_kind_and_the_allowed_fields(tmp_path):
    p = _write(tmp_path, '[[accelerators]]\nkind = "smv"\nrows = 4\n')
    with pytest.raises(ConfigError) as exc:
        load_soc_config(p)
    e = exc.value
    assert e.file == str(p) and e.field == "accelerators[0].rows"
    assert "rows only used with kind 'systolic', not 'smv'" in str(e)
    assert "pes" in e.allowed and "rows" not in e.allowed


def test_missing_field_of_a_kind(tmp_path):
    p = _write(tmp_path, '[[accelerators]]\nkind = "smv"\n[[accelerators]]\nkind = "model"\n')
    with pytest.raises(ConfigError) as exc:
        load_soc_config(p)
    assert exc.value.file == str(p) and exc.value.field == "accelerators[1].cycles_model"
    assert "kind 'model' needs cycles_model" in str(exc.value)
    p = _write(tmp_path, "[[accelerators]]\ncount = 2\n")
    with pytest.raises(ConfigError) as exc:
        load_soc_config(p)
    assert exc.value.field == "accelerators[0].kind"
    assert sorted(exc.value.allowed) == ["accelerator", "dsl", "model", "smv", "systolic"]


def test_global_buffer_section(tmp_path):
    gb = '[global_buffer]\ncapacity_bytes = 2097152\ntechnology = "edram"\n' \
         'bandwidth_bytes_per_s = 64e9\nbanks = 4\n'
    cfg = load_soc_config(_write(tmp_path, BASE + gb))
    g = cfg.global_buffer
    assert (g.capacity_bytes, g.banks, g.word_bits, g.temperature_c) == (2097152, 4, 64, 25.0)
    assert g.row_bits == 256 and g.rows == 2097152 * 8 // 256
    # Unset latency: the technology's read latency from the memtech table.
    from archsim.hw.models.memtech import memory_technology

    assert g.access_latency_s == memory_technology("edram").read_latency_s
    mm = g.memory_model()
    assert (mm.words, mm.width, mm.banks, mm.bits) == (2097152 * 8 // 64, 64, 4, 2097152 * 8)
    assert load_soc_config(_write(tmp_path, BASE)).global_buffer is None


@pytest.mark.parametrize("extra,field,message", [
    ('technology = "dram"\n', "global_buffer.technology", "invalid value 'dram'"),
    ('technology = "sram"\ntemperature_c = 85\n', "global_buffer",
     "temperature_c only applies to technology 'edram'"),
    ('technology = "edram"\nword_bits = 48\n', "global_buffer",
     "must be a multiple of banks * word_bits (48 bits, one row)"),
    ('technology = "edram"\nrefresh_percentile = 1.0\n', "global_buffer.refresh_percentile",
     "less than 1"),
])
def test_global_buffer_errors(tmp_path, extra, field, message):
    gb = '[global_buffer]\ncapacity_bytes = 1000\nbandwidth_bytes_per_s = 1e9\n' + extra
    with pytest.raises(ConfigError) as exc:
        load_soc_config(_write(tmp_path, BASE + gb))
    assert exc.value.field == field
    assert message in str(exc.value)
