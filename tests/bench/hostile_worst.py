"""Time and peak memory of the hostile ecosystem inputs (tests/hostile/hostile_ecosystem.py), run by any ``authz``.

    python tests/bench/hostile_worst.py                           # the worst case of each class, this checkout
    python tests/bench/hostile_worst.py --authz /other/.venv/bin/authz --all --timeout 60 --memory-mb 3072

Each case runs in its own process under a time limit and an address-space limit (a case that needs more
fails with MemoryError instead of taking the shared machine's memory); its peak resident memory comes from
``wait4``. Printed: case, class, seconds, peak MB, exit code and the first line of standard error.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


#: runs the command and reports its peak RSS on fd 3: a fresh small process forks it, so that the peak is the
#: command's own (Linux keeps the parent's high-water mark across fork and exec: forked from this harness, which
#: holds the generated inputs, every child would report at least the harness' size)
LAUNCHER = """import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
os.write(3, str(usage.ru_maxrss).encode())
sys.exit(os.waitstatus_to_exitcode(status) % 256)
"""


def _high_water(launcher: int) -> int | None:
    """The peak resident memory (kB) of the launcher's child so far (/proc: VmHWM), or None."""
    try:
        children = Path(f"/proc/{launcher}/task/{launcher}/children").read_text().split()
        status = Path(f"/proc/{children[0]}/status").read_text()
    except (OSError, IndexError):
        return None
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), None)


def run_measured(argv: list[str], timeout: float, memory_mb: int, cwd: Path) -> dict:
    """The command under the limits, its peak RSS reported by :data:`LAUNCHER`."""
    read, write = os.pipe()
    report_read, report_write = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # child: limits, stderr to the pipe, the launcher
        os.close(read)
        os.close(report_read)
        os.setsid()
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.chdir(cwd)
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.dup2(write, 2)
        os.dup2(report_write, 3)
        try:
            launcher = [sys.executable, "-S", "-c", LAUNCHER, *argv]
            os.execve(launcher[0], launcher, dict(os.environ, COLUMNS="200"))
        finally:
            os._exit(127)
    os.close(write)
    os.close(report_write)
    chunks = []
    timed_out = False
    high_water = None
    os.set_blocking(read, False)
    while True:
        try:
            chunk = os.read(read, 65536)
            if not chunk:
                break
            if sum(len(c) for c in chunks) < 1_000_000:
                chunks.append(chunk)
        except BlockingIOError:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() - start > timeout:
                timed_out = True
                high_water = _high_water(pid)  # so far: the launcher never reports a killed command's
                os.killpg(pid, signal.SIGKILL)
                break
            time.sleep(0.02)
    try:
        done, status, usage = os.wait4(pid, 0)
    except ChildProcessError:  # reaped by the WNOHANG poll
        pass
    os.close(read)
    elapsed = time.monotonic() - start
    report = os.read(report_read, 100)
    os.close(report_read)
    peak_kb = int(report) if report.strip().isdigit() else high_water
    text = b"".join(chunks).decode("utf-8", "replace")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    first = next((ln for ln in lines if not ln.startswith("warning")), lines[0] if lines else "")
    code = os.waitstatus_to_exitcode(status)
    return {"seconds": elapsed, "timed_out": timed_out, "code": code, "peak_mb": None if peak_kb is None else peak_kb / 1024,
            "traceback": any("Traceback" in ln for ln in lines), "memory_error": "MemoryError" in text,
            "stderr": first[:160]}


def main() -> int:
    from tests.hostile.hostile_ecosystem import cases

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--authz", default=str(Path(sys.executable).parent / "authz"))
    parser.add_argument("--all", action="store_true", help="every case, not only the worst of each class")
    parser.add_argument("--only", action="append", help="cases whose name holds this (repeatable)")
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--memory-mb", type=int, default=2048)
    parser.add_argument("--json", type=Path)
    ns = parser.parse_args()
    chosen = [c for c in cases() if (ns.all or c.worst) and (not ns.only or any(o in c.name for o in ns.only))]
    results = []
    print(f"{'case':<42} {'class':<12} {'seconds':>8} {'peak MB':>8} {'exit':>5}  first line", flush=True)
    for case in chosen:
        tmp = Path(tempfile.mkdtemp(prefix="hostile-"))
        try:
            argv = [ns.authz] + case.build(tmp)
            r = run_measured(argv, ns.timeout, ns.memory_mb, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        r.update(case=case.name, klass=case.klass)
        results.append(r)
        seconds = f">{ns.timeout:.0f}" if r["timed_out"] else f"{r['seconds']:.2f}"
        note = " MemoryError" if r["memory_error"] else " TRACEBACK" if r["traceback"] else ""
        peak = "?" if r["peak_mb"] is None else f"{'>=' if r['timed_out'] else ''}{r['peak_mb']:.0f}"
        print(f"{case.name:<42} {case.klass:<12} {seconds:>8} {peak:>8} {r['code']:>5}{note}  "
              f"{r['stderr'][:110]}", flush=True)
    if ns.json:
        ns.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # run as a script: tests.hostile from this checkout (pytest has it on its pythonpath)
    sys.exit(main())
