"""Safety against live targets: someone's real account.

What an operation costs is read from the spec: `x-live-safety: spends` (launching,
forking or replaying runs, top-ups, subscriptions, operator create/start/message)
or `destroys` (token rotation); every DELETE destroys. Against a target without
the mock's control surface, such operations run only when the user opts in:

    --allow-spend        / BW_CONTRACT_ALLOW_SPEND=1
    --allow-destructive  / BW_CONTRACT_ALLOW_DESTRUCTIVE=1

A request budget (`--max-requests` / BW_CONTRACT_MAX_REQUESTS; 2000 by default
against live targets, unlimited against a mock) stops the suite before it
exceeds it, and `Retry-After` is honoured on 429s (up to `MAX_RETRY_WAIT` s).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

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


class BudgetExceeded(RuntimeError):
    pass


@dataclass
class Policy:
    live: bool
    allow_spend: bool = False
    allow_destructive: bool = False
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
        return True, ""

    def charge(self, requests: int = 1) -> None:
        with self._lock:
            if self.max_requests is not None and self.spent + requests > self.max_requests:
                raise BudgetExceeded(f"request budget of {self.max_requests} reached")
            self.spent += requests
