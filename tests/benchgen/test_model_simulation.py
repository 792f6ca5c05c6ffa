"""The run simulation's pure functions: pace, hints, answers and scores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mock_server.benchgen.model import simulation
from mock_server.benchgen.model.rows import Competition, ModelSource, Question, RunState, Submission

T0 = datetime(2026, 4, 23, 14, 0, tzinfo=UTC)


def _comp(answers: list[str]) -> Competition:
    questions = tuple(Question(index=i, question=f"q{i}", answer=a) for i, a in enumerate(answers))
    return Competition(
        id=1, name="c", slug="c", description="", auto_approve=True, published=True, run_cost_credits=0,
        questions=questions, queue_seconds=5, seconds_per_question=2, poll_interval_seconds=5,
    )  # fmt: skip


def _sub(skill: float, key: str = "model:1") -> Submission:
    return Submission(
        id=1, competition_id=1, user_id=1, source=ModelSource.PLATFORM, model_id=1, model_label="m", model_key=key,
        skill=skill, credits_charged=0, queued_at=T0,
    )  # fmt: skip


def test_timeline_and_hints():
    """B-37: check_again_seconds is the time to the next change, capped by the poll interval, at least 1."""
    comp, sub = _comp(["1"] * 10), _sub(0.5)
    assert simulation.completes_at(sub, comp) == T0 + timedelta(seconds=25)
    hints = {
        0: (RunState.QUEUED, 5),
        4.5: (RunState.QUEUED, 1),
        5: (RunState.RUNNING, 5),
        22: (RunState.RUNNING, 3),
        24.9: (RunState.RUNNING, 1),
        25: (RunState.COMPLETED, None),
    }
    for at, expected in hints.items():
        now = T0 + timedelta(seconds=at)
        assert (simulation.state_at(sub, comp, now), simulation.check_again_seconds(sub, comp, now)) == expected
    assert simulation.answered_at(sub, comp, T0 + timedelta(seconds=10)) == 2
    assert simulation.answered_at(sub, comp, T0 + timedelta(seconds=99)) == 10


def test_skill_bounds_the_answers():
    """B-41: a perfect model is always right, a hopeless one always wrong, with a different answer."""
    comp = _comp(["72", "B", "Paris"])
    perfect = simulation.results(_sub(1.0), comp, 3)
    hopeless = simulation.results(_sub(0.0), comp, 3)
    assert all(i.correct and i.model_answer == i.expected_answer for i in perfect)
    assert not any(i.correct for i in hopeless)
    assert all(i.model_answer != i.expected_answer for i in hopeless)
    assert hopeless[0].model_answer.isdigit() and hopeless[1].model_answer in "ACD"


def test_forced_score_makes_exactly_that_many_right():
    """B-34, B.4: the item counts agree with a forced score."""
    comp, sub = _comp([str(i) for i in range(8)]), _sub(0.0)
    sub.forced_correct = 3
    items = simulation.results(sub, comp, 8)
    assert sum(i.correct for i in items) == 3
    assert simulation.score_of(items) == 0.375
    assert simulation.score_of([]) == 0.0


def test_name_skills_are_fixed_and_in_range():
    """Deterministic seeds: the same endpoint name always gets the same skill."""
    a = simulation.skill_for_name("external:my-model")
    assert a == simulation.skill_for_name("external:my-model")
    assert 0.30 <= a <= 0.80
