"""The request journal `GET /__mock/requests` serves, credentials redacted.

Recording keeps references only (the request's ASGI scope, never its body); entries
are rendered when read. It holds the last `size` requests (a bounded deque), so a
mock up for days stays flat."""

from __future__ import annotations

from collections import deque
from datetime import datetime
from typing import Any

from starlette.requests import Request

REDACTED = "[redacted]"
ALWAYS_SECRET = frozenset({"authorization", "cookie", "set-cookie", "x-api-key", "proxy-authorization"})


class Journal:
    def __init__(self, secret_headers: frozenset[str] = frozenset(), size: int = 2000) -> None:
        self.secret_headers = ALWAYS_SECRET | {name.lower() for name in secret_headers}
        self.entries: deque[tuple[Any, ...]] = deque(maxlen=size)

    def record(self, request: Request, op: Any, status: int, principal: Any, request_id: str, at: datetime) -> None:
        self.entries.append((request.scope, op, status, principal, request_id, at))

    def clear(self) -> None:
        self.entries.clear()

    def render(self) -> list[dict[str, Any]]:
        secret = self.secret_headers
        return [
            {
                "request_id": request_id,
                "at": at.isoformat(),
                "method": scope["method"],
                "path": scope["path"],
                "query": scope.get("query_string", b"").decode("latin-1"),
                "operation_id": op.operation_id if op else None,
                "status": status,
                "auth": principal.kind if principal else None,
                "user_id": principal.subject if principal else None,
                "headers": {
                    name: (REDACTED if name in secret else value)
                    for name, value in (
                        (raw_name.decode("latin-1").lower(), raw_value.decode("latin-1"))
                        for raw_name, raw_value in scope["headers"]
                    )
                },
            }
            for scope, op, status, principal, request_id, at in self.entries
        ]
