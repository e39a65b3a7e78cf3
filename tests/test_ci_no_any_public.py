"""The CI check that no public function of the package is annotated ``-> Any``."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "no_any_public.py"


def _run(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), str(root)], capture_output=True,
                          text=True, check=False)


def test_flags_public_any_and_spares_private_and_nested(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "api.py").write_text(
        "from typing import Any, Optional\n"
        "def public() -> Any: ...\n"
        "def maybe() -> Optional[Any]: ...\n"
        "def fine() -> dict[str, Any]: ...\n"
        "def _private() -> Any: ...\n"
        "class Thing:\n"
        "    def method(self) -> 'Any | None': ...\n"
        "    def _helper(self) -> Any: ...\n"
        "def outer() -> int:\n"
        "    def inner() -> Any: ...\n"
        "    return 1\n")
    (pkg / "_internal.py").write_text("from typing import Any\ndef f() -> Any: ...\n")
    result = _run(pkg)
    assert result.returncode == 1
    flagged = sorted(line.split(": ", 1)[1].split(" ->")[0]
                     for line in result.stdout.splitlines() if ".py:" in line)
    assert flagged == ["Thing.method", "maybe", "public"]


def test_clean_package_passes(tmp_path):
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "m.py").write_text("def f() -> int:\n    return 1\n")
    assert _run(tmp_path).returncode == 0
