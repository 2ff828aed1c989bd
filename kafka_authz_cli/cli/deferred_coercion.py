"""Typer's runtime coercion of a parameter, built when a value first needs it.

A patch of Typer's parameters: Typer builds a pydantic TypeAdapter for every parameter it processes,
set or not, so merely listing the root group's completion options would import pydantic and `authz
--help` would pay for it. tests/cli/test_typer_contract.py fails by name if a Typer release drops the
``get_runtime_param()`` this hooks.
"""

from __future__ import annotations

from typing import Any, Callable


class _DeferredRuntimeParam:
    """Typer's runtime coercion for one parameter, built when a value first needs it.

    Typer builds a pydantic TypeAdapter for every parameter it processes, set or not (its
    ``get_runtime_param()``), so merely having options (the completion options of the root group,
    say) imports pydantic. An unset parameter (None) coerces to what Typer's RuntimeParam.coerce
    returns for None without building anything; every other value goes through the runtime param
    Typer's own ``get_runtime_param`` builds, unchanged."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build
        self._real = None

    def _get(self) -> Any:
        if self._real is None:
            self._real = self._build()
        return self._real

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:
            return () if (param.multiple or param.nargs == -1) else None
        return self._get().coerce(value, param=param, ctx=ctx)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._get(), name)


def defer_coercion(param: Any) -> Any:
    """Typer's parameters build their coercion through ``get_runtime_param()``: answer it with a
    deferred one (once per parameter; a Typer without that method simply builds it itself)."""
    build = getattr(param, "get_runtime_param", None)
    if build is not None and not getattr(param, "_authz_deferred", False):
        deferred = _DeferredRuntimeParam(build)
        param.get_runtime_param = lambda: deferred
        param._authz_deferred = True
    return param
