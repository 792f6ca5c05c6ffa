"""RFC 9457 problem+json errors (§3.9), and the legacy `{"error": ...}` bodies.

Handlers raise `Problem`; the engine renders it in the format the operation
declares (`x-error-format: legacy` in the spec for the operators surface and the
legacy billing handlers). A `code` must be one the spec documents for the
operation; tests check every error the mock emits against the spec.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response

TYPE_BASE = "https://docs.benchwright.ai/errors/"

_TITLES = {
    "invalid_argument": "Invalid argument",
    "auth_required": "Authentication required",
    "token_expired": "API token expired",
    "scope_insufficient": "Token scope does not cover this operation",
    "forbidden": "Forbidden",
    "not_found": "Not found",
    "idempotency_conflict": "Idempotency key reused with a different request",
    "precondition_failed": "If-Match does not match the current revision",
    "rate_limited": "Rate limit exceeded",
    "method_not_allowed": "Method not allowed",
    "not_configured": "Not configured on this deploy",
}

# Codes whose failure is worth retrying as-is (§14: 429, 503, upstream 502s).
_RETRYABLE = {"rate_limited", "tier_concurrency_exceeded", "narration_unavailable", "upstream_unavailable"}


class Problem(Exception):
    """An error response. `extra` fields sit beside the standard ones."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str = "",
        *,
        title: str | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail or _TITLES.get(code, code.replace("_", " ").capitalize())
        self.title = title or _TITLES.get(code, code.replace("_", " ").capitalize())
        self.headers = headers or {}
        self.extra = extra

    def body(self, request_id: str) -> dict[str, Any]:
        return {
            "type": TYPE_BASE + self.code,
            "title": self.title,
            "status": self.status,
            "code": self.code,
            "detail": self.detail,
            "request_id": request_id,
            "retryable": self.code in _RETRYABLE,
            **self.extra,
        }

    def response(self, request_id: str, *, legacy: bool = False) -> Response:
        if legacy:
            payload: dict[str, Any] = {"error": self.detail}
            if "state" in self.extra:
                payload["state"] = self.extra["state"]
            return Response(orjson.dumps(payload), self.status, self.headers, "application/json")
        return Response(orjson.dumps(self.body(request_id)), self.status, self.headers, "application/problem+json")


def invalid(detail: str, **extra: Any) -> Problem:
    return Problem(400, "invalid_argument", detail, **extra)


def not_found(what: str = "Resource") -> Problem:
    return Problem(404, "not_found", f"{what} does not exist, or is not visible to the caller.")
