"""The mock's in-memory state: accounts and credentials, and one typed table per
row kind (`model/rows.py`). Everything lives here so `POST /__mock/reset` is a
single swap, and nothing lives in Starlette's lifespan (schemathesis' ASGI
transport may run start-up per request).
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from mock_server.benchwright.model.rows import (
    AuthoredBenchmark,
    AuthoredImpl,
    AuthoredSubset,
    BillingControls,
    BlockedHost,
    BugReport,
    CheckoutSession,
    CloudInference,
    EgressEndpoint,
    EgressSession,
    HostPolicyEntry,
    LedgerRow,
    Narration,
    Operator,
    RangeName,
    Secret,
    SecretRule,
    Setting,
    Subscription,
    Team,
    TeamInvite,
    TopUp,
)
from mock_server.benchwright.model.run_index import RunIndex
from mock_server.state.clock import SimClock
from mock_server.state.ids import hex_token, urlsafe_token, uuid4

if TYPE_CHECKING:
    from mock_server.benchwright.model.lifecycle import Run

TOKEN_PREFIX = "bw_live_pat_"


def new_id() -> str:
    return uuid4()


@lru_cache(maxsize=4096)  # every request hashes its bearer token; most send the same few
def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class User:
    id: str
    email: str
    tier: str = "growth"
    admin: bool = False
    team_id: str | None = None
    created_at: datetime | None = None
    # admin-raised ceilings (§13: "Admin can raise per-account concurrency and read ceilings")
    quota_overrides: dict[str, int] = field(default_factory=dict)

    @property
    def role(self) -> str:
        return "admin" if self.admin else "user"


@dataclass
class Token:
    id: str
    user_id: str
    label: str
    scopes: list[str]
    hash: str
    prefix: str
    last4: str
    created_at: datetime
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None
    expires_at: datetime | None = None
    spend_cap_cents: int | None = None
    cap_period: str | None = None

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and now >= self.expires_at


def mint_secret() -> str:
    return TOKEN_PREFIX + hex_token(40)


@dataclass(slots=True)
class Store:
    clock: SimClock
    users: dict[str, User] = field(default_factory=dict)
    tokens: dict[str, Token] = field(default_factory=dict)
    token_ids_by_hash: dict[str, str] = field(default_factory=dict)
    sessions: dict[str, str] = field(default_factory=dict)
    default_user_id: str = ""
    # runs (§4) and the scheduler's indexes over them (`model/lifecycle.py`)
    runs: dict[str, Run] = field(default_factory=dict)
    runs_made: int = 0  # runs made since the last reset: each run's course is drawn from its place (`Run.course`)
    run_index: RunIndex = field(default_factory=RunIndex)  # each owner's runs in listing order
    finished_runs: dict[str, deque[Run]] = field(default_factory=dict)  # by owner, in finish order (`retention.py`)
    runs_active: dict[str, Run] = field(default_factory=dict)
    runs_active_by_user: dict[str, set[str]] = field(default_factory=dict)
    schedule: list[tuple[datetime, str, str]] = field(default_factory=list)  # a heap of (next step, course, run id)
    run_waker: Any = None  # reschedules a run whose hold is lifted (`lifecycle.add_run`)
    narrations: dict[tuple[str, int, str], Narration] = field(default_factory=dict)  # (run, last seq, slice)
    # accounts and money (§2.5, §10)
    teams: dict[str, Team] = field(default_factory=dict)
    team_invites: dict[str, TeamInvite] = field(default_factory=dict)
    ledger: dict[str, LedgerRow] = field(default_factory=dict)
    # account id -> the sum of its ledger rows, kept by `ledger.post` (the only writer of rows)
    balances: dict[str, int] = field(default_factory=dict)
    billing_controls: dict[str, BillingControls] = field(default_factory=dict)  # by account id
    topups: dict[str, TopUp] = field(default_factory=dict)
    subscriptions: dict[str, Subscription] = field(default_factory=dict)  # by user id
    checkout_sessions: dict[str, CheckoutSession] = field(default_factory=dict)
    settings: dict[tuple[str, str], Setting] = field(default_factory=dict)  # (account owner id, key)
    # the vault and host policy (§9)
    secrets: dict[str, Secret] = field(default_factory=dict)
    secret_rules: dict[str, SecretRule] = field(default_factory=dict)
    cloud_inference: dict[str, CloudInference] = field(default_factory=dict)  # by account id
    host_policy: dict[str, HostPolicyEntry] = field(default_factory=dict)
    host_policy_default: dict[str, str] = field(default_factory=dict)  # account id -> allow | block
    blocked_hosts: dict[tuple[str, str, str], BlockedHost] = field(default_factory=dict)  # (run, host, source)
    # local egress (§9a)
    egress_endpoints: dict[str, EgressEndpoint] = field(default_factory=dict)
    egress_sessions: dict[str, EgressSession] = field(default_factory=dict)
    # the registry's authored rows (§8.5-§8.9) and per-user range names (§8.3)
    benchmarks: dict[str, AuthoredBenchmark] = field(default_factory=dict)
    subsets: dict[str, AuthoredSubset] = field(default_factory=dict)
    impls: dict[str, AuthoredImpl] = field(default_factory=dict)
    range_names: dict[tuple[str, str, str], RangeName] = field(default_factory=dict)  # (user, benchmark, slug)
    # operators (§12a) and bug reports (§12)
    operators: dict[str, Operator] = field(default_factory=dict)
    bug_reports: dict[str, BugReport] = field(default_factory=dict)

    # -- accounts -------------------------------------------------------
    def add_user(self, email: str | None = None, **fields: Any) -> User:
        user_id = fields.pop("id", None) or new_id()
        user = User(
            id=user_id, email=email or f"user-{user_id[:8]}@example.test", created_at=self.clock.now(), **fields
        )
        self.users[user.id] = user
        return user

    def add_token(
        self,
        user_id: str,
        scopes: list[str],
        label: str = "",
        expires_at: datetime | None = None,
        *,
        secret: str | None = None,
        token_id: str | None = None,
        **fields: Any,
    ) -> tuple[Token, str]:
        """Create a token; returns it and its secret (shown once, §2.1). Fixtures
        pass a fixed `secret` and `token_id`."""
        secret = secret or mint_secret()
        token = Token(
            id=token_id or new_id(),
            user_id=user_id,
            label=label,
            scopes=list(scopes),
            hash=sha256(secret),
            prefix=secret[: len(TOKEN_PREFIX) + 4],
            last4=secret[-4:],
            created_at=self.clock.now(),
            expires_at=expires_at,
            **fields,
        )
        self.tokens[token.id] = token
        self.token_ids_by_hash[token.hash] = token.id
        return token, secret

    def rotate_token(self, token: Token) -> str:
        """Overwrite the stored hash in place (§2.1): the old value stops working."""
        secret = mint_secret()
        self.token_ids_by_hash.pop(token.hash, None)
        token.hash = sha256(secret)
        token.prefix = secret[: len(TOKEN_PREFIX) + 4]
        token.last4 = secret[-4:]
        self.token_ids_by_hash[token.hash] = token.id
        return secret

    def token_for_secret(self, secret: str) -> Token | None:
        token_id = self.token_ids_by_hash.get(sha256(secret))
        return self.tokens.get(token_id) if token_id else None

    def add_session(self, user_id: str) -> str:
        cookie = "sess_" + urlsafe_token(24)
        self.sessions[cookie] = user_id
        return cookie

    def account_of(self, user: User) -> User:
        """The wallet and quota owner: the team owner for members (§2.5, §13)."""
        if user.team_id:
            team = self.teams.get(user.team_id)
            if team is not None:
                owner = self.users.get(team.owner_id)
                if owner is not None:
                    return owner
        return user
