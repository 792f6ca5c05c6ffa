"""Bounded waits (`contracts.runner.waits.poll`): a wait ends at its bound, and what is still wrong
there, or a state outside the documented lifecycle, is drift, never a hang (the staging issue's
unbounded evaluation poll)."""

from __future__ import annotations

import pytest

from contracts.runner.waits import poll

KNOWN = {"queued", "running", "completed", "failed"}
DONE = {"completed", "failed"}


class Stop(Exception):
    pass


def _poll(states: list[str], bound: float = 60, step: float = 10) -> tuple[str, list[float]]:
    moved: list[float] = []
    answers = iter(states)
    found = poll(
        lambda: next(answers),
        lambda state: state,
        done=DONE,
        known=KNOWN,
        bound=bound,
        step=step,
        drift=Stop,
        advance=moved.append,
    )
    return found, moved


def test_a_terminal_state_ends_the_wait() -> None:
    assert _poll(["queued", "running", "completed"]) == ("completed", [10, 10])


def test_a_state_stuck_at_the_bound_is_drift() -> None:
    with pytest.raises(Stop, match="still 'running' after 60 s"):
        _poll(["running"] * 100, bound=60, step=10)


def test_an_undocumented_state_is_drift_at_once() -> None:
    with pytest.raises(Stop, match="'stalled' is not in the documented lifecycle"):
        _poll(["queued", "stalled", "completed"])


def test_a_deployment_is_waited_in_real_time_within_the_bound() -> None:
    with pytest.raises(Stop, match="still 'queued'"):
        poll(lambda: "queued", str, done=DONE, known=KNOWN, bound=0.05, step=0.02, drift=Stop)
