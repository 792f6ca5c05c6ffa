"""Benchwright's spec conventions, expanded into every operation at load time.

The table in `spec/benchwright/README.md` ("Conventions the loader expands"):
every operation gets the standard response headers (request id, API version,
rate-limit counters), mutating ones `Idempotency-Key` and `Idempotent-Replayed`,
routes marked `x-if-match` the `If-Match` parameter, and every operation the
shared error responses (401, 429, and 400/403/404/409/412 where they apply) as
problem+json whose `code` enum is exactly the documented set (§3.9).
"""

from __future__ import annotations

import copy
from typing import Any

from ..engine.spec import METHODS, MUTATING, shadowed

_REASONS = {
    "400": "Bad request",
    "401": "Unauthenticated",
    "402": "Payment required",
    "403": "Forbidden",
    "404": "Not found",
    "409": "Conflict",
    "405": "Method not allowed",
    "412": "Precondition failed",
    "413": "Payload too large",
    "415": "Unsupported media type",
    "429": "Too many requests",
    "500": "Server error",
    "501": "Not implemented on this deploy",
    "502": "Upstream failure",
    "503": "Temporarily unavailable",
}


def _header_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/headers/{name}"}


def _scoped(operation: dict[str, Any]) -> bool:
    if any(alt.get("pat") for alt in operation.get("security") or []):
        return True
    return _session_only(operation)


def _session_only(operation: dict[str, Any]) -> bool:
    alternatives = operation.get("security") or []
    return bool(alternatives) and all(set(alt) == {"session"} for alt in alternatives)


def _shared_errors(method: str, path_item: dict[str, Any], operation: dict[str, Any]) -> dict[str, list[str]]:
    params = list(path_item.get("parameters") or []) + list(operation.get("parameters") or [])
    shared: dict[str, list[str]] = {
        "401": ["auth_required", "token_expired"],
        "429": ["rate_limited"],
    }
    if params or "requestBody" in operation or method in MUTATING:
        shared["400"] = ["invalid_argument"]
    if "requestBody" in operation:
        shared["413"] = ["payload_too_large"]
        shared["415"] = ["unsupported_media_type"]
    if _scoped(operation):
        shared["403"] = ["scope_insufficient"]
    if any(_param_in(p) == "path" for p in params):
        shared["404"] = ["not_found"]
    if method in MUTATING:
        shared["409"] = ["idempotency_conflict"]
    if operation.get("x-if-match") == "enforced":
        shared["412"] = ["precondition_failed"]
    return shared


def _param_in(param: dict[str, Any]) -> str | None:
    return param.get("in") if "$ref" not in param else _REF_PARAM_IN.get(param["$ref"])


_REF_PARAM_IN: dict[str, str] = {}


def error_codes(operation: dict[str, Any]) -> dict[str, list[str]]:
    """Documented error codes by status, after expansion (read from the bundle)."""
    return operation.get("x-error-codes", {})


# Structured fields a code always carries (§2.2, §2.4, §4.7).
_CODE_FIELDS = {
    "scope_insufficient": ["required_scope"],
    "token_expired": ["expired_at"],
    "delete_blocked": ["id", "deleted", "halt_reason", "sandboxes_killed"],
}


def _error_response(status: str, codes: list[str], legacy: bool, session_only: bool = False) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if status == "429":
        headers["Retry-After"] = _header_ref("RetryAfter")
    if status == "412" and "precondition_failed" in codes:
        headers["ETag"] = {
            "description": "On `precondition_failed`, the resource's current ETag (§3.8).",
            "schema": {"$ref": "#/components/schemas/WeakETag"},
        }
    if legacy:
        content = {"application/json": {"schema": {"$ref": "#/components/schemas/LegacyError"}}}
        description = f"{_REASONS.get(status, 'Error')} (legacy body, §3.9): {', '.join(codes)}"
    else:
        parts: list[dict[str, Any]] = [
            {"$ref": "#/components/schemas/Problem"},
            {"properties": {"code": {"enum": sorted(set(codes))}}},
        ]
        for code in sorted(set(codes)):
            fields = _CODE_FIELDS.get(code)
            if fields and not (code == "scope_insufficient" and session_only):
                then = {"required": fields, "properties": {name: {} for name in fields}}
                parts.append({"if": {"properties": {"code": {"const": code}}}, "then": then})
        schema = {"allOf": parts}
        content = {"application/problem+json": {"schema": schema}}
        description = f"{_REASONS.get(status, 'Error')}: {', '.join(sorted(set(codes)))}"
    response: dict[str, Any] = {"description": description, "content": content}
    if headers:
        response["headers"] = headers
    return response


def _int64(node: Any) -> None:
    """`format: int64` on each integer schema that names no format. The reference
    gives integers no bound; a 64-bit one is what servers and clients store, so
    the spec says so and the bound is the spec's (docs/interpretations.md).
    Numbers the spec does not declare are not bounded at all."""
    if isinstance(node, dict):
        kind = node.get("type")
        if (kind == "integer" or (isinstance(kind, list) and "integer" in kind)) and "format" not in node:
            node["format"] = "int64"
        for value in node.values():
            _int64(value)
    elif isinstance(node, list):
        for value in node:
            _int64(value)


def expand(doc: dict[str, Any]) -> dict[str, Any]:
    """Expand the conventions of `spec/benchwright/README.md` into every operation."""
    doc = copy.deepcopy(doc)
    _int64(doc["paths"])
    _int64(doc["components"])
    shadows = shadowed(doc)
    params = doc["components"].get("parameters", {})
    _REF_PARAM_IN.clear()
    for name, param in params.items():
        _REF_PARAM_IN[f"#/components/parameters/{name}"] = param.get("in")
    for path, path_item in doc["paths"].items():
        for method in METHODS:
            operation = path_item.get(method)
            if operation is None:
                continue
            if (method, path) in shadows:
                operation.setdefault("x-errors", {}).setdefault("405", ["method_not_allowed"])
            _expand_operation(method, path_item, operation)
    return doc


def _expand_operation(method: str, path_item: dict[str, Any], operation: dict[str, Any]) -> None:
    parameters = operation.setdefault("parameters", [])
    if method in MUTATING:
        parameters.append({"$ref": "#/components/parameters/IdempotencyKey"})
    if operation.get("x-if-match"):
        parameters.append({"$ref": "#/components/parameters/IfMatch"})
    if not parameters:
        del operation["parameters"]
    codes: dict[str, list[str]] = {}
    for status, listed in _shared_errors(method, path_item, operation).items():
        codes.setdefault(status, []).extend(listed)
    for status, listed in (operation.get("x-errors") or {}).items():
        codes.setdefault(str(status), []).extend(listed)
    codes = {status: sorted(set(listed)) for status, listed in sorted(codes.items())}
    operation["x-error-codes"] = codes
    legacy = operation.get("x-error-format") == "legacy"
    responses = operation.setdefault("responses", {})
    for status, listed in codes.items():
        if status not in responses:
            responses[status] = _error_response(status, listed, legacy, _session_only(operation))
    for status, response in responses.items():
        if "$ref" in response:
            continue
        headers = response.setdefault("headers", {})
        headers.setdefault("X-Benchwright-Request-Id", _header_ref("RequestId"))
        headers.setdefault("X-Benchwright-Api-Version", _header_ref("ApiVersion"))
        headers.setdefault("X-RateLimit-Limit", _header_ref("RateLimitLimit"))
        headers.setdefault("X-RateLimit-Remaining", _header_ref("RateLimitRemaining"))
        headers.setdefault("X-RateLimit-Reset", _header_ref("RateLimitReset"))
        if method in MUTATING and status.startswith("2"):
            headers.setdefault("Idempotent-Replayed", _header_ref("IdempotentReplayed"))
