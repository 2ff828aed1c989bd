"""`make bench`: run every tests/bench/bench_*.py in turn (each prints its own table with ratios)."""

import subprocess
import sys
from pathlib import Path

here = Path(__file__).parent
failed = []
runs = [(script, []) for script in sorted(here.glob("bench_*.py"))]
runs.append((here / "bench_access.py", ["--principal"]))  # access --principal, both shapes, three sizes
for script, extra in runs:
    print(f"\n=== {script.name} {' '.join(extra)} ===", flush=True)
    rc = subprocess.call([sys.executable, str(script), *extra, *sys.argv[1:]])
    if rc:
        failed.append(" ".join([script.name, *extra]))
if failed:
    print("failed: " + ", ".join(failed))
    sys.exit(1)
