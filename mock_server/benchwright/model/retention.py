"""Retention: how many finished runs the mock keeps, so a mock up for days stays flat.

The rule: per owner (the user who launched the run), the mock keeps the newest
`keep_finished_runs` finished runs (newest by when they finished; default 1,000,
`BenchwrightConfig.keep_finished_runs`, `None` keeps every run). When one more of
that owner's runs finishes, the one that finished longest ago is let go with
everything that hangs off it: its events, and with them its tasks and artifacts
(both are read from the event log), and its cached narrations. From then on it
reads as a run that does not exist (`404`), as a deleted one does; its ledger
rows stay (billing history is the account's), and a fork of it still names it in
`forked_from`.

Never let go: a run still in flight (queued, running, paused, awaiting review:
anything not `ok` or `error`), and a run the fixtures seeded (their ids are
documented and scripts name them).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mock_server.benchwright.store import Store

Run = Any  # `lifecycle.Run` (which imports this module)

DEFAULT_KEEP = 1000


def finished(store: Store, run: Run, keep: int | None) -> list[Run]:
    """Record that `run` finished; the runs of its owner that the rule now lets go
    (oldest finished first), already out of the owner's retained set."""
    if run.seeded or keep is None:
        return []
    retained = store.finished_runs.setdefault(run.user_id, deque())
    retained.append(run)
    out = []
    while len(retained) > keep:
        out.append(retained.popleft())
    return out


def forget(store: Store, run: Run) -> None:
    """A finished run went by another way (`DELETE /v1/runs/{id}`): it no longer counts."""
    retained = store.finished_runs.get(run.user_id)
    if retained and run.terminal and not run.seeded:
        at = next((i for i, kept in enumerate(retained) if kept is run), None)
        if at is not None:
            del retained[at]
