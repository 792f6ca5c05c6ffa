"""Error body formats: how a `Problem` becomes a response, per API.

- `ProblemJson`: RFC 9457 `application/problem+json` (`type`, `title`, `status`,
  `code`, `detail`, `request_id`, `retryable`, plus the problem's fields).
- `ErrorEnvelope`: `{"error": {"code", "message", ...fields}}` (JSON:API-ish
  envelopes as Bench and many SaaS APIs serve them).
- `DrfDetail`: Django REST framework's `{"detail": message, "code": code}`.
- `MessageBody`: a bare `{"error": "<message>"}` (legacy handlers).

Each is built once from the API's spec data and renders with `orjson`.
`rename` maps the engine's canonical codes onto the API's own spelling.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from starlette.responses import Response

from .problems import Problem


def _humanize(code: str) -> str:
    return code.replace("_", " ").capitalize()


class ErrorFormat(Protocol):
    def code(self, problem: Problem) -> str: ...

    def render(self, problem: Problem, request_id: str | None) -> Response: ...


@dataclass(frozen=True)
class _Renamed:
    rename: Mapping[str, str] = field(default_factory=dict)
    titles: Mapping[str, str] = field(default_factory=dict)

    def code(self, problem: Problem) -> str:
        return self.rename.get(problem.code, problem.code)

    def title(self, code: str) -> str:
        return self.titles.get(code) or _humanize(code)

    def message(self, problem: Problem) -> str:
        return problem.detail or problem.title or self.title(self.code(problem))


@dataclass(frozen=True)
class ProblemJson(_Renamed):
    type_base: str = "about:blank#"
    retryable: frozenset[str] = frozenset()

    def body(self, problem: Problem, request_id: str | None) -> dict[str, Any]:
        code = self.code(problem)
        title = problem.title or self.title(code)
        return {
            "type": self.type_base + code,
            "title": title,
            "status": problem.status,
            "code": code,
            "detail": problem.detail or title,
            "request_id": request_id,
            "retryable": code in self.retryable,
            **problem.extra,
        }

    def render(self, problem: Problem, request_id: str | None) -> Response:
        body = orjson.dumps(self.body(problem, request_id))
        return Response(body, problem.status, problem.headers, "application/problem+json")


@dataclass(frozen=True)
class ErrorEnvelope(_Renamed):
    """`{"error": {"code", "message", **fields}}`; `request_id` when the API has one."""

    with_request_id: bool = False

    def render(self, problem: Problem, request_id: str | None) -> Response:
        error: dict[str, Any] = {"code": self.code(problem), "message": self.message(problem), **problem.extra}
        if self.with_request_id and request_id:
            error.setdefault("request_id", request_id)
        return Response(orjson.dumps({"error": error}), problem.status, problem.headers, "application/json")


@dataclass(frozen=True)
class DrfDetail(_Renamed):
    """Django REST framework's shape: `{"detail": message, "code": code, **fields}`."""

    def render(self, problem: Problem, request_id: str | None) -> Response:
        body = {"detail": self.message(problem), "code": self.code(problem), **problem.extra}
        return Response(orjson.dumps(body), problem.status, problem.headers, "application/json")


@dataclass(frozen=True)
class MessageBody(_Renamed):
    """A bare `{"error": message}` (plus any `keep` fields of the problem)."""

    keep: tuple[str, ...] = ()

    def render(self, problem: Problem, request_id: str | None) -> Response:
        body: dict[str, Any] = {"error": self.message(problem)}
        body.update({name: problem.extra[name] for name in self.keep if name in problem.extra})
        return Response(orjson.dumps(body), problem.status, problem.headers, "application/json")
