"""Conventions every response must keep, whatever the operation.

§1 headers, §3.2 timestamps and `_ms` integers, §3.3 money objects, §3.8 the weak
ETag shape, §3.9 problem+json with a `code` documented for the operation (or the
legacy `{"error"}` body where the spec says so), §14 its code one the reference documents for the
operation, §13 rate-limit headers on authenticated responses only. Each finding names the suite claim
of the one clause it breaks (`headers.api_version` is §1#2: contracts/benchwright/clauses.py lists each
in its clause's `via`); the ids stay ASCII, as the differential proxy relays them in a header.
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson

RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
WEAK_ETAG = re.compile(r'^W/"[^"]+:\d+"$')
RATE_HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset")
TIMESTAMP_KEYS = ("_at", "first_seen", "last_seen")


def _walk(node: Any, path: str = "$"):
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{path}[{index}]")


def body_findings(body: Any) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    for path, node in _walk(body):
        for key, value in node.items():
            if isinstance(value, str) and key.endswith(TIMESTAMP_KEYS) and not RFC3339.match(value):
                findings.append(("timestamps.rfc3339", f"{path}.{key} = {value!r} is not RFC 3339"))
            if key.endswith("_ms") and value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                findings.append(("timestamps.duration_ms", f"{path}.{key} = {value!r} is not an integer"))
        if "amount_cents" in node:
            cents, currency = node.get("amount_cents"), node.get("currency")
            if isinstance(cents, bool) or not isinstance(cents, int):
                findings.append(("money.shape", f"{path}.amount_cents = {cents!r} is not whole cents"))
            if not (isinstance(currency, str) and re.fullmatch(r"[A-Z]{3}", currency)):
                findings.append(("money.currency", f"{path}.currency = {currency!r} is not ISO-4217"))
            usd = node.get("amount_usd")
            if isinstance(usd, int | float) and isinstance(cents, int) and not isinstance(usd, bool):
                expected = math.ceil(round(usd * 100, 6)) if usd > 0 else 0
                if cents != expected:
                    findings.append(
                        (
                            "money.rounding",
                            f"{path}: amount_cents {cents} is not amount_usd {usd} rounded up ({expected})",
                        )
                    )
    return findings


def response_findings(
    operation: dict[str, Any], status: int, headers: dict[str, str], content: bytes, authenticated: bool | None
) -> list[tuple[str, str]]:
    """Findings (claim id, message) for one response of `operation` (a bundled spec operation)."""
    lower = {k.lower(): v for k, v in headers.items()}
    findings: list[tuple[str, str]] = []
    if not lower.get("x-benchwright-request-id"):
        findings.append(("headers.request_id", "X-Benchwright-Request-Id is missing"))
    if lower.get("x-benchwright-api-version") != "1":
        findings.append(
            ("headers.api_version", f"X-Benchwright-Api-Version is {lower.get('x-benchwright-api-version')!r}")
        )
    etag = lower.get("etag")
    if etag is not None and not WEAK_ETAG.match(etag):
        findings.append(("etag.weak", f'ETag {etag!r} is not W/"<id>:<epoch ms>"'))
    has_rate = [name for name in RATE_HEADERS if name in lower]
    if authenticated is True and status != 401 and len(has_rate) != len(RATE_HEADERS):
        findings.append(("ratelimit.headers", f"authenticated response lacks {set(RATE_HEADERS) - set(has_rate)}"))
    if len(has_rate) == len(RATE_HEADERS):
        values = [lower[name] for name in RATE_HEADERS]
        if not all(re.fullmatch(r"\d+", v) for v in values):
            findings.append(("ratelimit.values", f"X-RateLimit-* values are not whole numbers: {values}"))
        elif int(values[1]) > int(values[0]):
            findings.append(("ratelimit.values", f"X-RateLimit-Remaining {values[1]} exceeds the limit {values[0]}"))
    if authenticated is False and has_rate:
        findings.append(("ratelimit.anonymous", f"anonymous response carries {has_rate}"))
    media = lower.get("content-type", "").split(";")[0].strip()
    body: Any = None
    if media.endswith("json") and content:
        try:
            body = orjson.loads(content)
        except orjson.JSONDecodeError:
            body = None
    if 400 <= status < 500:
        findings.extend(_error_findings(operation, status, media, body))
    if body is not None and operation.get("x-body-conventions", True):
        findings.extend(body_findings(body))
    return findings


# An undocumented method on a documented path is no operation's response; its code is ours.
UNSUPPORTED_METHOD = {"405": ["method_not_allowed"]}


def _error_findings(operation: dict[str, Any], status: int, media: str, body: Any) -> list[tuple[str, str]]:
    documented = {**(operation.get("x-error-codes") or {}), **UNSUPPORTED_METHOD}.get(str(status), [])
    if operation.get("x-error-format") == "legacy" and str(status) not in UNSUPPORTED_METHOD:
        if not (isinstance(body, dict) and isinstance(body.get("error"), str)):
            return [("errors.problem", f'{status}: expected the legacy {{"error": ...}} body')]
        return []
    if media != "application/problem+json":
        return [("errors.problem", f"{status} served as {media or 'no content type'}, not application/problem+json")]
    if not isinstance(body, dict):
        return [("errors.problem", f"{status}: the problem body is not a JSON object")]
    missing = [k for k in ("type", "title", "status", "code", "detail", "request_id", "retryable") if k not in body]
    findings = [("errors.problem_fields", f"{status}: problem fields missing {missing}")] if missing else []
    if "status" in body and body["status"] != status:
        findings.append(("errors.status_member", f"{status}: the problem's status member says {body['status']!r}"))
    code = body.get("code")
    if code not in documented:
        findings.append(
            (
                "errors.code_documented",
                f"{status} code {code!r} is not documented for this operation (documented: {documented})",
            )
        )
    if (
        code == "scope_insufficient"
        and "required_scope" not in body
        and any("pat" in alt and alt["pat"] for alt in operation.get("security", []))
    ):
        findings.append(("scopes.enforced", "403 scope_insufficient without required_scope"))
    return findings
