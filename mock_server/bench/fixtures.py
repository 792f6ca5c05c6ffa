"""Seed data: fixed ids and credential strings, the same on every start and after every reset.

Accounts, one per plan, each with an API key and an OAuth account credential:

| account | plan | API key | OAuth credential |
|---|---|---|---|
| acct_free | free | bench_dev_key_free | bench_dev_oauth_free |
| acct_builder | builder | bench_dev_key_builder | bench_dev_oauth_builder |
| acct_growth | growth | bench_dev_key_growth | bench_dev_oauth_growth |
| acct_enterprise | enterprise | bench_dev_key_enterprise | bench_dev_oauth_enterprise |

Also: `bench_sk_dev_growth`, an API key of acct_growth in the form the tracing client (`bench_sdk.Bench`)
accepts (the spec's `sdk_key_prefix`); the session `bench_dev_session_growth`;
`bench_dev_key_growth_capped` (one evaluation a month, repositories `acme/support-bot` only);
`bench_dev_key_revoked` (revoked); AuthKit tokens
`authkit_growth_mcp` (the MCP resource audience), `authkit_growth_other_audience` and
`authkit_growth_expired`. Passwords: `<plan>-password` for `<plan>@example.test`; the IdP code
`idp-code-growth` logs in growth@example.test; `pending@example.test` (password
`pending-password`) is unverified, its emailed code is `246810`.

acct_growth owns system 123 (components 456 and 457, edge 1), whose context is at version 3,
dataset `ds_1`, and evaluation run 789 (completed, with artifacts); GitHub installation 9001
(acme/support-bot, acme/checkout) is connected to it; installation 9002 (globex/agents) is not
connected to anyone.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from .model import context as ctxmodel
from .model import evaluations
from .model.config import Config
from .store import (
    Account,
    AiSystem,
    AuthKitToken,
    Component,
    ContextSource,
    Credential,
    Dataset,
    DatasetVersion,
    Edge,
    GithubInstallation,
    ProductionCheck,
    RuntimeJob,
    Scan,
    Store,
    Subscription,
    Trace,
    User,
)

PLANS = ("free", "builder", "growth", "enterprise")
SYSTEM_ID = 123
COMPONENTS = (456, 457)
RUN_ID = 789
DATASET_CSV = (
    b"question,expected,actual\n"
    b"Can I return shoes after 10 days?,approve,approve\n"
    b"Can I return a gift card?,deny,approve\n"
)
CALL_SITES = {
    "acme/support-bot": [
        {
            "id": "app/refunds.py:12",
            "name": "refund decision",
            "path": "app/refunds.py",
            "line": 12,
            "kind": "prompt",
            "content": "Approve refunds within 30 days. Return a JSON decision.",
            "model": None,
        },
        {
            "id": "app/tools.py:40",
            "name": "order lookup",
            "path": "app/tools.py",
            "line": 40,
            "kind": "tool",
            "content": "Look up an order by id.",
            "model": None,
        },
    ],
    "acme/checkout": [
        {
            "id": "checkout/agent.py:7",
            "name": "checkout helper",
            "path": "checkout/agent.py",
            "line": 7,
            "kind": "prompt",
            "content": "Help the customer finish checkout.",
            "model": None,
        },
    ],
}


def _credential(
    store: Store, token: str, kind: str, account: str, now: datetime, ttl: int | None, **extra: Any
) -> None:
    cred = Credential(
        id=f"cred_{token.removeprefix('bench_dev_').removeprefix('bench_')}",
        token=token,
        kind=kind,
        account_id=account,
        user_id=account.replace("acct_", "usr_"),
        created_at=now,
        expires_at=now + timedelta(days=3650) if ttl else None,
        **extra,
    )
    store.credentials[cred.id] = cred
    store.tokens[token] = cred.id


def _accounts(store: Store, cfg: Config, now: datetime) -> None:
    for plan in PLANS:
        acct = Account(id=f"acct_{plan}", plan=plan)
        if plan != "free":
            acct.subscription = Subscription(price_id=cfg.plan(plan)["price_id"])
            acct.payment_method = {"brand": "visa", "last4": "4242", "exp_month": 12, "exp_year": 2030}
        store.accounts[acct.id] = acct
        store.users[f"usr_{plan}"] = User(
            id=f"usr_{plan}",
            email=f"{plan}@example.test",
            name=f"{plan.capitalize()} User",
            account_id=acct.id,
            password=f"{plan}-password",
            onboarded=plan != "free",
        )
        _credential(store, f"bench_dev_key_{plan}", "api_key", acct.id, now, None, name=f"{plan} key")
        _credential(store, f"bench_dev_oauth_{plan}", "oauth", acct.id, now, cfg.oauth_ttl, name="mcp")
    _credential(store, "bench_dev_session_growth", "session", "acct_growth", now, cfg.session_ttl)
    _credential(store, "bench_sk_dev_growth", "api_key", "acct_growth", now, None, name="tracing key")
    _credential(
        store,
        "bench_dev_key_growth_capped",
        "api_key",
        "acct_growth",
        now,
        None,
        name="capped key",
        max_evaluations_per_month=1,
        repo_allowlist=["acme/support-bot"],
    )
    _credential(store, "bench_dev_key_revoked", "api_key", "acct_growth", now, None, name="old key", revoked=True)
    store.accounts["acct_pending"] = Account(id="acct_pending", plan="free")
    store.users["usr_pending"] = User(
        id="usr_pending",
        email="pending@example.test",
        name="Pending User",
        account_id="acct_pending",
        password="pending-password",
        email_verified=False,
    )
    store.verification_codes["usr_pending"] = "246810"
    store.login_codes["idp-code-growth"] = "usr_growth"
    for token, audience, expires in (
        ("authkit_growth_mcp", cfg.audience, now + timedelta(days=3650)),
        ("authkit_growth_other_audience", "https://example.test/not-bench", now + timedelta(days=3650)),
        ("authkit_growth_expired", cfg.audience, now - timedelta(seconds=1)),
    ):
        store.authkit[token] = AuthKitToken(token=token, user_id="usr_growth", audience=audience, expires_at=expires)


def _github(store: Store, now: datetime) -> None:
    store.installations[9001] = GithubInstallation(
        id=9001, account_login="acme", repositories={"acme/support-bot": ["main", "dev"], "acme/checkout": ["main"]}
    )
    store.installations[9002] = GithubInstallation(
        id=9002, account_login="globex", repositories={"globex/agents": ["main"]}
    )
    growth = store.accounts["acct_growth"]
    growth.installations, growth.active_installation = [9001], 9001
    store.repo_call_sites = {k: [dict(c) for c in v] for k, v in CALL_SITES.items()}
    store.scans["scan_seed"] = Scan(
        id="scan_seed",
        tenant="acct_growth",
        repo_full_name="acme/support-bot",
        branch="main",
        status="completed",
        call_sites=[dict(c) for c in CALL_SITES["acme/support-bot"]],
        created_at=now,
        completed_at=now,
    )


def _system(store: Store, now: datetime) -> AiSystem:
    s = AiSystem(
        id=SYSTEM_ID,
        tenant="acct_growth",
        name="Support assistant",
        description="Answers refund questions.",
        created_at=now,
    )
    s.context.snapshots[0] = []
    s.components[456] = Component(
        id=456,
        name="refund decision",
        kind="prompt",
        role="decider",
        repo_full_name="acme/support-bot",
        branch="main",
        call_site_id="app/refunds.py:12",
    )
    s.components[457] = Component(
        id=457,
        name="order lookup",
        kind="tool",
        repo_full_name="acme/support-bot",
        branch="main",
        call_site_id="app/tools.py:40",
    )
    s.edges[1] = Edge(id=1, from_component_id=456, to_component_id=457, edge_type="calls")
    sources = [
        ContextSource(
            id="manual-purpose",
            kind="user",
            category="purpose",
            scope="system",
            text="Answers customer refund questions for the shop.",
            title="Purpose",
        ),
        ContextSource(
            id="manual-library-refund-12-days",
            kind="user",
            category="examples_feedback",
            scope="case",
            case_id="manual-library-refund-12-days",
            title="Refund within 30 days",
            text=json.dumps(
                {
                    "type": "case",
                    "component_id": 456,
                    "enabled": True,
                    "input": "Can I refund an order delivered 12 days ago?",
                    "expected": {"decision": "approve"},
                    "resolved_prompt": "Approve refunds within 30 days. Return a JSON decision.",
                }
            ),
        ),
        ContextSource(
            id="manual-library-polite",
            kind="user",
            category="rules_constraints",
            scope="system",
            title="Polite refusals",
            text=json.dumps(
                {
                    "type": "criterion",
                    "component_id": 456,
                    "enabled": True,
                    "statement": "Refusals are polite.",
                    "pass_condition": "Apologises and explains.",
                    "fail_condition": "Blunt refusal.",
                }
            ),
        ),
    ]
    for src in sources:  # three writes: version 3
        ctxmodel.add_sources(s, [src])
    s.jobs["job_failed"] = RuntimeJob(
        id="job_failed", kind="hosted_run", status="failed", created_at=now, outcome="failed"
    )
    s.jobs["job_done"] = RuntimeJob(
        id="job_done",
        kind="hosted_run",
        status="completed",
        created_at=now,
        fix={"summary": "Check the delivery date before approving.", "files": ["app/refunds.py"]},
    )
    s.runtime_settings = {
        "repository": "acme/support-bot",
        "branch": "main",
        "enabled": False,
        "daily_limit": 5,
        "config": {},
    }
    store.systems[s.id] = s
    return s


def _dataset_and_run(store: Store, s: AiSystem, now: datetime) -> None:
    store.datasets["ds_1"] = Dataset(
        id="ds_1",
        ai_system_id=s.id,
        name="Refund questions",
        filename="cases.csv",
        data=DATASET_CSV,
        sheet=None,
        columns=["question", "expected", "actual"],
        rows=[
            {"question": "Can I return shoes after 10 days?", "expected": "approve", "actual": "approve"},
            {"question": "Can I return a gift card?", "expected": "deny", "actual": "approve"},
        ],
        versions=[
            DatasetVersion(
                version=1,
                mapping={"input": "question", "expected": "expected", "actual": "actual"},
                mode="recorded_outputs",
                created_at=now,
            )
        ],
        created_at=now,
    )
    store.counters["dataset"] = 1
    run = evaluations.new_run(
        store,
        tenant="acct_growth",
        account_id="acct_growth",
        credential_id="cred_key_growth",
        kind="system",
        system=s,
        repo_full_name=None,
        now=now - timedelta(hours=1),
        request={"ai_system_id": s.id},
    )
    del store.evaluations[run.id]
    run.id = RUN_ID
    store.evaluations[RUN_ID] = run
    store.counters["evaluation"] = 999
    evaluations.finish(store, run, "completed", now - timedelta(minutes=59))


def _traces(store: Store, now: datetime) -> None:
    store.traces["tr_seed"] = Trace(
        id="tr_seed",
        tenant="acct_growth",
        source="sdk",
        repo_full_name="acme/support-bot",
        branch="main",
        environment="production",
        system_name="Support assistant",
        received_at=now,
        links={},
        spans=[
            {
                "span_id": "sp_1",
                "name": "refund decision",
                "kind": "LLM",
                "status": "ok",
                "input": "Can I refund?",
                "output": "Yes, approved within 30 days.",
            }
        ],
    )
    store.checks["chk_failed"] = ProductionCheck(
        id="chk_failed",
        tenant="acct_growth",
        status="failed",
        trace_id="tr_seed",
        ai_system_id=SYSTEM_ID,
        created_at=now,
        outcome="failed",
    )
    store.web_pages["https://example.com/refunds"] = {
        "title": "Refund policy",
        "description": "How refunds work.",
        "text": "Refunds are accepted within 30 days of delivery with a receipt.",
    }


def seed(cfg: Config, now: datetime) -> Store:
    """A fresh store with every fixture, for the clock's current time."""
    store = Store(config=cfg)
    _accounts(store, cfg, now)
    _github(store, now)
    s = _system(store, now)
    _dataset_and_run(store, s, now)
    _traces(store, now)
    store.counters.setdefault("system", 199)
    store.counters.setdefault("component", 499)
    return store


__all__ = ["SYSTEM_ID", "seed"]
