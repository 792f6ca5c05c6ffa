"""`Profile`: everything that makes one API different from another, in one place.

An API package declares one `Profile`; the engine reads nothing else of it.
Values that belong to the API's contract (header names, limits, codes, tiers)
live in its spec as data; the profile holds the policies that read them.

| seam | field |
|---|---|
| base paths and routing | the spec's `paths` (templates exactly as written; see `routing.py`) |
| error body format | `errors` (default) and `error_formats` (by an operation's `x-error-format`) |
| auth schemes | `auth`: `authenticate(request, api)`, `authorize(op, principal, api)` |
| minting credentials | the API's `control_routes` (`POST /__mock/tokens`, ...) |
| request id | `request_id_header`, `request_id_prefix`, `standard_headers` |
| rate limits | `rate_limit`: a factory of the step (or None) |
| pagination | `policies/pagination.py`, chosen by each handler; clamps from `x-clamp` |
| idempotency | `idempotency` (a header key) or none; body keys and sequences are domain rules |
| preconditions | `x-if-match` per route (`Ctx.precondition`), or a version in the body |
| streams | handlers return `policies/streaming.py` responses |
| fixtures | `new_store`: a fresh, seeded typed state (start-up and `POST /__mock/reset`) |
| simulations | `on_request`: advance time-driven state before each request |
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from starlette.routing import BaseRoute

from ..policies.errors import ErrorFormat
from ..policies.idempotency import HeaderIdempotency
from .context import Principal
from .handlers import Handlers
from .spec import SPEC_ROOT, Expander

if TYPE_CHECKING:
    from starlette.requests import Request

    from .api import Api
    from .compile import Operation

__all__ = ["SPEC_ROOT", "Auth", "MockConfig", "Profile", "RateLimit"]


class Auth(Protocol):
    def authenticate(self, request: Request, api: Api) -> Principal: ...

    def authorize(self, op: Operation, principal: Principal, api: Api) -> None: ...


class RateLimit(Protocol):
    def hit(self, principal: Principal, method: str) -> dict[bytes, bytes]: ...

    def reset(self) -> None: ...


@dataclass
class MockConfig:
    """How one mock runs. APIs with options of their own subclass it (`Profile.config`)."""

    control: bool = True  # the /__mock surface; off for a shared machine
    clock_scale: float = 0.0  # simulated seconds per real second (0: only /__mock/clock moves time)
    seed: bool = True  # load the API's fixtures
    cors: bool = True  # answer preflights and send CORS headers (as Prism does)
    spec_dir: Path | None = None  # another copy of the API's spec (drift tests)
    max_body_bytes: int = 16 * 1024 * 1024


ErrorSource = ErrorFormat | Callable[[dict[str, Any]], ErrorFormat]


@dataclass(frozen=True, kw_only=True)
class Profile:
    name: str
    title: str
    spec_dir: Path
    port: int
    handlers: Handlers
    errors: ErrorSource
    auth: Auth
    new_store: Callable[[Api], Any]
    config: type[MockConfig] = MockConfig
    error_formats: Mapping[str, ErrorSource] = field(default_factory=dict)
    control_routes: Sequence[BaseRoute] = ()  # the API's own /__mock routes (off with --no-control)
    extra_routes: Sequence[BaseRoute] = ()  # served beside the API, control or not (presigned uploads, ...)
    request_id_header: str | None = None
    request_id_prefix: str = "req_"
    standard_headers: Mapping[str, str] = field(default_factory=dict)
    expand: Expander | None = None
    on_request: Callable[[Api], None] | None = None
    rate_limit: Callable[[Api], RateLimit] | None = None
    idempotency: HeaderIdempotency | None = None
    secret_headers: frozenset[str] = frozenset()
    url_env: str = ""  # the variable a client reads the base URL from
    ready_credentials: Callable[[Api], Mapping[str, str]] | None = None  # printed by `make serve`
    serve_options: Mapping[str, Any] = field(default_factory=dict)  # config fields `python -m mock_server` sets
