"""The benchsdk Benchmarks Platform API's profile: spec, handlers, errors, auth, fixtures."""

from __future__ import annotations

from typing import Any

from mock_server.engine import Api, Profile
from mock_server.engine.profile import SPEC_ROOT
from mock_server.engine.spec import shadowed
from mock_server.policies.errors import ErrorEnvelope

from . import fixtures
from .auth import BenchsdkAuth
from .control import CONTROL_ROUTES
from .model import events
from .model.store import Store, Timing
from .resources import handlers
from .resources.artifacts import OBJECT_ROUTES


def _operation(spec: dict[str, Any], operation_id: str) -> dict[str, Any]:
    for item in spec["paths"].values():
        for op in item.values():
            if isinstance(op, dict) and op.get("operationId") == operation_id:
                return op
    raise KeyError(operation_id)


TRANSPORT_ERRORS = {"413": "payload_too_large", "415": "unsupported_media_type"}


def expand(spec: dict[str, Any]) -> dict[str, Any]:
    """State once what every operation with a JSON body shares: the engine refuses a body over
    the size cap (413) and a non-JSON media type (415) before any handler (see the spec's README).
    An operation a literal sibling path shadows (`PUT /benchmarks/{slug}` with `slug=runs` reaches
    `/benchmarks/runs`) documents the router's 405."""
    for method, path in shadowed(spec):
        op = spec["paths"][path][method]
        op.setdefault("x-errors", {}).setdefault("405", ["method_not_allowed"])
        op["responses"].setdefault("405", {"$ref": "#/components/responses/Error"})
    for item in spec["paths"].values():
        for op in item.values():
            if not isinstance(op, dict) or "application/json" not in (op.get("requestBody") or {}).get("content", {}):
                continue
            for status, code in TRANSPORT_ERRORS.items():
                codes = op.setdefault("x-errors", {}).setdefault(status, [])
                if code not in codes:
                    codes.append(code)
                op["responses"].setdefault(status, {"$ref": "#/components/responses/Error"})
    return spec


def new_store(api: Api) -> Store:
    spec = api.spec
    timing = Timing.from_spec(spec["x-timing"])
    event_limits = _operation(spec, "postWorkerEvents")["x-limits"]
    heartbeat_limits = _operation(spec, "heartbeatWorker")["x-limits"]
    if not api.config.seed:
        store = Store(timing=timing)
    else:
        store = fixtures.build_store(timing, event_limits, heartbeat_limits)
    api.store = store
    return store


def on_request(api: Api) -> None:
    """Bring the import pipeline up to the clock before each request."""
    events.advance_imports(api.store, api.clock.now())


def ready(api: Api) -> dict[str, str]:
    """What `make serve` prints: the documented seed key (absent when fixtures are off)."""
    if fixtures.SEED_API_KEY not in api.store.tokens:
        return {}
    return {"BENCHMARKS_PLATFORM_API_KEY": fixtures.SEED_API_KEY}


PROFILE = Profile(
    name="benchsdk",
    title="benchsdk Benchmarks Platform API",
    spec_dir=SPEC_ROOT / "benchsdk",
    port=4011,
    handlers=handlers,
    errors=ErrorEnvelope(),
    auth=BenchsdkAuth(),
    new_store=new_store,
    expand=expand,
    control_routes=CONTROL_ROUTES,
    extra_routes=OBJECT_ROUTES,
    request_id_header="X-Request-Id",
    on_request=on_request,
    url_env="BENCHMARKS_PLATFORM_URL",
    ready_credentials=ready,
)
