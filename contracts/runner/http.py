"""The suite's HTTP client: budgeted, `Retry-After`-honouring, and able to say how
to reproduce any exchange with curl (credentials redacted)."""

from __future__ import annotations

import shlex
from typing import Any

import httpx

from contracts.runner import differential
from contracts.runner.pacing import PacedTransport, Pacer
from contracts.runner.safety import RunPolicy

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


class SuiteClient:
    """A client of the target carrying one bearer credential; every request is charged,
    paced and retried after a 429 as the run's policy says (`contracts.runner.pacing`)."""

    def __init__(
        self,
        base_url: str,
        policy: RunPolicy,
        token: str | None = None,
        timeout: float = 30.0,
        pacer: Pacer | None = None,
    ) -> None:
        self.policy = policy
        self.pacer = pacer or Pacer()
        self.token = token
        transport = differential.client_transport(base_url, PacedTransport(policy, self.pacer))
        self.http = httpx.Client(base_url=base_url, timeout=timeout, transport=transport)

    def with_token(self, token: str | None) -> SuiteClient:
        return SuiteClient(str(self.http.base_url), self.policy, token, pacer=self.pacer)

    def request(self, method: str, url: str, *, headers: dict[str, str] | None = None, **kw: Any) -> httpx.Response:
        merged = dict(headers or {})
        if self.token and "Authorization" not in merged:
            merged["Authorization"] = f"Bearer {self.token}"
        return self.http.request(method, url, headers=merged, **kw)

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
