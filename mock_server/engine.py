"""The request pipeline every `/v1` operation goes through.

route (spec) -> authenticate -> authorize (spec security) -> rate limit ->
validate parameters and body (compiled spec schemas, clamps) -> idempotency ->
handler -> standard headers. Each step is a small module under `http/`; this
module only orders them.
"""

from __future__ import annotations

import asyncio
import os
import traceback
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from .http.auth import SESSION_COOKIE, Principal, authenticate, authorize
from .http.etag import check_if_match
from .http.idempotency import IdempotencyCache, fingerprint
from .http.pagination import clamp
from .http.problems import Problem, invalid
from .http.ratelimit import RateLimiter
from .operations import Operation, Router, validate_body, validate_value
from .state.store import Store

API_VERSION = "1"
API_VERSION_RAW = API_VERSION.encode()


@dataclass(slots=True)
class Reply:
    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    media_type: str = "application/json"
    raw: bytes | None = None


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
    mock: Any  # mock_server.app.Mock

    @property
    def store(self) -> Store:
        return self.mock.store

    @property
    def user(self):
        return self.principal.user

    def precondition(self, current_etag: str) -> None:
        """Apply `If-Match` as the spec marks this operation (§3.8)."""
        if self.op.if_match == "enforced":
            check_if_match(self.request.headers.get("if-match"), current_etag)


@dataclass
class Fault:
    operation_id: str | None = None
    method: str | None = None
    path: str | None = None
    status: int | None = None
    latency_ms: int = 0
    sse_drop_after: int | None = None

    def applies(self, op: Operation | None, method: str, path: str) -> bool:
        if self.operation_id and (op is None or op.operation_id != self.operation_id):
            return False
        if self.method and self.method.upper() != method:
            return False
        return not (self.path and self.path not in (path, op.template if op else None))


class Journal:
    """The request journal `GET /__mock/requests` serves (credentials redacted).

    Recording keeps references only; entries are rendered when read."""

    def __init__(self, size: int = 2000) -> None:
        self.entries: deque[tuple[Any, ...]] = deque(maxlen=size)

    def record(self, request: Request, op: Any, response: Response, principal: Any, request_id: str, at: Any) -> None:
        self.entries.append((request, op, response.status_code, principal, request_id, at))

    def render(self) -> list[dict[str, Any]]:
        return [
            {
                "request_id": request_id,
                "at": at.isoformat(),
                "method": request.method,
                "path": request.scope["path"],
                "query": request.scope.get("query_string", b"").decode("latin-1"),
                "operation_id": op.operation_id if op else None,
                "status": status,
                "auth": principal.kind if principal else None,
                "user_id": principal.user.id if principal and principal.user else None,
                "headers": {
                    k: ("[redacted]" if k.lower() in _SECRET_HEADERS else v) for k, v in request.headers.items()
                },
            }
            for request, op, status, principal, request_id, at in self.entries
        ]


def _add_headers(response: Response, headers: dict[bytes, bytes]) -> None:
    """Append the standard headers the response does not already carry (raw, for speed)."""
    raw = response.raw_headers
    present = {name for name, _ in raw}
    raw.extend(item for item in headers.items() if item[0] not in present)


def _numbers(node: Any, where: str) -> Any:
    """Numbers are 64-bit on this API: a larger one is `400 invalid_argument` (not a
    500 later), and an integral float (`1197.0`, or a JSON integer past 64 bits,
    which arrives as a float) is read as the integer JSON Schema says it is."""
    if isinstance(node, float):
        if not -(2**63) <= node < 2**63:
            raise invalid(f"{where}: {node} does not fit a 64-bit number", field=where)
        return int(node) if node.is_integer() else node
    if isinstance(node, int) and not isinstance(node, bool) and not -(2**63) <= node < 2**63:
        raise invalid(f"{where}: {node} does not fit a 64-bit number", field=where)
    if isinstance(node, dict):
        return {key: _numbers(value, f"{where}.{key}") for key, value in node.items()}
    if isinstance(node, list):
        return [_numbers(value, f"{where}[{index}]") for index, value in enumerate(node)]
    return node


def new_request_id() -> str:
    return "req_" + os.urandom(10).hex()


def _json(body: Any) -> bytes:
    try:
        return orjson.dumps(body)
    except TypeError:  # non-string keys (e.g. counts keyed by status code)
        return orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)


class Engine:
    def __init__(self, mock: Any, router: Router, handlers: dict[str, Any], limiter: RateLimiter) -> None:
        self.mock = mock
        self.router = router
        self.handlers = handlers
        self.limiter = limiter
        self.idempotency = IdempotencyCache()
        self.journal = Journal()
        self.faults: list[Fault] = []

    async def __call__(self, request: Request) -> Response:
        request_id = new_request_id()
        method = request.method
        path = request.scope["path"]
        op, path_params, allowed = self.router.match(method, path)
        headers = {b"x-benchwright-request-id": request_id.encode(), b"x-benchwright-api-version": API_VERSION_RAW}
        principal: Principal | None = None
        try:
            fault = self._fault(op, method, path)
            if fault is not None:
                if fault.latency_ms:
                    await asyncio.sleep(fault.latency_ms / 1000)
                if fault.status:
                    documented = op.error_codes.get(str(fault.status)) if op else None
                    code = documented[0] if documented else "fault_injected"
                    raise Problem(fault.status, code, "Injected by POST /__mock/faults.")
            store = self.mock.store
            self.mock.sync()
            principal = authenticate(store, request.headers.get("authorization"), request.cookies.get(SESSION_COOKIE))
            if principal.user is not None:
                account = store.account_of(principal.user)
                quota = self.limiter.hit(
                    account.id,
                    account.tier,
                    "read" if method in ("GET", "HEAD") else "write",
                    store.clock.now().timestamp(),
                    account.quota_overrides,
                )
                headers.update(quota.raw_headers())
            if op is None:
                if allowed:
                    raise Problem(
                        405,
                        "method_not_allowed",
                        f"{method} is not an operation of {path}; allowed: {', '.join(sorted(set(allowed)))}.",
                        headers={"Allow": ", ".join(sorted(set(allowed)))},
                    )
                raise Problem(404, "not_found", f"No /v1 operation at {path}.")
            authorize(op, principal)
            response = await self._run(request, op, path_params, principal, request_id)
        except Problem as problem:
            legacy = op is not None and op.legacy_errors
            response = problem.response(request_id, legacy=legacy)
        except Exception:  # an unhandled error is the framework's bare 500 (§14)
            traceback.print_exc()
            response = PlainTextResponse("Internal Server Error", status_code=500)
        _add_headers(response, headers)
        self.journal.record(request, op, response, principal, request_id, self.mock.store.clock.now())
        return response

    def _fault(self, op: Operation | None, method: str, path: str) -> Fault | None:
        for fault in self.faults:
            if (fault.status or fault.latency_ms) and fault.applies(op, method, path):
                return fault
        return None

    def sse_drop_after(self, op: Operation) -> int | None:
        for fault in self.faults:
            if fault.sse_drop_after is not None and fault.applies(op, op.method, op.template):
                return fault.sse_drop_after
        return None

    async def _run(
        self, request: Request, op: Operation, path_params: dict[str, str], principal: Principal, request_id: str
    ) -> Response:
        query, raw_query = self._parameters(request, op, path_params)
        raw_body = await request.body() if op.mutating or op.body_validator is not None else b""
        body = self._body(op, raw_body)
        key = request.headers.get("idempotency-key") if op.mutating else None
        scope = principal.cache_key
        if key is not None:
            now = self.mock.store.clock.now().timestamp()
            cached = self.idempotency.begin(scope, key, fingerprint(op.method, request.scope["path"], raw_body), now)
            if cached is not None:
                replay = Response(cached.body, cached.status, dict(cached.headers), cached.media_type)
                replay.headers["Idempotent-Replayed"] = "true"
                return replay
        ctx = Ctx(request, op, principal, path_params, query, raw_query, body, self.mock)
        try:
            response = await self._invoke(ctx)
        except Problem as problem:
            response = problem.response(request_id, legacy=op.legacy_errors)
        except BaseException:
            if key is not None:
                self.idempotency.abandon(scope, key)
            raise
        if key is not None:
            if getattr(response, "body_iterator", None) is not None:
                self.idempotency.abandon(scope, key)
            else:
                kept = {k: v for k, v in response.headers.items() if k.lower() in _REPLAYED_HEADERS}
                self.idempotency.finish(
                    scope, key, response.status_code, response.body, response.media_type or "", kept
                )
        return response

    async def _invoke(self, ctx: Ctx) -> Response:
        handler = self.handlers.get(ctx.op.operation_id)
        if handler is None:
            raise Problem(501, "not_configured", f"{ctx.op.operation_id} is not wired on this mock yet.")
        result = await handler(ctx)
        if isinstance(result, Response):
            return result
        if not isinstance(result, Reply):
            result = Reply(result)
        if result.raw is not None:
            return Response(result.raw, result.status, result.headers, result.media_type)
        if result.status == 204 or (result.body is None and result.status in (202, 302)):
            return Response(None, result.status, result.headers)
        return Response(_json(result.body), result.status, result.headers, result.media_type)

    def _parameters(
        self, request: Request, op: Operation, path_params: dict[str, str]
    ) -> tuple[dict[str, Any], dict[str, str]]:
        raw_query = dict(request.query_params) if request.scope.get("query_string") else {}
        values: dict[str, Any] = {}
        for param in op.params:
            if param.location == "path":
                raw = path_params.get(param.name)
            elif param.location == "query":
                raw = raw_query.get(param.name)
            elif param.location == "header":
                raw = request.headers.get(param.name)
            else:
                raw = request.cookies.get(param.name)
            if raw is None:
                if param.required:
                    raise invalid(f"{param.location} parameter '{param.name}' is required", field=param.name)
                values[param.name] = clamp(None, param.clamp) if param.clamp else param.default
                continue
            value = param.coerce(raw)
            validate_value(param, value)
            values[param.name] = clamp(value, param.clamp)
        return values, raw_query

    def _body(self, op: Operation, raw_body: bytes) -> Any:
        if op.body_validator is None:
            return None
        if not raw_body.strip():
            if op.body_required:
                raise invalid("body: a JSON body is required", field="body")
            return None
        try:
            body = orjson.loads(raw_body)
        except orjson.JSONDecodeError:
            raise invalid("body: not valid JSON", field="body") from None
        body = _numbers(body, "body")
        validate_body(op, body)
        return body


_REPLAYED_HEADERS = {"etag", "location", "content-disposition", "x-content-type-options", "cache-control"}
_SECRET_HEADERS = {"authorization", "cookie", "set-cookie"}
