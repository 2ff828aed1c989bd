import sys
from pathlib import Path

# The suite's input catalogue (hostile_catalogue.py) is imported by name, as tests/bench does.
sys.path.insert(0, str(Path(__file__).parent))
