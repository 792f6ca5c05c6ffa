"""Bounded waits: every time-dependent claim is waited out within a bound, and what is still
wrong at the bound is drift.

`poll()` reads a resource until its state is terminal. On a mock with a control surface the
wait costs no real time (the caller's `advance` moves the simulated clock by `step`); on a
deployment it sleeps `step` real seconds between reads. Either way it gives up after `bound`
seconds (simulated or real) and raises the caller's drift with the last state seen; a state
outside the documented lifecycle is drift at once, since waiting cannot make it documented.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from typing import TypeVar

T = TypeVar("T")


def poll(
    fetch: Callable[[], T],
    state: Callable[[T], str],
    *,
    done: Collection[str],
    known: Collection[str],
    bound: float,
    step: float,
    drift: Callable[[str], Exception],
    advance: Callable[[float], object] | None = None,
) -> T:
    """`fetch()` until `state(...)` is in `done`; `advance(step)` moves a mock's clock instead of sleeping."""
    waited = 0.0
    started = time.monotonic()
    while True:
        value = fetch()
        now = state(value)
        if now not in known:
            raise drift(f"state {now!r} is not in the documented lifecycle {sorted(known)}")
        if now in done:
            return value
        elapsed = waited if advance is not None else time.monotonic() - started
        if elapsed + step > bound:
            raise drift(f"still {now!r} after {elapsed:.0f} s (the bound is {bound:g} s)")
        if advance is not None:
            advance(step)
        else:
            time.sleep(step)
        waited += step
