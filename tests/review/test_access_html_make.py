"""`make test` brings what the browser test of the HTML report needs onto a new machine: `make
check-chromium` (a prerequisite of `make test`) installs chromium with apt-get when it is missing, or says
in one line why it cannot. Run here against a PATH without chromium and with stand-ins for `id`,
`sudo` and `apt-get`, so the machine's own packages are never touched."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAKE = shutil.which("make")


def tool(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def check_chromium(tmp_path: Path, uid: int, apt_rc: int | None, sudo: bool = False) -> tuple[int, list[str], str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    os.symlink(shutil.which("env"), bin_dir / "env")
    tool(bin_dir, "id", f"echo {uid}")
    if apt_rc is not None:
        tool(bin_dir, "apt-get", f'echo "apt-get $*" >> {calls}\nexit {apt_rc}')
    if sudo:
        tool(bin_dir, "sudo", f'echo "sudo $1" >> {calls}\n[ "$1" = -n ] && shift\n"$@"')
    env = {k: v for k, v in os.environ.items() if k not in ("AUTHZ_CHROMIUM", "MAKEFLAGS", "MAKELEVEL")}
    env["PATH"] = str(bin_dir)
    out = subprocess.run([MAKE, "-s", "-C", str(ROOT), "check-chromium"], env=env, capture_output=True, text=True)
    return out.returncode, out.stdout.splitlines(), calls.read_text() if calls.exists() else ""


@pytest.mark.skipif(MAKE is None, reason="make is not installed")
def test_make_test_checks_chromium_first():
    out = subprocess.run([MAKE, "-n", "-p", "-C", str(ROOT), "check-chromium"], capture_output=True, text=True)
    test_rule = next(line for line in out.stdout.splitlines() if line.startswith("test:"))
    assert "check-chromium" in test_rule.split()


@pytest.mark.skipif(MAKE is None, reason="make is not installed")
def test_as_root_it_installs_chromium_with_apt_get(tmp_path):
    rc, lines, calls = check_chromium(tmp_path, uid=0, apt_rc=0)
    assert rc == 0 and lines == ["installing chromium (apt-get) for the HTML report's browser test"]
    assert calls == "apt-get install -y -q chromium\n"


@pytest.mark.skipif(MAKE is None, reason="make is not installed")
def test_a_stale_package_list_is_updated_once_before_giving_up(tmp_path):
    rc, lines, calls = check_chromium(tmp_path, uid=0, apt_rc=100)
    assert rc != 0 and lines[-1] == ("error: apt-get install chromium failed: the HTML report's browser test needs "
                                     "Debian's chromium")
    assert calls == "apt-get install -y -q chromium\napt-get update -q\n"


@pytest.mark.skipif(MAKE is None, reason="make is not installed")
def test_a_user_with_passwordless_sudo_installs_through_it(tmp_path):
    rc, lines, calls = check_chromium(tmp_path, uid=1000, apt_rc=0, sudo=True)
    assert rc == 0 and calls == "sudo -n\nsudo -n\napt-get install -y -q chromium\n"


@pytest.mark.skipif(MAKE is None, reason="make is not installed")
def test_a_user_who_cannot_install_is_told_in_one_line(tmp_path):
    rc, lines, calls = check_chromium(tmp_path, uid=1000, apt_rc=0)
    assert rc != 0 and calls == ""
    assert lines == ["error: chromium is missing for the HTML report's browser test and this user cannot install it "
                     "(as root: apt-get install chromium)"]


@pytest.mark.skipif(MAKE is None, reason="make is not installed")
def test_without_apt_get_it_says_so(tmp_path):
    rc, lines, _ = check_chromium(tmp_path, uid=0, apt_rc=None)
    assert rc != 0 and len(lines) == 1 and "there is no apt-get here" in lines[0]
