"""`studytool cards` through the CLI: list and filter, one card's history, suspend/unsuspend/bury/forget, leeches.

Every command runs with STUDYTOOL_HOME in tmp_path and STUDYTOOL_NOW as its clock (TZ=UTC: days start 04:00Z).
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from studytool import i18n
from studytool.cli import app
from study_fakes import drill_deck

MONDAY = "2026-03-02T08:00:00+00:00"


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("STUDYTOOL_LANG", "en")   # the drill deck is Chinese: its cards would speak Chinese around them
    monkeypatch.setattr(i18n, "_lang", "en")
    decks = tmp_path / "decks"   # beside the home, not in it: --deck-path reads no sub-folders
    decks.mkdir()
    drill_deck(decks)
    return decks


def run(env, args, now=MONDAY, text=""):
    result = CliRunner().invoke(app, ["--deck-path", str(env), *args], input=text, env={"STUDYTOOL_NOW": now})
    return result


def doc(env, args, now=MONDAY, text=""):
    result = run(env, [*args, "--json"], now, text)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def reviewed(env, now, text, new=None, deck="drill"):
    """The cards one review session asked, in order (new cards come in a random order)."""
    args = ["review", "--deck", deck] + (["--new", str(new)] if new is not None else [])
    return [card["card"] for card in doc(env, args, now, text)["cards"]]


def listed(env, *args, now=MONDAY, deck="drill"):
    return [card["card"] for card in doc(env, ["cards", "list", "--deck", deck, *args], now)["cards"]]


ALL = [f"drill/c{i}" for i in range(6)]


def test_list_filters_by_state_topic_and_text(env):
    seen = sorted(reviewed(env, MONDAY, "7\n7\n", new=2))
    assert listed(env, "--state", "learning") == seen
    assert listed(env, "--state", "new") == [key for key in ALL if key not in seen]
    assert listed(env, "--state", "due") == []                      # their 10-minute step is not due yet
    assert listed(env, "--state", "due", now="2026-03-02T08:13:00+00:00") == seen   # 10 min + Anki's fuzz (<= 25%)
    assert listed(env, "--topic", "ffn") == ["drill/c1"]
    assert listed(env, "--search", "\"问题 3\"") == ["drill/c3"]   # a phrase is quoted, as in Anki
    assert len(listed(env, "--search", "问题 3")) == 6                # two words: both in every card
    assert listed(env, "--state", "review") == listed(env, "--state", "suspended") == []


def test_show_has_the_memory_state_and_every_answer(env):
    [key] = reviewed(env, MONDAY, "8\n", new=1)                      # wrong, then the 1-minute step
    card = doc(env, ["cards", "show", key])
    assert (card["card"], card["state"], card["reps"], card["lapses"]) == (key, "learning", 1, 0)
    assert [(r["rating"], r["correct"], r["answer"], r["mode"]) for r in card["reviews"]] == [(1, False, "8", "review")]
    assert card["reviews"][0]["time"] == MONDAY
    assert card["stability"] == pytest.approx(0.212)                 # FSRS-6 w0: the stability after Again on a new card
    assert card["retrievability"] == pytest.approx(1.0)              # the same day: no day has passed
    assert not card["suspended"] and not card["leech"]


def test_retrievability_follows_the_forgetting_curve_in_days(env):
    [key] = reviewed(env, MONDAY, "7\n", new=1)
    assert reviewed(env, "2026-03-02T08:10:00+00:00", "7\n", new=0) == [key]   # Good: past the 10m step, graduated
    three_days_later = "2026-03-05T09:00:00+00:00"
    card = doc(env, ["cards", "show", key], now=three_days_later)
    assert card["state"] == "review"
    decay = -0.1542                                                  # FSRS-6: R(t) = (1 + f t / S)^-w20
    factor = 0.9 ** (1 / decay) - 1
    assert card["retrievability"] == pytest.approx((1 + factor * 3 / card["stability"]) ** decay, rel=1e-9)


def test_a_suspended_card_never_comes_up_until_unsuspended(env):
    assert doc(env, ["cards", "suspend", "drill/c0", "drill/c2"])["cards"] == ["drill/c0", "drill/c2"]
    assert listed(env, "--state", "suspended") == ["drill/c0", "drill/c2"]
    assert sorted(reviewed(env, MONDAY, "7\n" * 4, new=6)) == ["drill/c1", "drill/c3", "drill/c4", "drill/c5"]
    run(env, ["cards", "unsuspend", "drill/c0"])
    assert reviewed(env, MONDAY, "7\n", new=6) == ["drill/c0"]


def test_suspending_a_suspended_card_says_so_and_leaves_it_as_it_was(env):
    assert doc(env, ["cards", "suspend", "drill/c0"])["already"] == []
    done = doc(env, ["cards", "suspend", "drill/c0", "drill/c1"])
    assert (done["cards"], done["already"]) == (["drill/c0", "drill/c1"], ["drill/c0"])
    assert run(env, ["cards", "suspend", "drill/c0"]).stdout == "Already suspended, left as it was: drill/c0.\n"
    both = run(env, ["cards", "suspend", "drill/c1", "drill/c2"])
    assert both.exit_code == 0
    assert both.stdout.splitlines() == ["Already suspended, left as it was: drill/c1.",
                                        "Suspended 1 card(s): drill/c2."]
    assert listed(env, "--state", "suspended") == ["drill/c0", "drill/c1", "drill/c2"]


@pytest.mark.parametrize("command", ["show", "suspend", "forget"])
def test_the_shell_completes_a_card_by_its_name_or_its_bare_id(env, command):
    def completed(word):
        words = f"studytool --deck-path {env} cards {command} {word}"
        result = CliRunner().invoke(app, [], prog_name="studytool", env={
            "_STUDYTOOL_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - 1)})
        assert result.exit_code == 0, result.output
        return result.stdout.split()

    assert completed("drill/c") == [f"drill/c{i}" for i in range(6)]
    assert completed("c3") == ["c3"]                  # a bare ID one deck alone has: the commands take it
    assert completed("drill/zz") == []


def test_bury_lasts_until_the_next_day_starts(env):
    done = doc(env, ["cards", "bury", "drill/c0"], now="2026-03-03T03:30:00+00:00")   # 03:30 is still Monday's day
    assert done == {"action": "bury", "cards": ["drill/c0"], "until": "2026-03-03T04:00:00+00:00", "already": []}
    assert listed(env, "--state", "buried", now="2026-03-03T03:59:00+00:00") == ["drill/c0"]
    assert sorted(reviewed(env, "2026-03-03T03:59:00+00:00", "7\n" * 5, new=6)) == ALL[1:]
    assert listed(env, "--state", "buried", now="2026-03-03T04:00:00+00:00") == []
    # back at 04:00, with the others: their 10-minute steps from 03:59 end at the day start (Anki's maybe_as_days)
    assert sorted(reviewed(env, "2026-03-03T04:00:00+00:00", "7\n" * 6, new=6)) == ALL


def test_forget_resets_to_new_and_keeps_the_history(env):
    [key] = reviewed(env, MONDAY, "7\n", new=1)
    assert doc(env, ["cards", "forget", key])["cards"] == [key]
    card = doc(env, ["cards", "show", key])
    assert (card["state"], card["due"], card["stability"]) == ("new", None, None)
    assert len(card["reviews"]) == 1 and card["forgotten_at"] == MONDAY
    assert listed(env, "--state", "new") == ALL


@pytest.mark.parametrize("args", [["cards", "show", "drill/nope"], ["cards", "suspend", "drill/c0", "nope/c1"],
                                  ["cards", "bury", "drill"]])
def test_an_unknown_card_is_one_line_and_changes_nothing(env, args):
    result = run(env, args)
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("studytool: unknown card ")
    assert listed(env, "--state", "suspended") == []


def test_a_bare_card_id_names_the_card_when_one_deck_alone_has_it(env):
    drill_deck(env, n=1, deck="solo")                               # solo/c0 beside drill/c0 .. drill/c5
    assert doc(env, ["cards", "show", "c3"])["card"] == "drill/c3"
    assert doc(env, ["cards", "suspend", "c4", "c5"])["cards"] == ["drill/c4", "drill/c5"]
    assert doc(env, ["cards", "unsuspend", "c4"])["cards"] == ["drill/c4"]
    assert listed(env, "--state", "suspended") == ["drill/c5"]
    for args in (["cards", "show", "c0"], ["cards", "bury", "c1", "c0"]):
        result = run(env, args)
        assert result.exit_code == 1
        assert result.stderr == "studytool: card 'c0' is in 2 decks: name one of drill/c0, solo/c0\n"
    assert listed(env, "--state", "buried") == []                   # the ambiguous one stopped the whole command


def test_an_unknown_state_is_one_line(env):
    result = run(env, ["cards", "list", "--state", "sleeping"])
    assert result.exit_code == 1
    assert result.stderr == ("studytool: unknown state 'sleeping'; states: new, learning, review, relearning, "
                             "due, suspended, buried, leech\n")


def test_the_screen_list_and_page_name_the_cards(env):
    [key] = reviewed(env, MONDAY, "7\n", new=1)
    screen = run(env, ["cards", "list", "--deck", "drill"]).stdout
    assert key in screen and "learning" in screen and "6 cards" in screen
    page = run(env, ["cards", "show", key]).stdout
    assert "Retrievability now" in page and "Good" in page


def test_a_card_with_leech_threshold_lapses_is_suspended_and_the_session_says_so(env):
    """Lapse after lapse through `review`, each at the card's due time: at the 2nd (threshold 2) it is a leech."""
    drill_deck(env, n=1, deck="solo")
    assert run(env, ["config", "leech_threshold", "2"]).exit_code == 0
    now, notices = MONDAY, []
    for _ in range(20):
        card = doc(env, ["cards", "show", "solo/c0"], now)
        if card["lapses"] == 2:
            break
        now = max(now, card["due"]) if card["due"] else now
        answer = "8\n" if card["state"] == "review" else "7\n"     # forget it whenever it is a review card
        result = run(env, ["review", "--deck", "solo"], now, answer)
        notices += [said for said in " ".join(result.stdout.split()).split("Score:") if "leech" in said]
    assert card["lapses"] == 2 and card["leech"] and card["suspended"]
    [said] = notices   # said once, in one sentence
    assert "solo/c0 is a leech (2 lapses): suspended; `studytool cards unsuspend solo/c0` brings it back" in said
    assert listed(env, "--state", "leech", now=now, deck="solo") == ["solo/c0"]
    assert reviewed(env, "2027-01-01T08:00:00+00:00", "7\n", deck="solo") == []


def test_the_outlook_after_a_review_does_not_wait_for_a_suspended_card(env):
    [key] = reviewed(env, MONDAY, "7\n", new=1)                    # its next step is due at 08:10
    run(env, ["cards", "suspend", key])
    outlook = doc(env, ["review", "--deck", "drill", "--new", "0"], "2026-03-02T08:05:00+00:00")["outlook"]
    assert outlook["next_due"] is None and outlook["due_today"] == 0
    run(env, ["cards", "unsuspend", key])
    outlook = doc(env, ["review", "--deck", "drill", "--new", "0"], "2026-03-02T08:05:00+00:00")["outlook"]
    assert "2026-03-02T08:10:00" <= outlook["next_due"] < "2026-03-02T08:12:30" and outlook["due_today"] == 1  # fuzz


def test_show_prints_a_typed_answer_with_its_control_characters_visible(env):
    """A stored answer with ESC[2J, a colour and an OSC 52 clipboard write must not reach the terminal raw."""
    (env / "rr.yaml").write_text("deck: rr\ntitle: r\nsource: t\ncards:\n"
                                 "  - id: r1\n    kind: recall\n    topic: softmax\n    q: Say it\n    a: it\n",
                                 encoding="utf-8")
    typed = "x \x1b[2J\x1b[31mRED \x1b]52;c;SGVsbG8=\x07 end"
    assert run(env, ["quiz", "--deck", "rr", "--count", "1"], text=f"{typed}\n3\n").exit_code == 0
    assert doc(env, ["cards", "show", "rr/r1"])["reviews"][0]["answer"] == typed   # stored as typed
    page = run(env, ["cards", "show", "rr/r1"]).stdout
    assert not any(char in page for char in "\x1b\x07")
    assert "\\x1b[2J\\x1b[31mRED" in page and "\\x1b]52;c;SGVsbG8=\\x07" in "".join(page.split())


def _six_review_cards_due(env):
    run(env, ["config", "learning_steps", ""])   # no steps: a right answer makes a new card a review card
    assert len(reviewed(env, MONDAY, "7\n" * 6)) == 6
    return "2026-03-20T08:00:00+00:00"             # weeks later: all six are due


def test_quitting_at_the_first_card_says_how_many_are_still_due_now(env):
    later = _six_review_cards_due(env)
    [due_in_stats] = [deck["due_now"] for deck in doc(env, ["stats"], later)["decks"] if deck["deck"] == "drill"]
    for text in (":q\n", ""):   # :q, or the end of input
        result = run(env, ["review", "--deck", "drill", "--json"], later, text)
        summary = json.loads(result.stdout)
        assert (summary["outlook"]["due_now"], summary["ended_early"]) == (due_in_stats, True) == (6, True)
        assert "Session ended early. 6 cards still due now." in " ".join(result.stderr.split())
        assert "Nothing to review" not in result.stderr
    screen = " ".join(run(env, ["review", "--deck", "drill"], later, "7\n:q\n").stdout.split())
    assert "Session ended early. 5 cards still due now." in screen


def test_cards_over_the_review_limit_are_counted_as_still_due(env):
    later = _six_review_cards_due(env)
    run(env, ["config", "max_reviews_per_day", "2"])
    result = run(env, ["review", "--deck", "drill", "--json"], later, "7\n7\n")
    summary = json.loads(result.stdout)
    assert (summary["answered"], summary["ended_early"], summary["outlook"]["due_now"]) == (2, False, 4)
    again = run(env, ["review", "--deck", "drill"], later)
    assert "4 cards still due now. Today's review limit holds them back (config max_reviews_per_day)." in " ".join(
        again.stdout.split())
