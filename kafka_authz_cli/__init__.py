"""kafka-authz-cli: Apache Kafka authorization tooling (`authz`).

The README's "Architecture" section is the map of the packages below.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

__version__ = "0.1.0"


def lazy_face(package: str, exports: dict[str, str]) -> tuple[Callable[[str], Any], list[str]]:
    """A package's public face: ``exports`` maps each public name to the module (relative to
    ``package``) that defines it. A name is imported when first used, so importing one module of a
    package never costs the others (``authz lint`` must not load the ACL engine to read a rules file).

    Use as ``__getattr__, __all__ = lazy_face(__name__, {...})`` in the package's ``__init__``."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        globals_of_package = importlib.import_module(package).__dict__
        globals_of_package[name] = value  # later uses skip this function
        return value

    return __getattr__, sorted(exports)
