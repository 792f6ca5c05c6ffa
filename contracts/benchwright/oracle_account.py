"""Differential mode: the oracle's account takes the target account's read and write quotas.

A deployment's account may have ceilings an admin raised (§13: `X-RateLimit-Limit` above the tier's), and a
staging account often has. That is the account's configuration, made before the session, like its existing
data: the oracle, a fresh mock at the tier's defaults, would otherwise throttle what the target lets through
(`429` beside `200`) and report every rate-limit header as drift. So before the session, the target's
`GET /v1/users/me/rate-limits` (one safe read, with the run's credential) is read beside each oracle's, and
an oracle whose limits differ gets the target's as its account's `quota_overrides` (`PATCH
/__mock/users/{id}`). What the session then does to the counters is compared as before.
"""

from __future__ import annotations

from typing import Any

import httpx

from contracts.runner.connections import http_transport

LIMITS = "/v1/users/me/rate-limits"
QUOTAS = {"read": "read_rpm", "write": "write_rpm"}  # the counters' names -> the account's ceilings


def _limits(answer: httpx.Response) -> dict[str, int] | None:
    if answer.status_code != 200:
        return None
    body = answer.json()
    return {name: body[name]["limit"] for name in QUOTAS if isinstance(body.get(name), dict)}


def align(target_base: str, credentials: dict[str, str], oracles: list[Any]) -> None:
    """Give each oracle's account the target account's read and write limits, where they differ."""
    token = credentials.get("BW_PAT")
    if not token:
        return
    with httpx.Client(transport=http_transport(), timeout=10) as client:
        theirs = _limits(client.get(target_base.rstrip("/") + LIMITS, headers={"Authorization": f"Bearer {token}"}))
    if not theirs:
        return
    for oracle in oracles:
        own = oracle.credentials.get("BW_PAT")
        answer = oracle.client.get(LIMITS, headers={"Authorization": f"Bearer {own}"})
        mine = _limits(answer)
        if mine is not None and mine != theirs:
            overrides = {QUOTAS[name]: limit for name, limit in theirs.items()}
            oracle.client.patch(f"/__mock/users/{answer.json()['user_id']}", json={"quota_overrides": overrides})
