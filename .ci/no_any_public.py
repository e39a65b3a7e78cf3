#!/usr/bin/env python3
"""Fail when a public function or method of the package is annotated ``-> Any``.

mypy's ``disallow_any_explicit`` would also forbid ``Any`` in private helpers, where it is
tolerable; the rule here is the one of the conventions: a public result has a real type.

Public means: in a module whose dotted path has no part starting with ``_`` (``__init__``
aside), a function or method whose name does not start with a single underscore (dunder
methods are public), defined at module level or in a public class at module level (nested
functions are not API). A return annotation is flagged when it is ``Any`` itself or a union
containing it (``Any | None``, ``Optional[Any]``, ``Union[Any, int]``); ``dict[str, Any]``
is not. ``tests/``, ``bench/`` and hidden or build folders are skipped.

Usage: ``python .ci/no_any_public.py [ROOT]`` (default: the repository root). Prints one
line per finding, ``file:line: qualified.name -> annotation``, and exits 1 if there is any.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

SKIP_DIRS = frozenset({"tests", "bench", "build", "dist", "venv", "__pycache__"})


def _is_any(node: ast.expr | None) -> bool:
    if node is None:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # "Any" in quotes
        try:
            return _is_any(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return False
    if isinstance(node, ast.Name):
        return node.id == "Any"
    if isinstance(node, ast.Attribute):
        return node.attr == "Any"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_any(node.left) or _is_any(node.right)
    if isinstance(node, ast.Subscript) and isinstance(node.value, (ast.Name, ast.Attribute)):
        name = node.value.id if isinstance(node.value, ast.Name) else node.value.attr
        if name in ("Optional", "Union"):
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return any(_is_any(item) for item in items)
    return False


def _public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and _public(node.name):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield f"{node.name}.{item.name}", item


def modules(root: Path) -> Iterator[Path]:
    """The package's module files under ``root`` whose dotted path is public."""
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if any(p in SKIP_DIRS or p.startswith(".") for p in parts[:-1]):
            continue
        names = [*parts[:-1], path.stem]
        if any(n.startswith("_") and n != "__init__" for n in names):
            continue
        yield path


def findings(root: Path) -> list[str]:
    """``file:line: name -> annotation`` for every public ``-> Any``."""
    out = []
    for path in modules(root):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name, fn in _functions(tree):
            if _public(fn.name) and _is_any(fn.returns):
                assert fn.returns is not None
                out.append(f"{path.relative_to(root)}:{fn.lineno}: {name} -> "
                           f"{ast.unparse(fn.returns)}")
    return out


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1]
    found = findings(root)
    for line in found:
        print(line)
    print(f"{len(found)} public function(s) annotated -> Any", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
