"""The mock-only control surface under `/__mock` (outside `/v1`).

JSON in and out. Outside tools depend on these routes exactly:

    POST   /__mock/reset                 -> 204, state back to the seed fixtures
    POST   /__mock/users                 {email?, tier?, balance_cents?, admin?, team_owner_id?,
                                          quota_overrides?, cloud_inference?} -> 201 user
    POST   /__mock/tokens                {scopes, user_id?, label?, expires_at?} -> 201 {id, token, user_id}
    POST   /__mock/sessions              {user_id?} -> 201 {user_id, cookie_name, cookie} + Set-Cookie
    POST   /__mock/clock                 {advance_seconds} -> 200 {now}
    POST   /__mock/runs/{id}/finish      {status: ok|error, score?} -> 200 run
    GET    /__mock/requests              -> the request journal (secrets redacted)
    POST   /__mock/faults                {operation_id?, method?, path?, status?, latency_ms?, sse_drop_after?}
    DELETE /__mock/faults                -> 204
    POST   /__mock/topups/{id}/pay       -> 200 the top-up, now succeeded (id: top_…, bare, or the checkout cs_…)
    POST   /__mock/checkout/{id}/complete -> 200 a subscription checkout completed
    POST   /__mock/operators/{id}/kill-chat {death_log?} -> 200 the operator's chat process dies

Disable it with `python -m mock_server --no-control` on a shared machine.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .engine import Fault
from .http.auth import SESSION_COOKIE
from .http.problems import Problem, invalid
from .state.clock import rfc3339
from .state.expiry import parse_expiry

QUOTA_KEYS = {"read_rpm", "write_rpm", "max_run_concurrency"}


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(body), status, headers, "application/json")


async def _body(request: Request) -> dict[str, Any]:
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


def control_routes(mock: Any) -> list[Route]:
    def guarded(fn):
        async def endpoint(request: Request) -> Response:
            try:
                return await fn(request)
            except Problem as problem:
                return problem.response("req_mock")

        return endpoint

    async def reset(request: Request) -> Response:
        mock.reset()
        return Response(status_code=204)

    async def users(request: Request) -> Response:
        body = await _body(request)
        tier = body.get("tier", "growth")
        if tier not in mock.tiers:
            raise invalid(f"tier must be one of {sorted(mock.tiers)}")
        from .state import accounts

        overrides = body.get("quota_overrides") or {}
        if (
            not isinstance(overrides, dict)
            or not set(overrides) <= QUOTA_KEYS
            or not all(isinstance(v, int) and v >= 0 for v in overrides.values())
        ):
            raise invalid(f"quota_overrides: non-negative integers for any of {sorted(QUOTA_KEYS)}")
        user = accounts.create_user(
            mock.store,
            email=body.get("email"),
            tier=tier,
            admin=bool(body.get("admin", False)),
            balance_cents=int(body.get("balance_cents", 10_000)),
            team_owner_id=body.get("team_owner_id"),
        )
        user.quota_overrides = overrides
        if body.get("cloud_inference"):
            from .resources.secrets import enroll_cloud_inference

            enroll_cloud_inference(mock.store, user.id)
        return _json(accounts.describe_user(mock.store, user), 201)

    async def tokens(request: Request) -> Response:
        body = await _body(request)
        scopes = body.get("scopes")
        if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
            raise invalid('scopes: a list of scope strings, or ["full"]')
        if "full" in scopes:
            scopes = mock.all_scopes
        user_id = body.get("user_id") or mock.store.default_user_id
        if user_id not in mock.store.users:
            raise Problem(404, "not_found", f"No user {user_id}.")
        expires_at: datetime | None = None
        if body.get("expires_at") is not None:
            expires_at = parse_expiry(str(body["expires_at"]))
        token, secret = mock.store.add_token(user_id, scopes, label=body.get("label", ""), expires_at=expires_at)
        return _json({"id": token.id, "token": secret, "user_id": user_id, "scopes": token.scopes}, 201)

    async def sessions(request: Request) -> Response:
        body = await _body(request)
        user_id = body.get("user_id") or mock.store.default_user_id
        if user_id not in mock.store.users:
            raise Problem(404, "not_found", f"No user {user_id}.")
        cookie = mock.store.add_session(user_id)
        response = _json({"user_id": user_id, "cookie_name": SESSION_COOKIE, "cookie": cookie}, 201)
        response.set_cookie(SESSION_COOKIE, cookie, httponly=True, samesite="lax")
        return response

    async def clock(request: Request) -> Response:
        body = await _body(request)
        seconds = body.get("advance_seconds", 0)
        if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds < 0:
            raise invalid("advance_seconds: a non-negative number")
        mock.clock.advance(float(seconds))
        mock.sync()
        return _json({"now": rfc3339(mock.clock.now())})

    async def finish(request: Request) -> Response:
        body = await _body(request)
        status = body.get("status")
        if status not in ("ok", "error"):
            raise invalid("status: 'ok' or 'error'")
        score = body.get("score")
        if score is not None and (not isinstance(score, int | float) or isinstance(score, bool)):
            raise invalid("score: a number")
        from . import pipeline

        mock.sync()
        run = pipeline.get_run(mock.store, request.path_params["id"])
        if run is None:
            raise Problem(404, "not_found", "No such run.")
        pipeline.finish_now(mock, run, status, score)
        from .resources.runs import run_json

        return _json(run_json(mock, run, detail=True))

    async def requests(request: Request) -> Response:
        return _json({"data": mock.engine.journal.render()})

    async def add_fault(request: Request) -> Response:
        body = await _body(request)
        allowed = {"operation_id", "method", "path", "status", "latency_ms", "sse_drop_after"}
        unknown = set(body) - allowed
        if unknown:
            raise invalid(f"unknown fault fields {sorted(unknown)}; allowed: {sorted(allowed)}")
        status = body.get("status")
        if status is not None and (not isinstance(status, int) or not 100 <= status <= 599):
            raise invalid("status: an HTTP status code")
        fault = Fault(
            operation_id=body.get("operation_id"),
            method=body.get("method"),
            path=body.get("path"),
            status=status,
            latency_ms=int(body.get("latency_ms") or 0),
            sse_drop_after=body.get("sse_drop_after"),
        )
        mock.engine.faults.append(fault)
        return _json({"faults": [vars(f) for f in mock.engine.faults]}, 201)

    async def clear_faults(request: Request) -> Response:
        mock.engine.faults.clear()
        return Response(status_code=204)

    async def pay_topup(request: Request) -> Response:
        from .resources import billing

        return _json(billing.mark_topup_paid(mock, request.path_params["id"]))

    async def complete_checkout(request: Request) -> Response:
        from .resources import billing

        return _json(billing.complete_checkout(mock, request.path_params["id"]))

    async def kill_chat(request: Request) -> Response:
        from .resources import operators

        body = await _body(request)
        return _json(operators.kill_chat(mock, request.path_params["id"], body.get("death_log")))

    return [
        Route("/__mock/topups/{id}/pay", guarded(pay_topup), methods=["POST"]),
        Route("/__mock/checkout/{id}/complete", guarded(complete_checkout), methods=["POST"]),
        Route("/__mock/operators/{id}/kill-chat", guarded(kill_chat), methods=["POST"]),
        Route("/__mock/reset", guarded(reset), methods=["POST"]),
        Route("/__mock/users", guarded(users), methods=["POST"]),
        Route("/__mock/tokens", guarded(tokens), methods=["POST"]),
        Route("/__mock/sessions", guarded(sessions), methods=["POST"]),
        Route("/__mock/clock", guarded(clock), methods=["POST"]),
        Route("/__mock/runs/{id}/finish", guarded(finish), methods=["POST"]),
        Route("/__mock/requests", guarded(requests), methods=["GET"]),
        Route("/__mock/faults", guarded(add_fault), methods=["POST"]),
        Route("/__mock/faults", guarded(clear_faults), methods=["DELETE"]),
    ]
