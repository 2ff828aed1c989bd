"""The Java process Spark starts: is there a runtime it can use, and where its log and its own
output go (a file, never the terminal or authz's output)."""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile


def java_problem() -> str | None:
    """None when a Java 17+ runtime is there; otherwise what is wrong, in words."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java:  # never with JAVA_HOME set: java is then its bin/java
        return "no Java runtime (java is not on PATH and JAVA_HOME is not set)"
    if home and not os.access(java, os.X_OK):
        return f"JAVA_HOME is {home} but {java} is not an executable"
    import subprocess

    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{java} does not run ({exc})"
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if m:
        major = int(m[1]) if m[1] != "1" else int(m[2] or 0)
        if major < 17:
            return f"Spark needs Java 17+, found Java {major} ({java})"
    return None


def java_available() -> bool:
    return java_problem() is None


def spark_log_file() -> str:
    return os.path.join(tempfile.gettempdir(), f"authz-spark-{os.getpid()}.log")


# Where in Spark's log (one per process) the latest JVM start began: what an earlier session of the
# same process logged is not why this one failed.
start_of_this_start: dict[str, int] = {}


class jvm_output_to:
    """The JVM Spark starts inherits file descriptors 1 and 2: point them at the log file while it
    starts, so that Java's own notes (start-up warnings on stderr; a heap it cannot reserve, on stdout)
    never reach the terminal or authz's own output (both are restored after)."""

    def __init__(self, path: str):
        self.path = path
        self.saved: list[tuple[int, int]] = []

    def __enter__(self):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            start_of_this_start[self.path] = os.fstat(fd).st_size
            for target in (1, 2):
                self.saved.append((target, os.dup(target)))
                os.dup2(fd, target)
            os.close(fd)
        except OSError:
            self.__exit__()
        return self

    def __exit__(self, *exc):
        for target, saved in reversed(self.saved):
            os.dup2(saved, target)
            os.close(saved)
        self.saved = []
        return False
