"""The state machine over token → join → run → poll → results (`contracts/benchgen/lifecycle.py`).

Embedded: the whole machine, tokens, approvals, revocations and the clock included.
Live: the given token only, joining and queueing only with --allow-spend, one sequence
(at most `LIVE_MAX_RUNS` runs), polling at the pace the target asks for.
"""

from __future__ import annotations

import pytest
from hypothesis import Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from ..exchange import Control
from ..lifecycle import BenchgenLifecycle, Context
from .conftest import REVOCATION_SECONDS


def test_lifecycle(target, http, exchange, token):
    """B-11…B-50 as §B.4 of the research lists them."""
    if target.live and not target.policy.allow_spend:
        pytest.skip("every step after the listing joins or queues (spends credits): pass --allow-spend")
    BenchgenLifecycle.context = Context(
        exchange=exchange,
        control=Control(http) if target.embedded else None,
        token=token,
        revocation_seconds=REVOCATION_SECONDS,
        allow_spend=bool(target.embedded or target.policy.allow_spend),
    )
    if target.live:
        # a live account keeps its state between examples, so a sequence cannot be replayed or shrunk,
        # and every example would spend again: one sequence, generated once
        run_state_machine_as_test(
            BenchgenLifecycle, settings=settings(settings.default, max_examples=1, phases=[Phase.generate])
        )
    else:
        run_state_machine_as_test(BenchgenLifecycle)
