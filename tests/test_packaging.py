"""The distribution lists every subpackage and data file of the checkout.

Editable installs find unlisted subpackages through the folder mapping, so a
package missing from ``pyproject.toml`` would only break a regular install;
this test catches that on every run.
"""

import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = {"bench", "build", ".ci", ".git", "venv", ".venv"}


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _package_folders() -> dict[str, Path]:
    found = {"archsim": ROOT}
    for init in ROOT.rglob("__init__.py"):
        rel = init.parent.relative_to(ROOT)
        if not rel.parts or rel.parts[0] in SKIP or any(p.startswith(".") for p in rel.parts):
            continue
        if any("egg-info" in p or p == "__pycache__" for p in rel.parts):
            continue
        found["archsim." + ".".join(rel.parts)] = init.parent
    return found


def test_every_subpackage_is_listed():
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    assert listed == set(_package_folders())


def test_every_data_file_is_shipped():
    package_data = _pyproject()["tool"]["setuptools"]["package-data"]
    folders = _package_folders()
    missing = []
    for package, folder in folders.items():
        if package == "archsim":
            continue
        for path in folder.rglob("*"):
            if not path.is_file() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
                continue
            rel = path.relative_to(folder)
            if rel.parts[0] != "data" and path.suffix != ".toml":
                continue
            # Files under a nested package belong to that package's globs.
            owner = max((p for p, f in folders.items() if f in path.parents), key=len)
            if owner != package:
                continue
            if not any(fnmatch(str(rel), pattern) for pattern in package_data.get(package, [])):
                missing.append(f"{package}: {rel}")
    assert missing == []
