"""The Bench mock's typed state: one table per resource, rows as slots dataclasses.

Pure Python. Ids are sequential per table (fixed on every start: no randomness), so
seeded ids are the same after every reset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(slots=True, kw_only=True)
class User:
    id: str
    email: str
    name: str
    account_id: str
    password: str | None = None
    email_verified: bool = True
    onboarded: bool = False
    onboarding_generation: int = 1


@dataclass(slots=True, kw_only=True)
class Subscription:
    price_id: str | None
    status: str = "active"
    cancel_at_period_end: bool = False


@dataclass(slots=True, kw_only=True)
class Invoice:
    id: str
    amount_usd: float
    status: str
    plan: str
    created_at: datetime


@dataclass(slots=True, kw_only=True)
class GithubInstallation:
    """An installation of the Bench GitHub app: the mock's view of GitHub (fixture data)."""

    id: int
    account_login: str
    repositories: dict[str, list[str]]  # full_name -> branches (first is the default)
    private: bool = True


@dataclass(slots=True, kw_only=True)
class Account:
    id: str
    plan: str
    limit_override: int | None = None  # evaluations allowed this period, set by the control surface
    usage: dict[str, int] = field(default_factory=dict)  # "YYYY-MM" -> evaluations started
    model_providers: list[str] = field(default_factory=list)
    payment_method: dict[str, Any] | None = None
    subscription: Subscription | None = None
    invoices: list[Invoice] = field(default_factory=list)
    installations: list[int] = field(default_factory=list)  # GitHub installations bound to the account
    active_installation: int | None = None
    processing_acks: list[dict[str, Any]] = field(default_factory=list)
    setup_key_id: str | None = None
    trace_privacy: dict[str, dict[str, Any]] = field(default_factory=dict)  # "repo@branch" -> settings


@dataclass(slots=True, kw_only=True)
class Credential:
    """A bearer credential: an API key, an OAuth account credential or a session."""

    id: str
    token: str
    kind: str  # api_key | oauth | session
    account_id: str
    user_id: str
    name: str = ""
    created_at: datetime
    expires_at: datetime | None = None
    revoked: bool = False
    setup: bool = False
    max_evaluations_per_month: int | None = None
    org_read: bool = False
    repo_allowlist: list[str] | None = None  # None: every repository
    evaluations: dict[str, int] = field(default_factory=dict)  # "YYYY-MM" -> evaluations this key started


@dataclass(slots=True, kw_only=True)
class AuthKitToken:
    """An AuthKit token as the MCP connector obtains it (fixture data)."""

    token: str
    user_id: str
    audience: str
    expires_at: datetime


@dataclass(slots=True, kw_only=True)
class PendingLogin:
    state: str
    provider: str
    challenge: str | None
    created_at: datetime


@dataclass(slots=True, kw_only=True)
class PendingGithub:
    state: str
    account_id: str
    headless: bool
    installation_id: int | None = None  # set when GitHub's callback arrives


@dataclass(slots=True, kw_only=True)
class Component:
    id: int
    name: str
    kind: str
    role: str | None = None
    repo_full_name: str | None = None
    branch: str | None = None
    call_site_id: str | None = None
    model: str | None = None
    continuous_evaluation: bool = False
    definition: dict[str, Any] | None = None


@dataclass(slots=True, kw_only=True)
class Edge:
    id: int
    from_component_id: int
    to_component_id: int
    edge_type: str


@dataclass(slots=True, kw_only=True)
class ContextSource:
    id: str
    kind: str
    category: str
    scope: str
    text: str
    title: str | None = None
    case_id: str | None = None
    origin: str = "manual"
    updated_version: int = 0


@dataclass(slots=True, kw_only=True)
class Context:
    version: int = 0
    sources: dict[str, ContextSource] = field(default_factory=dict)
    snapshots: dict[int, list[ContextSource]] = field(default_factory=dict)  # version -> sources at it
    summary: dict[str, Any] | None = None


@dataclass(slots=True, kw_only=True)
class DatasetVersion:
    version: int
    mapping: dict[str, str]
    mode: str
    created_at: datetime


@dataclass(slots=True, kw_only=True)
class Dataset:
    id: str
    ai_system_id: int
    name: str
    filename: str
    data: bytes
    sheet: str | None
    columns: list[str]
    rows: list[dict[str, Any]]
    versions: list[DatasetVersion]
    created_at: datetime


@dataclass(slots=True, kw_only=True)
class DatasetReport:
    id: str
    dataset_id: str
    dataset_version: int
    mapping: dict[str, str]
    passed: int
    failed: int
    total: int
    rows: list[dict[str, Any]]
    created_at: datetime


@dataclass(slots=True, kw_only=True)
class ContextConnection:
    id: str
    provider: str
    base_url: str
    project: str
    since: str
    environment: str | None
    dataset_ids: list[str]
    prompt_names: list[str]
    retention_days: int | None
    status: str = "connected"
    last_synced_at: datetime | None = None
    syncs: int = 0


@dataclass(slots=True, kw_only=True)
class SystemRun:
    id: int
    status: str
    links: list[dict[str, int]]
    created_at: datetime
    outcome: str | None = None
    outcome_reason: str | None = None
    completed_at: datetime | None = None


@dataclass(slots=True, kw_only=True)
class RuntimeEvaluation:
    id: int
    environment: str
    report: dict[str, Any]
    published_at: datetime


@dataclass(slots=True, kw_only=True)
class EvaluationPlan:
    id: str
    spec: dict[str, Any]
    created_at: datetime
    reviews: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(slots=True, kw_only=True)
class RuntimeRun:
    id: str
    plan_id: str
    idempotency_key: str
    status: str
    created_at: datetime
    total_trials: int
    completed_trials: int = 0
    phase: str = "queued"
    decision: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    budget_extensions: list[dict[str, Any]] = field(default_factory=list)
    progress_seconds: float = 0.0  # simulated running time accumulated
    last_tick: datetime | None = None


@dataclass(slots=True, kw_only=True)
class RuntimeJob:
    id: str
    kind: str
    status: str
    created_at: datetime
    fix: dict[str, Any] | None = None
    pull_request_url: str | None = None
    outcome: str = "completed"  # what the job ends as when it finishes


@dataclass(slots=True, kw_only=True)
class AiSystem:
    id: int
    tenant: str
    name: str
    description: str | None
    created_at: datetime
    components: dict[int, Component] = field(default_factory=dict)
    edges: dict[int, Edge] = field(default_factory=dict)
    context: Context = field(default_factory=Context)
    findings: dict[str, dict[str, Any]] = field(default_factory=dict)
    runs: dict[int, SystemRun] = field(default_factory=dict)
    runtime_evaluations: dict[int, RuntimeEvaluation] = field(default_factory=dict)
    plans: dict[str, EvaluationPlan] = field(default_factory=dict)
    runtime_runs: dict[str, RuntimeRun] = field(default_factory=dict)
    runtime_settings: dict[str, Any] | None = None
    jobs: dict[str, RuntimeJob] = field(default_factory=dict)
    production_feedback: dict[str, dict[str, Any]] = field(default_factory=dict)  # environment -> settings
    connections: dict[str, ContextConnection] = field(default_factory=dict)


@dataclass(slots=True, kw_only=True)
class EvaluationRun:
    id: int
    tenant: str
    account_id: str
    credential_id: str | None
    kind: str  # system | repository
    ai_system_id: int | None
    repo_full_name: str | None
    status: str
    created_at: datetime
    context_version: int | None
    evidence: list[ContextSource]
    cases: list[dict[str, Any]]
    criteria: list[dict[str, Any]]
    outcome: str = "completed"
    started_at: datetime | None = None
    finished_at: datetime | None = None
    archived: bool = False
    rerun_of: int | None = None
    review: list[Any] | None = None
    request: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, kw_only=True)
class Scan:
    id: str
    tenant: str
    repo_full_name: str
    branch: str
    status: str
    call_sites: list[dict[str, Any]]
    created_at: datetime
    completed_at: datetime | None = None


@dataclass(slots=True, kw_only=True)
class RepoState:
    """Per repository branch and tenant: scans and the legacy stage results."""

    refresh: bool = False
    business_context: dict[str, Any] | None = None
    benchmark: dict[str, Any] | None = None
    baseline: dict[str, Any] | None = None
    search_optimize: dict[str, Any] | None = None


@dataclass(slots=True, kw_only=True)
class Trace:
    id: str
    tenant: str
    source: str | None
    repo_full_name: str | None
    branch: str | None
    environment: str | None
    system_name: str | None
    spans: list[dict[str, Any]]
    links: dict[str, dict[str, Any]]
    received_at: datetime


@dataclass(slots=True, kw_only=True)
class ProductionCheck:
    id: str
    tenant: str
    status: str
    trace_id: str | None
    ai_system_id: int | None
    created_at: datetime
    attempts: int = 1
    outcome: str = "completed"
    result: dict[str, Any] | None = None


@dataclass(slots=True, kw_only=True)
class Workspace:
    id: str
    name: str
    members: dict[str, str]  # user_id -> admin | member
    billing_holder: str
    invites: dict[str, dict[str, Any]] = field(default_factory=dict)  # token -> invite


@dataclass
class Store:
    """Every table of the Bench mock. `seq` hands out the next id of a table."""

    users: dict[str, User] = field(default_factory=dict)
    accounts: dict[str, Account] = field(default_factory=dict)
    credentials: dict[str, Credential] = field(default_factory=dict)  # by id
    tokens: dict[str, str] = field(default_factory=dict)  # token -> credential id
    authkit: dict[str, AuthKitToken] = field(default_factory=dict)
    logins: dict[str, PendingLogin] = field(default_factory=dict)
    login_codes: dict[str, str] = field(default_factory=dict)  # IdP code -> user id (fixture data)
    pending_verifications: dict[str, str] = field(default_factory=dict)  # pending token -> user id
    verification_codes: dict[str, str] = field(default_factory=dict)  # user id -> emailed code
    github_pending: dict[str, PendingGithub] = field(default_factory=dict)
    installations: dict[int, GithubInstallation] = field(default_factory=dict)
    systems: dict[int, AiSystem] = field(default_factory=dict)
    datasets: dict[str, Dataset] = field(default_factory=dict)
    dataset_reports: dict[str, DatasetReport] = field(default_factory=dict)
    evaluations: dict[int, EvaluationRun] = field(default_factory=dict)
    scans: dict[str, Scan] = field(default_factory=dict)
    repo_states: dict[tuple[str, str, str], RepoState] = field(default_factory=dict)  # (tenant, repo, branch)
    golden_labels: dict[str, dict[str, Any]] = field(default_factory=dict)  # golden case id -> label
    pull_requests: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # repo -> PRs
    traces: dict[str, Trace] = field(default_factory=dict)
    checks: dict[str, ProductionCheck] = field(default_factory=dict)
    workspaces: dict[str, Workspace] = field(default_factory=dict)
    checkouts: dict[str, dict[str, Any]] = field(default_factory=dict)
    repo_call_sites: dict[str, list[dict[str, Any]]] = field(
        default_factory=dict
    )  # repository -> prompts in it (fixture)
    web_pages: dict[str, dict[str, str]] = field(default_factory=dict)  # url -> {title, text, description}
    counters: dict[str, int] = field(default_factory=dict)
    config: Any = None  # the spec's data (model.config.Config), set when the store is built

    def seq(self, table: str, start: int = 1) -> int:
        value = self.counters.get(table, start - 1) + 1
        self.counters[table] = value
        return value
