"""The run policy: what a contract run may send, and how much of it.

One policy for every API's suite (`RunPolicy`), read by the one target resolver
(`contracts.runner.session`). What an operation costs is read from the spec's
`x-live-safety`:

- `spends`: launching, forking, replaying or resuming runs, narration, top-ups,
  subscriptions, operator create/start/message, evaluations, joining a benchmark;
- `destroys`: token rotation, and every DELETE;
- `mutates`: writes that change state the account already has, or reach other
  people (settings, visibility, secrets, host policy, billing controls, team
  membership and invites, operator shutdown, catalog edits, bug reports).

Against a target without the mock's control surface (a staging or production
deployment), only safe reads (GET, HEAD, OPTIONS) run unless the user opts in: with
no opt-in the target is production, read-only, and `guard` refuses any other method
before it is sent, whatever a check asks. Writes that create rows of the suite's own
or change existing state need `writes`; what spends needs `spend`; what destroys
needs `destructive`. Each opt-in has three spellings:

    --allow-spend        HARNESS_CONTRACT_ALLOW_SPEND=1        make contract ALLOW=spend
    --allow-destructive  HARNESS_CONTRACT_ALLOW_DESTRUCTIVE=1  make contract ALLOW=destructive
    --allow-writes       HARNESS_CONTRACT_ALLOW_WRITES=1       make contract ALLOW=writes

(`BW_CONTRACT_*`, the names the first Benchwright suite read, are accepted too.)
A request budget (`--max-requests`, `HARNESS_CONTRACT_MAX_REQUESTS`, `make contract
MAX_REQUESTS=N`; `LIVE_DEFAULT_BUDGET` against a deployment, unlimited against a
mock) stops the suite before it exceeds it: the checks it stops are skipped and
the report names them and the budget that would run them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

# The longest `Retry-After` the suite waits out before giving up on a request.
MAX_RETRY_WAIT = 90.0
# The default request budget against a deployment: the staging quick profile of the
# largest suite (Benchwright) sends about 3,000 requests; this leaves it room.
LIVE_DEFAULT_BUDGET = 6000
# Against a deployment the stateless fuzzing sends at most this many generated cases to each
# writing operation (reads are not capped): a write quota of 120 a minute (Benchwright's default
# tier, §13) would otherwise hold a quick run for half an hour on the coverage phase's cases alone.
LIVE_WRITE_CASES = {"smoke": 4, "quick": 10, "full": 40}
ENV_PREFIXES = ("HARNESS_CONTRACT_", "BW_CONTRACT_")
OPT_INS = ("spend", "writes", "destructive")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def setting(name: str, env: Mapping[str, str] | None = None) -> str:
    """A run option from the environment: `HARNESS_CONTRACT_<name>`, else `BW_CONTRACT_<name>`."""
    source = os.environ if env is None else env
    for prefix in ENV_PREFIXES:
        value = source.get(prefix + name)
        if value:
            return value
    return ""


def enabled(name: str, env: Mapping[str, str] | None = None) -> bool:
    return setting(name, env).lower() in ("1", "true", "yes")


def costs(method: str, operation: Mapping[str, Any]) -> set[str]:
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


class NotPermitted(pytest.skip.Exception):
    """Raised before a request the run's opt-ins do not allow against a deployment: the check is skipped."""


@dataclass
class RunPolicy:
    """What this run may send: its opt-ins (meaningful against a deployment only) and its budget."""

    live: bool
    allow_spend: bool = False
    allow_writes: bool = False
    allow_destructive: bool = False
    max_requests: int | None = None
    spent: int = 0
    exhausted: bool = False  # the budget stopped a request: the report says so
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_env(cls, live: bool, env: Mapping[str, str] | None = None) -> RunPolicy:
        budget = setting("MAX_REQUESTS", env)
        return cls(
            live=live,
            allow_spend=enabled("ALLOW_SPEND", env),
            allow_writes=enabled("ALLOW_WRITES", env),
            allow_destructive=enabled("ALLOW_DESTRUCTIVE", env),
            max_requests=int(budget) if budget else (LIVE_DEFAULT_BUDGET if live else None),
        )

    @property
    def opt_ins(self) -> list[str]:
        return [name for name in OPT_INS if getattr(self, f"allow_{name}")]

    def permits(self, method: str, operation: Mapping[str, Any]) -> tuple[bool, str]:
        if not self.live:
            return True, ""
        kinds = costs(method, operation)
        if "spends" in kinds and not self.allow_spend:
            return False, "spends money on a live account (opt in with --allow-spend)"
        if "destroys" in kinds and not self.allow_destructive:
            return False, "destroys data on a live account (opt in with --allow-destructive)"
        if "mutates" in kinds and not self.allow_writes:
            return False, "changes existing state of a live account (opt in with --allow-writes)"
        if not kinds and method.upper() not in SAFE_METHODS and not self.allow_writes:
            return False, "writes to a live account (opt in with --allow-writes)"
        return True, ""

    def probes(self, method: str, documented: str) -> bool:
        """Whether a generated request whose method the operation does not document (schemathesis'
        405 probe) may be sent: always to a mock; to a deployment a safe method, or any method once
        writes and destruction are both opted in (an undocumented route could do either)."""
        method = method.upper()
        if method == documented.upper() or not self.live or method in SAFE_METHODS:
            return True
        return self.allow_writes and self.allow_destructive

    def fuzzes(self, method: str, sent: int) -> bool:
        """Whether the stateless fuzzing sends one more generated case to an operation that has had
        `sent`: always to a mock and for reads; to a deployment, writes up to `LIVE_WRITE_CASES`."""
        if not self.live or method.upper() in SAFE_METHODS:
            return True
        return sent < LIVE_WRITE_CASES.get(setting("PROFILE") or "quick", LIVE_WRITE_CASES["quick"])

    def guard(self, method: str) -> None:
        """The last line before the wire: against a deployment without an opt-in nothing but a safe
        read is sent, and nothing is deleted without `destructive`."""
        if not self.live:
            return
        method = method.upper()
        if method not in SAFE_METHODS and not (self.allow_writes or self.allow_spend):
            raise NotPermitted(f"{method} on a read-only target: no opt-in (opt in with --allow writes,spend)")
        if method == "DELETE" and not self.allow_destructive:
            raise NotPermitted("DELETE destroys data on a live account (opt in with --allow-destructive)")

    def charge(self, requests: int = 1) -> None:
        with self._lock:
            if self.max_requests is not None and self.spent + requests > self.max_requests:
                self.exhausted = True
                raise BudgetExceeded(
                    f"request budget of {self.max_requests} used up (raise it with --max-requests or MAX_REQUESTS=N)"
                )
            self.spent += requests
