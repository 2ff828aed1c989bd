"""The tail -F follower (whatif/follow.py): from the end or the start, partial lines held, rotation by
rename, copytruncate, a file that appears later; on a tmp dir, polled directly or with a fake sleep."""

import os
import time

from kafka_authz_cli.whatif.follow import Follower


def texts(lines):
    return [ln.text.decode() for ln in lines]


def append(path, text: str):
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)


def test_starts_at_the_end_and_holds_a_partial_line(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("old 1\nold 2\n")
    f = Follower(str(log))
    assert f.poll() == [] and f.opened
    append(log, "new 1\nnew 2 is parti")
    assert texts(f.poll()) == ["new 1"]
    assert f.poll() == []
    append(log, "al\n")
    got = f.poll()
    assert texts(got) == ["new 2 is partial"]
    # started mid-file: lines count from there, and the source says so
    assert got[0].lineno == 2 and got[0].source == f"{log}[from byte 12]"


def test_from_start_reads_what_is_there(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("one\ntwo\n")
    f = Follower(str(log), from_start=True)
    got = f.poll()
    assert texts(got) == ["one", "two"] and [ln.lineno for ln in got] == [1, 2] and got[0].source == str(log)


def test_rename_rotation_reads_the_old_file_to_its_end_then_the_new_one(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("")
    f = Follower(str(log))
    f.poll()
    append(log, "before\n")
    assert texts(f.poll()) == ["before"]
    append(log, "written just before the rename, no newline")
    os.rename(log, tmp_path / "a.log.1")
    append(tmp_path / "a.log.1", " (the writer still had the old file)\n")  # the old inode keeps growing
    assert texts(f.poll()) == ["written just before the rename, no newline (the writer still had the old file)"]
    assert f.rotations == 0  # renamed away, nothing new yet: the old file is kept
    append(log, "first of the new file\n")
    got = f.poll()
    assert texts(got) == ["first of the new file"]
    assert f.rotations == 1 and got[0].generation == 2 and got[0].lineno == 1 and got[0].source == str(log)


def test_a_partial_line_left_in_the_rotated_file_is_given_when_it_ends(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("")
    f = Follower(str(log))
    f.poll()
    append(log, "complete\ncut sho")
    os.rename(log, tmp_path / "a.log.1")
    log.write_text("new\n")
    got = f.poll()
    assert [(ln.generation, ln.text) for ln in got] == [(1, b"complete"), (1, b"cut sho"), (2, b"new")]


def test_copytruncate_reads_again_from_the_start(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("x" * 100 + "\n")
    f = Follower(str(log))
    f.poll()
    append(log, "kept\n")
    assert texts(f.poll()) == ["kept"]
    with open(log, "r+") as fh:  # logrotate copytruncate: copied away, then truncated in place
        fh.truncate(0)
    append(log, "after truncation\n")
    got = f.poll()
    assert texts(got) == ["after truncation"] and f.truncations == 1 and got[0].generation == 2


def test_a_file_that_does_not_exist_yet_is_waited_for_and_read_from_its_start(tmp_path):
    log = tmp_path / "later.log"
    f = Follower(str(log))
    assert f.poll() == [] and not f.opened
    log.write_text("first\nsecond\n")
    assert texts(f.poll()) == ["first", "second"]


def test_a_deleted_and_recreated_file_is_a_new_one(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("")
    f = Follower(str(log))
    f.poll()
    os.remove(log)
    assert f.poll() == []
    log.write_text("fresh\n")
    assert texts(f.poll()) == ["fresh"]


def test_a_poll_reads_a_bounded_amount(tmp_path, monkeypatch):
    from kafka_authz_cli.whatif import follow as follow_module

    monkeypatch.setattr(follow_module, "READ_CHUNK", 64)
    log = tmp_path / "a.log"
    log.write_text("".join(f"line {i:04d}\n" for i in range(100)))
    f = Follower(str(log), from_start=True)
    first = f.poll()
    assert 0 < len(first) < 100
    rest = []
    while True:
        got = f.poll()
        if not got:
            break
        rest += got
    assert texts(first + rest) == [f"line {i:04d}" for i in range(100)]


def test_follow_with_a_fake_sleep_never_waits(tmp_path):
    """The sleep is where the test acts: each call is one step of a script (write, rotate, truncate)."""
    log = tmp_path / "a.log"
    script = [
        lambda: log.write_text("a\n"),
        lambda: append(log, "b\n"),
        lambda: os.rename(log, tmp_path / "a.log.1"),
        lambda: log.write_text("c\n"),
        lambda: open(log, "w").close(),
        lambda: append(log, "d\n"),
    ]
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        if script:
            script.pop(0)()

    f = Follower(str(log), sleep=sleep, interval=5.0)
    t0 = time.monotonic()
    seen = []
    for batch in f.follow(stop=lambda: not script and len(slept) > 8):
        seen += texts(batch)
    assert time.monotonic() - t0 < 30  # 9 sleeps of 5 s (45 s) were never slept
    assert seen == ["a", "b", "c", "d"] and f.rotations == 1 and f.truncations == 1 and not f.opened
