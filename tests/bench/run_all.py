"""`make bench`: run every tests/bench/bench_*.py in turn (each prints its own table with ratios)."""

import subprocess
import sys
from pathlib import Path

here = Path(__file__).parent
failed = []
for script in sorted(here.glob("bench_*.py")):
    print(f"\n=== {script.name} ===", flush=True)
    rc = subprocess.call([sys.executable, str(script), *sys.argv[1:]])
    if rc:
        failed.append(script.name)
if failed:
    print("failed: " + ", ".join(failed))
    sys.exit(1)
