"""The run simulation, a pure function of simulated time.

A run is `queued` for the competition's `queue_seconds`, then `running` while it
answers one question every `seconds_per_question`, then `completed` with the
fraction of right answers as its score (the primary leaderboard score, B-34). Which
questions a model gets right is fixed by a SHA-256 of (model key, competition,
question) against the model's skill, so every start gives the same answers.

`check_again_seconds` (B-37) is the time to the run's next change of state, at most
the competition's poll interval and at least one second.
"""

from __future__ import annotations

import hashlib
import math
import string
from datetime import datetime, timedelta

from .rows import Competition, ItemResult, Question, RunState, Submission


def _unit(*parts: object) -> float:
    """A number in [0, 1) fixed by its inputs."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def skill_for_name(name: str) -> float:
    """The simulated skill of a model known only by name (an endpoint, a Hugging Face repo): 0.30–0.80."""
    return round(0.30 + 0.50 * _unit("skill", name), 2)


def running_at(sub: Submission, comp: Competition) -> datetime:
    return sub.queued_at + timedelta(seconds=comp.queue_seconds)


def completes_at(sub: Submission, comp: Competition) -> datetime:
    return running_at(sub, comp) + timedelta(seconds=comp.seconds_per_question * len(comp.questions))


def state_at(sub: Submission, comp: Competition, now: datetime) -> RunState:
    """Where the simulation has the run at `now` (a finished run stays as it finished, B-38)."""
    if sub.state.done:
        return sub.state
    if now >= completes_at(sub, comp):
        return RunState.COMPLETED
    if now >= running_at(sub, comp):
        return RunState.RUNNING
    return RunState.QUEUED


def answered_at(sub: Submission, comp: Competition, now: datetime) -> int:
    """How many questions the run has answered by `now`."""
    elapsed = (now - running_at(sub, comp)).total_seconds()
    if elapsed <= 0:
        return 0
    return min(len(comp.questions), int(elapsed // comp.seconds_per_question))


def check_again_seconds(sub: Submission, comp: Competition, now: datetime) -> int | None:
    state = state_at(sub, comp, now)
    if state.done:
        return None
    change = running_at(sub, comp) if state is RunState.QUEUED else completes_at(sub, comp)
    until = math.ceil((change - now).total_seconds())
    return max(1, min(comp.poll_interval_seconds, until))


def _wrong_answer(answer: str, *key: object) -> str:
    """A plausible wrong answer: another number for a numeric answer, another letter for a choice."""
    pick = _unit("wrong", *key)
    try:
        value = int(answer)
    except ValueError:
        value = None
    if value is not None:
        return str(value + 1 + int(pick * 9))
    if len(answer) == 1 and answer in string.ascii_uppercase[:4]:
        others = [c for c in "ABCD" if c != answer]
        return others[int(pick * len(others))]
    return answer[::-1] + "?"


def answer(sub: Submission, question: Question, correct: bool | None = None) -> ItemResult:
    """The run's result on one question; `correct` overrides the simulation (a forced score)."""
    if correct is None:
        correct = _unit(sub.model_key, sub.competition_id, question.index) < sub.skill
    model_answer = question.answer if correct else _wrong_answer(question.answer, sub.model_key, question.index)
    return ItemResult(
        index=question.index,
        question=question.question,
        expected_answer=question.answer,
        model_answer=model_answer,
        correct=correct,
    )


def results(sub: Submission, comp: Competition, answered: int) -> list[ItemResult]:
    """The first `answered` questions' results. A forced score makes exactly that many right."""
    questions = comp.questions[:answered]
    if sub.forced_correct is None:
        return [answer(sub, q) for q in questions]
    return [answer(sub, q, correct=q.index < sub.forced_correct) for q in questions]


def score_of(items: list[ItemResult]) -> float:
    if not items:
        return 0.0
    return round(sum(1 for i in items if i.correct) / len(items), 4)
