"""One real Apache Kafka broker for the live tests and the cluster benchmark.

KRaft combined mode (broker and controller in one JVM) on loopback: SASL_PLAINTEXT with SCRAM-SHA-256
and SCRAM-SHA-512 for clients, `StandardAuthorizer`, `allow.everyone.if.no.acl.found=false`, an admin
super user bootstrapped by `kafka-storage format --add-scram`, and `kafka.authorizer.logger` at DEBUG
into its own file (`kafka-authorizer.log`, and the same lines into `kafka-authorizer-rolling.log`, which
log4j2 rotates by size). The controller listener speaks SASL PLAIN with its own
super user (the SCRAM credentials live in the metadata log it serves).

The jars come from Maven Central through ``pom.xml`` beside this file (the Kafka version is pinned
there, and only there); Maven caches them in ``~/.m2`` and the resolved classpath is cached per pom
content, so only the first run on a machine downloads anything.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
POM = HERE / "pom.xml"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "kafka-authz-cli"

ADMIN_USER = "admin"
ADMIN_PASSWORD = "admin-secret"
CONTROLLER_USER = "controller"
SUPER_USERS = f"User:{ADMIN_USER};User:{CONTROLLER_USER}"
START_TIMEOUT = 90.0  # generous for a loaded 2-core machine; the start time is measured and checked
HEAP = "-Xmx384m"

LOG4J2 = """\
status = warn
name = authz-live
appender.server.type = File
appender.server.name = SERVER
appender.server.fileName = {logs}/server.log
appender.server.layout.type = PatternLayout
appender.server.layout.pattern = [%d] %p %m (%c)%n
appender.authorizer.type = File
appender.authorizer.name = AUTHORIZER
appender.authorizer.fileName = {logs}/kafka-authorizer.log
appender.authorizer.layout.type = PatternLayout
appender.authorizer.layout.pattern = [%d] %p %m (%c)%n
appender.rolling.type = RollingFile
appender.rolling.name = AUTHORIZER_ROLLING
appender.rolling.fileName = {logs}/kafka-authorizer-rolling.log
appender.rolling.filePattern = {logs}/kafka-authorizer-rolling.log.%i
appender.rolling.layout.type = PatternLayout
appender.rolling.layout.pattern = [%d] %p %m (%c)%n
appender.rolling.policies.type = Policies
appender.rolling.policies.size.type = SizeBasedTriggeringPolicy
appender.rolling.policies.size.size = {rolling_bytes}
appender.rolling.strategy.type = DefaultRolloverStrategy
appender.rolling.strategy.max = 3
rootLogger.level = INFO
rootLogger.appenderRef.server.ref = SERVER
logger.authorizer.name = kafka.authorizer.logger
logger.authorizer.level = DEBUG
logger.authorizer.additivity = false
logger.authorizer.appenderRef.authorizer.ref = AUTHORIZER
logger.authorizer.appenderRef.rolling.ref = AUTHORIZER_ROLLING
"""
#: The authorizer log is also written to a second file that log4j2 rotates (RollingFile: renamed to
#: .1 and a new file created, as in production) once it is over this size, checked before each
#: write. A test triggers a rotation by making the broker log this much (tests/live/
#: test_whatif_follow_live.py: shadow mode across a rotation). A second appender, so that
#: kafka-authorizer.log, which other tests read whole, never rotates.
ROLLING_BYTES = 64 * 1024


class BrokerError(RuntimeError):
    """The broker could not be provided; the message is one line saying what is missing."""


def kafka_version() -> str:
    import xml.etree.ElementTree as ET

    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    return ET.parse(POM).getroot().find("m:properties/m:kafka.version", ns).text.strip()


def check_tools() -> None:
    if shutil.which("java") is None:
        raise BrokerError("Java 17+ is required for the live Kafka broker tests "
                          "(install a JDK/JRE 17, e.g. apt-get install openjdk-17-jre-headless)")
    if shutil.which("mvn") is None:
        raise BrokerError("Maven is required to fetch the Kafka broker for the live tests "
                          "(install it, e.g. apt-get install maven)")


def classpath() -> str:
    """The broker's runtime classpath (jars in ~/.m2), resolved once per pom content."""
    check_tools()
    digest = hashlib.sha256(POM.read_bytes()).hexdigest()[:16]
    cached = CACHE / f"classpath-{digest}.txt"
    if cached.is_file():
        cp = cached.read_text().strip()
        if cp and all(os.path.isfile(p) for p in cp.split(os.pathsep)):
            return cp
    CACHE.mkdir(parents=True, exist_ok=True)
    out = CACHE / f"classpath-{digest}.tmp"
    cmd = ["mvn", "-q", "-B", "-f", str(POM), "dependency:build-classpath", "-DincludeScope=runtime",
           f"-Dmdep.outputFile={out}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or not out.is_file():
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
        raise BrokerError("mvn could not resolve the Kafka broker from tests/live/pom.xml: " + " | ".join(tail))
    cp = out.read_text().strip()
    os.replace(out, cached)
    return cp


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def java_cmd(cp: str, main: str, *args: str, logs: Path | None = None, heap: str = HEAP) -> list[str]:
    cmd = ["java", heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
           "-Djava.awt.headless=true"]
    if logs is not None:
        cmd += [f"-Dkafka.logs.dir={logs}", f"-Dlog4j2.configurationFile={logs.parent / 'log4j2.properties'}"]
    return cmd + ["-cp", cp, main, *args]


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    # The JVM must not outlive the test run, even when pytest itself is killed.
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass
    os.setsid()


@dataclass
class Broker:
    """A running broker; ``stop()`` ends it and removes its directory."""

    workdir: Path
    bootstrap: str
    controller: str
    process: subprocess.Popen
    classpath: str
    start_seconds: float
    version: str
    extra_users: dict = field(default_factory=dict)

    @property
    def logs(self) -> Path:
        return self.workdir / "logs"

    @property
    def audit_log(self) -> Path:
        return self.logs / "kafka-authorizer.log"

    @property
    def rolling_audit_log(self) -> Path:
        """The same lines as `audit_log`, in a file rotated every ROLLING_BYTES (see LOG4J2)."""
        return self.logs / "kafka-authorizer-rolling.log"

    @property
    def server_log(self) -> Path:
        return self.logs / "server.log"

    @property
    def super_users(self) -> str:
        return SUPER_USERS

    def command_config(self, user: str = ADMIN_USER, password: str = ADMIN_PASSWORD,
                       mechanism: str = "SCRAM-SHA-512", name: str | None = None) -> Path:
        """A Java client properties file (as kafka-acls takes) logging in as ``user``."""
        path = self.workdir / (name or f"{user}-{mechanism.lower()}.properties")
        escaped = password.replace("\\", "\\\\").replace('"', '\\"')
        text = ("security.protocol=SASL_PLAINTEXT\n"
                f"sasl.mechanism={mechanism}\n"
                "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                f'username="{user}" password="{escaped}";\n')
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        return path

    def client_config(self, user: str = ADMIN_USER, password: str = ADMIN_PASSWORD,
                      mechanism: str = "SCRAM-SHA-512") -> dict:
        """kafka-python settings for a client logging in as ``user``."""
        return {"bootstrap_servers": self.bootstrap, "security_protocol": "SASL_PLAINTEXT",
                "sasl_mechanism": mechanism, "sasl_plain_username": user, "sasl_plain_password": password}

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, keep: bool = False) -> None:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        if not keep:
            shutil.rmtree(self.workdir, ignore_errors=True)


def _server_properties(data: Path, port: int, cport: int) -> str:
    scram_jaas = ('org.apache.kafka.common.security.scram.ScramLoginModule required '
                  f'username="{ADMIN_USER}" password="{ADMIN_PASSWORD}";')
    plain_jaas = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
                  f'username="{CONTROLLER_USER}" password="controller-secret" '
                  f'user_{CONTROLLER_USER}="controller-secret";')
    props = {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.voters": f"1@127.0.0.1:{cport}",
        "listeners": f"SASL_PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{cport}",
        "advertised.listeners": f"SASL_PLAINTEXT://127.0.0.1:{port}",
        "listener.security.protocol.map": "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT",
        "inter.broker.listener.name": "SASL_PLAINTEXT",
        "controller.listener.names": "CONTROLLER",
        "sasl.enabled.mechanisms": "SCRAM-SHA-256,SCRAM-SHA-512",
        "sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512",
        "sasl.mechanism.controller.protocol": "PLAIN",
        "listener.name.controller.sasl.enabled.mechanisms": "PLAIN",
        "listener.name.controller.plain.sasl.jaas.config": plain_jaas,
        "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config": scram_jaas,
        "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config": scram_jaas,
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": SUPER_USERS,
        "allow.everyone.if.no.acl.found": "false",
        "log.dirs": str(data),
        "num.partitions": "1",
        "auto.create.topics.enable": "false",
        "offsets.topic.replication.factor": "1",
        "offsets.topic.num.partitions": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "transaction.state.log.num.partitions": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "share.coordinator.state.topic.min.isr": "1",
        # One partition for the share-group state topic (50 by default): its creation under load, on a
        # share group's first use, outlasted a test's wait. Heartbeats every second (5 s by default), so
        # KIP-848 and share groups get their assignment in a second, not five.
        "share.coordinator.state.topic.num.partitions": "1",
        "group.share.min.heartbeat.interval.ms": "500",
        "group.share.heartbeat.interval.ms": "1000",
        "group.consumer.min.heartbeat.interval.ms": "500",
        "group.consumer.heartbeat.interval.ms": "1000",
        "group.initial.rebalance.delay.ms": "0",
        "log.cleaner.dedupe.buffer.size": str(4 * 1024 * 1024),
        "log.cleaner.threads": "1",
        "num.network.threads": "2",
        "num.io.threads": "2",
        "background.threads": "2",
        "num.recovery.threads.per.data.dir": "1",
        "log.segment.bytes": str(16 * 1024 * 1024),
    }
    return "".join(f"{k}={v}\n" for k, v in props.items())


def cluster_id() -> str:
    # Kafka's Uuid.randomUuid() also redraws ids starting with '-' (they read as an option).
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


def start(extra_scram: list[str] = (), workdir: Path | None = None) -> Broker:
    """Format the storage (admin and ``extra_scram`` --add-scram arguments) and start the broker.

    Raises :class:`BrokerError` (one line) when it cannot; never leaves a process behind.
    """
    version = kafka_version()
    cp = classpath()
    workdir = Path(workdir or tempfile.mkdtemp(prefix="authz-kafka-"))
    logs, data = workdir / "logs", workdir / "data"
    logs.mkdir(parents=True, exist_ok=True)
    (workdir / "log4j2.properties").write_text(LOG4J2.format(logs=logs, rolling_bytes=ROLLING_BYTES))
    port, cport = free_port(), free_port()
    config = workdir / "server.properties"
    config.write_text(_server_properties(data, port, cport))
    scram = [f"SCRAM-SHA-256=[name={ADMIN_USER},password={ADMIN_PASSWORD}]",
             f"SCRAM-SHA-512=[name={ADMIN_USER},password={ADMIN_PASSWORD}]", *extra_scram]
    fmt = java_cmd(cp, "kafka.tools.StorageTool", "format", "-t", cluster_id(), "-c", str(config),
                   *[a for s in scram for a in ("-S", s)], logs=logs, heap="-Xmx128m")
    proc = subprocess.run(fmt, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        shutil.rmtree(workdir, ignore_errors=True)
        raise BrokerError("kafka-storage format failed: " + " | ".join((proc.stdout + proc.stderr).strip().splitlines()[-3:]))
    t0 = time.monotonic()
    out = open(logs / "stdout.log", "wb")
    process = subprocess.Popen(java_cmd(cp, "kafka.Kafka", str(config), logs=logs), stdout=out,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
    out.close()
    broker = Broker(workdir, f"127.0.0.1:{port}", f"127.0.0.1:{cport}", process, cp, 0.0, version)
    try:
        _wait_started(broker, t0)
    except BaseException:
        broker.stop(keep=bool(os.environ.get("AUTHZ_KEEP_BROKER_DIR")))
        raise
    broker.start_seconds = time.monotonic() - t0
    return broker


def _wait_started(broker: Broker, t0: float) -> None:
    while True:
        if broker.process.poll() is not None:
            tail = _tail(broker.server_log) or _tail(broker.logs / "stdout.log")
            raise BrokerError(f"the Kafka broker exited with {broker.process.returncode} while starting: {tail}")
        if broker.server_log.is_file() and b"Kafka Server started" in broker.server_log.read_bytes():
            break
        if time.monotonic() - t0 > START_TIMEOUT:
            raise BrokerError(f"the Kafka broker did not start within {START_TIMEOUT:.0f} s: {_tail(broker.server_log)}")
        time.sleep(0.2)
    # Ready for clients: a SCRAM login and a metadata round trip.
    from kafka import KafkaAdminClient

    deadline = t0 + START_TIMEOUT
    while True:
        try:
            KafkaAdminClient(**broker.client_config(), bootstrap_timeout_ms=5000).close()
            return
        except Exception:  # noqa: BLE001 - retried until the deadline
            if time.monotonic() > deadline:
                raise BrokerError(f"the Kafka broker started but admin could not log in within {START_TIMEOUT:.0f} s")
            time.sleep(0.3)


def _tail(path: Path, n: int = 3) -> str:
    try:
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    errors = [ln for ln in lines if " ERROR " in ln or "Exception" in ln]
    return " | ".join((errors or lines)[-n:])


if __name__ == "__main__":  # manual use: python tests/live/kafka_broker.py (Ctrl-C stops it)
    b = start()
    print(f"Kafka {b.version} at {b.bootstrap} (started in {b.start_seconds:.1f} s); {b.workdir}", flush=True)
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        b.stop()
        sys.exit(0)
