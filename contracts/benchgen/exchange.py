"""One checked exchange with a BenchGen target: send by operationId, judge by the conventions.

`Exchange.call(...)` fills the operation's path template, sends the request with the
given token, and runs `conventions.check` on the answer with every secret the suite has
handed out (tokens it minted, endpoint keys it submitted) — a violation is a `Drift`
filed under its claim, with a curl line to reproduce it. `expect(...)` turns an
unexpected status into a `Drift` under the claim the caller names.

`Control` is the embedded mock's `/__mock` surface; a live target has none.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx

from contracts.runner.claims import Drift

from . import conventions


def drift(claim: str, operation: str, detail: str, curl: str = "") -> Drift:
    return Drift(claim, operation, detail, curl=curl)


@dataclass
class Answer:
    operation_id: str
    response: httpx.Response
    body: Any
    curl: str

    @property
    def status(self) -> int:
        return self.response.status_code

    @property
    def code(self) -> str | None:
        return self.body.get("code") if isinstance(self.body, dict) else None


def _curl(method: str, url: str, token: str | None, body: Any) -> str:
    parts = ["curl", "-X", method, url]
    if token:
        parts += ["-H", "Authorization: Bearer $BENCHGEN_TOKEN"]
    if body is not None:
        redacted = {k: ("<model_token>" if k == "model_token" else v) for k, v in body.items()}
        parts += ["-H", "Content-Type: application/json", "-d", json.dumps(redacted)]
    return shlex.join(parts)


@dataclass
class Exchange:
    client: httpx.Client
    operations: Mapping[str, tuple[str, str, dict[str, Any]]]  # operationId -> (METHOD, template, spec operation)
    secrets: set[str] = field(default_factory=set)
    answers: int = 0

    def call(
        self,
        operation_id: str,
        *,
        token: str | None,
        path: Mapping[str, Any] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        expect_429: bool = False,
    ) -> Answer:
        """One operation; `expect_429` marks a request sent to provoke a 429, which the run's client then
        returns as it is instead of waiting it out (`contracts.runner.pacing`)."""
        method, template, operation = self.operations[operation_id]
        url = template
        for name, value in (path or {}).items():
            url = url.replace("{" + name + "}", str(value))
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        extensions = {"expect_429": True} if expect_429 else {}
        response = self.client.request(
            method, url, params=dict(query or {}), json=body, headers=headers, extensions=extensions
        )
        self.answers += 1
        try:
            parsed = response.json()
        except ValueError:
            parsed = None
        curl = _curl(method, str(response.request.url), token, body)
        found = conventions.check(
            operation, response.status_code, response.headers, parsed, secrets=self.secrets, text=response.text
        )
        if parsed is None and response.status_code != 204:
            found.append(conventions.Violation("P-errors", f"{response.status_code} body is not JSON"))
        if found:
            raise drift(found[0].claim, operation_id, "; ".join(map(str, found)), curl)
        return Answer(operation_id, response, parsed, curl)

    def fail(self, claim: str, answer: Answer, detail: str) -> Drift:
        """A drift under `claim`, reproducible by the answer's curl line."""
        return drift(claim, answer.operation_id, detail, answer.curl)

    def expect(self, answer: Answer, claim: str, statuses: set[int] | int, code: str | None = None) -> Answer:
        wanted = {statuses} if isinstance(statuses, int) else statuses
        if answer.status not in wanted or (code is not None and answer.code != code):
            wanted_text = f"{sorted(wanted)}{' ' + code if code else ''}"
            detail = f"expected {wanted_text}, got {answer.status}: {answer.response.text[:300]}"
            raise drift(claim, answer.operation_id, detail, answer.curl)
        return answer


@dataclass
class Control:
    """The embedded mock's control surface (`/__mock`)."""

    client: httpx.Client

    def _post(self, path: str, body: Any = None, status: int = 200) -> Any:
        response = self.client.post(path, json=body if body is not None else {})
        if response.status_code != status:
            raise RuntimeError(f"POST {path}: {response.status_code} {response.text[:200]}")
        return response.json() if response.content else None

    def reset(self) -> None:
        self._post("/__mock/reset", status=204)

    def advance(self, seconds: float) -> datetime:
        return datetime.fromisoformat(self._post("/__mock/clock", {"advance_seconds": seconds})["now"])

    def now(self) -> datetime:
        return self.advance(0)

    def user(self, credits: int) -> int:
        return self._post("/__mock/users", {"credits": credits}, 201)["id"]

    def token(self, user_id: int, scopes: list[str]) -> tuple[int, str]:
        made = self._post("/__mock/tokens", {"user_id": user_id, "scopes": scopes}, 201)
        return made["id"], made["token"]

    def revoke(self, token_id: int) -> None:
        response = self.client.delete(f"/__mock/tokens/{token_id}")
        if response.status_code != 204:
            raise RuntimeError(f"revoke {token_id}: {response.status_code}")

    def competition(self, name: str, auto_approve: bool, published: bool = True) -> int:
        body = {"name": name, "auto_approve": auto_approve, "published": published}
        return self._post("/__mock/competitions", body, 201)["id"]

    def approve(self, competition_id: int, user_id: int) -> None:
        self._post(f"/__mock/competitions/{competition_id}/participants/{user_id}/approve")

    def finish(self, submission_id: int, error: str) -> None:
        """End a run in flight now, as failed with `error` (the mock's hook; a deployment's runs fail by themselves)."""
        self._post(f"/__mock/submissions/{submission_id}/finish", {"error": error})

    def journal(self) -> str:
        return self.client.get("/__mock/requests").text
