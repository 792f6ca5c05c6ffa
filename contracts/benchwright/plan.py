"""`--plan` for Benchwright: what a contract run would call, without calling anything."""

from __future__ import annotations

import argparse
import os


def plan(args: argparse.Namespace) -> str:
    from contracts.benchwright.prepare import ROLE_ENVS
    from contracts.benchwright.suite._support import session_only
    from contracts.runner.safety import LIVE_DEFAULT_BUDGET, RunPolicy
    from mock_server.apis import bundle
    from mock_server.engine.spec import iter_operations

    url = os.environ.get("BW_API_URL")
    live = bool(url)
    policy = RunPolicy(
        live=live,
        allow_spend=args.allow_spend,
        allow_destructive=args.allow_destructive,
        allow_writes=args.allow_writes,
    )
    lines = [
        f"Target: {url or 'the embedded mock'}"
        + (
            " (treated as a live account: a mock's control surface is only detected when the suite runs)"
            if live
            else ""
        ),
        f"Profile: {args.profile}",
        "",
        "Stateless and stateful conformance (schemathesis), per operation:",
    ]
    runs = skips = 0
    for method, path, _, operation in iter_operations(bundle("benchwright")):
        allowed, reason = policy.permits(method, operation)
        streams = "text/event-stream" in (operation.get("responses", {}).get("200", {}).get("content") or {})
        needs_session = session_only(operation)
        if streams:
            verdict = "read incrementally by the SSE checks"
        elif not allowed:
            verdict, skips = f"SKIPPED: {reason}", skips + 1
        elif needs_session and live:
            verdict, skips = "SKIPPED: needs a browser session", skips + 1
        else:
            verdict, runs = "fuzzed (positive and negative data)", runs + 1
        lines.append(f"  {method.upper():6} {path:58} {operation['operationId']:32} {verdict}")
    lines += [
        "",
        f"{runs} operations fuzzed, {skips} skipped.",
        "Semantic checks: idempotency replay, conflict, per-caller keys and in-flight retries (§3.7), ETag races"
        " and If-Match on every x-if-match route (§3.8), pagination and clamps (§3.4), scopes (§2.2), token"
        " states, precedence and session-only routes (§2.4), rate-limit counters and 429s (§13; 429s on the mock"
        " only), SSE resume and keep-alives (§5.2), derived billing, cost and task figures (§10, §4.1, §7.1),"
        " non-disclosure of secret and token values (§9.1, §2.4), run lifecycle (§4.1.1, §4.6-§4.11; mock or"
        " --allow-spend).",
        f"Request budget: {args.max_requests or (LIVE_DEFAULT_BUDGET if live else 'unlimited')};"
        " paced under X-RateLimit-*; 429s wait out Retry-After.",
    ]
    if live:
        given = [
            f"{var} ({role}: {'set' if os.environ.get(var) else 'unset: its checks are skipped'})"
            for role, var in ROLE_ENVS.items()
        ]
        lines.append("Extra credentials that widen the scope and token checks: " + ", ".join(given) + ".")
    return "\n".join(lines)
