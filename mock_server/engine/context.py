"""What a handler sees (`Ctx`) and returns (`Reply`), and who is calling (`Principal`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.requests import Request

from ..policies.preconditions import check_if_match
from .compile import Operation

if TYPE_CHECKING:
    from ..state.clock import SimClock
    from .api import Api


@dataclass(slots=True)
class Reply:
    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    media_type: str = "application/json"
    raw: bytes | None = None


@dataclass(slots=True)
class Principal:
    """The caller, as the API's auth decided. APIs subclass it to carry their user,
    organisation or account; `cache_key` scopes idempotency keys to the caller."""

    kind: str = "anonymous"
    subject: str | None = None
    credential_id: str | None = None

    @property
    def authenticated(self) -> bool:
        return self.kind != "anonymous"

    @property
    def cache_key(self) -> str:
        if self.credential_id is not None:
            return "credential:" + self.credential_id
        return "subject:" + (self.subject or "anonymous")


ANONYMOUS = Principal()


@dataclass(slots=True)
class Upload:
    """One file of a `multipart/form-data` body."""

    filename: str
    content_type: str
    data: bytes


@dataclass(slots=True)
class Ctx:
    """What a handler gets: the caller, the validated inputs, the state."""

    request: Request
    op: Operation
    principal: Principal
    path: dict[str, str]
    query: dict[str, Any]
    raw_query: dict[str, str]
    body: Any
    api: Api
    form: dict[str, str] = field(default_factory=dict)
    files: dict[str, list[Upload]] = field(default_factory=dict)

    @property
    def store(self) -> Any:
        return self.api.store

    @property
    def clock(self) -> SimClock:
        return self.api.clock

    @property
    def user(self) -> Any:
        """The principal's user, for APIs whose principals carry one."""
        return getattr(self.principal, "user", None)

    def precondition(self, current_etag: str) -> None:
        """Apply `If-Match` as the spec marks this operation (`x-if-match: enforced`)."""
        if self.op.if_match == "enforced":
            check_if_match(self.request.headers.get("if-match"), current_etag)
