"""The architecture of README's "Architecture" section, held against the code.

The import rules themselves (layers, no cycles, who may import typer, rich, PySpark and kafka-python)
are import-linter contracts in pyproject.toml, checked by `make test` before pytest runs; ruff
checks complexity there too. What neither tool measures is checked here: that every domain package
really imports with the terminal libraries, Spark, kafka-python and the network stack absent, and
the size limits that keep each unit readable.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "kafka_authz_cli"

DOMAIN_PACKAGES = ["acl", "rules", "scram", "principal", "config", "ecosystem", "connect", "policy", "whatif", "cluster", "review",
                   "apps"]
FOUNDATIONS = ["formats", "_java", "errors", "codes"]
#: The adapters: the only places a dependency outside the domain may be imported.
ADAPTERS = {"kafka_authz_cli.whatif.spark": "pyspark", "kafka_authz_cli.cluster.kafka_adapter": "kafka-python"}
#: What a domain package must import without: the terminal, Spark, a Kafka client, the network stack
#: and the layers above it.
BLOCKED = ["typer", "rich", "click", "pyspark", "py4j", "kafka", "socket", "ssl", "http", "urllib.request",
           "kafka_authz_cli.cli", "kafka_authz_cli.services"]

MAX_MODULE_LINES = 700
MAX_FUNCTION_LINES = 80
#: The commands' share of the package's lines: parsing options and rendering stays a small part.
MAX_CLI_SHARE = 0.20

_IMPORT_ALL = r"""
import importlib, importlib.abc, pkgutil, sys

BLOCKED = {blocked!r}
ADAPTERS = {adapters!r}


class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ImportError(f"{{name}} is blocked")


sys.meta_path.insert(0, Blocked())
package = importlib.import_module(sys.argv[1])
for info in pkgutil.walk_packages(getattr(package, "__path__", []), sys.argv[1] + "."):
    if not any(info.name == a or info.name.startswith(a + ".") for a in ADAPTERS):
        importlib.import_module(info.name)
print("ok")
"""


@pytest.mark.parametrize("name", DOMAIN_PACKAGES + FOUNDATIONS)
def test_every_domain_package_imports_without_the_cli_spark_or_a_network(name):
    code = _IMPORT_ALL.format(blocked=BLOCKED, adapters=list(ADAPTERS))
    proc = subprocess.run([sys.executable, "-c", code, f"kafka_authz_cli.{name}"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]


def test_the_blocking_is_real():
    # The same harness on the CLI must fail, or the test above proves nothing.
    code = _IMPORT_ALL.format(blocked=BLOCKED, adapters=list(ADAPTERS))
    proc = subprocess.run([sys.executable, "-c", code, "kafka_authz_cli.cli.common"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert proc.returncode != 0 and "is blocked" in proc.stderr


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_is_longer_than_700_lines():
    long = {str(p.relative_to(ROOT)): n for p in _modules() if (n := _lines(p)) > MAX_MODULE_LINES}
    assert not long, long


def test_no_function_is_longer_than_80_lines():
    long = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([d.lineno for d in node.decorator_list] + [node.lineno])
                if node.end_lineno - start + 1 > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"] = node.end_lineno - start + 1
    assert not long, long


def test_the_commands_are_less_than_a_fifth_of_the_code():
    total = sum(_lines(p) for p in _modules())
    cli = sum(_lines(p) for p in (PACKAGE / "cli").rglob("*.py"))
    assert cli / total < MAX_CLI_SHARE, f"cli/ is {cli} of {total} lines ({cli / total:.1%})"


def test_the_package_top_holds_packages_and_a_handful_of_modules():
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert modules == ["__init__.py", "__main__.py", "codes.py", "errors.py"], modules
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    assert packages == sorted(DOMAIN_PACKAGES + ["_java", "cli", "formats", "services"]), packages
