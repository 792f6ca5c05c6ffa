"""The suite's HTTP client: budgeted, `Retry-After`-honouring, and able to say how
to reproduce any exchange with curl (credentials redacted)."""

from __future__ import annotations

import shlex
import time
from typing import Any

import httpx

from contracts.runner.safety import MAX_RETRY_WAIT, Policy

REDACTED = {"authorization": "Bearer $BW_PAT", "cookie": "[redacted]"}


def curl(request: httpx.Request) -> str:
    parts = ["curl", "-sS", "-X", request.method]
    for name, value in request.headers.items():
        if name.lower() in ("host", "content-length", "accept-encoding", "connection", "user-agent", "accept"):
            continue
        parts += ["-H", f"{name}: {REDACTED.get(name.lower(), value)}"]
    body = request.content
    if body:
        parts += ["--data-raw", body.decode("utf-8", "replace")]
    parts.append(str(request.url))
    return " ".join(shlex.quote(p) for p in parts)


def send_with_retry(policy: Policy, send, describe: str = "") -> Any:
    """Call `send()` (one request), retrying 429s after their `Retry-After`."""
    for _ in range(4):
        policy.charge()
        response = send()
        if response.status_code != 429:
            return response
        wait = _retry_after(response)
        if wait is None or wait > MAX_RETRY_WAIT:
            return response
        time.sleep(wait)
    return response


def _retry_after(response: Any) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class SuiteClient:
    def __init__(self, base_url: str, policy: Policy, token: str | None = None, timeout: float = 30.0) -> None:
        self.policy = policy
        self.token = token
        from contracts.runner import differential  # differential mode: each request also to the oracle

        self.http = httpx.Client(base_url=base_url, timeout=timeout, transport=differential.client_transport(base_url))

    def with_token(self, token: str | None) -> SuiteClient:
        other = SuiteClient(str(self.http.base_url), self.policy, token)
        return other

    def request(self, method: str, url: str, *, headers: dict[str, str] | None = None, **kw: Any) -> httpx.Response:
        merged = dict(headers or {})
        if self.token and "Authorization" not in merged:
            merged["Authorization"] = f"Bearer {self.token}"
        return send_with_retry(self.policy, lambda: self.http.request(method, url, headers=merged, **kw))

    def get(self, url: str, **kw: Any) -> httpx.Response:
        return self.request("GET", url, **kw)

    def post(self, url: str, **kw: Any) -> httpx.Response:
        return self.request("POST", url, **kw)

    def patch(self, url: str, **kw: Any) -> httpx.Response:
        return self.request("PATCH", url, **kw)

    def put(self, url: str, **kw: Any) -> httpx.Response:
        return self.request("PUT", url, **kw)

    def delete(self, url: str, **kw: Any) -> httpx.Response:
        return self.request("DELETE", url, **kw)

    def close(self) -> None:
        self.http.close()
