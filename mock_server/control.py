"""The generic `/__mock` control surface every API's mock serves.

JSON in and out. Outside tools depend on these routes exactly:

    POST   /__mock/reset            -> 204, the clock back to its start, state back to the seed fixtures
    POST   /__mock/clock            {advance_seconds} -> 200 {now}
    GET    /__mock/requests         -> 200 {data: [...]}, the request journal (credentials redacted)
    DELETE /__mock/requests         -> 204, the journal emptied (a test reads only its own requests)
    POST   /__mock/faults           {operation_id?, method?, path?, status?, latency_ms?, sse_drop_after?} -> 201
    DELETE /__mock/faults           -> 204
    GET    /__mock/openapi.json     -> the API's bundled spec
    GET    /__mock/credentials      -> 200 {VARIABLE: value}, the ready credentials `make serve` prints

Each API adds its own routes (users, tokens, ...) in its package's `control.py`,
built with `route()` below so their errors come out in the API's format.
Endpoints are module-level functions reading the running API from
`request.app.state.api`. Disable the surface with `--no-control`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .engine.api import Api
from .engine.faults import FAULT_FIELDS, Fault
from .policies.problems import Problem, Refusal, invalid
from .state.clock import rfc3339

Endpoint = Callable[[Request], Awaitable[Response]]


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(body), status, headers, "application/json")


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object; `{}` when empty; 400 when not an object."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise invalid("body: not valid JSON") from None
    if not isinstance(body, dict):
        raise invalid("body: expected a JSON object")
    return body


def api_of(request: Request) -> Api:
    return request.app.state.api


def route(path: str, endpoint: Endpoint, method: str) -> Route:
    """A control route whose `Problem`s render in the API's own error format."""

    async def guarded(request: Request) -> Response:
        try:
            return await endpoint(request)
        except Refusal as refusal:
            return api_of(request).errors.render(refusal.problem(), None)
        except Problem as problem:
            return api_of(request).errors.render(problem, None)

    guarded.__name__ = endpoint.__name__
    return Route(path, guarded, methods=[method])


async def reset(request: Request) -> Response:
    api_of(request).reset()
    return Response(status_code=204)


async def clock(request: Request) -> Response:
    api = api_of(request)
    body = await json_body(request)
    seconds = body.get("advance_seconds", 0)
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds < 0:
        raise invalid("advance_seconds: a non-negative number")
    api.clock.advance(float(seconds))
    api.sync()
    return json_response({"now": rfc3339(api.clock.now())})


async def requests(request: Request) -> Response:
    return json_response({"data": api_of(request).journal.render()})


async def clear_requests(request: Request) -> Response:
    api_of(request).journal.clear()
    return Response(status_code=204)


async def add_fault(request: Request) -> Response:
    api = api_of(request)
    body = await json_body(request)
    unknown = set(body) - set(FAULT_FIELDS)
    if unknown:
        raise invalid(f"unknown fault fields {sorted(unknown)}; allowed: {sorted(FAULT_FIELDS)}")
    status = body.get("status")
    if status is not None and (not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599):
        raise invalid("status: an HTTP status code")
    latency = body.get("latency_ms") or 0
    if not isinstance(latency, int) or isinstance(latency, bool) or not 0 <= latency <= 600_000:
        raise invalid("latency_ms: milliseconds, 0 to 600000")
    drop = body.get("sse_drop_after")
    if drop is not None and (not isinstance(drop, int) or isinstance(drop, bool) or drop < 0):
        raise invalid("sse_drop_after: a non-negative number of events")
    for name in ("operation_id", "method", "path"):
        if body.get(name) is not None and not isinstance(body[name], str):
            raise invalid(f"{name}: a string")
    fault = Fault(
        operation_id=body.get("operation_id"),
        method=body.get("method"),
        path=body.get("path"),
        status=status,
        latency_ms=latency,
        sse_drop_after=drop,
    )
    api.faults.append(fault)
    return json_response({"faults": [vars(f) for f in api.faults]}, 201)


async def clear_faults(request: Request) -> Response:
    api_of(request).faults.clear()
    return Response(status_code=204)


async def openapi(request: Request) -> Response:
    return Response(api_of(request).spec_json, 200, media_type="application/json")


async def credentials(request: Request) -> Response:
    """The ready credentials the start-up banner prints, by the variable a client reads them from,
    so a tool given only a served mock's URL can talk to it (the contract runner, the pytest plugin)."""
    api = api_of(request)
    ready = api.profile.ready_credentials
    return json_response(dict(ready(api)) if ready else {})


CORE_ROUTES = [
    route("/__mock/reset", reset, "POST"),
    route("/__mock/clock", clock, "POST"),
    route("/__mock/requests", requests, "GET"),
    route("/__mock/requests", clear_requests, "DELETE"),
    route("/__mock/faults", add_fault, "POST"),
    route("/__mock/faults", clear_faults, "DELETE"),
    route("/__mock/openapi.json", openapi, "GET"),
    route("/__mock/credentials", credentials, "GET"),
]
