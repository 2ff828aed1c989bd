"""`authz scram` as a user runs it: secrets stay secret, formats are Kafka's."""

import json
import stat

from kafka_authz_cli.scram.credential import ScramCredential, ScramMechanism, parse_add_scram
from tests.cli_runner import run

SECRET = "correct horse battery staple"


def test_password_on_argv_is_refused_by_default():
    res = run("scram", "create-user", "--user", "alice", "--password", SECRET)
    assert res.exit_code == 2 and "shell" in res.output and SECRET not in res.output


def test_an_output_file_create_user_would_not_write_is_refused_before_the_password_is_read(tmp_path):
    """-o with the default table format was ignored: the table went to the terminal, no file was written,
    exit 0."""
    out = tmp_path / "alice.json"
    for args, says in ((["-o", out], "--format json"), (["-o", out, "--bootstrap-server", "127.0.0.1:1"], "not both"),
                       (["-o", tmp_path / "no" / "alice.json", "-f", "json"], "no such directory")):
        res = run("scram", "create-user", "--user", "alice", "--password-stdin", *args, input=SECRET + "\n")
        assert res.exit_code == 2 and says in res.output and "StoredKey" not in res.output, res.output
        assert not out.exists()
    res = run("scram", "create-user", "--user", "alice", "--password-stdin", "-o", out, "-f", "json",
              input=SECRET + "\n")
    assert res.exit_code == 0 and json.loads(out.read_text())["name"] == "alice"

def test_create_user_json_record_verifies_and_never_shows_the_password(tmp_path):
    res = run("scram", "create-user", "--user", "alice", "--mechanism", "SCRAM-SHA-256", "--password-stdin",
              "--format", "json", input=SECRET + "\n")
    assert res.exit_code == 0, res.output
    assert SECRET not in res.output
    record = json.loads(res.stdout)
    assert record["mechanism"] == 1 and record["iterations"] == 4096 and record["name"] == "alice"
    assert ScramCredential.from_record(record).verify(SECRET)
    f = tmp_path / "alice.json"
    f.write_text(res.stdout)
    assert run("scram", "verify", "--record", f, "--password-stdin", input=SECRET + "\n").exit_code == 0
    assert run("scram", "verify", "--record", f, "--password-stdin", input="wrong\n").exit_code == 1


def test_kafka_storage_format_is_accepted_by_kafkas_parser():
    res = run("scram", "create-user", "--user", "bob", "--salt", "c2FsdHNhbHQ=", "--iterations", "8192",
              "--password-stdin", "--format", "kafka-storage", input=SECRET + "\n")
    arg = res.stdout.strip()
    assert arg.startswith('SCRAM-SHA-512=[name=bob,iterations=8192,salt="c2FsdHNhbHQ=",saltedpassword="')
    assert SECRET not in arg
    parsed = parse_add_scram(arg)
    assert parsed.credential == ScramCredential.from_password(ScramMechanism.SCRAM_SHA_512, SECRET, b"saltsalt", 8192)


def test_credential_string_and_output_file_mode(tmp_path):
    out = tmp_path / "cred.txt"
    res = run("scram", "create-user", "--user", "c", "--password-stdin", "--format", "credential", "-o", out,
              input=SECRET + "\n")
    assert res.exit_code == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert out.read_text().startswith("salt=") and ",iterations=4096" in out.read_text()
    # Overwriting the user's own 0600 file is fine.
    res = run("scram", "create-user", "--user", "d", "--password-stdin", "--format", "credential", "-o", out,
              input=SECRET + "\n")
    assert res.exit_code == 0 and stat.S_IMODE(out.stat().st_mode) == 0o600


def test_an_existing_readable_file_is_refused_not_chmodded(tmp_path):
    out = tmp_path / "cred.txt"
    out.write_text("old")
    out.chmod(0o644)
    res = run("scram", "create-user", "--user", "c", "--password-stdin", "--format", "credential", "-o", out,
              input=SECRET + "\n")
    assert res.exit_code == 2
    assert "mode 0644" in res.stderr and "does not chmod" in res.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o644 and out.read_text() == "old"


def test_output_does_not_follow_a_symlink_onto_another_file(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    victim.chmod(0o600)
    link = tmp_path / "cred.txt"
    link.symlink_to(victim)
    res = run("scram", "create-user", "--user", "c", "--password-stdin", "--format", "credential", "-o", link,
              input=SECRET + "\n")
    assert res.exit_code == 2 and "symbolic link" in res.stderr
    assert victim.read_text() == "precious"
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "would-be-created")
    res = run("scram", "create-user", "--user", "c", "--password-stdin", "--format", "credential", "-o", dangling,
              input=SECRET + "\n")
    assert res.exit_code == 2 and not (tmp_path / "would-be-created").exists()


def test_output_refuses_a_hard_linked_file(tmp_path):
    other = tmp_path / "other"
    other.write_text("x")
    other.chmod(0o600)
    out = tmp_path / "cred.txt"
    out.hardlink_to(other)
    res = run("scram", "create-user", "--user", "c", "--password-stdin", "--format", "credential", "-o", out,
              input=SECRET + "\n")
    assert res.exit_code == 2 and "hard links" in res.stderr and other.read_text() == "x"


def test_iterations_outside_kraft_limits_are_refused():
    res = run("scram", "create-user", "--user", "a", "--iterations", "4095", "--password-stdin", input="x\n")
    assert res.exit_code == 2 and "4096..16384" in res.output


def test_empty_password_is_refused():
    res = run("scram", "create-user", "--user", "a", "--password-stdin", input="\n")
    assert res.exit_code == 2 and "Empty key" in res.output


def test_exchange_transcript_and_diagnosis():
    cred = ScramCredential.from_password(ScramMechanism.SCRAM_SHA_256, SECRET, b"0123456789ab", 4096)
    args = ["scram", "exchange", "--user", "alice", "--credential", cred.credential_string(), "--mechanism",
            "SCRAM-SHA-256", "--client-nonce", "cn", "--server-nonce", "sn", "--password-stdin", "--format", "json"]
    ok = json.loads(run(*args, input=SECRET + "\n").stdout)
    assert ok["ok"] and ok["transcript"][0]["message"] == "n,,n=alice,r=cn" and "derived" not in ok
    res = run(*args, input="wrong\n")
    bad = json.loads(res.stdout)
    assert res.exit_code == 1 and bad["error"] == "Invalid client credentials" and "normalisation" in bad["diagnosis"]
    assert "wrong" not in res.stdout


def test_parse_add_scram_reports_kafkas_message():
    res = run("scram", "parse-add-scram", "SCRAM-SHA-256=[name=alice,password=x,iterations=99999]")
    assert res.exit_code == 2
    assert "The 'iterations' value must be <= 16384 for add-scram using SCRAM_SHA_256" in res.output
    res = run("scram", "parse-add-scram", 'SCRAM-SHA-256=[name=alice,salt="c2FsdA==",saltedpassword="YWJj"]')
    assert res.exit_code == 0 and json.loads(res.stdout)["name"] == "alice"


def test_create_users_bulk_generated_passwords_only_in_0600_file(tmp_path):
    users = tmp_path / "users.csv"
    users.write_text("user,mechanism\n" + "".join(f"u{i},SCRAM-SHA-256\n" for i in range(12)))
    out, pw = tmp_path / "creds.jsonl", tmp_path / "passwords.csv"
    res = run("scram", "create-users", "--input", users, "--generate", "--generated-passwords", pw, "-o", out,
              "--workers", "2")
    assert res.exit_code == 0, res.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and stat.S_IMODE(pw.stat().st_mode) == 0o600
    records = [json.loads(line) for line in out.read_text().splitlines()]
    passwords = {row.split(",")[0]: row.split(",")[2] for row in pw.read_text().splitlines()[1:]}
    assert [r["name"] for r in records] == [f"u{i}" for i in range(12)]
    for r in records:
        assert ScramCredential.from_record(r).verify(passwords[r["name"]])
        assert passwords[r["name"]] not in res.output


def test_a_negative_worker_count_is_refused_before_anything_is_written(tmp_path):
    users = tmp_path / "users.csv"
    users.write_text("user\nu1\n")
    out, pw = tmp_path / "creds.jsonl", tmp_path / "passwords.csv"
    res = run("scram", "create-users", "--input", users, "--generate", "--generated-passwords", pw, "-o", out,
              "--workers", "-3")
    assert res.exit_code == 2 and "--workers" in res.output
    assert not out.exists() and not pw.exists()

def test_no_credential_is_written_when_its_generated_password_could_not_be(tmp_path):
    """The credentials were written first: a --generated-passwords path that failed left credentials
    nobody has the password of."""
    users = tmp_path / "users.csv"
    users.write_text("user\nu1\n")
    out = tmp_path / "creds.jsonl"
    res = run("scram", "create-users", "--input", users, "--generate", "--generated-passwords",
              tmp_path / "no" / "pw.csv", "-o", out)
    assert res.exit_code == 2 and "no such directory" in res.output
    assert not out.exists()

def test_create_users_reports_bad_rows_with_line(tmp_path):
    users = tmp_path / "users.csv"
    users.write_text("user,password\nalice,pw\nbob,\n")
    res = run("scram", "create-users", "--input", users, "--password-column", "password", "-o", tmp_path / "o")
    assert res.exit_code == 2 and f"{users}:3" in res.output and "Empty key" in res.output
