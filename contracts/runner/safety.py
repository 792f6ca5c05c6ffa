"""Safety against live targets: someone's real account.

What an operation costs is read from the spec's `x-live-safety`:

- `spends`: launching, forking, replaying or resuming runs, narration, top-ups,
  subscriptions, operator create/start/message;
- `destroys`: token rotation, and every DELETE;
- `mutates`: writes that change state the account already has, or reach other
  people (settings, visibility, secrets, host policy, billing controls, team
  membership and invites, operator shutdown, catalog edits, bug reports).

Against a target without the mock's control surface, those run only when the
user opts in; reads and the creation of new private catalog rows always run:

    --allow-spend        / BW_CONTRACT_ALLOW_SPEND=1
    --allow-destructive  / BW_CONTRACT_ALLOW_DESTRUCTIVE=1
    --allow-writes       / BW_CONTRACT_ALLOW_WRITES=1

A request budget (`--max-requests` / BW_CONTRACT_MAX_REQUESTS; 2000 by default
against live targets, unlimited against a mock) stops the suite before it
exceeds it, and `Retry-After` is honoured on 429s (up to `MAX_RETRY_WAIT` s).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import pytest

MAX_RETRY_WAIT = 60.0
LIVE_DEFAULT_BUDGET = 2000


def costs(method: str, operation: dict[str, Any]) -> set[str]:
    kinds = set()
    marked = operation.get("x-live-safety")
    if marked:
        kinds.add(marked)
    if method.upper() == "DELETE":
        kinds.add("destroys")
    return kinds


class BudgetExceeded(pytest.skip.Exception):
    """Raised before a request the budget does not cover: the check is skipped,
    and the report lists it under "Not checked here" with the reason."""


@dataclass
class Policy:
    live: bool
    allow_spend: bool = False
    allow_destructive: bool = False
    allow_writes: bool = False
    max_requests: int | None = None
    spent: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def permits(self, method: str, operation: dict[str, Any]) -> tuple[bool, str]:
        if not self.live:
            return True, ""
        kinds = costs(method, operation)
        if "spends" in kinds and not self.allow_spend:
            return False, "spends money on a live account (opt in with --allow-spend)"
        if "destroys" in kinds and not self.allow_destructive:
            return False, "destroys data on a live account (opt in with --allow-destructive)"
        if "mutates" in kinds and not self.allow_writes:
            return False, "changes existing state of a live account (opt in with --allow-writes)"
        return True, ""

    def charge(self, requests: int = 1) -> None:
        with self._lock:
            if self.max_requests is not None and self.spent + requests > self.max_requests:
                raise BudgetExceeded(f"request budget of {self.max_requests} reached (raise it with --max-requests)")
            self.spent += requests
