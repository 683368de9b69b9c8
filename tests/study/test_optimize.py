"""`studytool optimize`: Anki's FSRS optimizer on the learner's own log, checked against py-fsrs's formulas.

The log is a simulated learner whose memory is not FSRS's default one (it forgets faster), reviewing each card
when the scheduler says it is due; then the CLI fits, reports, stores, and schedules with what it stored.
"""

from __future__ import annotations

import heapq
import json
import math
import random
from datetime import datetime, timedelta, timezone

import pytest
from typer.testing import CliRunner

from studytool import i18n
from studytool.cli import app
from studytool.study import cards, optimize
from studytool.study.days import Days
from studytool.study.scheduler import Rules, Scheduler
from studytool.study.store import Answer, open_store
from study_fakes import drill_deck

START = datetime(2026, 3, 1, 9, 7, tzinfo=timezone.utc)
UTC_DAYS = Days(4, timezone.utc)


def simulate(store, n_cards=40, n_days=45, seed=1):
    """Each card's true stability starts at 0.5 day, x3 on recall, x0.4 on a lapse; reviews come when due."""
    store.con.execute("PRAGMA synchronous = OFF")   # a made-up log: no need to wait for the disk at every answer
    rng = random.Random(seed)
    scheduler = Scheduler(Rules(fuzz=False, days=UTC_DAYS))
    truth = {f"d/c{i}": 0.5 for i in range(n_cards)}
    queue = [(START + timedelta(hours=i), key) for i, key in enumerate(truth)]
    last: dict[str, datetime] = {}
    reps: dict[str, int] = {}
    while queue:
        when, key = heapq.heappop(queue)
        if when > START + timedelta(days=n_days):
            break
        elapsed = (when - last[key]).total_seconds() / 86400 if key in last else 0.0
        recalled = key in last and rng.random() < math.exp(-elapsed / truth[key])
        truth[key] = max(0.05, truth[key] * (3 if recalled else 0.4))
        rating = 3 if recalled or key not in last else 1
        store.record(
            Answer(card=key, topic="t", mode="review", rating=rating, correct=rating > 1, answer="", seed=None,
                   params={}, duration_ms=1, time=when),
            lambda prior: scheduler.answer(prior, rating, when, key=key, reps=reps.get(key, 0)))
        reps[key] = reps.get(key, 0) + 1
        last[key] = when
        # the learner comes back some hours into a review card's due day, a learning step a minute or so late;
        # never on a day's first second, which Anki's conversion counts to the day before (its scheduler does not)
        schedule = store.schedule(key)
        later = timedelta(minutes=rng.randint(60, 900) if schedule.state == 2 else rng.randint(0, 2),
                          seconds=rng.randint(1, 59))
        heapq.heappush(queue, (max(schedule.due, when) + later, key))


def py_fsrs_log_loss(history_list, parameters):
    """The log loss of FSRS-6 (py-fsrs's formulas) on the items, oldest first, weighted by recency as fsrs-rs
    weighs them: 0.25 + 0.75 (i / (n - 1))^3."""
    import fsrs

    model = fsrs.Scheduler(parameters=parameters)
    ends = []
    for history in history_list:
        stability = difficulty = None
        for index, (rating, days, time) in enumerate(history):
            grade = fsrs.Rating(rating)
            recall = (1 + model._FACTOR * days / stability) ** model._DECAY if stability else None
            if index > 0 and days > 0:
                ends.append((time, -math.log(recall if rating > 1 else 1 - recall)))
            if stability is None:
                stability = model._initial_stability(rating=grade)
                difficulty = model._initial_difficulty(rating=grade, clamp=True)
                continue
            stability = (model._short_term_stability(stability=stability, rating=grade) if days == 0 else
                         model._next_stability(difficulty=difficulty, stability=stability, retrievability=recall,
                                               rating=grade))
            difficulty = model._next_difficulty(difficulty=difficulty, rating=grade)
    losses = [loss for _time, loss in sorted(ends, key=lambda end: end[0])]
    weights = [0.25 + 0.75 * (i / (len(losses) - 1)) ** 3 for i in range(len(losses))]
    return sum(w * loss for w, loss in zip(weights, losses)) / sum(weights)


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STUDYTOOL_NOW", "2026-05-01T08:00:00+00:00")
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setattr(i18n, "_lang", "en")
    return tmp_path


def invoke(*args, text=""):
    return CliRunner().invoke(app, list(args), input=text)


def studied(env):
    with open_store(env / "home" / "studytool.db") as store:
        simulate(store)
        return optimize.histories(store, UTC_DAYS), store.answers_total()


def test_the_fit_is_reported_against_an_independent_log_loss_and_dry_run_stores_nothing(env):
    history_list, answers = studied(env)
    result = invoke("optimize", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    fit = json.loads(result.stdout)
    from fsrs.scheduler import DEFAULT_PARAMETERS

    assert fit["reviews"] == answers and fit["dry_run"] and not fit["stored"]
    assert fit["log_loss_default"] == pytest.approx(py_fsrs_log_loss(history_list, DEFAULT_PARAMETERS), rel=1e-4)
    assert fit["log_loss_optimized"] == pytest.approx(py_fsrs_log_loss(history_list, fit["parameters"]), rel=1e-3)
    assert fit["log_loss_optimized"] < fit["log_loss_default"] and fit["rmse_optimized"] < fit["rmse_default"]
    assert len(fit["parameters"]) == 21 and fit["parameters"][2] < DEFAULT_PARAMETERS[2]   # it forgets faster
    assert json.loads(invoke("config", "parameters", "--json").stdout)["source"] == "default"


def test_stored_parameters_schedule_every_review_after(env):
    studied(env)
    fit = json.loads(invoke("optimize", "--json").stdout)
    assert fit["stored"]
    assert json.loads(invoke("config", "parameters", "--json").stdout)["value"] == fit["parameters"]
    decks = env / "decks"
    decks.mkdir()
    drill_deck(decks, n=1)
    assert invoke("--deck-path", str(decks), "review", "--deck", "drill", text="7\n").exit_code == 0
    card = json.loads(invoke("--deck-path", str(decks), "cards", "show", "drill/c0", "--json").stdout)
    assert card["stability"] == pytest.approx(fit["parameters"][2])   # FSRS: a new card rated Good starts at w2
    screen = invoke("optimize").stdout
    assert "Log loss" in screen and "Not stored" in screen            # the same fit again is no better


def test_a_fit_on_fewer_reviews_than_anki_advises_is_flagged_with_how_many_it_needs(env, monkeypatch):
    _history_list, answers = studied(env)
    assert answers < 1000                                             # Anki: optimize after 1000+ reviews
    screen = " ".join(invoke("optimize", "--dry-run").stdout.split())   # as one line, however wrapped
    assert f"Warning: {answers} reviews are few for a trustworthy fit; Anki advises optimizing after 1000" in screen
    fit = json.loads(invoke("optimize", "--dry-run", "--json").stdout)
    assert (fit["few_reviews"], fit["reviews_advised"]) == (True, 1000)
    monkeypatch.setattr(optimize, "ADVISED_REVIEWS", answers)        # enough: no warning
    assert "Warning" not in invoke("optimize", "--dry-run").stdout


def test_below_the_optimizers_minimum_it_refuses_in_one_line(env):
    with open_store(env / "home" / "studytool.db") as store:
        simulate(store, n_cards=2, n_days=10)
    result = invoke("optimize")
    assert result.exit_code == 1
    assert result.stderr.startswith("studytool: not enough reviews to optimize: ") and result.stderr.count("\n") == 1
    assert "came a day or more after" in result.stderr and "sets aside" in result.stderr   # why so few are usable


def test_elapsed_days_are_anki_days_and_forget_starts_the_history_again(env):
    """22:15 then 08:00 two calendar days later is 2 days; 03:30 still belongs to the day before."""
    times = ["2026-03-01T22:15:00", "2026-03-03T08:00:00", "2026-03-04T03:30:00", "2026-03-05T04:00:00"]
    with open_store(env / "home" / "studytool.db") as store:
        for text, rating in zip(times, (3, 3, 1, 3)):
            store.record(Answer(card="d/a", topic="t", mode="review", rating=rating, correct=rating > 1, answer="",
                                seed=None, params={}, duration_ms=1,
                                time=datetime.fromisoformat(text).replace(tzinfo=timezone.utc)),
                         lambda prior: Scheduler(Rules(days=UTC_DAYS)).answer(prior, 3, START, key="d/a", reps=0))
        [history] = optimize.histories(store, UTC_DAYS)
        assert [(rating, days) for rating, days, _time in history] == [(3, 0), (3, 2), (1, 0), (3, 2)]
        cards.forget(store, ["d/a"], datetime(2026, 3, 6, tzinfo=timezone.utc))
        assert optimize.histories(store, UTC_DAYS) == []


def anki_revlogs(store):
    """The log as Anki's revlog: (unix ms, rating, revlog type by the state the card was in) per card."""
    from studytool.study.store import parse_time

    revlogs: dict[str, list[list[int]]] = {}
    kind = {None: 0, 1: 0, 2: 1, 3: 2}   # new or learning: learn; review; relearning
    for card, time, rating, state in store.con.execute(
            "SELECT card, time, rating, json_extract(prior, '$.state') FROM reviews ORDER BY card, time, id"):
        revlogs.setdefault(card, []).append([round(parse_time(time).timestamp() * 1000), rating, kind[state]])
    return list(revlogs.values())


def test_anki_trains_on_the_same_items_and_fits_as_well(env):
    """Anki 26.9's own "Optimize" over the same log: the same FSRS items (so the same log loss for any
    parameters); its optimizer is a newer fsrs-rs than fsrs-rs-python's, so its fit may differ a little."""
    pytest.importorskip("anki", reason="Anki's own optimizer is the oracle (pip install '.[oracle]')")
    import os
    import subprocess
    import sys
    from pathlib import Path

    import fsrs_rs_python as rs

    with open_store(env / "home" / "studytool.db") as store:
        simulate(store)
        revlogs = anki_revlogs(store)
        items = optimize.training_items(optimize.histories(store, UTC_DAYS))
    oracle = Path(__file__).with_name("anki_fit_oracle.py")
    anki = json.loads(subprocess.run([sys.executable, str(oracle)], input=json.dumps(revlogs), capture_output=True,
                                     text=True, check=True, env={**os.environ, "TZ": "UTC"}, timeout=300).stdout)
    fit = json.loads(invoke("optimize", "--dry-run", "--json").stdout)
    assert len(items) == anki["items"]
    assert fit["log_loss_default"] == pytest.approx(anki["log_loss_default"], rel=1e-5)
    assert rs.FSRS(anki["params"]).evaluate(items).log_loss == pytest.approx(anki["log_loss"], rel=1e-5)
    assert fit["log_loss_optimized"] == pytest.approx(anki["log_loss"], rel=0.02)
