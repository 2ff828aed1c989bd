"""Helpers shared by the ecosystem tests (roundtrip.py) are imported by name."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
