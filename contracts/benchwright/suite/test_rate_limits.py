"""§13 rate limits: the counters move, a 429 says when to come back, and only
authenticated responses carry the `X-RateLimit-*` headers.

- `X-RateLimit-Remaining` counts the account's bucket down with each request, across
  every PAT of the account ("not per token — multiple PATs share the same bucket"),
  and `GET /v1/users/me/rate-limits` reads the same counters;
- past the quota: `429 rate_limited`, problem+json, `Retry-After` in seconds, and the
  next window serves again. The quota is provoked on the mock only, cheaply: a fresh
  account of the lowest tier of the spec's `x-tiers` and its writes-per-minute;
- a `401` (an expired token: no account to count against) carries no counters.

On a live target the suite only observes (two reads); it never provokes a 429.
"""

from __future__ import annotations

import httpx
import pytest

from contracts.benchwright.suite._support import advance, body_of, code_of, expect
from contracts.benchwright.suite.conftest import BUNDLE

OP = "GET /v1/users/me/rate-limits"
TIERS = BUNDLE["x-tiers"]
RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def _counters(response) -> tuple[int, int, int] | None:
    try:
        return tuple(int(response.headers[name]) for name in RATE_HEADERS)  # type: ignore[return-value]
    except (KeyError, ValueError):
        return None


def test_remaining_counts_down_and_agrees_with_the_counters(client, target):
    """§13: each request takes one from the account's bucket; the counters endpoint agrees."""
    first = client.get("/v1/users/me/rate-limits")
    second = client.get("/v1/users/me/rate-limits")
    before, after = _counters(first), _counters(second)
    expect(
        before is not None and after is not None,
        "ratelimit.headers",
        OP,
        "an authenticated read lacks whole-number X-RateLimit-* headers",
        second,
    )
    if after[2] == before[2]:  # the same window
        expect(
            after[1] <= before[1] - 1,
            "ratelimit.counters",
            OP,
            f"X-RateLimit-Remaining went {before[1]} -> {after[1]} across two requests of one window",
            second,
        )
    read = (body_of(second) or {}).get("read") or {}
    expect(
        read.get("limit") == after[0] and read.get("remaining") == after[1],
        "§13#7",
        OP,
        f"the counters say limit {read.get('limit')} remaining {read.get('remaining')};"
        f" the headers {after[0]} and {after[1]}",
        second,
    )
    if target.control:  # a second PAT of the same account draws on the same bucket
        other = client.with_token(target.mint(["full"], user_id=target.tokens["user_id"], label="contract bucket"))
        third = other.get("/v1/users/me/rate-limits")
        shared = _counters(third)
        expect(
            shared is not None and (shared[2] != after[2] or shared[1] <= after[1] - 1),
            "ratelimit.counters",
            OP,
            f"another PAT of the account started its own bucket ({after} -> {shared})",
            third,
        )


def test_quota_exhausted_is_429_with_retry_after(target, mock_only):
    """§13 (§14): past the writes-per-minute of the lowest tier, `429 rate_limited`
    with `Retry-After` in seconds; once that has passed the account is served again."""
    tier, band = min(TIERS["tiers"].items(), key=lambda item: item[1]["write_rpm"])
    user = target.control_post("/users", {"tier": tier}).json()
    token = target.mint(["full"], user_id=user["id"], label="contract quota")
    url = "/v1/settings/score_display_format"
    with httpx.Client(base_url=target.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=10) as http:
        answers = [http.put(url, json={"value": "percent"}) for _ in range(band["write_rpm"] + 1)]
        limited = answers[-1]
        served = [r.status_code for r in answers[:-1]]
        expect(
            all(200 <= s < 300 for s in served),
            "ratelimit.exceeded",
            f"PUT {url}",
            f"the quota of {band['write_rpm']} writes/min refused early: {served}",
            answers[-2],
        )
        retry = limited.headers.get("Retry-After", "")
        expect(
            limited.status_code == 429 and code_of(limited) == "rate_limited",
            "ratelimit.exceeded",
            f"PUT {url}",
            f"write {band['write_rpm'] + 1} of a {band['write_rpm']}/min quota answered"
            f" {limited.status_code} {code_of(limited)}",
            limited,
        )
        expect(
            retry.isdigit() and 1 <= int(retry) <= TIERS["window_seconds"],
            "§13#6",
            f"PUT {url}",
            f"the 429's Retry-After is {retry!r}, not whole seconds within the {TIERS['window_seconds']} s window",
            limited,
        )
        expect(
            limited.headers.get("content-type", "").startswith("application/problem+json")
            and limited.headers.get("X-RateLimit-Remaining") == "0",
            "ratelimit.exceeded",
            f"PUT {url}",
            "the 429 is not problem+json with X-RateLimit-Remaining: 0",
            limited,
        )
        advance(target, int(retry))
        later = http.put(url, json={"value": "percent"})
        expect(
            200 <= later.status_code < 300,
            "ratelimit.exceeded",
            f"PUT {url}",
            f"after waiting out Retry-After ({retry} s) the write answered {later.status_code}",
            later,
        )


def test_unauthenticated_answers_carry_no_counters(client, target):
    """§13: "Headers returned on every authenticated response"; a 401 counts against no account."""
    token = target.tokens.get("expired")
    if not token:
        pytest.skip("no expired token (set BW_PAT_EXPIRED)")
    response = client.with_token(token).get("/v1/runs")
    carried = [name for name in RATE_HEADERS if name in response.headers]
    expect(
        response.status_code == 401 and not carried,
        "§13#5",
        "GET /v1/runs",
        f"an expired token's {response.status_code} carries {carried}",
        response,
    )
