"""Seed fixtures: what a fresh mock (and `POST /__mock/reset`) starts with.

A default user (growth tier, $100 balance, an OpenRouter secret with a rule)
owning finished runs in every interesting state: ok (public, with trials),
unlisted, error, killed, paused, awaiting review, halted by a limit, and a fork
chain over an `inspect` run, each with its events, artifacts (including an HTML
report) and task results. A second user owns a private run, to show what
another account cannot see.

Ids are fixed so docs and scripts can name them.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from mock_server.benchwright.model import accounts
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.model.rows import Secret, SecretRule
from mock_server.benchwright.model.runs import new_run
from mock_server.benchwright.resources.billing import seed_billing
from mock_server.benchwright.resources.host_policy import seed_blocked_hosts
from mock_server.benchwright.resources.operators import seed_operators
from mock_server.state.clock import DEFAULT_EPOCH

DEFAULT_USER_ID = "5b0c1e52-7f0a-4d7e-9a51-0d8f2b1c3a44"
OTHER_USER_ID = "9e1d2c3b-4a5f-4e6d-8c7b-1a2b3c4d5e6f"

RUN_IDS = {
    "ok_public": "608721fe-54f1-43e3-ab9b-7e0269783f70",
    "ok_unlisted": "1f0e2d3c-4b5a-4697-8877-665544332211",
    "error": "2a1b0c9d-8e7f-4a6b-9c5d-4e3f2a1b0c9d",
    "killed": "3b2c1d0e-9f8a-4b7c-8d6e-5f4a3b2c1d0e",
    "paused": "4c3d2e1f-0a9b-4c8d-9e7f-6a5b4c3d2e1f",
    "review": "5d4e3f2a-1b0c-4d9e-8f7a-7b6c5d4e3f2a",
    "limit": "6e5f4a3b-2c1d-4e0f-9a8b-8c7d6e5f4a3b",
    "fork_root": "7f6a5b4c-3d2e-4f1a-8b9c-9d8e7f6a5b4c",
    "fork_child": "8a7b6c5d-4e3f-4a2b-9c0d-0e9f8a7b6c5d",
    "fork_grandchild": "9b8c7d6e-5f4a-4b3c-8d1e-1f0a9b8c7d6e",
    "other_private": "0c9d8e7f-6a5b-4c4d-9e2f-2a1b0c9d8e7f",
}


# The PAT `make serve` prints: full scope, the default user, the same on every
# start and re-created by every reset, so a script keeps working across both.
READY_TOKEN = "bw_live_pat_" + "5eed" * 10
READY_TOKEN_ID = "5eed5eed-0000-4000-8000-000000000001"


# Beside it, `make serve` prints narrower PATs of the same user, as a staging deployment's
# operator would give a contract run (§2.4: PATs are minted from a browser session only):
# one holding every read scope, one holding every other scope, and one that has expired.
READY_ROLE_TOKENS = {
    "BW_PAT_READONLY": ("bw_live_pat_" + "5eed" * 9 + "0001", "5eed5eed-0000-4000-8000-000000000002"),
    "BW_PAT_WRITEONLY": ("bw_live_pat_" + "5eed" * 9 + "0002", "5eed5eed-0000-4000-8000-000000000003"),
    "BW_PAT_EXPIRED": ("bw_live_pat_" + "5eed" * 9 + "0003", "5eed5eed-0000-4000-8000-000000000004"),
}


def seed_ready_token(store, secret: str, scopes: list[str]) -> None:
    """The printed PATs: `secret` with every scope, and the role tokens of `READY_ROLE_TOKENS`."""
    store.add_token(store.default_user_id, scopes, label="make serve", secret=secret, token_id=READY_TOKEN_ID)
    reads = [scope for scope in scopes if scope.endswith(":read")]
    roles = {
        "BW_PAT_READONLY": (reads, None),
        "BW_PAT_WRITEONLY": ([scope for scope in scopes if scope not in reads], None),
        "BW_PAT_EXPIRED": (scopes, store.clock.now() - timedelta(days=1)),
    }
    for variable, (held, expires_at) in roles.items():
        role_secret, token_id = READY_ROLE_TOKENS[variable]
        label = f"make serve ({variable.removeprefix('BW_PAT_').lower()})"
        store.add_token(store.default_user_id, held, label, expires_at, secret=role_secret, token_id=token_id)


def _stable(text: str) -> int:
    """A number from a name that is the same in every process (`hash()` is salted)."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16)


def _secret(store, user_id: str, name: str, host: str) -> None:
    secret_id = f"{user_id[:8]}-0000-4000-8000-{_stable(name) % 10**12:012d}"
    now = store.clock.now()
    store.secrets[secret_id] = Secret(
        id=secret_id,
        user_id=user_id,
        name=name,
        description="seeded provider key",
        value_sha256="0" * 64,
        injections=[],
        created_at=now,
        updated_at=now,
    )
    rule_id = f"{user_id[:8]}-1111-4000-8000-{_stable(host) % 10**12:012d}"
    store.secret_rules[rule_id] = SecretRule(
        id=rule_id,
        secret_id=secret_id,
        host_pattern=host,
        inject_kind="bearer",
        inject_target="Authorization",
        created_at=now,
    )


def _finished(mock: Any, user, key: str, hours_ago: float, **kw: Any):

    created = DEFAULT_EPOCH - timedelta(hours=hours_ago)
    defaults: dict[str, Any] = {
        "mode": "request",
        "request": "Run MMLU Abstract Algebra on qwen/qwen3-32b via OpenRouter",
        "model": {"identifier": "qwen/qwen3-32b", "source": "openrouter", "provenance": "specified"},
        "harness": "benchwright",
        "backend": "sandbox0",
        "benchmark_name": "MMLU",
        "limits": {},
        "tasks": 6,
        "indices": "0-5",
    }
    defaults.update(kw)
    run = new_run(mock.store, user, created_at=created, **defaults)
    pipeline.remove_run(mock.store, run)
    run.id = RUN_IDS[key]
    run.sandbox_id = "sbx_" + run.id.replace("-", "")[:12]
    run.seeded = True  # retention keeps it (`model/retention.py`)
    run.course = run.id
    pipeline.plan_run(run, run.created_at, run.task_count)  # scores derive from the (fixed) id
    pipeline.add_run(mock.store, run)
    return run


def _play(mock: Any, run, until=None) -> None:
    """Apply the run's plan up to `until` (default: to its end)."""
    pipeline.advance(mock, run, until or (run.created_at + timedelta(days=1)))


def _play_until_type(mock: Any, run, type_: str, nth: int = 1) -> None:
    seen = 0
    while run.plan:
        step = run.plan[0]
        if step.type == type_:
            seen += 1
            if seen == nth:
                pipeline.advance(mock, run, step.at)
                return
        pipeline.advance(mock, run, step.at)


def seed(store, mock: Any) -> None:
    user = accounts.create_user(
        store, email="dev@example.test", tier="growth", balance_cents=10_000, user_id=DEFAULT_USER_ID
    )
    store.default_user_id = user.id
    other = accounts.create_user(
        store, email="other@example.test", tier="entry", balance_cents=5_000, user_id=OTHER_USER_ID
    )
    _secret(store, user.id, "OPENROUTER_API_KEY", "openrouter.ai")
    _secret(store, other.id, "OPENROUTER_API_KEY", "openrouter.ai")

    ok = _finished(mock, user, "ok_public", 30, trials=3, aggregator="mean")
    _play(mock, ok)
    ok.visibility = "public"

    unlisted = _finished(
        mock, user, "ok_unlisted", 28, benchmark_name="GSM8K", request="Run GSM8K on qwen/qwen3-32b via OpenRouter"
    )
    _play(mock, unlisted)
    unlisted.visibility = "unlisted"

    failed = _finished(mock, user, "error", 26, outcome="error")
    _play(mock, failed)

    killed = _finished(mock, user, "killed", 24)
    _play_until_type(mock, killed, "PhaseStarted", nth=3)
    pipeline.stop(
        mock,
        killed,
        "operator_kill by dev@example.test: superseded by build 8813",
        at=killed.updated_at,
        error="halted by operator",
    )

    limited = _finished(mock, user, "limit", 22, limits={"run": {"cost": 0.03}})
    _play(mock, limited)

    paused = _finished(mock, user, "paused", 2)
    _play_until_type(mock, paused, "PhaseCompleted", nth=2)
    paused.halted = True
    paused.halt_reason = "operator_pause: dev@example.test"
    paused.held = True
    pipeline.emit(
        store,
        paused,
        "PhasePaused",
        {"phase": paused.current_phase, "reason": "operator_pause", "detail": paused.halt_reason},
        at=paused.updated_at,
    )

    review = _finished(mock, user, "review", 1)
    _play_until_type(mock, review, "PhaseCompleted", nth=4)
    review.halted = True
    review.halt_reason = "agent_review: Expected answers look one-indexed; shift them?"
    review.held = True
    pipeline.emit(
        store,
        review,
        "HumanReviewRequested",
        {"phase": review.current_phase, "reason": "ambiguous", "question": "Expected answers look one-indexed; shift?"},
        at=review.updated_at,
    )

    root = _finished(
        mock, user, "fork_root", 20, harness="inspect", harness_config={"task": "inspect_evals/mmlu_0_shot"}
    )
    _play(mock, root)
    child = _finished(
        mock,
        user,
        "fork_child",
        18,
        harness="inspect",
        mode="fork",
        forked_from=root.id,
        fork_description="Stricter scoring: normalize whitespace",
    )
    pipeline.plan_run(child, child.created_at, child.task_count, ["atomize", "materialize", "report"])
    _play(mock, child)
    grandchild = _finished(
        mock,
        user,
        "fork_grandchild",
        16,
        harness="inspect",
        mode="fork",
        forked_from=child.id,
        fork_description="Retry materialize with more tokens",
    )
    pipeline.plan_run(grandchild, grandchild.created_at, grandchild.task_count, ["materialize", "report"])
    _play(mock, grandchild)

    private = _finished(mock, other, "other_private", 12)
    _play(mock, private)

    # an older secret-bearing event, to prove the events API filters it (§15 note); after
    # RunLaunched, which §15 has the RunLauncher produce at seq 0
    ok.events.insert(
        1,
        {
            "seq": -1,
            "type": "ModelProxyCredentials",
            "created_at": ok.created_at,
            "data": {"ui_url": "https://proxy.internal/ui", "ui_username": "admin", "ui_password": "hunter2"},
        },
    )
    for index, event in enumerate(ok.events):
        event["seq"] = index

    seed_blocked_hosts(store, RUN_IDS["ok_public"])
    seed_billing(store)
    seed_operators(store, DEFAULT_USER_ID, OTHER_USER_ID)
