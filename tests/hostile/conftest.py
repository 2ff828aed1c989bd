import sys
from pathlib import Path

# The suite's input catalogue (tests_hostile_inputs.py) is imported by name, as tests/bench does.
sys.path.insert(0, str(Path(__file__).parent))
