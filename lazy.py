"""Lazy package exports: a package's public names load from their submodules on first use.

A package ``__init__`` that re-exports its submodules' names would import every submodule
(and what they import: Amaranth, pydantic models, numpy-heavy tables) as soon as any one of
them is needed. With :func:`lazy_exports` the package lists where each name lives and
imports nothing until a name is used; type checkers see the names through the package's
``if TYPE_CHECKING:`` imports::

    __getattr__, __dir__ = lazy_exports(__name__, {"simulate": ".engine", ...})
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: Mapping[str, str]) -> tuple[
        Callable[[str], object], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package``.

    Parameters
    ----------
    package
        The package's ``__name__``.
    exports
        Each public name and the relative module it is defined in (``".engine"``).

    Returns
    -------
    tuple
        ``__getattr__`` (imports the name's module, caches the name in the package) and
        ``__dir__``. A name not in ``exports`` that is a submodule (``package.engine``)
        is imported as such; anything else raises :class:`AttributeError`.
    """

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            try:
                return import_module(f".{name}", package)
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        sys.modules[package].__dict__[name] = value  # later lookups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted(set(sys.modules[package].__dict__) | set(exports))

    return __getattr__, __dir__
