"""The rows the mock keeps, one dataclass per kind, each a typed table of `Store`.

A row holds what the reference says the server stores for it; what a response
computes from other state (a secret's `rules`, a member's `role`) is left to
the handler. Rows are `kw_only` so a constructor names every field it sets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# -- runs (§4.9) ------------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class Narration:
    """A run narration, cached per (run, last seq, slice) (§4.9)."""

    sentence: str
    generated_at: datetime
    slice: str  # recent | full
    first_seq: int
    last_seq: int


# -- teams (§2.5) ------------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class Team:
    id: str
    name: str
    owner_id: str
    created_at: datetime
    member_ids: list[str] = field(default_factory=list)
    readonly_ids: list[str] = field(default_factory=list)
    joined_at: dict[str, datetime] = field(default_factory=dict)  # member id -> when they accepted


@dataclass(slots=True, kw_only=True)
class TeamInvite:
    id: str
    team_id: str
    email: str
    role: str  # member | readonly
    status: str  # pending | accepted | revoked | cancelled
    invited_by: str
    created_at: datetime


# -- the vault (§9.1-§9.5) -----------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class Secret:
    id: str
    user_id: str  # the account owner: a team shares its owner's vault
    name: str
    description: str | None
    value_sha256: str
    injections: list[str]
    created_at: datetime
    updated_at: datetime


@dataclass(slots=True, kw_only=True)
class SecretRule:
    id: str
    secret_id: str
    host_pattern: str
    inject_kind: str
    inject_target: str
    created_at: datetime


@dataclass(slots=True, kw_only=True)
class CloudInference:
    """An account enrolled in Cloud inference (§9.2 `cloud_managed`)."""

    account_id: str
    enrolled_at: datetime


# -- host policy and the blocked-host log (§9.6, §9.7) ----------------------------------


@dataclass(slots=True, kw_only=True)
class HostPolicyEntry:
    id: str
    account_id: str
    host_pattern: str
    mode: str  # allow | block
    source: str  # user | auto_from_secret | starter_pack
    created_at: datetime


@dataclass(slots=True, kw_only=True)
class BlockedHost:
    account_id: str
    run_id: str
    host: str
    seen_count: int
    first_seen: datetime
    last_seen: datetime
    source: str  # proxy | home


# -- the ledger (§10.4) -------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class LedgerRow:
    id: str
    account_id: str
    kind: str
    delta_cents: int
    balance_after_cents: int
    reference_id: str | None
    reference_type: str | None
    note: str | None
    created_at: datetime


# -- settings, range names, bug reports (§11, §8.3, §12) ----------------------------------


@dataclass(slots=True, kw_only=True)
class Setting:
    value: Any
    updated_at: datetime


@dataclass(slots=True, kw_only=True)
class RangeName:
    slug: str
    name: str
    subset_id: str
    benchmark_id: str
    visibility: str
    user_id: str
    created_at: datetime


@dataclass(slots=True, kw_only=True)
class BugReport:
    id: str
    user_id: str
    description: str
    trace_id: str | None
    status: str
    created_at: datetime


# -- billing (§10) ----------------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class BillingControls:
    """§10.5's cap, auto-refill and alert; the nested blocks are patched key by key."""

    account_id: str
    monthly_cap_cents: int | None
    auto_refill: dict[str, Any]  # {enabled, amount_cents, threshold_cents}
    alert: dict[str, Any]  # {enabled, at_cap_pct}
    updated_at: datetime


@dataclass(slots=True, kw_only=True)
class TopUp:
    id: str
    account_id: str
    user_id: str
    amount_cents: int
    status: str  # pending | succeeded
    checkout_session_id: str
    stripe_payment_intent_id: str | None
    created_at: datetime


@dataclass(slots=True, kw_only=True)
class Subscription:
    user_id: str
    tier: str
    interval: str  # month | year
    status: str
    cancel_at_period_end: bool
    current_period_end: datetime


@dataclass(slots=True, kw_only=True)
class CheckoutSession:
    """A subscription Checkout (§10.9); `applied` once `verifySubscription` took it."""

    id: str
    user_id: str
    tier: str
    interval: str
    status: str  # open | complete
    created_at: datetime
    applied: bool = False


# -- local egress (§9a) ---------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class EgressEndpoint:
    """A registered machine (§9a.1); `public_key` is the raw key, base64."""

    id: str
    user_id: str
    public_key: str
    label: str | None
    mode: str  # hosts | except | all
    allow_hosts: list[str]
    created_at: datetime
    last_seen_at: datetime | None
    instance_id: str | None
    claimed_at: datetime | None
    contended_at: datetime | None = None
    contended_detail: dict[str, Any] | None = None


@dataclass(slots=True, kw_only=True)
class EgressSession:
    """One run's local-egress session (§9a.3); `mode` and `allow_hosts` are frozen at bind."""

    id: str
    run_id: str
    user_id: str
    endpoint_id: str | None
    token: str
    created_at: datetime
    mode: str | None = None
    allow_hosts: list[str] | None = None
    status: str = "pending"  # pending | attached | failed
    reason: str | None = None
    attached_at: datetime | None = None
    failed_at: datetime | None = None


# -- the registry's authored rows (§8.5-§8.9) -------------------------------------------


@dataclass(slots=True, kw_only=True)
class AuthoredBenchmark:
    """`tasks` is the canonical task list (a task's position is its index there);
    `canonical` maps a task's content to it. No visibility column (§8.5)."""

    id: str
    name: str
    description: str | None
    category: str | None
    tags: list[str]
    owner_id: str
    created_at: datetime
    updated_at: datetime
    source: str | None = None
    sources: list[Any] | None = None
    paper: str | None = None
    dataset: str | None = None
    tasks: list[dict[str, Any]] = field(default_factory=list)
    canonical: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True, kw_only=True)
class AuthoredSubset:
    """Content-addressed (§8.6); `recipe` is `{type, config}`, `retired_by` its successor (§8.9)."""

    id: str
    benchmark_id: str
    owner_id: str
    slug: str
    name: str
    description: str | None
    rolling: bool
    recipe: dict[str, Any]
    tasks: list[dict[str, Any]]
    positions: list[int]
    created_at: datetime
    updated_at: datetime
    retired_by: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class AuthoredImpl:
    """Content-addressed by its code (§8.7)."""

    id: str
    subset_id: str
    benchmark_id: str
    owner_id: str
    label: str
    code: str
    fingerprint: str
    impl_fingerprint: str
    created_at: datetime
    updated_at: datetime
    description: str | None = None
    official: bool = False


# -- operators (§12a) --------------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class OperatorTurn:
    role: str  # you | operator | note
    text: str
    t0: float  # epoch seconds
    t1: float | None  # None while `working`
    working: bool
    index: int


@dataclass(slots=True, kw_only=True)
class InboxMessage:
    """A message file in the operator's inbox; `ts` (epoch ms) is its withdrawal handle."""

    ts: int
    text: str
    sent_at: datetime
    state: str  # on_disk | handed_off_unread | read | answered
    due: datetime  # when it next moves
    reply: int | None = None  # the index of the operator turn answering it
    final: str | None = None  # that turn's full text, once begun


@dataclass(slots=True, kw_only=True)
class Operator:
    id: str
    user_id: str
    name: str
    status: str  # booting | running | stopped
    placement: str
    mode: str
    model: str
    created_at: datetime
    boot_at: datetime
    ready_at: datetime
    chat_alive: bool = True
    died_at: datetime | None = None
    death_log: str | None = None
    turns: list[OperatorTurn] = field(default_factory=list)
    inbox: list[InboxMessage] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)  # ~/chat-files/
