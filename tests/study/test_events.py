"""A journal line's event: what is written reads back; anything else is refused as one reason, never a crash."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studytool.study import events, journal
from studytool.study.events import Event
from studytool.study.records import format_time
from studytool.study.store import open_store
from studytool.study.sync import sync
from study_fakes import signed

DEVICE = "0123456789abcdef"
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)

times = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(9000, 12, 31),
                     timezones=st.just(timezone.utc)).map(format_time)
cards = st.from_regex(r"[a-z0-9][a-z0-9-]{0,11}/[a-z0-9][a-z0-9-]{0,19}", fullmatch=True)
numbers = st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False))
schedules = st.one_of(st.none(), st.builds(
    lambda deck, state, step, stability, difficulty, due, last: json.dumps(
        {"deck": deck, "state": state, "step": step, "stability": stability, "difficulty": difficulty, "due": due,
         "last_review": last}),
    st.from_regex(r"[a-z0-9][a-z0-9-]{0,11}", fullmatch=True), st.sampled_from([1, 2, 3]),
    st.one_of(st.none(), st.integers(0, 999)),
    numbers, numbers, times, st.one_of(st.none(), times)))
answers = st.builds(
    events.Answer, card=cards, topic=st.one_of(st.none(), st.text(max_size=20)), time=times,
    mode=st.sampled_from(["quiz", "review", "implicit"]), rating=st.integers(1, 4), correct=st.integers(0, 1),
    answer=st.text(max_size=40), seed=st.one_of(st.none(), st.integers(-2**63, 2**63 - 1)),
    params=st.dictionaries(st.text(max_size=8), st.one_of(st.none(), st.integers(-2**63, 2**63 - 1),
                                                          st.text(max_size=20)), max_size=4),
    duration_ms=st.integers(0, 10**9), prior=schedules, after=schedules,
    memo=st.one_of(st.none(), st.from_regex(r"[0-9a-f]{16}:[0-9]{1,9}", fullmatch=True)))
bodies = {
    "answer": answers,
    "retract": st.builds(events.Retract, event=st.text(max_size=40)),
    "flags": st.builds(events.Flags, suspended=st.integers(0, 1), buried_until=st.one_of(st.none(), times),
                       leech=st.integers(0, 1), reset_at=st.one_of(st.none(), times), flag=st.integers(0, 7)),
    "setting": st.builds(events.Setting, name=st.text(max_size=30), value=st.one_of(st.none(), st.text(max_size=30))),
}
any_event = st.sampled_from(events.KINDS).flatmap(lambda kind: st.builds(
    lambda seq, time, card, body: Event(f"{DEVICE}-{seq}", DEVICE, seq, time, kind, card, body),
    st.integers(1, 10**9), times, cards if kind != "setting" else st.none(), bodies[kind]))


@given(any_event)
def test_a_written_line_reads_back_as_the_same_event(event):
    line = events.line_of(event)
    assert line.endswith(b"\n") and line.count(b"\n") == 1   # one event, one line, whatever its text holds
    assert events.event_of(line, DEVICE) == event


@given(st.lists(any_event, max_size=12), st.lists(st.integers(-2**63, 2**63 - 1)))
def test_events_packed_by_another_process_unpack_as_they_were(found, extra):
    assert events.unpack(events.pack(found, extra)) == (found, extra)


@given(any_event)
def test_a_line_is_not_taken_for_another_device(event):
    with pytest.raises(events.Unreadable):
        events.event_of(events.line_of(event), "fedcba9876543210")


@given(st.binary(max_size=300))
def test_any_bytes_are_an_event_or_one_reason(data):
    try:
        events.event_of(data, DEVICE)
    except (events.Unreadable, events.Newer):
        pass


answer = {"card": "d/c1", "topic": None, "time": "2026-03-01T09:00:00.000000Z", "mode": "review", "rating": 3,
          "correct": 1, "answer": "7", "seed": None, "params": {}, "duration_ms": 1000}
crafted = st.fixed_dictionaries({
    "v": st.just(1), "id": st.just(f"{DEVICE}-1"), "device": st.just(DEVICE), "seq": st.just(1),
    "time": st.sampled_from([answer["time"], "0001-01-01T00:00:00Z", "soon", "2026-02-30T08:00:00Z"]),
    "kind": st.sampled_from(events.KINDS), "card": st.sampled_from(["d/c1", None, "x" * 600, "nodeck"]),
    "body": st.fixed_dictionaries({}, optional={
        **{name: st.just(value) for name, value in answer.items()},
        "rating": st.sampled_from([0, 5, -1, 2**40, 2.5, "x", True, None]),
        "mode": st.sampled_from(["review", "quiz", "implicit", "drop table"]),
        "params": st.sampled_from([{}, [], "x", {"level": 9}]),
        "event": st.text(max_size=20), "suspended": st.sampled_from([0, 1, 2]), "leech": st.just(0),
        "buried_until": st.sampled_from([None, "x"]), "reset_at": st.just(None),
        "name": st.sampled_from(["retention", "sync_dir", "d:day_start", "nope"]),
        "value": st.sampled_from([None, "0.85", "2", "x"]),
    }),
})


@settings(max_examples=60, deadline=None)
@given(crafted)
def test_crafted_lines_with_a_right_checksum_are_merged_or_skipped_never_a_crash(tmp_path_factory, document):
    tmp = tmp_path_factory.mktemp("crafted")
    folder = tmp / "Sync"
    folder.mkdir()
    journal.path_of(folder, DEVICE).write_bytes(signed(document))
    with open_store(tmp / "studytool.db", backups=False) as store:
        report = sync(store, folder, NOW)
        assert report.read + len(report.problems) == 1
        for rating, mode in store.con.execute("SELECT rating, mode FROM reviews"):
            assert rating in (1, 2, 3, 4) and mode in ("review", "quiz", "implicit")
        assert store.setting("sync_dir", "") == ""


@pytest.mark.parametrize("field, value", [("seed", 2**64 - 1), ("seed", -(2**63) - 1), ("duration_ms", 2**64 - 1),
                                          ("duration_ms", -1), ("seq", 2**63)])
def test_a_number_sqlite_cannot_hold_is_a_skipped_line_not_a_broken_sync(tmp_path, field, value):
    document = {"v": 2, "id": f"{DEVICE}-1", "device": DEVICE, "seq": 1, "time": answer["time"], "kind": "answer",
                "card": "d/c1", "body": dict(answer)}
    if field == "seq":
        document.update(seq=value, id=f"{DEVICE}-{value}")
    else:
        document["body"][field] = value
    folder = tmp_path / "Sync"
    folder.mkdir()
    journal.path_of(folder, DEVICE).write_bytes(signed(document))
    with open_store(tmp_path / "studytool.db", backups=False) as store:
        report = sync(store, folder, NOW)
        assert report.read == 0 and report.problems == [
            f"{journal.path_of(folder, DEVICE)}:1: skipped (not an event of this version); it is read again next time"]
        assert store.answers_total() == 0
