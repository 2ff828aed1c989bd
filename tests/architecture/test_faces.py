"""The packages' public faces (README, "Conventions"): every name a package's ``__all__`` lists
resolves, and its ``if TYPE_CHECKING:`` imports, which type checkers and editors read instead of the
lazy ``__getattr__``, declare exactly those names, each the very object the face loads."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "kafka_authz_cli"



def _init(package: str) -> ast.Module:
    return ast.parse((ROOT / package.replace(".", "/") / "__init__.py").read_text(encoding="utf-8"))


def _assigns_all(tree: ast.Module) -> bool:
    targets = [t for node in tree.body if isinstance(node, ast.Assign) for t in node.targets]
    names = [n for t in targets for n in (t.elts if isinstance(t, ast.Tuple) else [t])]
    return any(isinstance(n, ast.Name) and n.id == "__all__" for n in names)


PACKAGES = sorted(".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py"))
FACES = [name for name in PACKAGES if _assigns_all(_init(name))]


def _type_checking_imports(package: str) -> dict[str, str]:
    """Each name imported under ``if TYPE_CHECKING:`` in the package's ``__init__``, with its module."""
    tree = _init(package)
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module, ast.unparse(statement)
                names.update({alias.asname or alias.name: statement.module for alias in statement.names})
    return names


def test_the_faces_are_found():
    assert {"kafka_authz_cli.acl", "kafka_authz_cli.whatif.spark", "kafka_authz_cli._java.regex"} <= set(FACES)


@pytest.mark.parametrize("package", FACES)
def test_every_name_of_a_face_resolves(package):
    face = importlib.import_module(package)
    missing = {}
    for name in face.__all__:
        try:
            getattr(face, name)
        except (AttributeError, ImportError) as e:
            missing[name] = repr(e)
    assert face.__all__ and not missing, missing


@pytest.mark.parametrize("package", FACES)
def test_a_face_declares_its_names_for_type_checkers(package):
    face = importlib.import_module(package)
    declared = _type_checking_imports(package)
    assert set(declared) == set(face.__all__)
    elsewhere = [f"{name} from {module}" for name, module in declared.items()
                 if getattr(importlib.import_module(module), name) is not getattr(face, name)]
    assert not elsewhere, f"not the object the face loads: {elsewhere}"
