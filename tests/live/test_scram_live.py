"""SCRAM users on the real broker: made by authz (live and offline), logged in with kafka-python."""

import json
import stat
import time

import pytest

pytestmark = pytest.mark.live


def can_login(kafka, user, password, mechanism, timeout_ms=10000) -> bool:
    from kafka import KafkaAdminClient
    from kafka.errors import KafkaError

    try:
        KafkaAdminClient(**kafka.client_config(user, password, mechanism), bootstrap_timeout_ms=timeout_ms).close()
        return True
    except KafkaError:
        return False


def refused(kafka, user, password, mechanism, within: float = 10.0) -> bool:
    """The broker refuses the login within ``within`` seconds (it applies credential changes
    asynchronously; a refused SCRAM login is retried until the bootstrap timeout, kept short)."""
    deadline = time.monotonic() + within
    while True:
        if not can_login(kafka, user, password, mechanism, timeout_ms=1200):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)


def _listed(authz, user):
    res = authz("scram", "list", *authz.live, "--user", user, "-f", "json")
    return json.loads(res.stdout) if res.exit_code == 0 else res.output


def _fail():
    raise AssertionError("not yet")


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_a_user_authz_created_logs_in(authz, kafka, mechanism, eventually):
    user = f"alice-{mechanism[-3:]}"
    res = authz("scram", "create-user", "--user", user, "--mechanism", mechanism, "--iterations", "4500",
                "--password-stdin", *authz.live, input="alice secret\n")
    assert res.exit_code == 0 and "created" in res.output, res.output
    assert "alice secret" not in res.output
    assert can_login(kafka, user, "alice secret", mechanism)
    assert refused(kafka, user, "alice secret ", mechanism)
    eventually(lambda: _listed(authz, user) == [{"user": user, "mechanism": mechanism, "iterations": 4500}] or _fail())
    res = authz("scram", "create-user", "--user", user, "--mechanism", mechanism, "--password-stdin", *authz.live,
                input="new secret\n")
    assert res.exit_code == 0 and "updated" in res.output
    assert can_login(kafka, user, "new secret", mechanism) and refused(kafka, user, "alice secret", mechanism)


def test_wrong_password_is_reported_as_authentication_failure(authz, kafka):
    res = authz("scram", "create-user", "--user", "alice", "--mechanism", "SCRAM-SHA-256", "--password-stdin",
                *authz.live, input="right\n")
    assert res.exit_code == 0
    bad = kafka.command_config("alice", "wrong", "SCRAM-SHA-256", name="alice-wrong.properties")
    res = authz("cluster", "pull", "--bootstrap-server", kafka.bootstrap, "--command-config", bad, "--timeout", "3")
    assert res.exit_code == 2
    [line] = res.output.strip().splitlines()
    assert "authentication failed for alice (SCRAM-SHA-256)" in line


def test_offline_user_bootstrapped_by_kafka_storage_logs_in_and_verify_agrees(authz, kafka, offline_user, tmp_path):
    user, password, salt = offline_user
    # The broker replayed the credential authz computed offline (--add-scram with salted password).
    assert f"Replayed UserScramCredentialRecord creating new entry for {user} with mechanism SCRAM_SHA_256" \
        in kafka.server_log.read_text()
    res = authz("scram", "list", *authz.live, "--user", user, "-f", "json")
    assert json.loads(res.stdout) == [{"user": user, "mechanism": "SCRAM-SHA-256", "iterations": 8192}]
    assert can_login(kafka, user, password, "SCRAM-SHA-256")
    assert refused(kafka, user, password, "SCRAM-SHA-512")  # no credential for that mechanism
    # `scram verify` on the same credential (same salt, as a record) agrees with the broker.
    pw = tmp_path / "pw"
    pw.write_text(password + "\n")
    pw.chmod(0o600)
    record = tmp_path / "carol.json"
    res = authz("scram", "create-user", "--user", user, "--mechanism", "SCRAM-SHA-256", "--iterations", "8192",
                "--salt", salt, "--password-file", pw, "-f", "json", "-o", record)
    assert res.exit_code == 0, res.output
    res = authz("scram", "verify", "--record", record, "--password-stdin", input=password + "\n")
    assert res.exit_code == 0 and "match" in res.output
    wrong = password + "!"
    res = authz("scram", "verify", "--record", record, "--password-stdin", input=wrong + "\n")
    assert res.exit_code == 1 and refused(kafka, user, wrong, "SCRAM-SHA-256")


def test_scram_apply_plans_dry_runs_confirms_and_deletes_only_when_asked(authz, kafka, tmp_path, eventually):
    users = tmp_path / "users.csv"
    users.write_text("user,mechanism,iterations,password\nu1,SCRAM-SHA-256,,pw-one\nu2,SCRAM-SHA-512,8192,pw-two\n")
    res = authz("scram", "apply", users, *authz.live, "--password-column", "password", "--dry-run")
    assert res.exit_code == 0 and "2 to create or update" in res.output
    assert refused(kafka, "u1", "pw-one", "SCRAM-SHA-256")
    res = authz("scram", "apply", users, *authz.live, "--password-column", "password", input="")
    assert res.exit_code == 4 and "declined" in res.output
    res = authz("scram", "apply", users, *authz.live, "--password-column", "password", "--yes")
    assert res.exit_code == 0 and "applied 2 of 2" in res.output, res.output
    assert can_login(kafka, "u1", "pw-one", "SCRAM-SHA-256") and can_login(kafka, "u2", "pw-two", "SCRAM-SHA-512")
    eventually(lambda: _listed(authz, "u2") == [{"user": "u2", "mechanism": "SCRAM-SHA-512", "iterations": 8192}]
               or _fail())
    # Re-run with --skip-existing: nothing to do; generated passwords only to their 0600 file.
    res = authz("scram", "apply", users, *authz.live, "--password-column", "password", "--skip-existing", "--yes")
    assert res.exit_code == 0 and "nothing to change" in res.output
    only_u3 = tmp_path / "u3.csv"
    only_u3.write_text("user\nu3\n")
    gen = tmp_path / "generated.csv"
    res = authz("scram", "apply", only_u3, *authz.live, "--generate", "--generated-passwords", gen, "--yes")
    assert res.exit_code == 0, res.output
    assert stat.S_IMODE(gen.stat().st_mode) == 0o600
    u3_password = gen.read_text().splitlines()[1].split(",")[2]
    assert u3_password not in res.output and can_login(kafka, "u3", u3_password, "SCRAM-SHA-512")
    # --allow-delete: everything else goes (after the typed confirmation), never the login user.
    res = authz("scram", "apply", only_u3, *authz.live, "--generate", "--generated-passwords", gen,
                "--skip-existing", "--allow-delete", "--yes", input="")
    assert res.exit_code == 4, res.output
    assert can_login(kafka, "u1", "pw-one", "SCRAM-SHA-256")
    listed = json.loads(authz("scram", "list", *authz.live, "-f", "json").stdout)
    to_delete = sum(1 for r in listed if r["user"] not in ("u3", "admin"))
    res = authz("scram", "apply", only_u3, *authz.live, "--generate", "--generated-passwords", gen,
                "--skip-existing", "--allow-delete", "--yes", "--max-deletes", str(to_delete))
    assert res.exit_code == 0, res.output
    eventually(lambda: {r["user"] for r in json.loads(authz("scram", "list", *authz.live, "-f", "json").stdout)}
               == {"admin", "u3"} or _fail())
    assert refused(kafka, "u1", "pw-one", "SCRAM-SHA-256") and can_login(kafka, "admin", "admin-secret",
                                                                                "SCRAM-SHA-512")


def test_scram_delete(authz, kafka):
    res = authz("scram", "create-user", "--user", "gone", "--password-stdin", *authz.live, input="pw\n")
    assert res.exit_code == 0 and can_login(kafka, "gone", "pw", "SCRAM-SHA-512")
    res = authz("scram", "delete", "--user", "gone", *authz.live, "--dry-run")
    assert res.exit_code == 0 and can_login(kafka, "gone", "pw", "SCRAM-SHA-512")
    res = authz("scram", "delete", "--user", "gone", *authz.live, "--yes")
    assert res.exit_code == 0 and "deleted 1" in res.output
    assert refused(kafka, "gone", "pw", "SCRAM-SHA-512")
    res = authz("scram", "delete", "--user", "gone", *authz.live, "--yes")
    assert res.exit_code == 2 and "no such SCRAM credential" in res.output
