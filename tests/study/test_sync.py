"""`studytool sync`: homes that study on different days and merge through one folder end with one progress.

Each home is driven through the CLI as a learner would (reviews with piped answers, `STUDYTOOL_NOW` for the
day), and synced in different orders; the truth they are held to is the live scheduler of a session (a
home's schedule before and after its own sync is the same) and each other (every home, once the journals
are exchanged, shows the same cards and the same answers).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.study import arrivals, events, journal
from study_fakes import database_at, drill_deck, signed

START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


class Home:
    """One computer: its own STUDYTOOL_HOME, the shared deck folder and sync folder."""

    def __init__(self, tmp: Path, name: str, folder: Path, decks: Path):
        self.home, self.folder, self.decks = tmp / name, folder, decks

    def env(self, now: datetime) -> dict[str, str]:
        return {"STUDYTOOL_HOME": str(self.home), "STUDYTOOL_NOW": now.isoformat(), "STUDYTOOL_LANG": "en",
                "NO_COLOR": "1", "COLUMNS": "200"}

    def run(self, now: datetime, *args: str, text: str = "") -> str:
        result = CliRunner().invoke(app, ["--deck-path", str(self.decks), *args], input=text, env=self.env(now))
        assert result.exit_code == 0, (args, result.stdout, result.stderr)
        return result.stdout

    def review(self, now: datetime, rng: random.Random, n: int = 12) -> None:
        self.run(now, "review", "--deck", "drill", "--new", "4", text="".join(rng.choice(["7\n", "7\n", "8\n"])
                                                                             for _ in range(n)))

    def sync(self, now: datetime, *extra: str) -> dict:
        return json.loads(self.run(now, "sync", str(self.folder), "--json", *extra))

    def cards(self, now: datetime) -> list[dict]:
        return json.loads(self.run(now, "cards", "list", "--deck", "drill", "--json"))["cards"]

    def log(self) -> list[tuple]:
        with sqlite3.connect(self.home / "studytool.db") as con:
            return con.execute("SELECT card, time, mode, rating, correct, answer, prior FROM reviews"
                               " ORDER BY card, time, event").fetchall()

    def priors_hold_their_cards_deck_and_state(self) -> bool:
        """Every answer's `prior` names its card's deck, and its `prior_state` is the state in it."""
        with sqlite3.connect(self.home / "studytool.db") as con:
            rows = con.execute("SELECT card, prior, prior_state FROM reviews").fetchall()
        return all((json.loads(prior)["deck"], json.loads(prior)["state"]) == (card.split("/")[0], state)
                   if prior else state is None for card, prior, state in rows)

    def schedules(self) -> list[tuple]:
        with sqlite3.connect(self.home / "studytool.db") as con:
            return con.execute("SELECT * FROM cards ORDER BY key").fetchall()


@pytest.fixture
def homes(tmp_path):
    folder, decks = tmp_path / "Sync", tmp_path / "decks"
    folder.mkdir()
    decks.mkdir()
    drill_deck(decks, n=8)
    return [Home(tmp_path, name, folder, decks) for name in ("laptop", "desktop", "tablet")]


def same_progress(homes: list[Home], now: datetime) -> None:
    first = homes[0]
    for home in homes:
        assert home.priors_hold_their_cards_deck_and_state()
    for other in homes[1:]:
        assert other.cards(now) == first.cards(now)
        assert other.schedules() == first.schedules()
        assert other.log() == first.log()
        stats = [json.loads(home.run(now, "stats", "--json")) for home in (first, other)]
        assert stats[0]["answers"] == stats[1]["answers"] if "answers" in stats[0] else stats[0] == stats[1]


def test_a_sync_of_one_home_keeps_the_schedule_its_sessions_gave(homes):
    laptop, rng = homes[0], random.Random(1)
    for day in range(6):
        laptop.review(START + timedelta(days=day), rng)
    live = laptop.schedules()
    report = laptop.sync(START + timedelta(days=6))
    assert report["written"] == len(laptop.log()) > 0
    assert laptop.schedules() == live   # the replay through the scheduler is the sessions' own schedule


def test_two_computers_studying_on_alternate_days_end_with_one_progress(homes):
    laptop, desktop = homes[:2]
    rng = random.Random(7)
    for day in range(8):
        now = START + timedelta(days=day, hours=rng.randint(0, 10))
        first, second = (laptop, desktop) if day % 2 else (desktop, laptop)
        first.review(now, rng)
        first.sync(now)
        second.sync(now + timedelta(minutes=5))
        if day % 3 == 0:   # both answer before either syncs: both answers are kept
            second.review(now + timedelta(minutes=10), rng)
            first.review(now + timedelta(minutes=11), rng)
    end = START + timedelta(days=9)
    for home in (laptop, desktop, laptop):
        home.sync(end)
    same_progress([laptop, desktop], end)
    assert len(laptop.log()) > 40


def test_three_computers_agree_whatever_order_they_sync_in(homes):
    rng = random.Random(3)
    for day in range(4):
        now = START + timedelta(days=day)
        for home in homes:
            home.review(now + timedelta(hours=rng.randint(0, 8)), rng, n=6)
        for home in rng.sample(homes, 3):
            home.sync(now + timedelta(hours=12))
    end = START + timedelta(days=5)
    for home in [*homes, *homes]:
        home.sync(end)
    same_progress(homes, end)


def test_syncing_twice_changes_nothing(homes):
    laptop, desktop = homes[:2]
    laptop.review(START, random.Random(2))
    laptop.sync(START)
    first = desktop.sync(START)
    assert first["read"] == len(laptop.log()) > 0
    before = desktop.schedules(), desktop.log(), journal_lines(desktop)
    again = desktop.sync(START + timedelta(minutes=1))
    assert (again["read"], again["written"]) == (0, 0)
    assert (desktop.schedules(), desktop.log(), journal_lines(desktop)) == before


def journal_lines(home: Home) -> list[dict]:
    device = device_of(home)
    path = journal.path_of(home.folder, device)
    return [json.loads(line) for line in path.read_bytes().splitlines()] if path.exists() else []


def device_of(home: Home) -> str:
    with sqlite3.connect(home.home / "studytool.db") as con:
        return con.execute("SELECT value FROM settings WHERE name = 'sync_device'").fetchone()[0]


def synced_journal(home: Home, seed: int) -> tuple[Path, bytes, list[bytes]]:
    """A day of `home`'s answers synced: its journal's path, bytes and lines."""
    home.review(START, random.Random(seed))
    home.sync(START)
    path = journal.path_of(home.folder, device_of(home))
    whole = path.read_bytes()
    return path, whole, whole.splitlines(keepends=True)


def test_a_torn_line_is_skipped_with_one_line_and_read_once_whole(homes):
    laptop, desktop = homes[:2]
    path, whole, lines = synced_journal(laptop, 4)
    path.write_bytes(b"".join(lines[:-1]) + lines[-1][:25])   # the sync program has sent part of the last line
    result = CliRunner().invoke(app, ["--deck-path", str(desktop.decks), "sync", str(desktop.folder)],
                                env={**desktop.env(START), "COLUMNS": "40"})   # one line however narrow
    assert result.exit_code == 0
    assert f"{path}:{len(lines)}: skipped (torn or too long); it is read again next time" in result.stderr
    assert len(desktop.log()) == len(lines) - 1
    path.write_bytes(whole)   # the rest arrives
    assert desktop.sync(START)["read"] == 1
    assert desktop.log() == laptop.log()


def test_a_damaged_line_in_the_middle_is_skipped_and_the_rest_is_read(homes):
    laptop, desktop = homes[:2]
    path, whole, lines = synced_journal(laptop, 5)
    lines[1] = lines[1].replace(b'"rating":', b'"rating":4,"x":')
    path.write_bytes(b"".join(lines))
    report = desktop.sync(START)
    assert report["problems"] == [f"{path}:2: skipped (checksum does not match); it is read again next time"]
    assert report["read"] == len(lines) - 1
    path.write_bytes(whole)
    assert desktop.sync(START)["read"] == 1
    same_progress([laptop, desktop], START)


def test_a_journal_from_a_newer_studytool_is_refused_in_one_line(homes):
    laptop, desktop = homes[:2]
    path = journal.path_of(laptop.folder, "0123456789abcdef")
    newer = events.SCHEMA + 1
    path.write_text(json.dumps({"v": newer, "id": "0123456789abcdef-1"}) + "\n")
    report = desktop.sync(START)
    assert report["problems"] == [f"{path}: written by a newer studytool (journal schema {newer}); "
                                  "upgrade studytool to read it"]
    assert report["read"] == 0


def test_a_deleted_journal_is_written_again_by_its_home(homes):
    laptop, desktop = homes[:2]
    laptop.review(START, random.Random(6))
    laptop.sync(START)
    kept = journal_lines(laptop)
    journal.path_of(laptop.folder, device_of(laptop)).unlink()
    assert laptop.sync(START)["journal_rebuilt"] is True
    assert journal_lines(laptop) == kept
    desktop.sync(START)
    same_progress([laptop, desktop], START)


def test_an_undo_after_a_sync_is_carried_as_a_retraction(homes):
    from studytool.study.store import open_store

    laptop, desktop = homes[:2]
    laptop.review(START, random.Random(8))
    laptop.sync(START)
    desktop.sync(START)
    os.environ["STUDYTOOL_NOW"] = START.isoformat()
    try:
        with open_store(laptop.home / "studytool.db") as store:
            last = store.con.execute("SELECT max(id) FROM reviews").fetchone()[0]
            store.undo(last)
    finally:
        del os.environ["STUDYTOOL_NOW"]
    assert laptop.sync(START + timedelta(minutes=1))["written"] == 1
    desktop.sync(START + timedelta(minutes=2))
    same_progress([laptop, desktop], START + timedelta(minutes=2))


def test_suspensions_and_settings_follow_the_learner_but_the_sync_folder_stays(homes):
    laptop, desktop = homes[:2]
    laptop.review(START, random.Random(9))
    laptop.run(START, "cards", "suspend", "drill/c1")
    laptop.run(START, "config", "retention", "0.85")
    laptop.sync(START)
    desktop.sync(START + timedelta(minutes=1))
    assert [card["suspended"] for card in desktop.cards(START) if card["card"] == "drill/c1"] == [True]
    assert json.loads(desktop.run(START, "config", "retention", "--json"))["value"] == 0.85
    desktop.run(START, "cards", "unsuspend", "drill/c1")
    desktop.sync(START + timedelta(minutes=2))
    laptop.sync(START + timedelta(minutes=3))
    assert [card["suspended"] for card in laptop.cards(START) if card["card"] == "drill/c1"] == [False]
    assert all(line["kind"] != "setting" or not line["body"]["name"].endswith("sync_dir")
               for home in (laptop, desktop) for line in journal_lines(home))


def test_clocks_hours_apart_give_one_order_on_every_computer(homes):
    laptop, desktop = homes[:2]
    rng = random.Random(10)
    for day in range(3):
        now = START + timedelta(days=day)
        laptop.review(now, rng)
        desktop.review(now + timedelta(hours=-7), rng)   # the desktop's clock runs seven hours behind
        desktop.sync(now - timedelta(hours=6))
        laptop.sync(now + timedelta(hours=1))
    end = START + timedelta(days=4)
    for home in (desktop, laptop, desktop):
        home.sync(end)
    same_progress([laptop, desktop], end)


def _sync_process(home: Home, now: datetime) -> subprocess.Popen:
    env = {**os.environ, **home.env(now), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "studytool", "--deck-path", str(home.decks), "sync",
                             str(home.folder)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_sync_killed_at_any_moment_loses_nothing_and_the_next_one_completes(homes):
    laptop, desktop = homes[:2]
    rng = random.Random(11)
    for day in range(3):
        laptop.review(START + timedelta(days=day), rng, n=16)
        desktop.review(START + timedelta(days=day, hours=2), rng, n=16)
    laptop.sync(START + timedelta(days=3))
    now = START + timedelta(days=3, hours=1)
    for delay in [0.05 * i for i in range(1, 16)]:
        process = _sync_process(desktop, now)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.communicate()
    desktop.sync(now)
    laptop.sync(now)
    same_progress([laptop, desktop], now)
    seqs = [line["seq"] for line in journal_lines(desktop)]
    assert seqs == list(range(1, len(seqs) + 1))   # no line twice, none missing


def test_two_syncs_at_once_on_one_home_are_safe(homes):
    laptop, desktop = homes[:2]
    rng = random.Random(12)
    laptop.review(START, rng, n=16)
    desktop.review(START, rng, n=16)
    laptop.sync(START)
    processes = [_sync_process(desktop, START + timedelta(hours=1)) for _ in range(2)]
    results = [process.communicate() + (process.returncode,) for process in processes]
    assert [code for _out, _err, code in results] == [0, 0], results
    laptop.sync(START + timedelta(hours=2))
    same_progress([laptop, desktop], START + timedelta(hours=2))
    seqs = [line["seq"] for line in journal_lines(desktop)]
    assert seqs == list(range(1, len(seqs) + 1))


def test_status_names_the_folder_the_devices_and_what_waits(homes):
    laptop, desktop = homes[:2]
    laptop.review(START, random.Random(13))
    laptop.sync(START)
    desktop.review(START, random.Random(14))
    desktop.sync(START)
    laptop.review(START + timedelta(hours=1), random.Random(15))
    status = json.loads(laptop.run(START + timedelta(hours=1), "sync", "--status", "--json"))
    assert status["folder"] == str(laptop.folder.resolve())
    assert status["to_write"] > 0 and status["to_read"] == len(journal_lines(desktop))
    assert {d["device"] for d in status["devices"]} == {device_of(laptop), device_of(desktop)}


def study_apart(laptop: Home, desktop: Home, days: int = 6) -> datetime:
    """Two computers study on alternate days, syncing between, and answer the same cards before one sync."""
    rng = random.Random(21)
    for day in range(days):
        now = START + timedelta(days=day, hours=rng.randint(0, 8))
        first, second = (laptop, desktop) if day % 2 else (desktop, laptop)
        first.review(now, rng)
        if day == 3:
            second.review(now + timedelta(minutes=3), rng)   # both, before either syncs: memos that do not apply
        first.sync(now + timedelta(minutes=5))
        second.sync(now + timedelta(minutes=6))
    end = START + timedelta(days=days + 1)
    for home in (laptop, desktop):
        home.sync(end)
    return end


def as_schema_1(folder: Path, into: Path) -> Path:
    """The journals in `folder` as the previous release wrote them: no answer carries its memo."""
    into.mkdir()
    for device in journal.devices_in(folder):
        lines = journal.path_of(folder, device).read_bytes().splitlines()
        journal.path_of(into, device).write_bytes(
            b"".join(events.line_of(events.event_of(line, device), schema=1) for line in lines))
    return into


def test_a_replay_that_takes_the_memos_gives_what_working_every_answer_out_gives(homes, tmp_path):
    from studytool.study.schema import schema_problem

    laptop, desktop, tablet = homes
    end = study_apart(laptop, desktop)
    worked_out = Home(tmp_path, "worked-out", as_schema_1(laptop.folder, tmp_path / "Sync-1"), laptop.decks)
    tablet.sync(end)
    assert worked_out.sync(end)["read"] == tablet.sync(end)["read"] + len(tablet.log()) > 0
    same_progress([laptop, desktop, tablet, worked_out], end)
    with sqlite3.connect(tablet.home / "studytool.db") as con:   # its indexes were made again after a bulk load
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)] and schema_problem(con) is None
        assert con.execute("SELECT count(*) FROM reviews WHERE memo IS NULL AND mode = 'review'").fetchone()[0] == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: a journal is read in one process")
def test_a_new_computer_reading_each_journal_in_two_processes_gets_one_progress(homes, monkeypatch):
    laptop, desktop, tablet = homes
    end = study_apart(laptop, desktop)
    forked, fork = [], os.fork
    monkeypatch.setattr(arrivals, "SPLIT", 1)   # every journal counts as long
    monkeypatch.setattr(os, "fork", lambda: forked.append(1) or fork())
    assert tablet.sync(end)["read"] == len(laptop.log())
    assert len(forked) == 2   # the laptop's journal and the desktop's
    same_progress([laptop, desktop, tablet], end)


def test_memos_worked_out_in_another_time_zone_are_worked_out_again(homes, tmp_path):
    laptop, desktop, tablet = homes
    end = study_apart(laptop, desktop)
    worked_out = Home(tmp_path, "worked-out", as_schema_1(laptop.folder, tmp_path / "Sync-1"), laptop.decks)
    for home in (tablet, worked_out):
        result = CliRunner().invoke(app, ["--deck-path", str(home.decks), "sync", str(home.folder)],
                                    env={**home.env(end), "TZ": "Pacific/Auckland"})   # days start 11-13 hours earlier
        assert result.exit_code == 0, result.output
    assert tablet.schedules() == worked_out.schedules() != laptop.schedules()


def test_a_memo_naming_a_schedule_fsrs_cannot_use_is_not_taken(homes, tmp_path):
    laptop, desktop = homes[:2]
    end = study_apart(laptop, desktop)
    path = journal.path_of(laptop.folder, device_of(laptop))
    lines = path.read_bytes().splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if json.loads(line)["kind"] == "answer")
    document = json.loads(lines[last])
    after = json.loads(document["body"]["after"])
    document["body"]["after"] = json.dumps({**after, "stability": -5.0})   # its form is right; fsrs cannot use it
    del document["sum"]
    lines[last] = signed(document)
    crafted = tmp_path / "Crafted"
    shutil.copytree(laptop.folder, crafted)
    journal.path_of(crafted, device_of(laptop)).write_bytes(b"".join(lines))
    fresh = Home(tmp_path, "fresh", crafted, laptop.decks)
    assert fresh.sync(end)["problems"] == []
    assert fresh.schedules() == laptop.schedules()   # the crafted card's answers worked out, as the laptop did


def test_memos_left_before_their_deck_was_renamed_are_worked_out_again(homes, tmp_path):
    laptop, desktop = homes[:2]
    end = study_apart(laptop, desktop)
    renamed = tmp_path / "Renamed"   # the schedules each answer found and left name the deck as it was called
    shutil.copytree(laptop.folder, renamed)
    for device in journal.devices_in(renamed):
        path = journal.path_of(renamed, device)
        lines = []
        for line in path.read_bytes().splitlines(keepends=True):
            document = json.loads(line)
            if document["kind"] == "answer":
                for name in ("prior", "after"):
                    if document["body"][name]:
                        document["body"][name] = document["body"][name].replace('"deck": "drill"', '"deck": "dr"')
                del document["sum"]
                line = signed(document)
            lines.append(line)
        path.write_bytes(b"".join(lines))
    fresh = Home(tmp_path, "fresh", renamed, laptop.decks)
    assert fresh.sync(end)["problems"] == []
    assert fresh.schedules() == laptop.schedules()
    assert fresh.priors_hold_their_cards_deck_and_state()


def test_a_card_forgotten_after_its_last_answer_stays_forgotten_on_every_computer(homes):
    laptop, desktop = homes[:2]
    laptop.review(START, random.Random(3))
    laptop.sync(START)
    desktop.sync(START)
    key = laptop.schedules()[0][0]
    laptop.run(START + timedelta(hours=1), "cards", "forget", key)
    for home in (laptop, desktop):
        home.sync(START + timedelta(hours=2))
        assert key not in [row[0] for row in home.schedules()]
    same_progress([laptop, desktop], START + timedelta(hours=2))


def test_memos_from_a_zone_that_starts_daylight_saving_on_another_day_are_worked_out_again(homes, tmp_path):
    laptop, _desktop, tablet = homes   # Jerusalem and Athens are +2 in January and +3 in July, not in late March
    rng = random.Random(5)

    def run(home: Home, now: datetime, zone: str, *args: str, text: str = "") -> None:
        result = CliRunner().invoke(app, ["--deck-path", str(home.decks), *args], input=text,
                                    env={**home.env(now), "TZ": zone})
        assert result.exit_code == 0, result.output

    for day in range(10):   # 01:30Z: Jerusalem is +3 from Friday 27 March, Athens from Sunday 29 March
        run(laptop, datetime(2026, 3, 19, 1, 30, tzinfo=timezone.utc) + timedelta(days=day), "Asia/Jerusalem",
            "review", "--deck", "drill", "--new", "4",
            text="".join(rng.choice(["7\n", "7\n", "8\n"]) for _ in range(12)))
    end = datetime(2026, 3, 28, 2, 0, tzinfo=timezone.utc)
    run(laptop, end, "Asia/Jerusalem", "sync", str(laptop.folder))
    worked_out = Home(tmp_path, "worked-out", as_schema_1(laptop.folder, tmp_path / "Sync-1"), laptop.decks)
    for home in (tablet, worked_out):
        run(home, end, "Europe/Athens", "sync", str(home.folder))
    assert tablet.schedules() == worked_out.schedules() != laptop.schedules()


def test_a_sync_with_nothing_new_writes_nothing(homes):
    laptop, desktop = homes[:2]
    laptop.review(START, random.Random(22))
    laptop.sync(START)
    desktop.sync(START)
    db = desktop.home / "studytool.db"

    def written() -> list:   # the database and its backups, as the file system has them
        return sorted((path.name, path.stat().st_size, path.stat().st_mtime_ns) for path in desktop.home.rglob("*.db"))

    before = written()
    journal.path_of(desktop.folder, "00000000000000ff").touch()   # a new computer's journal, nothing in it yet
    report = desktop.sync(START + timedelta(hours=5))
    assert (report["written"], report["read"], report["cards"], report["problems"]) == (0, 0, 0, [])
    assert written() == before
    wal = Path(f"{db}-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    status = json.loads(desktop.run(START + timedelta(hours=5), "sync", "--status", "--json"))
    assert status["last_sync"].startswith((START + timedelta(hours=5)).strftime("%Y-%m-%dT%H:%M"))


def test_the_time_of_the_last_sync_survives_the_upgrade_that_moved_it(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    con = database_at(home / "studytool.db", 6)   # a home that synced, as studytool kept its time then
    con.execute("INSERT INTO settings VALUES ('sync_last', '2026-03-01T09:00:00.000000Z')")
    con.commit()
    con.close()
    env = {"STUDYTOOL_HOME": str(home), "STUDYTOOL_NOW": START.isoformat(), "STUDYTOOL_LANG": "en"}
    result = CliRunner().invoke(app, ["sync", "--status", "--json"], env=env)
    assert json.loads(result.stdout)["last_sync"] == "2026-03-01T09:00:00.000000Z"


def test_review_and_stats_remind_when_the_last_sync_is_over_a_day_old(homes):
    laptop = homes[0]
    laptop.sync(START)
    later = START + timedelta(days=2)
    result = CliRunner().invoke(app, ["--deck-path", str(laptop.decks), "stats"], env=laptop.env(later))
    assert "run `studytool sync`" in result.stderr
    fresh = CliRunner().invoke(app, ["--deck-path", str(laptop.decks), "stats"], env=laptop.env(START))
    assert "studytool sync" not in fresh.stderr


def test_sync_without_a_folder_or_with_a_missing_one_is_one_line(homes, tmp_path):
    laptop = homes[0]
    result = CliRunner().invoke(app, ["sync"], env=laptop.env(START))
    assert result.exit_code == 1 and "no sync folder yet" in result.stderr
    status = json.loads(CliRunner().invoke(app, ["sync", "--status", "--json"], env=laptop.env(START)).stdout)
    assert (status["folder"], status["device"]) == (None, None)
    result = CliRunner().invoke(app, ["sync", str(tmp_path / "nowhere")], env=laptop.env(START))
    assert result.exit_code == 1 and "does not exist or is not a folder" in result.stderr
