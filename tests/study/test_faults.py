"""Faults a learner will meet: the process killed mid-session, two sessions at once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import timedelta

from study_fakes import T0, drill_deck

from studytool.study.store import Answer, Schedule, open_store

WAIT_S = 60  # a generous bound for a loaded CI box; the loop normally ends in well under a second


def studytool(home, *args) -> subprocess.Popen:
    env = {**os.environ, "STUDYTOOL_HOME": str(home), "STUDYTOOL_LANG": "en"}
    return subprocess.Popen([sys.executable, "-m", "studytool", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)


def answers_in(db) -> int:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("SELECT count(*) FROM reviews").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0
    finally:
        con.close()


def wait_for(condition) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, "the session did not get there"
        time.sleep(0.02)


def test_kill_9_mid_session_loses_at_most_the_unanswered_card(tmp_path):
    drill_deck(tmp_path)
    home, db = tmp_path / "home", tmp_path / "home" / "studytool.db"
    proc = studytool(home, "--deck-path", str(tmp_path), "review", "--deck", "drill", "--json")
    for answered in (1, 2, 3):
        proc.stdin.write("7\n")
        proc.stdin.flush()
        wait_for(lambda: db.exists() and answers_in(db) == answered)
    proc.stdin.write("7")  # a fourth answer half typed (no newline yet)
    proc.stdin.flush()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    with open_store(db) as store:  # the next session opens it as the killed one left it (WAL and all)
        assert store.con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert store.answers_total() == 3
        assert len(store.scheduled_keys()) == 3  # each answer moved its schedule


def test_two_cli_sessions_at_once_both_finish(tmp_path):
    drill_deck(tmp_path, n=40)
    home = tmp_path / "home"  # no database yet: both sessions race to create it
    procs = [studytool(home, "--deck-path", str(tmp_path), "quiz", "--deck", "drill", "--count", "40", "--json")
             for _ in range(2)]
    outs = [proc.communicate("7\n" * 40, timeout=WAIT_S) for proc in procs]
    for proc, (out, err) in zip(procs, outs):
        assert proc.returncode == 0, err
        assert "locked" not in err
    assert answers_in(home / "studytool.db") == 80


def test_two_connections_writing_at_once_never_see_database_is_locked(tmp_path):
    db = tmp_path / "studytool.db"
    open_store(db).close()
    errors: list[BaseException] = []

    def writer(name: str) -> None:
        try:
            with open_store(db) as store:
                for i in range(150):
                    answer = Answer(card=f"d/{name}{i}", topic="softmax", mode="review", rating=3, correct=True,
                                    answer="7", seed=i, params={}, duration_ms=1, time=T0)
                    store.record(answer, lambda prior: Schedule(1, 1, 1.0, 5.0, T0 + timedelta(minutes=10), T0))
                    store.scheduled_keys()  # readers interleave with the other writer
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=writer, args=(name,)) for name in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with open_store(db) as store:
        assert store.answers_total() == 300 and len(store.scheduled_keys()) == 300
