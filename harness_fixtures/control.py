"""`MockControl`: a typed client of the `/__mock` routes every mock serves (`mock_server/control.py`).

    reset()                         POST   /__mock/reset      the clock to its start, state to the seed fixtures
    advance_clock(seconds) / now()  POST   /__mock/clock      the simulated clock, moved or read
    journal() / clear_journal()     GET / DELETE /__mock/requests   the request journal, credentials redacted
    add_fault(...) / clear_faults() POST / DELETE /__mock/faults    forced statuses, latency, dropped streams
    openapi()                       GET    /__mock/openapi.json   the API's bundled spec

Each API's own routes (users, organizations, accounts, credentials, finishing work) are on its
subclass. A refused control call raises `ControlError` with the mock's status and body.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx

# a fault: which requests it matches (operation id, method, path; none: every request) and what it
# does (a forced status, added latency, an SSE stream dropped after N events)
from mock_server.engine.faults import Fault


class ControlError(RuntimeError):
    """A `/__mock` call the mock refused: its status and body, in the API's own error format."""

    def __init__(self, method: str, path: str, status: int, body: Any) -> None:
        super().__init__(f"{method} /__mock{path}: {status} {body}")
        self.status = status
        self.body = body


@dataclass(frozen=True)
class Token:
    """A credential minted by a mock's `POST /__mock/tokens`: `token` is the secret a client sends."""

    id: str | int
    token: str
    kind: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


class MockControl:
    """The control surface of the mock at `url` (its root, not its API base path)."""

    def __init__(self, url: str, client: httpx.Client | None = None) -> None:
        self.url = url.rstrip("/")
        self.http = client or httpx.Client(base_url=self.url, timeout=30)

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """`method /__mock{path}` with `body` (None values left out); the JSON answer, or None on 204."""
        payload = None if body is None else {k: v for k, v in body.items() if v is not None}
        response = self.http.request(method, f"/__mock{path}", json=payload)
        if response.status_code >= 400:
            try:
                detail: Any = response.json()
            except ValueError:
                detail = response.text
            raise ControlError(method, path, response.status_code, detail)
        return None if response.status_code == 204 or not response.content else response.json()

    def reset(self) -> None:
        """The clock back to its start, fixtures back; idempotency keys, rate-limit windows and faults cleared."""
        self.call("POST", "/reset")

    def advance_clock(self, seconds: float) -> datetime:
        """Move the simulated clock forward; the new time (runs, leases and expiries move with it)."""
        return datetime.fromisoformat(self.call("POST", "/clock", {"advance_seconds": seconds})["now"])

    def now(self) -> datetime:
        return self.advance_clock(0)

    def journal(self) -> list[dict[str, Any]]:
        """The requests the mock answered, oldest first (method, path, query, operation_id, status,
        auth, headers with credentials redacted, ...)."""
        return self.call("GET", "/requests")["data"]

    def clear_journal(self) -> None:
        self.call("DELETE", "/requests")

    def add_fault(self, fault: Fault | None = None, **fields: Any) -> list[Fault]:
        """Inject a fault (a `Fault`, or its fields as keywords); every fault now active."""
        body = dict(vars(fault)) if fault is not None else {}
        body.update(fields)
        return [Fault(**item) for item in self.call("POST", "/faults", body)["faults"]]

    def clear_faults(self) -> None:
        self.call("DELETE", "/faults")

    def openapi(self) -> dict[str, Any]:
        return self.call("GET", "/openapi.json")

    def close(self) -> None:
        self.http.close()
