"""A raw HTTP client for the suite, building URLs from the pinned SDK catalog as the real SDKs do."""

from __future__ import annotations

import json
import shlex
from typing import Any
from urllib.parse import quote

import httpx

from .._runner import Drift
from ..claims import BY_ID
from ..drift import pinned_catalog


class Bench:
    def __init__(self, http: httpx.Client, key: str, oauth: str | None) -> None:
        self.http = http
        self.key = key
        self.oauth = oauth
        self.ops = {o["id"]: o for o in pinned_catalog()["operations"]}
        self.last_curl = ""  # reproduces the last call, credentials as their variables

    def _remember(self, request: httpx.Request, bearer: str | None, kw: dict[str, Any]) -> None:
        parts = ["curl", "-X", request.method, "$BENCH_API_BASE_URL" + request.url.raw_path.decode()]
        if bearer:
            var = {self.key: "$BENCH_API_KEY", self.oauth: "$BENCH_OAUTH_TOKEN"}.get(bearer, "<credential>")
            parts += ["-H", f"Authorization: Bearer {var}"]
        if "json" in kw:
            text = json.dumps(kw["json"])
            parts += ["-H", "Content-Type: application/json", "-d", text if len(text) < 400 else text[:400] + "…"]
        for name, value in (kw.get("data") or {}).items():
            parts += ["-F", f"{name}={value}"]
        for field, (filename, _, _) in kw.get("files") or []:
            parts += ["-F", f"{field}=@{filename}"]
        self.last_curl = shlex.join(parts)

    def drift(self, claim: str, operation: str, detail: str, curl: str | None = None) -> Drift:
        """A drift under `claim`, reproduced by `curl` or else by the last call made."""
        return Drift(BY_ID.get(claim) or claim, operation, detail, curl or self.last_curl)  # a clause id as named

    def url(self, op_id: str, path: dict[str, Any] | None = None) -> str:
        op = self.ops[op_id]
        route = op["path"]
        for name in op["path_parameters"]:
            route = route.replace("{" + name + "}", quote(str((path or {})[name]), safe=""))
        return route

    def curl(self, op_id: str, path: dict[str, Any] | None = None, query: str = "") -> str:
        """A curl line reproducing a call (the key redacted to its variable)."""
        op = self.ops[op_id]
        return (
            f"curl -X {op['method']} '$BENCH_API_BASE_URL{self.url(op_id, path)}{query}'"
            " -H 'Authorization: Bearer $BENCH_API_KEY'"
        )

    def call(
        self,
        op_id: str,
        *,
        path: dict[str, Any] | None = None,
        query: dict[str, Any] | None = None,
        body: Any = None,
        form: dict[str, Any] | None = None,
        files: list[tuple[str, bytes]] | None = None,
        token: str | None = "key",
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        op = self.ops[op_id]
        h = dict(headers or {})
        bearer = {"key": self.key, "oauth": self.oauth}.get(token, token) if token else None
        if bearer and op["auth"] != "public":
            h["Authorization"] = f"Bearer {bearer}"
        kw: dict[str, Any] = {}
        if op.get("multipart"):
            data = {k: v if isinstance(v, str) else json.dumps(v) for k, v in (form or {}).items()}
            kw["data"] = data
            kw["files"] = [(op["file_field"], (n, c, "application/octet-stream")) for n, c in files or []]
        elif body is not None:
            kw["json"] = body
        q = {k: str(v).lower() if isinstance(v, bool) else v for k, v in (query or {}).items()}
        response = self.http.request(op["method"], self.url(op_id, path), params=q, headers=h, **kw)
        self._remember(response.request, bearer if op["auth"] != "public" else None, kw)
        return response
