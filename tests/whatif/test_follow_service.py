"""services/whatif_follow.py with a fake clock and sleep: the bounds, the status hook, the quarantine file,
and a rotation, without waiting."""

import json
import os

from kafka_authz_cli.services.whatif import Proposal
from kafka_authz_cli.services.whatif_follow import FollowBounds, FollowHooks, FollowRequest, FollowSource, follow

LINE = ("[2026-11-20 10:00:0{i},000] DEBUG Principal = User:{who} is Allowed operation = READ from host = 10.0.0.1 "
        "on resource = Topic:LITERAL:orders for request = Fetch with resourceRefCount = 1 based on rule DefaultAllow "
        "(kafka.authorizer.logger)\n")


class Clock:
    """Time that passes only when slept; each sleep may run one step of a script."""

    def __init__(self, script=()):
        self.now = 1000.0
        self.script = list(script)

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds
        if self.script:
            self.script.pop(0)()


def test_bounds_status_quarantine_and_a_rotation_on_a_fake_clock(tmp_path):
    log = tmp_path / "a.log"
    proposed = tmp_path / "proposed.json"
    proposed.write_text(json.dumps({"version": 1, "acls": []}))

    def write(text):
        with open(log, "a") as fh:
            fh.write(text)

    clock = Clock([lambda: write(LINE.format(i=1, who="bob")),
                   lambda: os.rename(log, tmp_path / "a.log.1"),
                   lambda: write(LINE.format(i=2, who="eve") + "junk (kafka.authorizer.logger)\n")])
    changes, statuses = [], []
    request = FollowRequest(Proposal(proposed, super_users="", allow_everyone=False), FollowSource(str(log)),
                            FollowBounds(max_seconds=30), quarantine_file=tmp_path / "q.jsonl")
    done = follow(request, FollowHooks(changes.append, lambda f: statuses.append(f.summary.decisions)), clock=clock,
                  sleep=clock.sleep, interval=0.2)
    assert [c.principal for c in changes] == ["User:bob", "User:eve"]
    assert changes[0].cause.startswith("allow.everyone.if.no.acl.found no longer allowing it")
    assert done.stopped == "--max-seconds 30 reached" and 30 <= done.seconds < 30.5
    assert done.rotations == 1 and done.stats.files == 2 and done.stats.quarantined_lines == 1
    assert statuses and statuses[-1] == 2  # the status hook saw the running counts
    assert [json.loads(x)["source"] for x in (tmp_path / "q.jsonl").read_text().splitlines()] == [f"{log}:2"]
    assert done.as_dict()["quarantine_examples"] == [{"source": f"{log}:2", "reason": done.quarantine[0].reason}]


def test_max_changes_counts_what_was_reported(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("".join(LINE.format(i=i, who=w) for i, w in enumerate(["a", "b", "a", "c", "d"])))
    proposed = tmp_path / "proposed.json"
    proposed.write_text(json.dumps({"version": 1, "acls": []}))
    clock = Clock()
    got = []
    request = FollowRequest(Proposal(proposed), FollowSource(str(log), from_start=True), FollowBounds(max_changes=2))
    done = follow(request, FollowHooks(got.append), clock=clock, sleep=clock.sleep)
    assert [c.principal for c in got] == ["User:a", "User:b"] and done.reported == 2
    assert done.stopped == "--max-changes 2 reached" and done.summary.newly_denied == 5  # all five judged
