"""archsim.loading: objects by ``"module:attribute"`` name and by entry point."""

from __future__ import annotations

import importlib
import json
import os.path
import sys
import textwrap
from pathlib import Path

import pytest

from archsim.errors import ConfigError, DSLError
from archsim.loading import (
    entry_point_names,
    import_file,
    load_entry_point,
    load_object,
    read_text_file,
)

GROUP = "archsim.test-loading"


def test_load_object_by_module_and_qualified_name():
    assert load_object("json:dumps", field="f") is json.dumps
    assert load_object("os.path:join", field="f") is os.path.join
    # A dotted attribute path after the colon.
    assert load_object("json:JSONDecoder.decode", field="f") is json.JSONDecoder.decode
    # pkgutil.resolve_name's colon-less form is accepted too.
    assert load_object("os.path.join", field="f") is os.path.join


@pytest.mark.parametrize("target", ["", "   ", ":dumps", "json:", 3, None])
def test_malformed_names_are_config_errors_naming_the_field(target):
    with pytest.raises(ConfigError) as info:
        load_object(target, field="model.function", what="cycles model")  # type: ignore[arg-type]
    assert info.value.field == "model.function"
    assert str(info.value) == (f"field 'model.function': cycles model name {target!r} is not "
                               "of the form 'package.module:attribute'")


def test_missing_module_and_attribute_name_the_field():
    with pytest.raises(ConfigError, match=r"^field 'design': cannot load design "
                                          r"'archsim.no_such_module:Thing': cannot import "
                                          r"module 'archsim.no_such_module' \(No module named "
                                          r"'archsim.no_such_module'\)$"):
        load_object("archsim.no_such_module:Thing", field="design", what="design")
    with pytest.raises(ConfigError, match=r"^field 'kernel': cannot load object "
                                          r"'json:JSONDecoder.nope': module 'json' has no "
                                          r"object 'JSONDecoder.nope'$") as info:
        load_object("json:JSONDecoder.nope", field="kernel")
    with pytest.raises(ConfigError, match=r"^field 'k': cannot load object 'json.nope': "
                                          r"no such object$"):
        load_object("json.nope", field="k")
    with pytest.raises(ConfigError, match=r"^field 'k': cannot load object 'json:1x': "):
        load_object("json:1x", field="k")  # resolve_name rejects it as malformed
    assert info.value.field == "kernel"
    assert info.value.__cause__ is None  # raised `from None`: one clear message


def test_error_inside_the_imported_module_is_a_dsl_error_at_its_line(tmp_path, monkeypatch):
    # A module that exists but is broken is a bug in that module, not a bad name: a DSLError
    # at the line of the module that raised, with the exception's type and message.
    (tmp_path / "broken_mod_for_loading.py").write_text("x = 1\nraise RuntimeError('boom')\n")
    (tmp_path / "imports_missing_for_loading.py").write_text("import no_such_mod_xyz\n")
    (tmp_path / "bad_attr_for_loading.py").write_text("import json\ny = json.nope\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(DSLError) as info:
        load_object("broken_mod_for_loading:x", field="f")
    assert info.value.filename == str(tmp_path / "broken_mod_for_loading.py")
    assert (info.value.lineno, info.value.col) == (2, 1)
    assert str(info.value).endswith(": cannot load object 'broken_mod_for_loading:x': "
                                    "RuntimeError: boom")
    # ImportError / AttributeError raised by the module's own code are not "no such module".
    with pytest.raises(DSLError, match=r"imports_missing_for_loading\.py:1:1: .*"
                                       r"ModuleNotFoundError: No module named 'no_such_mod_xyz'"):
        load_object("imports_missing_for_loading:x", field="f")
    with pytest.raises(DSLError, match=r"bad_attr_for_loading\.py:2:5: .*AttributeError: "
                                       r"module 'json' has no attribute 'nope'"):
        load_object("bad_attr_for_loading:y", field="f")
    for name in ("broken_mod_for_loading", "imports_missing_for_loading",
                 "bad_attr_for_loading"):
        sys.modules.pop(name, None)


def test_import_file_reports_syntax_errors_and_directories(tmp_path):
    (tmp_path / "syn.py").write_text("def f(:\n    pass\n")
    with pytest.raises(DSLError) as info:
        import_file(tmp_path / "syn.py", field="kernel", what="kernel")
    assert (info.value.filename, info.value.lineno, info.value.col) == (
        str(tmp_path / "syn.py"), 1, 7)
    assert "SyntaxError: invalid syntax" in str(info.value)
    (tmp_path / "pkg.py").mkdir()
    with pytest.raises(ConfigError, match="is a directory, not a Python file"):
        import_file(tmp_path / "pkg.py", field="kernel")
    with pytest.raises(ConfigError, match="no such file"):
        import_file(tmp_path / "none.py", field="kernel")


def test_read_text_file_names_the_file_and_the_byte(tmp_path):
    path = tmp_path / "c.toml"
    path.write_bytes(b"name = 1\n# \xff\n")
    with pytest.raises(ConfigError) as info:
        read_text_file(path, what="SoC description")
    # b"name = 1\n# " is 11 bytes, so the bad byte is at offset 11 (counted by hand).
    assert str(info.value).startswith(f"{path}: cannot read SoC description: not UTF-8 text "
                                      "(byte 0xff at offset 11")
    with pytest.raises(ConfigError, match="is a directory"):
        read_text_file(tmp_path, what="spec")
    with pytest.raises(ConfigError, match="no such file"):
        read_text_file(tmp_path / "nope.toml", what="spec")
    path.write_text("ok = 'é'\n", encoding="utf-8")
    assert read_text_file(path, what="spec") == "ok = 'é'\n"


@pytest.fixture
def fake_distribution(tmp_path, monkeypatch):
    """A distribution installed on sys.path, registering two objects in :data:`GROUP`."""
    (tmp_path / "fake_plugin_for_loading.py").write_text(textwrap.dedent("""\
        def alpha():
            return "alpha"
        BETA = 2
        """))
    dist = tmp_path / "fake_plugin_for_loading-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-plugin-for-loading\n"
                                   "Version: 1.0\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent(f"""\
        [{GROUP}]
        beta = fake_plugin_for_loading:BETA
        alpha = fake_plugin_for_loading:alpha
        broken = fake_plugin_for_loading:missing
        gone = no_such_module_for_loading:x
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield tmp_path
    sys.modules.pop("fake_plugin_for_loading", None)


def test_entry_point_names_are_sorted(fake_distribution):
    assert entry_point_names(GROUP) == ["alpha", "beta", "broken", "gone"]
    assert entry_point_names("archsim.no-such-group") == []


def test_load_entry_point(fake_distribution):
    alpha = load_entry_point(GROUP, "alpha", field="study")
    assert callable(alpha) and alpha() == "alpha"
    assert load_entry_point(GROUP, "beta", field="study") == 2


def test_unknown_entry_point_lists_the_registered_names(fake_distribution):
    with pytest.raises(ConfigError) as info:
        load_entry_point(GROUP, "gamma", field="study")
    assert str(info.value) == ("field 'study': unknown study 'gamma' "
                               "(allowed: 'alpha', 'beta', 'broken', 'gone')")
    assert info.value.allowed == ["alpha", "beta", "broken", "gone"]


def test_entry_point_that_does_not_load_names_its_target(fake_distribution):
    with pytest.raises(ConfigError, match=r"^field 'study': cannot load study 'broken' "
                                          r"\(fake_plugin_for_loading:missing\): .*missing"):
        load_entry_point(GROUP, "broken", field="study")
    with pytest.raises(ConfigError, match=r"cannot load study 'gone' "
                                          r"\(no_such_module_for_loading:x\): No module"):
        load_entry_point(GROUP, "gone", field="study")


def test_the_fake_distribution_is_gone_after_the_test():
    # The fixture's sys.path entry is undone, so nothing leaks into other tests.
    assert entry_point_names(GROUP) == []
    assert not any(Path(p, "fake_plugin_for_loading.py").exists() for p in sys.path if p)


def test_import_file_leaves_no_bytecode_beside_the_users_file(tmp_path, monkeypatch):
    # even where the user lets Python write bytecode (the default), the folder is unchanged
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    (tmp_path / "kern.py").write_text("X = 1\n")
    assert import_file(tmp_path / "kern.py", field="kernel").X == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kern.py"]
    assert sys.dont_write_bytecode is False
