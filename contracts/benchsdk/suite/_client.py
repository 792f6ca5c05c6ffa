"""A client of the platform for the suite: calls `/api/v1` as @benchsdk/api does, runs the
conventions check on every answer, and turns any disagreement into a `Drift` naming a claim,
with a redacted curl line to reproduce it."""

from __future__ import annotations

import json
import re
import shlex
from typing import Any
from urllib.parse import quote, urlencode

import httpx

from mock_server.benchsdk.profile import PROFILE
from mock_server.engine.spec import iter_operations, load_bundle

from .. import conventions
from .._runner import Drift

BASE = "/api/v1"


def enc(value: str) -> str:
    return quote(value, safe="")


class Operations:
    """The spec's operations, matched by method and wire path (literal segments first)."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        rows = []
        for method, path, _, op in iter_operations(spec):
            pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$")
            rows.append((len(re.sub(r"\{[^}]+\}", "", path)), method.upper(), pattern, op))
        rows.sort(key=lambda r: -r[0])
        self.rows = rows
        self.by_id = {op["operationId"]: op for *_, op in rows}

    def match(self, method: str, path: str) -> dict[str, Any] | None:
        for _, m, pattern, op in self.rows:
            if m == method and pattern.match(path):
                return op
        return None


SPEC = load_bundle(PROFILE.spec_dir, PROFILE.expand)
OPERATIONS = Operations(SPEC)
LIMITS = {
    "events": OPERATIONS.by_id["postWorkerEvents"]["x-limits"],
    "heartbeat": OPERATIONS.by_id["heartbeatWorker"]["x-limits"],
}
TIMING = SPEC["x-timing"]


def curl(method: str, url: str, body: Any) -> str:
    parts = ["curl", "-X", method, url, "-H", "Authorization: Bearer $BENCHMARKS_PLATFORM_API_KEY"]
    if body is not None:
        text = json.dumps(body)
        parts += ["-H", "Content-Type: application/json", "-d", text if len(text) < 400 else text[:400] + "…"]
    return " ".join(shlex.quote(p) for p in parts)


class Platform:
    def __init__(self, http: httpx.Client, base_url: str, api_key: str) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {api_key}"}
        self.last_curl = ""  # reproduces the last call (the key as its variable)

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        params: dict | None = None,
        expect: int | tuple[int, ...] | None = 200,
        claim: str = "P-status",
        code: str | None = None,
    ) -> httpx.Response:
        """Call `/api/v1{path}`; check conventions; check the status (and error code) expected."""
        url = BASE + path
        query = {k: v for k, v in (params or {}).items() if v is not None}
        shown = self.base_url + url + (("?" + urlencode(query)) if query else "")
        response = self.http.request(method, url, json=body, params=query, headers=self.headers)
        self.last_curl = curl(method, shown, body)
        op = OPERATIONS.match(method, url)
        label = f"{method} {url}" if op is None else f"{op['operationId']} ({method} {url})"
        if op is None:
            raise Drift("P-status", label, "no operation of the spec matches this call", curl(method, shown, body))
        try:
            payload = response.json()
        except ValueError:
            payload = None
        for violation in conventions.check(op, response.status_code, response.headers, payload):
            raise Drift(violation.claim, label, violation.message, curl(method, shown, body))
        wanted = (expect,) if isinstance(expect, int) else expect
        if wanted is not None and response.status_code not in wanted:
            raise Drift(
                claim,
                label,
                f"expected {wanted}, got {response.status_code}: {response.text[:300]}",
                curl(method, shown, body),
            )
        if code is not None and (payload or {}).get("error", {}).get("code") != code:
            raise Drift(
                claim, label, f"expected error code {code!r}, got {response.text[:300]}", curl(method, shown, body)
            )
        return response

    def json(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        return self.call(method, path, body, **kw).json()

    def drift(self, claim: str, operation: str, detail: str, reproduce: str | None = None) -> Drift:
        """A drift under `claim`, reproduced by `reproduce` or else by the last call made."""
        return Drift(claim, operation, detail, reproduce or self.last_curl)

    def raw(self, method: str, url: str, **kw: Any) -> httpx.Response:
        """An out-of-band call (presigned URLs): absolute, no bearer token."""
        return self.http.request(method, url, **kw)
