"""A run's plan: the steps it will apply, in order, each at a simulated instant.

`Plan` is a queue written lazily: a launch hands it a generator of the steps
(`lifecycle.plan_run`) and a step is built only when something looks at it, which
is usually when it comes due. A launch therefore costs the same whatever the run's
size, and a run that is never advanced (a frozen clock, a long wait for review)
holds a few objects instead of its whole future. Reading is the same as with a
materialized list: the front step, indexing, iteration, `insert` before a later step.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

_NO_SHIFT = timedelta(0)


@dataclass(slots=True)
class Step:
    """One step: what it emits (`type`, `data`) at `at`, and what it costs and counts, if anything."""

    at: datetime
    type: str
    data: dict[str, Any]
    cost: dict[str, float] | None = None
    tokens: dict[str, int] | None = None


class Plan:
    """The steps still to apply: those already built (`_head`), then the generator's rest.
    `shift` moves every remaining step, built or not, by the same amount."""

    __slots__ = ("_head", "_rest", "_shift")

    def __init__(self, steps: Iterable[Step] = ()) -> None:
        self._head: deque[Step] = deque()
        self._rest: Iterator[Step] | None = iter(steps)
        self._shift = _NO_SHIFT

    def _build(self, count: int) -> bool:
        """Build until `count` steps are at hand; False when the plan has fewer."""
        head = self._head
        while len(head) < count:
            if self._rest is None:
                return False
            step = next(self._rest, None)
            if step is None:
                self._rest = None
                return False
            if self._shift:
                step.at += self._shift
            head.append(step)
        return True

    def __bool__(self) -> bool:
        return bool(self._head) or self._build(1)

    def __len__(self) -> int:
        self._build(2**62)
        return len(self._head)

    def __getitem__(self, index: int) -> Step:
        if index < 0:
            self._build(2**62)
        elif not self._build(index + 1):
            raise IndexError("plan index out of range")
        return self._head[index]

    def __iter__(self) -> Iterator[Step]:
        index = 0
        while self._build(index + 1):
            yield self._head[index]
            index += 1

    def popleft(self) -> Step:
        if not self._build(1):
            raise IndexError("pop from an empty plan")
        return self._head.popleft()

    def insert(self, index: int, step: Step) -> None:
        self._build(index)
        self._head.insert(index, step)

    def clear(self) -> None:
        self._head.clear()
        self._rest = None

    def shift(self, delta: timedelta) -> None:
        """Move every remaining step `delta` later."""
        for step in self._head:
            step.at += delta
        if self._rest is not None:
            self._shift += delta
