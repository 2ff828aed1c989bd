import json
from pathlib import Path

import pytest

CONFORMANCE = Path(__file__).parent / "conformance"


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="session")
def conformance_dir() -> Path:
    return CONFORMANCE
