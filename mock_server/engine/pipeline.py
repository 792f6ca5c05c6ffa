"""The request pipeline every API operation goes through.

fault -> advance simulations (profile `on_request`) -> authenticate (profile
auth) -> rate limit (profile, optional) -> route (spec) -> authorize (spec
security, profile auth) -> parameters and body (compiled spec schemas, clamps)
-> idempotency (profile, optional) -> handler -> the API's error format and
standard headers -> journal.

Each step is the API's policy, chosen in its `Profile`; this module only
orders them. An API without rate limits or idempotency simply has none.
"""

from __future__ import annotations

import asyncio
import os
import traceback
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import orjson
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from ..policies.idempotency import fingerprint
from ..policies.pagination import clamp
from ..policies.problems import Problem, Refusal
from .bodies import read_body
from .compile import Operation, validate_body, validate_value
from .context import Ctx, Principal, Reply

if TYPE_CHECKING:
    from .api import Api


def _json(body: Any) -> bytes:
    try:
        return orjson.dumps(body)
    except TypeError:  # non-string keys (e.g. counts keyed by status code)
        return orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)


def _add_headers(response: Response, headers: dict[bytes, bytes]) -> None:
    """Append the standard headers the response does not already carry (raw, for speed)."""
    raw = response.raw_headers
    present = {name for name, _ in raw}
    raw.extend([item for item in headers.items() if item[0] not in present])


def _response(result: Any) -> Response:
    """A handler's answer as a response: a Response as is, else a `Reply` (or a bare JSON value)."""
    if isinstance(result, Response):
        return result
    if not isinstance(result, Reply):
        result = Reply(result)
    if result.raw is not None:
        return Response(result.raw, result.status, result.headers, result.media_type)
    if result.status == 204 or (result.body is None and result.status in (202, 302)):
        return Response(None, result.status, result.headers)
    return Response(_json(result.body), result.status, result.headers, result.media_type)


class Pipeline:
    def __init__(self, api: Api) -> None:
        self.api = api
        profile = api.profile
        self.router = api.router
        self.handlers = profile.handlers
        self.auth = profile.auth
        self.rate_limit = api.rate_limit
        self.idempotency = profile.idempotency
        self.request_id_header = profile.request_id_header.lower().encode() if profile.request_id_header else None
        self.request_id_prefix = profile.request_id_prefix
        self.standard = {name.lower().encode(): value.encode() for name, value in profile.standard_headers.items()}
        self.idempotency_header = profile.idempotency.header.lower() if profile.idempotency else None
        self.replay_marker = profile.idempotency.replay_marker if profile.idempotency else ""
        self.replayed_headers = profile.idempotency.replayed_headers if profile.idempotency else frozenset()

    def _route(self, scope: Any, method: str, path: str) -> tuple[Operation | None, dict[str, str], list[str]]:
        """Match the decoded path, except when a segment carries an encoded slash (`%2F`):
        then match the raw path and decode each parameter, so `a%2Fb` is one value."""
        raw = scope.get("raw_path") or b""
        if b"%2f" not in raw.lower():
            return self.router.match(method, path)
        op, params, allowed = self.router.match(method, raw.decode("latin-1").split("?", 1)[0])
        return op, {name: unquote(value) for name, value in params.items()}, allowed

    def new_request_id(self) -> str:
        # always from the operating system, even under `ids.reproducible`: every request mints one, and
        # requests that race would otherwise take each other's share of the seeded ids in any order
        return self.request_id_prefix + os.urandom(10).hex()

    def render(self, problem: Problem, op: Operation | None, request_id: str | None) -> Response:
        return self.api.error_format(op).render(problem, request_id)

    async def __call__(self, request: Request) -> Response:
        api = self.api
        request_id = self.new_request_id()
        method = request.method
        path = request.scope["path"]
        op, path_params, allowed = self._route(request.scope, method, path)
        headers = dict(self.standard)
        if self.request_id_header is not None:
            headers[self.request_id_header] = request_id.encode()
        principal: Principal | None = None
        try:
            fault = api.faults.for_request(op, method, path)
            in_flight_delay = 0.0
            if fault is not None:
                if fault.latency_ms and self._keyed_write(op, request):
                    in_flight_delay = fault.latency_ms / 1000  # spent while the key is in flight (`_run`)
                elif fault.latency_ms:
                    await asyncio.sleep(fault.latency_ms / 1000)
                if fault.status:
                    documented = op.error_codes.get(str(fault.status)) if op else None
                    code = documented[0] if documented else "fault_injected"
                    raise Problem(fault.status, code, "Injected by POST /__mock/faults.")
            api.sync()
            principal = self.auth.authenticate(request, api)
            if self.rate_limit is not None:
                headers.update(self.rate_limit.hit(principal, method))
            if op is None:
                if allowed:
                    methods = ", ".join(sorted(set(allowed)))
                    raise Problem(
                        405,
                        "method_not_allowed",
                        f"{method} is not an operation of {path}; allowed: {methods}.",
                        headers={"Allow": methods},
                    )
                raise Problem(404, "not_found", f"No {api.profile.title} operation at {path}.")
            self.auth.authorize(op, principal, api)
            response = await self._run(request, op, path_params, principal, request_id, in_flight_delay)
        except Problem as problem:
            response = self.render(problem, op, request_id)
        except Exception:  # an unhandled error is the framework's bare 500
            traceback.print_exc()
            response = PlainTextResponse("Internal Server Error", status_code=500)
        _add_headers(response, headers)
        api.journal.record(request, op, response.status_code, principal, request_id, api.clock.now())
        return response

    def _keyed_write(self, op: Operation | None, request: Request) -> bool:
        """A write carrying the API's idempotency key: injected latency on it is spent after the
        key is taken and before the handler runs, so a concurrent retry meets the key in flight."""
        return (
            op is not None
            and op.mutating
            and self.idempotency_header is not None
            and self.idempotency_header in request.headers
        )

    async def _run(
        self,
        request: Request,
        op: Operation,
        path_params: dict[str, str],
        principal: Principal,
        request_id: str,
        in_flight_delay: float = 0.0,
    ) -> Response:
        query, raw_query = self._parameters(request, op, path_params)
        body = await read_body(request, op, self.api.max_body_bytes)
        key = request.headers.get(self.idempotency_header) if op.mutating and self.idempotency_header else None
        cache = self.api.idempotency
        scope = principal.cache_key
        if key is not None:
            now = self.api.clock.now().timestamp()
            cached = cache.begin(scope, key, fingerprint(op.method, request.scope["path"], body.raw), now)
            if cached is not None:
                replay = Response(cached.body, cached.status, dict(cached.headers), cached.media_type)
                replay.headers[self.replay_marker] = "true"
                return replay
            if in_flight_delay:
                try:
                    await asyncio.sleep(in_flight_delay)
                except BaseException:
                    cache.abandon(scope, key)
                    raise
        ctx = Ctx(request, op, principal, path_params, query, raw_query, body.json, self.api, body.form, body.files)
        handler = self.handlers.get(op.operation_id)
        try:
            if handler is None:
                raise Problem(501, "not_configured", f"{op.operation_id} is not wired on this mock.")
            response = _response(await handler(ctx))
        except Refusal as refusal:
            response = self.render(refusal.problem(), op, request_id)
        except Problem as problem:
            response = self.render(problem, op, request_id)
        except BaseException:
            if key is not None:
                cache.abandon(scope, key)
            raise
        if key is not None:
            if getattr(response, "body_iterator", None) is not None:
                cache.abandon(scope, key)
            else:
                kept = {k: v for k, v in response.headers.items() if k.lower() in self.replayed_headers}
                cache.finish(scope, key, response.status_code, response.body, response.media_type or "", kept)
        return response

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
                if raw is not None and param.single and len(request.query_params.getlist(param.name)) > 1:
                    # one value, given twice: which one the client meant is anyone's guess (docs/interpretations.md)
                    detail = f"query parameter '{param.name}' takes one value; it was given more than once"
                    raise Problem(400, param.invalid_code, detail, field=param.name)
            elif param.location == "header":
                raw = request.headers.get(param.name)
            else:
                raw = request.cookies.get(param.name)
            if raw is None:
                if param.required:
                    detail = f"{param.location} parameter '{param.name}' is required"
                    raise Problem(400, param.invalid_code, detail, field=param.name)
                values[param.name] = param.absent  # defaults are scalars (int, str, bool, None)
                continue
            value = param.coerce(raw)
            validate_value(param, value)
            values[param.name] = value = clamp(value, param.clamp)
            if param.location == "path":
                path_params[param.name] = value  # handlers read typed path parameters
        return values, raw_query


__all__ = ["Pipeline", "validate_body"]
