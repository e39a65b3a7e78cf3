"""Loading objects by name: ``"package.module:attribute"`` targets and entry points.

Everything archsim loads by name -- a study, a sweep's model function, a design
class for ``archsim rtl``, a kernel or cycles model named in a TOML file -- goes
through :func:`load_object` (the standard library's :func:`pkgutil.resolve_name`
with errors that name the field) or :func:`entry_point_objects`.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from importlib.metadata import entry_points

from .errors import ConfigError

__all__ = ["load_object", "entry_point_names", "load_entry_point", "ProgressCallback"]

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
        ``target`` is malformed or cannot be imported; the message names ``field``.
    """
    if not isinstance(target, str) or not target.strip() or target.startswith(":") \
            or target.endswith(":"):
        raise ConfigError(f"{what} name {target!r} is not of the form 'package.module:attribute'",
                          field=field)
    try:
        return pkgutil.resolve_name(target)
    except ImportError as exc:
        module = target.partition(":")[0] if ":" in target else (exc.name or target)
        raise ConfigError(f"cannot load {what} '{target}': cannot import module '{module}' "
                          f"({exc})", field=field) from None
    except AttributeError:
        module, sep, attribute = target.partition(":")
        where = f"module '{module}' has no object '{attribute}'" if sep else "no such object"
        raise ConfigError(f"cannot load {what} '{target}': {where}", field=field) from None
    except ValueError as exc:  # resolve_name's own check of the form
        raise ConfigError(f"cannot load {what} '{target}': {exc}", field=field) from None


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
