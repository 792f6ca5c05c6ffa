"""The Bench error envelope: `{"error": {code, message, reference, ...}}` (C-53).

Every error carries a `reference` (the request id), including the engine's own
validation, routing and size errors.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson
from starlette.responses import Response

from mock_server.policies.errors import ErrorEnvelope


@dataclass(frozen=True)
class BenchErrors(ErrorEnvelope):
    def render(self, problem, request_id: str | None) -> Response:
        error = {"code": self.code(problem), "message": self.message(problem), **problem.extra}
        error.setdefault("reference", request_id or "")
        return Response(orjson.dumps({"error": error}), problem.status, problem.headers, "application/json")
