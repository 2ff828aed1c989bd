"""Terraform's JSON: ``terraform show -json`` output (of a state or a saved plan) and v4 ``terraform.tfstate``
files, read strictly: the resources they list, each with its values and where they are.

Through the strict JSON reader (``formats.loads``): a key given twice is an error (a second
``acl_principal`` would otherwise silently win), so is nesting past a few hundred levels; and every
container the walk goes through must have the type Terraform writes (``resources`` a list of objects,
``attributes`` an object ...), else one located error naming the JSON path. Modules are walked with a
loop, however deep ``child_modules`` nest.
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass
from typing import Any, Iterator

from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import json_type, loads, locate

EXPECTED = "Terraform's JSON (terraform show -json, or a v4 terraform.tfstate)"
_ADDRESS = re.compile(r'"address"\s*:\s*"((?:[^"\\]|\\.)*)"')
_ATTRIBUTES = re.compile(r'"attributes"\s*:')


@dataclass
class StateResource:
    type: Any
    mode: Any
    #: the attribute values (an object)
    values: dict
    address: str
    line: int
    #: the JSON path of ``values`` (to locate one of them)
    values_path: list


class _Lines:
    """Line numbers of positions met in increasing order (one pass over the text)."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line = text, 0, 1

    def at(self, pos: int) -> int:
        if pos >= self.pos:
            self.line += self.text.count("\n", self.pos, pos)
            self.pos = pos
        return self.line


def is_show_output(doc: dict) -> bool:
    return isinstance(doc.get("values"), dict) or "format_version" in doc


def resources(text: str, path: str) -> Iterator[StateResource]:
    """Every resource of the document, in file order."""
    doc = loads(text, path, expected=EXPECTED)
    if not isinstance(doc, dict):
        raise InputError(f"expected {EXPECTED}, got {json_type(doc)}", path, 1)
    if is_show_output(doc):
        yield from _show(doc, text, path)
    else:
        yield from _state(doc, text, path)


_KIND_NAMES: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}


def _typed(value, kind: type, text: str, path: str, where: list, what: str):
    """``value`` if it is a ``kind`` (None counts as empty), else a located error naming its JSON path."""
    if value is None:
        return kind()
    if not isinstance(value, kind):
        expected = _KIND_NAMES[kind]
        raise error(text, path, where, f"{what} must be {expected}, got {json_type(value)}")
    return value


def error(text: str, path: str, where: list, reason: str) -> InputError:
    line, col = locate(text, where) or (1, None)
    shown = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(where))
    return InputError(f"{shown}: {reason}", path, line, col)


def _show(doc: dict, text: str, path: str) -> Iterator[StateResource]:
    lines = _Lines(text)
    addresses: dict[str, int] = {}
    for m in _ADDRESS.finditer(text):
        addresses.setdefault(m.group(1), lines.at(m.start()))
    # of a state, values; of a saved plan, planned_values (unknowns left out)
    top = "values" if doc.get("values") else "planned_values"
    root = _typed(doc.get(top), dict, text, path, [top], top)
    pending: deque[tuple[Any, list[str | int]]] = deque([(
        _typed(root.get("root_module"), dict, text, path, [top, "root_module"], "root_module"), [top, "root_module"])])
    while pending:
        module, where = pending.popleft()
        listed = _typed(module.get("resources"), list, text, path, where + ["resources"], "resources")
        for i, resource in enumerate(listed):
            here = where + ["resources", i]
            resource = _typed(resource, dict, text, path, here, "a resource")
            address = _typed(resource.get("address"), str, text, path, here + ["address"], "address") or "?"
            values = resource.get("values")
            if values is not None:
                values = _typed(values, dict, text, path, here + ["values"], "values")
            yield StateResource(resource.get("type"), resource.get("mode"), values, address,
                                addresses.get(address, 1), here + ["values"])
        children = _typed(module.get("child_modules"), list, text, path, where + ["child_modules"], "child_modules")
        pending.extend((_typed(c, dict, text, path, where + ["child_modules", i], "a child module"),
                        where + ["child_modules", i]) for i, c in enumerate(children))


def _state(doc: dict, text: str, path: str) -> Iterator[StateResource]:
    if doc.get("version") != 4 or not isinstance(doc.get("resources"), list):
        version = doc.get("version")
        shown = repr(version) if isinstance(version, (int, str)) and len(str(version)) < 40 else json_type(version)
        raise InputError(f"a terraform.tfstate of version {shown}: authz reads version 4 (Terraform 0.12 and later) "
                         "and `terraform show -json` output", path, 1)
    lines = _Lines(text)
    marks = iter(_ATTRIBUTES.finditer(text))
    for i, resource in enumerate(doc["resources"]):
        here = ["resources", i]
        resource = _typed(resource, dict, text, path, here, "a resource")
        module = _typed(resource.get("module"), str, text, path, here + ["module"], "module")
        name = _typed(resource.get("name"), str, text, path, here + ["name"], "name")
        prefix = f"{module}." if module else ""
        instances = _typed(resource.get("instances"), list, text, path, here + ["instances"], "instances")
        for j, instance in enumerate(instances):
            at = here + ["instances", j]
            instance = _typed(instance, dict, text, path, at, "an instance")
            mark = next(marks, None)
            key = instance.get("index_key")
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                key = None
            index = "" if key is None else f"[{json.dumps(key)}]"
            values = instance.get("attributes")
            if values is not None:
                values = _typed(values, dict, text, path, at + ["attributes"], "attributes")
            yield StateResource(resource.get("type"), resource.get("mode"), values,
                                f"{prefix}{resource.get('type')}.{name}{index}", lines.at(mark.start()) if mark else 1,
                                at + ["attributes"])
