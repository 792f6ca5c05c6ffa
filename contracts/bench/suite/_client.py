"""A raw HTTP client for the suite, building URLs from the pinned SDK catalog as the real SDKs do."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import httpx

from ..drift import pinned_catalog


class Bench:
    def __init__(self, http: httpx.Client, key: str, oauth: str | None) -> None:
        self.http = http
        self.key = key
        self.oauth = oauth
        self.ops = {o["id"]: o for o in pinned_catalog()["operations"]}

    def url(self, op_id: str, path: dict[str, Any] | None = None) -> str:
        op = self.ops[op_id]
        route = op["path"]
        for name in op["path_parameters"]:
            route = route.replace("{" + name + "}", quote(str((path or {})[name]), safe=""))
        return route

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
        return self.http.request(op["method"], self.url(op_id, path), params=q, headers=h, **kw)
