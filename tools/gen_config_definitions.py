"""Generate kafka_authz_cli/config/kafka_configs.json from Kafka's own code.

For each Kafka version below, Maven resolves ``org.apache.kafka:kafka_2.13:<version>`` and its runtime
dependencies from Maven Central (cached in ~/.m2), and ``KafkaConfigDefinitions.java`` (beside this
file) reads, by reflection, the broker's ConfigDef, LogConfig's ConfigDef, ServerTopicConfigSynonyms
and the sets ``DynamicBrokerConfig`` and ``DynamicConfig.Broker`` decide dynamic updates with. The
versions are merged into one compact file: each config name maps to its variants, each variant
holding the versions it is read from and its definition there.

    python tools/gen_config_definitions.py            # every version below (minutes on first run)
    python tools/gen_config_definitions.py --check    # regenerate and compare, write nothing

tests/config/test_definitions_regenerate.py regenerates the newest slice the live tests' broker has
(tests/live/pom.xml) and compares it with the checked-in file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "KafkaConfigDefinitions.java"
OUTPUT = HERE.parent / "kafka_authz_cli" / "config" / "kafka_configs.json"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "kafka-authz-cli"

#: The last patch release of each minor version from 2.8 on (4.1.1: the live tests' broker).
VERSIONS = ("2.8.2", "3.0.2", "3.1.2", "3.2.3", "3.3.2", "3.4.1", "3.5.2", "3.6.2", "3.7.2", "3.8.1", "3.9.2",
            "4.0.2", "4.1.1", "4.2.2", "4.3.1", "4.4.0")

POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>kafka-authz-cli.tools</groupId><artifactId>config-definitions</artifactId><version>1</version>
<packaging>pom</packaging><dependencies><dependency><groupId>org.apache.kafka</groupId>
<artifactId>kafka_2.13</artifactId><version>{version}</version></dependency></dependencies></project>
"""


def classpath(version: str) -> str:
    """kafka_2.13's runtime classpath for ``version`` (resolved by Maven, cached per version)."""
    cached = CACHE / f"definitions-classpath-{version}.txt"
    if cached.is_file():
        cp = cached.read_text().strip()
        if cp and all(os.path.isfile(p) for p in cp.split(os.pathsep)):
            return cp
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        pom = Path(tmp) / "pom.xml"
        pom.write_text(POM.format(version=version))
        out = Path(tmp) / "cp.txt"
        proc = subprocess.run(["mvn", "-q", "-B", "-f", str(pom), "dependency:build-classpath",
                               "-DincludeScope=runtime", f"-Dmdep.outputFile={out}"], capture_output=True, text=True)
        if proc.returncode != 0 or not out.is_file():
            sys.exit(f"mvn could not resolve kafka_2.13:{version}: {(proc.stdout + proc.stderr)[-500:]}")
        cached.write_text(out.read_text().strip())
    return cached.read_text().strip()


def compiled() -> Path:
    """KafkaConfigDefinitions.class, compiled once per source (it needs no Kafka class to compile)."""
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    classes = CACHE / f"definitions-classes-{digest}"
    if not (classes / "KafkaConfigDefinitions.class").is_file():
        classes.mkdir(parents=True, exist_ok=True)
        subprocess.run(["javac", "-d", str(classes), str(SOURCE)], check=True)
    return classes


def read_version(version: str, cp: str | None = None, topic_docs: bool = False) -> dict:
    """One version's definitions, as KafkaConfigDefinitions.java prints them (``topic_docs``: with the
    documentation of each topic config, which the definitions do not keep)."""
    cp = cp or classpath(version)
    cmd = ["java", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
           "-cp", f"{compiled()}{os.pathsep}{cp}", "KafkaConfigDefinitions", version] + ["--topic-docs"] * topic_docs
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"reading Kafka {version} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def merge(slices: list[dict]) -> dict:
    """Per name, the variants (a definition and the versions it is read from), in version order."""
    versions = [s["version"] for s in slices]
    out: dict = {"about": "Kafka's config definitions, read from Kafka's own classes by tools/gen_config_definitions.py "
                          "(do not edit: regenerate).", "versions": versions}
    for section in ("broker", "topic"):
        merged: dict[str, list] = {}
        for s in slices:
            for name, definition in s[section].items():
                variants = merged.setdefault(name, [])
                same = next((v for v in variants if v["def"] == definition), None)
                if same is None:
                    variants.append({"in": [s["version"]], "def": definition})
                else:
                    same["in"].append(s["version"])
        out[section] = dict(sorted(merged.items()))
    rules: list = []
    for s in slices:
        same = next((r for r in rules if r["def"] == s["rules"]), None)
        if same is None:
            rules.append({"in": [s["version"]], "def": s["rules"]})
        else:
            same["in"].append(s["version"])
    out["rules"] = rules
    return out


def slice_of(data: dict, version: str) -> dict:
    """One version's definitions from the merged data (what :func:`read_version` returned for it)."""
    out: dict = {"version": version}
    for section in ("broker", "topic"):
        out[section] = {name: v["def"] for name, variants in data[section].items() for v in variants
                        if version in v["in"]}
    out["rules"] = next(r["def"] for r in data["rules"] if version in r["in"])
    return out


def dump(data: dict) -> str:
    """Compact, one config per line, so that a regeneration diffs readably."""
    lines = ["{", f'"about": {json.dumps(data["about"])},', f'"versions": {json.dumps(data["versions"])},']
    for section in ("broker", "topic"):
        lines.append(f'"{section}": {{')
        items = list(data[section].items())
        for i, (name, variants) in enumerate(items):
            comma = "," if i < len(items) - 1 else ""
            lines.append(f"{json.dumps(name)}: {json.dumps(variants, separators=(',', ':'), sort_keys=True)}{comma}")
        lines.append("},")
    lines.append('"rules": [')
    for i, r in enumerate(data["rules"]):
        comma = "," if i < len(data["rules"]) - 1 else ""
        lines.append(json.dumps(r, separators=(",", ":"), sort_keys=True) + comma)
    lines.append("]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the checked-in file, write nothing")
    parser.add_argument("--versions", nargs="*", default=list(VERSIONS))
    args = parser.parse_args(argv)
    slices = []
    for v in args.versions:
        print(f"reading Kafka {v}", file=sys.stderr)
        slices.append(read_version(v))
    text = dump(merge(slices))
    if args.check:
        same = OUTPUT.read_text() == text
        print("up to date" if same else f"{OUTPUT} differs from Kafka's code", file=sys.stderr)
        return 0 if same else 1
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT} ({len(text)} bytes, {len(slices)} versions)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
