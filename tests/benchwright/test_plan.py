"""A run's plan is built as it is reached (`model/plan.py`): reading it lazily gives the same
steps, in the same order and at the same instants, as the whole list would."""

from __future__ import annotations

from datetime import timedelta

from mock_server.benchwright.model.plan import Plan, Step
from mock_server.state.clock import DEFAULT_EPOCH


def _steps(count: int, built: list[int]):
    for i in range(count):
        built.append(i)
        yield Step(DEFAULT_EPOCH + timedelta(seconds=i), f"S{i}", {"i": i})


def test_steps_are_built_only_when_looked_at():
    built: list[int] = []
    plan = Plan(_steps(5, built))
    assert built == []
    assert plan and plan[0].type == "S0" and built == [0]
    assert plan.popleft().type == "S0"
    assert [s.type for s in plan] == ["S1", "S2", "S3", "S4"] and len(plan) == 4


def test_insert_shift_and_clear_behave_as_on_a_list():
    plan = Plan(_steps(4, []))
    plan.insert(2, Step(DEFAULT_EPOCH, "X", {}))
    assert [s.type for s in plan] == ["S0", "S1", "X", "S2", "S3"]
    lazy = Plan(_steps(4, []))
    lazy.popleft()
    lazy.shift(timedelta(seconds=10))  # the rest, built or not, moves
    assert [(s.at - DEFAULT_EPOCH).total_seconds() for s in lazy] == [11, 12, 13]
    lazy.clear()
    assert not lazy and len(lazy) == 0
