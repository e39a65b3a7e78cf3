"""Loading objects by name: ``"package.module:attribute"`` targets and entry points.

Everything archsim loads by name -- a study, a sweep's model function, a design
class for ``archsim rtl``, a kernel or cycles model named in a TOML file -- goes
through :func:`load_object` (the standard library's :func:`pkgutil.resolve_name`
with errors that name the field), :func:`import_file` (a user's ``FILE.py``) or
:func:`entry_point_objects`.

User code that fails while it is imported (a ``SyntaxError``, a ``NameError``, any exception
raised at module level) is the user's bug, not a bad name: it becomes a
:class:`~archsim.errors.DSLError` at the ``file:line:col`` of the user's source
(:func:`import_failure`). Configuration files are read by :func:`read_text_file`, which turns
every way a file cannot be read (missing, a directory, unreadable, not UTF-8) into a one-line
:class:`~archsim.errors.ConfigError` naming the file.
"""

from __future__ import annotations

import importlib.util
import pkgutil
import sys
import sysconfig
import traceback
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType

from .errors import ConfigError, DSLError

__all__ = ["load_object", "import_file", "import_failure", "read_text_file",
           "entry_point_names", "load_entry_point", "ProgressCallback"]

#: A progress report: ``callback(done, total)``. Engines call it; the CLI draws it with rich.
ProgressCallback = Callable[[int, int], None]


def load_object(target: str, *, field: str, what: str = "object") -> object:
    """Import ``"package.module:attribute.path"`` and return the attribute.

    Parameters
    ----------
    target
        The object's name, ``module:qualname`` (a dotted ``module.attr`` is also accepted,
        as :func:`pkgutil.resolve_name` does).
    field
        The configuration field or option the name came from, for the error.
    what
        What the object is (``"DSL kernel"``, ``"cycles model"``...), for the error.

    Raises
    ------
    ConfigError
        ``target`` is malformed, its module does not exist or has no such attribute; the
        message names ``field``.
    DSLError
        The module exists but fails while it is imported (:func:`import_failure`).
    """
    if not isinstance(target, str) or not target.strip() or target.startswith(":") \
            or target.endswith(":"):
        raise ConfigError(f"{what} name {target!r} is not of the form 'package.module:attribute'",
                          field=field)
    try:
        return pkgutil.resolve_name(target)
    except ImportError as exc:
        if not _names_target(exc, target):  # the module itself imports something missing
            raise import_failure(exc, what=what, target=target) from None
        module = target.partition(":")[0] if ":" in target else (exc.name or target)
        raise ConfigError(f"cannot load {what} '{target}': cannot import module '{module}' "
                          f"({exc})", field=field) from None
    except AttributeError as exc:
        module, sep, attribute = target.partition(":")
        # The module imported (it is in sys.modules), so the error is of the attribute walk,
        # possibly raised by an object's own __getattr__ that names what it accepts.
        looked_up = bool(sep) and module in sys.modules
        if not looked_up and not _raised_by_resolver(exc):  # raised by the module's own code
            raise import_failure(exc, what=what, target=target) from None
        where = f"module '{module}' has no object '{attribute}'" if sep else "no such object"
        detail = "" if _raised_by_resolver(exc) else f" ({exc})"
        raise ConfigError(f"cannot load {what} '{target}': {where}{detail}",
                          field=field) from None
    except ValueError as exc:
        if not _raised_by_resolver(exc):
            raise import_failure(exc, what=what, target=target) from None
        # resolve_name's own check of the form
        raise ConfigError(f"cannot load {what} '{target}': {exc}", field=field) from None
    except Exception as exc:  # noqa: BLE001 - any failure of user code at import time
        if _located(exc):
            raise
        raise import_failure(exc, what=what, target=target) from None


def _names_target(exc: ImportError, target: str) -> bool:
    """Whether ``exc`` says the target's own module (or a parent package) does not exist,
    rather than that code inside it imports something missing."""
    if not isinstance(exc, ModuleNotFoundError) or exc.name is None:
        return _raised_by_resolver(exc)
    module = target.partition(":")[0] if ":" in target else target
    return module == exc.name or module.startswith(exc.name + ".")


def _raised_by_resolver(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by :func:`pkgutil.resolve_name` itself (a bad name), not by
    the code of the module it imported."""
    frames = traceback.extract_tb(exc.__traceback__)
    user = [f for f in frames if not f.filename.startswith("<frozen")
            and Path(f.filename).name != "loading.py"]
    return not user or Path(user[-1].filename).resolve() == Path(pkgutil.__file__).resolve()


def _library_dirs() -> tuple[str, ...]:
    """Folders of code that is not the user's: archsim itself, the standard library and
    installed packages."""
    dirs = {str(Path(__file__).resolve().parent)}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(str(Path(path).resolve()))
    return tuple(sorted(dirs))


def import_failure(exc: BaseException, *, what: str, target: str,
                   path: str | Path | None = None) -> DSLError:
    """The :class:`DSLError` for user code that raised ``exc`` while it was imported.

    Located at the position a ``SyntaxError`` carries, else at the innermost traceback frame
    in the user's code (not archsim, the standard library or an installed package), else in
    ``path`` (the file being imported), else at the innermost frame. The message is one line:
    what was loaded, the exception's type and its message.
    """
    text = " ".join(str(getattr(exc, "msg", None) or exc).split()) \
        if isinstance(exc, SyntaxError) else " ".join(str(exc).split())
    reason = f"cannot load {what} '{target}': {type(exc).__name__}"
    reason += f": {text}" if text else ""
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        return DSLError(reason, filename=exc.filename, lineno=exc.lineno,
                        col=exc.offset or None)
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not f.filename.startswith("<")]
    libraries = _library_dirs()
    user = [f for f in frames if not str(Path(f.filename).resolve()).startswith(libraries)]
    if not user and path is not None:
        here = Path(path).resolve()
        user = [f for f in frames if Path(f.filename).resolve() == here]
    frame = user[-1] if user else frames[-1] if frames else None
    if frame is None:
        return DSLError(reason, filename=str(path) if path is not None else None)
    col = getattr(frame, "colno", None)
    return DSLError(reason, filename=frame.filename, lineno=frame.lineno,
                    col=col + 1 if isinstance(col, int) else None)


def import_file(path: str | Path, *, field: str, what: str = "module") -> ModuleType:
    """Import the Python file ``path`` as a module of its own.

    Raises
    ------
    ConfigError
        ``path`` does not exist, is a directory or is not a ``.py`` file (naming ``field``).
    DSLError
        The file fails while it is imported, at the user's ``file:line:col``
        (:func:`import_failure`).
    """
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{path} is a directory, not a Python file", field=field)
    if not path.is_file():
        raise ConfigError(f"no such file: {path}", field=field)
    mod_name = f"_archsim_user_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{path} is not a Python file", field=field)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    # the user asked for no __pycache__ folder beside their file
    dont_write, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - any failure of user code at import time
        del sys.modules[mod_name]
        if _located(exc):
            raise
        raise import_failure(exc, what=what, target=str(path), path=path) from None
    finally:
        sys.dont_write_bytecode = dont_write
    return module


def _located(exc: BaseException) -> bool:
    """A DSLError raised at import time that already names its file (a kernel the DSL
    rejects as it is defined) is passed on as it is."""
    return isinstance(exc, DSLError) and exc.filename is not None


def read_text_file(path: str | Path, *, what: str) -> str:
    """The UTF-8 text of the file ``path`` (a configuration: SoC description, sweep spec...).

    Raises
    ------
    ConfigError
        Naming the file: it does not exist, is a directory, cannot be read, or is not UTF-8
        (with the offset of the first byte that does not decode).
    """
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"cannot read {what}: is a directory", file=str(path))
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"cannot read {what}: no such file", file=str(path)) from None
    except OSError as exc:
        raise ConfigError(f"cannot read {what}: {exc.strerror or exc}", file=str(path)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read {what}: not UTF-8 text (byte 0x{data[exc.start]:02x} "
                          f"at offset {exc.start} does not decode: {exc.reason})",
                          file=str(path)) from None


def entry_point_names(group: str) -> list[str]:
    """Names registered under entry-point ``group``, sorted."""
    return sorted({ep.name for ep in entry_points(group=group)})


def load_entry_point(group: str, name: str, *, field: str) -> object:
    """Load the object registered as ``name`` in entry-point ``group``.

    Raises
    ------
    ConfigError
        No such name; the message lists the registered names.
    """
    matches = [ep for ep in entry_points(group=group) if ep.name == name]
    if not matches:
        raise ConfigError(f"unknown {field} '{name}'", field=field,
                          allowed=entry_point_names(group))
    try:
        return matches[0].load()
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"cannot load {field} '{name}' ({matches[0].value}): {exc}",
                          field=field) from None
