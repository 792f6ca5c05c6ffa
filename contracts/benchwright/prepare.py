"""What the Benchwright suite makes for itself on a mock (embedded or served by URL).

Through the control surface: a fresh account of the highest tier with quotas no check
reaches, a full-scope PAT (the run's `BW_PAT`), a read-only one and an expired one, and
an OpenRouter secret with a rule so launches can run. A PAT given with the URL is never
used on a mock, so the revocation and rotation checks cannot spend it.

On a deployment the same roles come from `BW_PAT_READONLY` (every read scope, no write
scope), `BW_PAT_WRITEONLY` (every other scope) and `BW_PAT_EXPIRED` (`ROLE_ENVS`):
Benchwright mints PATs from a browser session only (§2.4), which a contract run cannot
hold.
"""

from __future__ import annotations

from typing import Any

import httpx

ROLE_ENVS = {"readonly": "BW_PAT_READONLY", "writeonly": "BW_PAT_WRITEONLY", "expired": "BW_PAT_EXPIRED"}
QUOTA_FREE = {"read_rpm": 10**9, "write_rpm": 10**9, "max_run_concurrency": 10**6}
READ_SCOPES = ["runs:read", "artifacts:read", "secrets:read", "billing:read", "registry:read", "operators:read"]


def prepare(session: Any) -> None:
    user = session.control_post(
        "/users", {"tier": "scale", "balance_cents": 10_000_000, "quota_overrides": QUOTA_FREE}
    ).json()
    session.tokens["user_id"] = user["id"]
    session.env["BW_PAT"] = session.mint(["full"], user_id=user["id"], label="contract suite")
    session.tokens["readonly"] = session.mint(READ_SCOPES, user_id=user["id"], label="contract suite (read-only)")
    session.tokens["expired"] = session.mint(["full"], user_id=user["id"], expires_at="2000-01-01")
    secret = {
        "name": "OPENROUTER_API_KEY",
        "value": "sk-or-contract-suite",
        "rules": [{"host_pattern": "openrouter.ai", "inject_kind": "bearer", "inject_target": "Authorization"}],
    }
    headers = {"Authorization": f"Bearer {session.env['BW_PAT']}"}
    httpx.post(f"{session.base_url}/v1/secrets", json=secret, timeout=10, headers=headers)
