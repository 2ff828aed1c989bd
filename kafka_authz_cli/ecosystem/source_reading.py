"""What every ecosystem reader keeps while it reads one source: the ACL set it builds, its warnings
(one line per kind, however many files and entries share it) and its coded findings.

A coded finding is a construct the generating tool applies differently from how the file reads: it
grants more than it says (KSM's ``Produce`` creates topics cluster-wide, a JulieOps consumer without a
group reads every group), or less (a Strimzi literal ``foo-*`` is no wildcard). Each has a stable code
(``EA`` + three digits, declared as a :class:`~kafka_authz_cli.codes.FindingCode` in the format's
module, collected in ``findings.CODES``), so that ``authz lint`` can gate a pull request on it in every
output format, while the commands that read ACLs say it as a warning like any other.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_authz_cli.acl import AclSet
from kafka_authz_cli.codes import FindingCode
from kafka_authz_cli.formats import WarningTally


@dataclass(frozen=True)
class SourceFinding:
    """One coded finding at a place of a file (``col`` 0-based, as lint's findings are)."""

    code: str
    path: str
    line: int
    col: int
    message: str
    severity: str
    name: str


def record(acl_set: AclSet, code: FindingCode, path: str, line: int, col: int, message: str) -> None:
    """A coded finding kept with the ACL set, for ``authz lint`` (the caller tallies the warning line)."""
    acl_set.findings.append(SourceFinding(code.code, path, line, col, message, code.severity, code.name))


class SourceReading:
    """One source being read (a file, or every file of a directory): ``path`` is the file at hand."""

    def __init__(self, source: str, fmt: str) -> None:
        self.source = source
        self.path = source
        self.acl_set = AclSet([], [], source, fmt)
        self.tally = WarningTally()

    def warn(self, kind: str, node, message: str) -> None:
        """A warning of ``kind`` (a plural phrase) at ``node``'s line."""
        self.tally.add(kind, f"{self.path}:{node.start_mark.line + 1}", message)

    def find(self, code: FindingCode, node, message: str) -> None:
        """A coded finding at ``node``: a warning line starting with the code, and a finding for lint."""
        line, col = node.start_mark.line + 1, node.start_mark.column
        self.tally.add(f"{code.code} {code.summary}", f"{self.path}:{line}", f"{code.code} {message}")
        record(self.acl_set, code, self.path, line, col, message)

    def finish(self) -> AclSet:
        """The ACL set, its warnings told once per kind."""
        self.acl_set.warnings.extend(self.tally.lines())
        return self.acl_set
