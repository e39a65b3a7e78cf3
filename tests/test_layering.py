"""The import rules of the package, checked by parsing every module's imports with ``ast``.

Layers (module-level imports go downwards only)::

    root (errors, outputs, cache, operators, loading, fields, lazy, __init__)  <-  dsl  <-  hw
        <-  compilers  <-  sim

``soc_configs`` holds data only: it imports nothing from the package and anything may import
it. The rules:

(a) no module-level import from a lower layer into a higher one;
(b) no import cycle between files in the graph of module-level imports;
(c) nothing imports a study: a package ``archsim.sim.studies.<paper>`` is imported only from
    inside itself (the framework, the modules directly in ``sim/studies/``, is not a study).

An import inside a function (a lazy entry point) does not take part in cycles, but when it
reaches upwards or into a study it is allowed only if :data:`LAZY_ALLOWED` lists it, with the
reason. Imports under ``if TYPE_CHECKING:`` never run, so they are not checked. Imports by
string (``importlib.import_module``, ``pkgutil.resolve_name``, entry points) are how studies
and user objects are loaded on purpose, and are not seen here.

``KNOWN_VIOLATIONS`` lists the violations present when this test was written, which other
branches of the issue-11 restructure remove; :func:`test_known_violations_are_still_there`
fails when one of them is gone, so the set is kept honest: delete the entry then.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = "archsim"
REPO = Path(__file__).resolve().parents[1]

#: Folders that are not part of the import package's layered code.
SKIP_DIRS = frozenset({"tests", "bench", "build", "dist", ".git", ".ci", "venv", ".venv",
                       "__pycache__"})

#: Root files of the ground floor.
ROOT_MODULES = frozenset({"errors", "outputs", "cache", "operators", "loading", "fields", "lazy"})
#: Layer number of each top-level subpackage (higher may import lower).
LAYERS = {"dsl": 1, "hw": 2, "compilers": 3, "sim": 4}
LAYER_NAMES = {0: "root", **{v: k for k, v in LAYERS.items()}}
#: Data-only packages: they import nothing from the package; anything may import them.
DATA_PACKAGES = frozenset({"soc_configs"})

STUDIES = f"{PACKAGE}.sim.studies"

#: Imports inside functions that reach upwards (or into a study), allowed on purpose: the
#: lazy entry points of DESIGN.md ("dsl reaches compilers and a design reaches sim.rtl only
#: through lazy entry points"). (importing module, imported module) -> why. Every entry must
#: still exist (test_lazy_allow_list_is_used_and_explained).
LAZY_ALLOWED: dict[tuple[str, str], str] = {
    ("archsim.dsl.accel", "archsim.compilers.accel.compiled"):
        "Accelerator.compile, the accelerator description's entry point into its compiler: "
        "writing a description and its programs never loads the units' hardware",
    ("archsim.compilers.accel.compiled", "archsim.sim.rtl.accel_run"):
        "CompiledAccelerator.simulate: a compiled accelerator runs its RTL through the runner "
        "on request, as Design.simulate does",
    ("archsim.dsl.kernel", "archsim.compilers.hls.design"):
        "Kernel.synthesize, the DSL's entry point into the HLS compiler: writing and running a "
        "kernel's golden view never loads the compiler",
    ("archsim.dsl.kernel", "archsim.compilers.hls.frontend"):
        "Kernel.facts: the golden run needs each loop variable's type and the arrays a kernel "
        "writes (dsl.kernel.KernelFacts, a DSL type); the frontend's type inference computes "
        "them once, on first call, without building IR or a schedule",
    ("archsim.compilers.hls.design", "archsim.sim.rtl.hls_run"):
        "Design.simulate runs the compiled design's RTL to done: a design reaches the RTL "
        "runners only when it is run",
}

#: Violations present when this test was written, fixed on other issue-11 branches; the lead
#: empties this when merging them. (rule, importing module, imported module); a cycle is
#: ("cycle", *its members sorted).
KNOWN_VIOLATIONS: frozenset[tuple[str, ...]] = frozenset()


@dataclass(frozen=True)
class ImportSite:
    """One ``import`` of a module of the package."""

    source: str  # importing module
    target: str  # imported module (a package means its __init__)
    path: Path
    line: int
    text: str
    lazy: bool  # inside a function


@dataclass(frozen=True)
class Violation:
    key: tuple[str, ...]
    message: str


def module_files(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package rooted at ``root``: dotted name -> file."""
    out: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if any(part in SKIP_DIRS or part.startswith(".") for part in rel.parts[:-1]):
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join([package, *parts])] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _walk(node: ast.AST, lazy: bool = False) -> Iterator[tuple[ast.Import | ast.ImportFrom,
                                                               bool]]:
    """Import statements under ``node`` that run, and whether they run inside a function."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, lazy
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.orelse:  # the else branch of `if TYPE_CHECKING:` does run
                yield from _walk(ast.Module(body=[stmt], type_ignores=[]), lazy)
        else:
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                               ast.Lambda))
            yield from _walk(child, inner)


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[ImportSite]:
    """The imports of package modules made by ``module`` (relative ones resolved)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package_parts = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    top = module.split(".")[0]
    out: list[ImportSite] = []
    for node, lazy in _walk(tree):
        text = ast.unparse(node)
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = package_parts[:len(package_parts) - node.level + 1]
                if not base:
                    raise AssertionError(f"{path}:{node.lineno}: relative import beyond the "
                                         f"package: {text}")
                base_name = ".".join(base + ([node.module] if node.module else []))
            else:
                base_name = node.module or ""
            for alias in node.names:
                # `from pkg import name` imports the submodule pkg.name when there is one.
                sub = f"{base_name}.{alias.name}"
                targets.append(sub if sub in modules else base_name)
        for target in dict.fromkeys(targets):
            if target.split(".")[0] != top:
                continue
            # `import archsim.a.b.c` where c is an attribute: the nearest module.
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target != module:
                out.append(ImportSite(module, target, path, node.lineno, text, lazy))
    return out


def layer(module: str) -> int | None:
    """The layer of a module; None for a data package; KeyError for an unplaced module."""
    parts = module.split(".")
    if len(parts) == 1:
        return 0
    if parts[1] in DATA_PACKAGES:
        return None
    if len(parts) == 2 and parts[1] in ROOT_MODULES:
        return 0
    if parts[1] in LAYERS:
        return LAYERS[parts[1]]
    raise KeyError(f"module {module} is in no layer: add it to ROOT_MODULES or LAYERS of "
                   f"{Path(__file__).name}")


def study_of(module: str, modules: dict[str, Path]) -> str | None:
    """The study package ``module`` belongs to, if any.

    A study is a subpackage of ``archsim.sim.studies`` (a folder); the modules directly in
    ``sim/studies/`` are the framework. Study code still left in an engine package
    (``archsim.sim.<engine>.study``, the layout before issue 11) counts as a study too, so
    that an engine importing its study is caught; ``archsim.sim.cli.study`` is the command.
    """
    parts = module.split(".")
    studies = STUDIES.split(".")
    if parts[:len(studies)] == studies and len(parts) > len(studies):
        paper = ".".join(parts[:len(studies) + 1])
        if modules.get(paper, Path()).name == "__init__.py":
            return paper
    if (len(parts) == 4 and parts[1] == "sim" and parts[3] == "study"
            and parts[2] not in ("cli", "studies")):
        return module
    return None


def check(root: Path, package: str = PACKAGE,
          lazy_allowed: dict[tuple[str, str], str] | None = None) -> list[Violation]:
    """Every violation of the import rules in the package at ``root``."""
    allowed = LAZY_ALLOWED if lazy_allowed is None else lazy_allowed
    modules = module_files(root, package)
    graph: nx.DiGraph = nx.DiGraph()
    graph.add_nodes_from(modules)
    found: list[Violation] = []
    for module, path in modules.items():
        rel = path.relative_to(root)
        src_layer = layer(module)
        for site in imports_of(module, path, modules):
            where = f"{rel}:{site.line}: {site.text}"
            if not site.lazy:
                graph.add_edge(module, site.target, site=where)
            dst_layer = layer(site.target)
            if src_layer is None:
                found.append(Violation(("data-imports", module, site.target),
                                       f"{where}: the data package imports {site.target}"))
            elif dst_layer is not None and dst_layer > src_layer:
                if not site.lazy:
                    found.append(Violation(
                        ("upward", module, site.target),
                        f"{where}: module-level import from {LAYER_NAMES[src_layer]} up into "
                        f"{LAYER_NAMES[dst_layer]} ({site.target})"))
                elif (module, site.target) not in allowed:
                    found.append(Violation(
                        ("lazy-upward", module, site.target),
                        f"{where}: import inside a function from {LAYER_NAMES[src_layer]} up "
                        f"into {LAYER_NAMES[dst_layer]} is not in LAZY_ALLOWED"))
            study = study_of(site.target, modules)
            if study is not None and study_of(module, modules) != study \
                    and (module, site.target) not in allowed:
                found.append(Violation(("study", module, site.target),
                                       f"{where}: imports the study {study}"))
    for component in nx.strongly_connected_components(graph):
        if len(component) < 2:
            continue
        cycle = nx.find_cycle(graph.subgraph(component))
        steps = "\n    ".join(graph.edges[a, b]["site"] for a, b in cycle)
        found.append(Violation(("cycle", *sorted(component)),
                               f"import cycle {' -> '.join([a for a, _ in cycle] + [cycle[0][0]])}"
                               f":\n    {steps}"))
    return found


@pytest.fixture(scope="module")
def violations() -> list[Violation]:
    return check(REPO)


def test_no_new_import_violations(violations):
    new = [v.message for v in violations if v.key not in KNOWN_VIOLATIONS]
    assert not new, "import rules broken:\n" + "\n".join(new)


def test_known_violations_are_still_there(violations):
    gone = KNOWN_VIOLATIONS - {v.key for v in violations}
    assert not gone, ("fixed (delete from KNOWN_VIOLATIONS in tests/test_layering.py): "
                      + "; ".join(map(str, sorted(gone))))


def test_lazy_allow_list_is_used_and_explained():
    modules = module_files(REPO, PACKAGE)
    lazy = {(s.source, s.target) for m, p in modules.items() for s in imports_of(m, p, modules)
            if s.lazy}
    assert [pair for pair in LAZY_ALLOWED if pair not in lazy] == []
    assert all(len(reason) > 40 for reason in LAZY_ALLOWED.values())


def test_every_module_is_placed_in_a_layer():
    for module in module_files(REPO, PACKAGE):
        layer(module)  # raises KeyError naming the module


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_checker_catches_planted_violations(tmp_path):
    pkg = _write(tmp_path / "archsim", {
        "__init__.py": "from .errors import E\n",
        "errors.py": "class E(Exception): pass\n",
        "dsl/__init__.py": "",
        # (a) upward at module level, relative import two levels up
        "dsl/kernel.py": "from ..sim.engine import run\n",
        "hw/__init__.py": "",
        # (b) a cycle hw.a -> hw.b -> hw.a
        "hw/a.py": "from . import b\n",
        "hw/b.py": "from .a import thing\n",
        # lazy upward not allowed; lazy upward allowed; TYPE_CHECKING upward: not checked
        "compilers/__init__.py": "",
        "compilers/lazy.py": """\
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from archsim.sim.engine import Result
            def f():
                from ..sim import engine
            def g():
                import archsim.sim.other
            """,
        "sim/__init__.py": "",
        "sim/engine.py": "import archsim.dsl\ndef run(): pass\n",
        "sim/other.py": "",
        # (c) a study imported from an engine; the framework and the study's own modules
        # are fine
        "sim/studies/__init__.py": "",
        "sim/studies/framework.py": "",
        "sim/studies/paper/__init__.py": "from . import run\nfrom .. import framework\n",
        "sim/studies/paper/run.py": "from archsim.sim.studies.paper import data\n",
        "sim/studies/paper/data.py": "",
        "sim/serving/__init__.py": "from ..studies.paper.run import main\nfrom .study import x\n",
        "sim/serving/study.py": "",
        "sim/cli/__init__.py": "from . import study\n",
        "sim/cli/study.py": "from ..studies import framework\n",
        "soc_configs/__init__.py": "from ..errors import E\n",
        # skipped folders
        "tests/test_x.py": "from archsim.sim import engine\n",
    })
    found = check(pkg, lazy_allowed={("archsim.compilers.lazy", "archsim.sim.other"): "why"})
    keys = {v.key for v in found}
    assert keys == {
        ("upward", "archsim.dsl.kernel", "archsim.sim.engine"),
        ("cycle", "archsim.hw.a", "archsim.hw.b"),
        ("lazy-upward", "archsim.compilers.lazy", "archsim.sim.engine"),
        ("study", "archsim.sim.serving", "archsim.sim.studies.paper.run"),
        ("study", "archsim.sim.serving", "archsim.sim.serving.study"),
        ("data-imports", "archsim.soc_configs", "archsim.errors"),
    }
    messages = {v.key[0]: v.message for v in found}
    assert messages["upward"] == ("dsl/kernel.py:1: from ..sim.engine import run: module-level "
                                  "import from dsl up into sim (archsim.sim.engine)")
    assert messages["cycle"].startswith("import cycle archsim.hw.")
    assert "hw/a.py:1: from . import b" in messages["cycle"]
    assert "hw/b.py:1: from .a import thing" in messages["cycle"]
    assert messages["lazy-upward"].startswith("compilers/lazy.py:5: from ..sim import engine")


def test_checker_sees_a_longer_cycle_through_a_package(tmp_path):
    pkg = _write(tmp_path / "archsim", {
        "__init__.py": "",
        "sim/__init__.py": "from .a import x\n",
        "sim/a.py": "from .b import y\n",
        "sim/b.py": "from archsim.sim import z\n",  # the package __init__, not a submodule
    })
    [violation] = check(pkg)
    assert violation.key == ("cycle", "archsim.sim", "archsim.sim.a", "archsim.sim.b")


def test_unplaced_module_is_an_error(tmp_path):
    pkg = _write(tmp_path / "archsim", {"__init__.py": "", "extra.py": ""})
    with pytest.raises(KeyError, match="archsim.extra is in no layer"):
        check(pkg)
