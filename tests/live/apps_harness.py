"""The Java application harness (apps/AppHarness.java): compiled once per source, run in one JVM.

``Harness.run(workflow, user, password, **fields)`` sends one command and returns the JVM's answer:
``{"works", "exception", "step", "chain", "message", "ms"}``. The clients' logs go to a file beside the
compiled classes (stderr), never to the test's output.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "apps" / "AppHarness.java"

LOG4J2 = """\
status = warn
appender.err.type = File
appender.err.name = ERR
appender.err.fileName = {log}
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = ERR
"""


#: The longest one command may take (a run's own timeouts are a few seconds; a hung client is a bug).
ANSWER_TIMEOUT = 90.0


class HarnessError(RuntimeError):
    pass


def compile_harness(classpath: str, cache: Path) -> Path:
    """The directory of the compiled harness (recompiled when the source changes)."""
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    out = cache / f"app-harness-{digest}"
    if (out / "AppHarness.class").is_file():
        return out
    out.mkdir(parents=True, exist_ok=True)
    if shutil.which("javac") is None:
        raise HarnessError("javac (a JDK 17+, not only a JRE) is needed to compile tests/live/apps/AppHarness.java "
                           "(e.g. apt-get install openjdk-17-jdk-headless)")
    proc = subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "-cp", classpath, "-d", str(out), str(SOURCE)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise HarnessError("javac failed on tests/live/apps/AppHarness.java: " + proc.stderr.strip()[-2000:])
    return out


class Harness:
    def __init__(self, classpath: str, workdir: Path, bootstrap: str, cache: Path, admin: tuple[str, str]):
        classes = compile_harness(classpath, cache)
        self.log = workdir / "harness.log"
        config = workdir / "harness-log4j2.properties"
        config.write_text(LOG4J2.format(log=self.log))
        self.bootstrap = bootstrap
        self.admin = {"user": admin[0], "password": admin[1], "bootstrap": bootstrap}
        self.workdir = workdir
        cmd = ["java", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
               f"-Dlog4j2.configurationFile={config}", "-cp", f"{classes}{os.pathsep}{classpath}", "AppHarness"]
        self.process = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=open(workdir / "harness-stderr.log", "wb"), text=True, bufsize=1,
                                        start_new_session=True)

    def _ask(self, command: dict) -> dict:
        if self.process.poll() is not None:
            raise HarnessError(f"the harness JVM exited with {self.process.returncode}; see {self.workdir}")
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], ANSWER_TIMEOUT)
        if not ready:
            self.process.kill()
            what = command.get("workflow") or command.get("op")
            raise HarnessError(f"the harness JVM did not answer within {ANSWER_TIMEOUT:.0f} s: {what}; "
                               f"see {self.workdir}")
        line = self.process.stdout.readline()
        if not line:
            raise HarnessError(f"the harness JVM answered nothing; see {self.workdir}")
        answer = json.loads(line)
        if "harness_error" in answer:
            raise HarnessError(f"harness: {answer['harness_error']}")
        return answer

    def setup(self, **fields) -> None:
        self._ask({"op": "setup", **self.admin, **fields})

    def run(self, workflow: str, user: str, password: str, **fields) -> dict:
        return self._ask({"op": "run", "workflow": workflow, "user": user, "password": password,
                          "bootstrap": self.bootstrap, "admin": self.admin, **fields})

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.process.stdin.write('{"op": "quit"}\n')
                self.process.stdin.flush()
                self.process.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait(timeout=10)
