"""What the command modules share: choices built from the data, and progress bars.

An option whose values are a closed set takes an :class:`enum.StrEnum` built from the
registry that owns the set (:func:`choices`: workloads, simulation backends, host-memory
policies, technology nodes...), so help lists the names and no name is typed by hand. Its
:func:`choice_parser` turns a wrong name into a :class:`~archsim.errors.ConfigError` naming
the option and the allowed names, like every other user error of the CLI. A set the CLI owns
itself is a ``StrEnum`` class in its command module.

Because a ``StrEnum`` member is a ``str``, a command module declares its choice types as
``str`` to the type checker (``if TYPE_CHECKING: Workload = str``): a type built at run time
cannot be an annotation, and the command's body uses the value as the string it is.

Engines report progress through a :data:`~archsim.loading.ProgressCallback` and never draw;
:func:`progress_bar` is the one place that draws them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from types import ModuleType

from ...errors import ConfigError
from ...loading import ProgressCallback, import_file, load_object

__all__ = ["choices", "choice_parser", "progress_bar", "import_target", "check_number"]


def import_target(target: str, *, field: str, what: str) -> tuple[ModuleType, str]:
    """Split ``FILE.py:NAME`` (or ``module:NAME``; messages spell NAME as ``what``
    upper-cased) and import the file or module.

    Returns the module and ``NAME``; a ConfigError (naming ``field``) if the form is wrong,
    the file does not exist (or is a directory) or the module cannot be found; a
    :class:`~archsim.errors.DSLError` at the user's ``file:line:col`` if it fails while it is
    imported.
    """
    source, sep, name = target.rpartition(":")
    if not sep or not source or not name:
        raise ConfigError(f"{what} {target!r} is not of the form FILE.py:{what.upper()}",
                          field=field)
    if source.endswith(".py"):
        return import_file(Path(source), field=field, what=what), name
    loaded = load_object(source, field=field, what="module")
    if not isinstance(loaded, ModuleType):
        raise ConfigError(f"{source!r} is not a module", field=field)
    return loaded, name


def check_number(value: float | None, *, option: str, low: float | None = None,
                 high: float | None = None, low_open: bool = False) -> None:
    """Reject a float option that is not finite or lies outside ``[low, high]``.

    ``low_open`` makes the lower bound exclusive (``> low``). ``None`` (an option left
    unset) passes. Typer's ranges cannot do this: ``nan`` compares false with every bound
    and so passes any range, and ``inf`` passes an open one.
    """
    if value is None:
        return
    low_ok = low is None or (value > low if low_open else value >= low)
    if math.isfinite(value) and low_ok and (high is None or value <= high):
        return
    bounds = []
    if low is not None:
        bounds.append(f"{'>' if low_open else '>='} {low:g}")
    if high is not None:
        bounds.append(f"<= {high:g}")
    wanted = "a finite number" + (f" {' and '.join(bounds)}" if bounds else "")
    raise ConfigError(f"must be {wanted}, not {value!r}", field=option)


def choices(name: str, values: Iterable[str]) -> type[StrEnum]:
    """A ``StrEnum`` called ``name`` with one member per value (named as its value)."""
    members = [(value, value) for value in values]
    if not members:
        raise ValueError(f"choice {name} has no values")
    return StrEnum(name, members)  # type: ignore[return-value]  # functional API


def choice_parser(enum: type[StrEnum], *, option: str,
                  what: str) -> Callable[[str | StrEnum], StrEnum]:
    """The ``parser=`` of an option taking a member of ``enum``.

    A wrong name raises :class:`ConfigError` ``field '<option>': unknown <what> '<name>'
    (allowed: ...)``, which the CLI prints as one line with exit status 2.
    """

    def parse(value: str | StrEnum) -> StrEnum:
        if isinstance(value, enum):
            return value
        try:
            return enum(value)
        except ValueError:
            raise ConfigError(f"unknown {what} '{value}'", field=option,
                              allowed=[member.value for member in enum]) from None

    return parse


@contextmanager
def progress_bar(description: str, *, show: bool = True) -> Iterator[ProgressCallback | None]:
    """A rich progress bar on stderr, fed by an engine's ``progress(done, total)`` callback.

    Yields the callback to hand to the engine, or ``None`` when ``show`` is false (so the
    engine makes no reports). The bar is removed when the block ends.
    """
    if not show:
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=None)

        def report(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield report
