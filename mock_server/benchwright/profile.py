"""Benchwright's profile: the `/v1` API on the shared engine (§2, §3, §13).

| seam | Benchwright's instance |
|---|---|
| routing | `/v1/...` templates as the spec writes them; `/api/...` is the web app's surface (§2.0) |
| errors | problem+json (§3.9), its titles and retryable codes from the spec's `x-problem`; |
|  | `x-error-format: legacy` operations answer `{"error": "..."}` |
| auth | PAT bearer, then the `bw_session` cookie (`auth.py`, §2.0-§2.4) |
| request id | `X-Benchwright-Request-Id: req_<hex>`, plus `X-Benchwright-Api-Version` (§3.1) |
| rate limits | per paying account and tier (`ratelimit.py`, `x-tiers`, §13) |
| pagination | `page_size`/`page_token` cursors (`policies/pagination.py`, §3.4) |
| idempotency | `Idempotency-Key`, 24 h, per token (§3.7) |
| preconditions | weak ETags and `If-Match` where the spec marks `x-if-match` (§3.8) |
| streams | SSE with `event: ping` keep-alives (§5.2, §12a) |
| fixtures | `fixtures.py`, fixed ids; simulations: run pipelines advanced before each request |
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..engine import Api, MockConfig, Profile
from ..engine.spec import SPEC_ROOT
from ..policies.errors import MessageBody, ProblemJson
from ..policies.idempotency import HeaderIdempotency
from ..policies.problems import Problem
from . import conventions, resources
from .auth import BenchwrightAuth, authenticate
from .control import CONTROL_ROUTES
from .fixtures import READY_ROLE_TOKENS, READY_TOKEN, seed, seed_ready_token
from .model.lifecycle import advance_all
from .model.retention import DEFAULT_KEEP
from .ratelimit import TierRateLimit
from .resources import load_all
from .spec_data import all_scopes
from .store import Store

load_all()


@dataclass
class BenchwrightConfig(MockConfig):
    sse_ping_seconds: float = 20.0  # §5.2 keep-alive
    operator_ping_seconds: float = 15.0  # §12a keep-alive
    # compute backends with credentials on this deploy (§4.2.5 e2b_not_configured / compute_not_configured)
    compute_backends: tuple[str, ...] = ("sandbox0", "e2b")
    # a fixed full-scope PAT of the default user, re-created on every reset (`make serve` prints it)
    ready_token: str | None = None
    # the newest finished runs kept per owner; older ones are let go (`model/retention.py`); None keeps all
    keep_finished_runs: int | None = DEFAULT_KEEP


def problem_json(spec: dict[str, Any]) -> ProblemJson:
    data = spec["x-problem"]
    return ProblemJson(type_base=data["type_base"], titles=data["titles"], retryable=frozenset(data["retryable"]))


def legacy_body(spec: dict[str, Any]) -> MessageBody:
    return MessageBody(titles=spec["x-problem"]["titles"], keep=("state",))


def new_store(api: Api) -> Store:
    store = api.store = Store(clock=api.clock)
    if api.config.seed:
        seed(store, api)
    else:
        store.default_user_id = store.add_user("dev@example.test").id
    if api.config.ready_token:
        seed_ready_token(store, api.config.ready_token, all_scopes(api))
    return store


async def web_app_surface(request: Request) -> Response:
    """`/api` is the web app's surface: it refuses PATs with 401 (§2.0)."""
    api = request.app.state.api
    try:
        principal = authenticate(api.store, request.headers.get("authorization"), None)
        if principal.kind == "pat":
            raise Problem(401, "auth_required", "/api expects a browser session; programs use the /v1 equivalent.")
        raise Problem(404, "not_found", "The /api surface is not part of this mock; use /v1.")
    except Problem as problem:
        return api.errors.render(problem, None)


def ready(api: Api) -> dict[str, str]:
    """The seeded ready PATs, when this mock seeded them (`make serve` does: `serve_options`): the
    full-scope `BW_PAT`, and the read-only, write-only and expired ones that widen a contract run."""
    if not api.config.ready_token:
        return {}
    return {"BW_PAT": api.config.ready_token, **{name: secret for name, (secret, _) in READY_ROLE_TOKENS.items()}}


PROFILE = Profile(
    name="benchwright",
    title="Benchwright /v1",
    spec_dir=SPEC_ROOT / "benchwright",
    port=4010,
    handlers=resources.HANDLERS,
    errors=problem_json,
    error_formats={"legacy": legacy_body},
    auth=BenchwrightAuth(),
    new_store=new_store,
    config=BenchwrightConfig,
    control_routes=CONTROL_ROUTES,
    extra_routes=[
        Route("/api/{rest:path}", web_app_surface, methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
    ],
    request_id_header="X-Benchwright-Request-Id",
    standard_headers={"X-Benchwright-Api-Version": "1"},
    expand=conventions.expand,
    on_request=advance_all,
    rate_limit=lambda api: TierRateLimit(api),
    idempotency=HeaderIdempotency(
        header="Idempotency-Key",
        ttl_seconds=24 * 3600,
        replay_marker="Idempotent-Replayed",
        replayed_headers=frozenset(
            {"etag", "location", "content-disposition", "x-content-type-options", "cache-control"}
        ),
    ),
    url_env="BW_API_URL",
    ready_credentials=ready,
    serve_options={"ready_token": READY_TOKEN},
)
