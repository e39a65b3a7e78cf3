"""The one error hierarchy of archsim.

Every error a user can meet derives from :class:`ArchsimError` and carries the
facts needed to act on it as attributes as well as in its message, so tools can
inspect them and people can read them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ArchsimWarning", "ArchsimError", "DSLError", "ConfigError", "SimulationError", "ToolchainError",
           "RunFailedError", "OutputError"]


class ArchsimError(Exception):
    """Base class of every error archsim raises on purpose."""


class ArchsimWarning(UserWarning):
    """Base class of the warnings archsim gives on purpose (e.g. a corrupt build-cache entry
    being rebuilt); the CLI prints each as one line ``warning: ...``."""


class DSLError(ArchsimError):
    """A kernel or description uses something outside the DSL.

    The message starts with ``file:line:col`` of the user's source, so editors
    can jump to it.
    """

    def __init__(
        self,
        message: str,
        *,
        filename: str | None = None,
        lineno: int | None = None,
        col: int | None = None,
        hint: str | None = None,
    ) -> None:
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.hint = hint
        self.reason = message
        location = ""
        if filename is not None:
            location = filename
            if lineno is not None:
                location += f":{lineno}"
                if col is not None:
                    location += f":{col}"
            location += ": "
        text = f"{location}{message}"
        if hint:
            text += f" (hint: {hint})"
        super().__init__(text)


class ConfigError(ArchsimError):
    """A configuration file or value is invalid.

    Names the file (when there is one), the field and, where they are a closed
    set, the allowed values.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        field: str | None = None,
        allowed: Any = None,
    ) -> None:
        self.file = file
        self.field = field
        self.allowed = allowed
        self.reason = message
        parts = []
        if file is not None:
            parts.append(str(file))
        if field is not None:
            parts.append(f"field '{field}'")
        prefix = ": ".join(parts)
        text = f"{prefix}: {message}" if prefix else message
        if allowed is not None:
            if isinstance(allowed, (list, tuple, set, frozenset)):
                allowed_text = ", ".join(repr(a) for a in sorted(allowed, key=str))
            else:
                allowed_text = str(allowed)
            text += f" (allowed: {allowed_text})"
        super().__init__(text)


class SimulationError(ArchsimError):
    """A simulation failed or produced a value other than the expected one.

    For a mismatch, names the signal, the cycle, and the expected and actual
    values.
    """

    def __init__(
        self,
        message: str,
        *,
        signal: str | None = None,
        cycle: int | None = None,
        expected: Any = None,
        actual: Any = None,
    ) -> None:
        self.signal = signal
        self.cycle = cycle
        self.expected = expected
        self.actual = actual
        self.reason = message
        text = message
        details = []
        if signal is not None:
            details.append(f"signal '{signal}'")
        if cycle is not None:
            details.append(f"cycle {cycle}")
        if expected is not None or actual is not None:
            details.append(f"expected {expected!r}, actual {actual!r}")
        if details:
            text += " (" + ", ".join(details) + ")"
        super().__init__(text)


class RunFailedError(SimulationError):
    """The run itself failed, its inputs being valid: the RTL differs from the golden run
    or from the model, every point of a sweep failed.

    The command line exits with status 1 for it (2 is for the user's errors); other
    :class:`SimulationError` s, some of which still describe bad input (a port name that
    does not exist), keep status 2.
    """


class ToolchainError(ArchsimError):
    """An external tool is missing or failed; says what to install or fix."""

    def __init__(self, message: str, *, install: str | None = None) -> None:
        self.install = install
        self.reason = message
        text = message
        if install:
            text += f"; install {install}"
        super().__init__(text)


class OutputError(ArchsimError):
    """An output file or folder could not be written (disk full, no permission, ...).

    Raised by the writers of :mod:`archsim.outputs` in place of the operating system's
    ``OSError`` (kept as ``__cause__``); names the path and the reason in words.
    """

    def __init__(self, path: str, reason: str, *, errno: int | None = None) -> None:
        self.path = path
        self.reason = reason
        self.errno = errno
        super().__init__(f"cannot write {path}: {reason}")
