"""archsim.loading: objects by ``"module:attribute"`` name and by entry point."""

from __future__ import annotations

import importlib
import json
import os.path
import sys
import textwrap
from pathlib import Path

import pytest

from archsim.errors import ConfigError
from archsim.loading import entry_point_names, load_entry_point, load_object

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


def test_error_inside_the_imported_module_propagates(tmp_path, monkeypatch):
    # A module that exists but is broken is a bug in that module, not a bad name.
    (tmp_path / "broken_mod_for_loading.py").write_text("raise RuntimeError('boom')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RuntimeError, match="boom"):
        load_object("broken_mod_for_loading:x", field="f")


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
