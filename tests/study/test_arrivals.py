"""Another device's journal, read from where reading stopped: a long stretch read in two processes (a forked child
reads the second half) finds what one process finds, line for line, wherever the halves meet."""

from __future__ import annotations

import json
import os
import signal

import msgspec
import pytest
from hypothesis import event as tally, given, settings
from hypothesis import strategies as st

from studytool.study import arrivals, events, journal
from study_fakes import signed
from test_events import DEVICE, answers, any_event, cards, times

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: a journal is read in one process")

damaged = any_event.map(lambda event: events.line_of(event).replace(b'"sum":"', b'"sum":"0', 1))   # a wrong sum
newer = any_event.map(lambda event: signed({**json.loads(events.line_of(event)), "v": events.SCHEMA + 1}))
bodies = {   # bodies an event of this version can have (most that `any_event` draws are not: they test refusals)
    "answer": lambda card, time: answers.map(lambda body: msgspec.structs.replace(body, card=card, time=time)),
    "retract": lambda card, time: st.integers(1, 99).map(lambda seq: events.Retract(f"{DEVICE}-{seq}")),
    "flags": lambda card, time: st.builds(events.Flags, suspended=st.integers(0, 1), buried_until=st.none(),
                                          leech=st.integers(0, 1), reset_at=st.one_of(st.none(), st.just(time)),
                                          flag=st.integers(0, 7)),
    "setting": lambda card, time: st.just(events.Setting("retention", "0.85")),
}
good_event = st.builds(lambda kind, time, card: (kind, time, None if kind == "setting" else card),
                       st.sampled_from(events.KINDS), times, cards).flatmap(
    lambda drawn: bodies[drawn[0]](drawn[2], drawn[1]).map(
        lambda body: lambda seq: events.line_of(events.Event(f"{DEVICE}-{seq}", DEVICE, seq, drawn[1], drawn[0],
                                                             drawn[2], body))))
other_line = st.one_of(damaged, any_event.map(events.line_of), st.just(b"not json\n"))
lines = st.lists(st.one_of(*[good_event] * 6, *[other_line.map(lambda line: lambda _seq: line)] * 2,
                           newer.map(lambda line: lambda _seq: line)), min_size=3, max_size=24).flatmap(
    lambda makers: st.lists(st.integers(1, len(makers) + 2), min_size=len(makers), max_size=len(makers)).map(
        lambda seqs: [make(seq) for make, seq in zip(makers, seqs)]))   # numbers mostly apart, sometimes twice


def journal_of(tmp_path_factory, lines: list[bytes], torn: bool) -> tuple[os.PathLike, list[int]]:
    """The journal holding `lines` (the last without its newline when `torn`) and where each line starts."""
    path = tmp_path_factory.mktemp("sync") / f"{DEVICE}.jsonl"
    content = b"".join(lines)
    path.write_bytes(content[:-1] if torn and content else content)
    starts = [sum(len(line) for line in lines[:number]) for number in range(len(lines) + 1)]
    return path, starts


def read(path, offset: int, before: int, known: set[int], split: int, **journal_sizes: int) -> arrivals.Arrived:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrivals, "SPLIT", split)
        for name, value in journal_sizes.items():   # BLOCK, MAX_LINE: the forked child has them too
            patch.setattr(journal, name, value)
        return arrivals.read(path, DEVICE, offset, before, set(known))


@settings(max_examples=150, deadline=None)
@given(lines=lines, torn=st.booleans(), skip=st.integers(0, 4), known=st.sets(st.integers(1, 10**9), max_size=3),
       block=st.sampled_from([1 << 20, 7, 300]), longest=st.sampled_from([1 << 20, 1 << 20, 600, 300]), data=st.data())
def test_read_in_two_processes_is_read_in_one(tmp_path_factory, lines, torn, skip, known, block, longest, data):
    path, starts = journal_of(tmp_path_factory, lines, torn)
    skip = min(skip, len(lines))
    seqs = [event.seq for line in lines for event in _events_on(line)]
    known = known | set(data.draw(st.lists(st.sampled_from(seqs), max_size=3)) if seqs else [])
    alone = read(path, starts[skip], skip, known, split=1 << 40, BLOCK=block, MAX_LINE=longest)
    assert read(path, starts[skip], skip, known, split=1, BLOCK=block, MAX_LINE=longest) == alone
    tally(f"events found: {min(len(alone.events), 4)}")   # --hypothesis-show-statistics: most find some


def _events_on(line: bytes) -> list[events.Event]:
    try:
        return [events.event_of(line.rstrip(b"\n"), DEVICE)]
    except (events.Unreadable, events.Newer):
        return []


def journal_with_a_damaged_line_in_each_half(tmp_path_factory, count: int = 40) -> os.PathLike:
    made = [events.line_of(events.Event(f"{DEVICE}-{seq}", DEVICE, seq, "2026-03-02T09:00:00.000000Z", "flags",
                                        f"d/c{seq}", events.Flags(0, None, 0, None, 0))) for seq in range(1, count + 1)]
    made[5] = made[5].replace(b'"flag":0', b'"flag":1', 1)   # its sum no longer matches
    made[count - 5] = b"not json\n"
    path, _starts = journal_of(tmp_path_factory, made, torn=False)
    return path


def test_a_long_journal_is_read_by_a_child_whose_lines_are_numbered_as_the_file_numbers_them(tmp_path_factory,
                                                                                            monkeypatch):
    path = journal_with_a_damaged_line_in_each_half(tmp_path_factory)
    forked = []
    real_fork = os.fork

    def fork():
        forked.append(pid := real_fork())
        return pid

    results, result = [], arrivals._Child.result

    def recorded(child):
        results.append(result(child))
        return results[-1]

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setattr(arrivals._Child, "result", recorded)
    found = read(path, 0, 0, set(), split=1)
    assert len(forked) == 1 and [half is not None for half in results] == [True]   # its half was not read here
    assert [seq for seq in range(1, 41) if seq not in {event.seq for event in found.events}] == [6, 36]
    assert [problem.split(": skipped")[0] for problem in found.problems] == [f"{path}:6", f"{path}:36"]
    assert found.resume == (sum(len(line) for line in path.read_bytes().splitlines(keepends=True)[:5]), 5)
    with pytest.raises(ChildProcessError):   # the child was waited for
        os.waitpid(forked[0], os.WNOHANG)


def test_a_child_that_fails_leaves_its_half_to_this_process(tmp_path_factory, monkeypatch):
    path = journal_with_a_damaged_line_in_each_half(tmp_path_factory)
    alone = read(path, 0, 0, set(), split=1 << 40)

    def broken(*_args):   # the child packs what it found: it fails there
        raise MemoryError

    monkeypatch.setattr(events, "pack", broken)
    assert read(path, 0, 0, set(), split=1) == alone


def test_ctrl_c_while_the_child_reads_ends_the_child(tmp_path_factory, monkeypatch):
    path = journal_with_a_damaged_line_in_each_half(tmp_path_factory)
    forked, parent, real_fork, real_checked = [], os.getpid(), os.fork, arrivals._checked

    def fork():
        forked.append(pid := real_fork())
        return pid

    def interrupted(lines, device):
        if os.getpid() == parent:
            raise KeyboardInterrupt
        return real_checked(lines, device)

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setattr(arrivals, "_checked", interrupted)
    with pytest.raises(KeyboardInterrupt):
        read(path, 0, 0, set(), split=1)
    with pytest.raises(ChildProcessError):   # ended and waited for: no process left behind
        os.waitpid(forked[0], os.WNOHANG)


def test_a_short_stretch_is_read_here(tmp_path_factory, monkeypatch):
    path = journal_with_a_damaged_line_in_each_half(tmp_path_factory)
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked for a short stretch"))
    assert len(read(path, 0, 0, set(), split=path.stat().st_size + 1).events) == 38


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files in /proc")
def test_no_process_to_be_had_reads_it_all_here_and_leaves_nothing_open(tmp_path_factory, monkeypatch):
    path = journal_with_a_damaged_line_in_each_half(tmp_path_factory)
    alone, before = read(path, 0, 0, set(), split=1 << 40), open_descriptors()

    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    assert read(path, 0, 0, set(), split=1) == alone
    assert open_descriptors() == before


def test_a_child_reaped_by_the_system_is_no_error(tmp_path_factory):
    path = journal_with_a_damaged_line_in_each_half(tmp_path_factory)
    alone = read(path, 0, 0, set(), split=1 << 40)
    ignored = signal.signal(signal.SIGCHLD, signal.SIG_IGN)   # as some launchers leave it: children reap themselves
    try:
        assert read(path, 0, 0, set(), split=1) == alone
    finally:
        signal.signal(signal.SIGCHLD, ignored)


def test_ctrl_c_while_the_childs_half_is_unpacked_is_ctrl_c(tmp_path_factory, monkeypatch):
    path = journal_with_a_damaged_line_in_each_half(tmp_path_factory)

    def interrupted(_packed):
        raise KeyboardInterrupt

    monkeypatch.setattr(events, "unpack", interrupted)
    with pytest.raises(KeyboardInterrupt):   # not a BufferError from letting go of the memory the two share
        read(path, 0, 0, set(), split=1)
