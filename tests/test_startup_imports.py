"""Start-up: the SoC simulator and the CLI load no RTL toolchain, ``--help`` no matplotlib.

Each check runs in a fresh interpreter (this test process has imported everything) and
reads ``sys.modules`` there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RTL = ("amaranth", "cocotb")


def _loaded(code: str, names: tuple[str, ...]) -> list[str]:
    """Which of the top-level packages ``names`` are in ``sys.modules`` after ``code``."""
    probe = (f"{code}\nimport json, sys\n"
             f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & "
             f"{set(names)!r})))")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True, cwd=ROOT).stdout
    return list(json.loads(out.strip().splitlines()[-1]))


def test_probe_sees_an_imported_package():
    # the probe itself must be able to fail
    assert _loaded("import amaranth", RTL) == ["amaranth"]


def test_importing_the_soc_simulator_loads_no_rtl_toolchain():
    assert _loaded("import archsim.sim.soc", RTL) == []


def test_soc_names_still_resolve_without_rtl():
    # every public name of the lazy package resolves, and none of them needs Amaranth
    code = "import archsim.sim.soc as s\nfor n in s.__all__: getattr(s, n)"
    assert _loaded(code, RTL) == []


def test_cli_help_loads_no_rtl_toolchain_and_no_matplotlib():
    code = ("from archsim.sim.cli import main\n"
            "import contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    assert main(['--help']) == 0")
    assert _loaded(code, (*RTL, "matplotlib")) == []


@pytest.mark.parametrize("plots", [True, False], ids=["plots", "no-plots"])
def test_archsim_run_loads_no_rtl_toolchain(tmp_path, plots):
    args = ["run", str(ROOT / "soc_configs" / "smaug_baseline.toml"), "--workload",
            "resnet50", "--out", str(tmp_path), "--no-progress"]
    if not plots:
        args.append("--no-plots")
    code = ("from archsim.sim.cli import main\n"
            "import contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert main({args!r}) == 0")
    assert _loaded(code, RTL) == []
    assert (tmp_path / "gantt.png").exists() == plots
