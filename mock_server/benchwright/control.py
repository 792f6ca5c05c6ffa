"""Benchwright's own `/__mock` routes, beside the generic core (`mock_server.control`).

    POST   /__mock/users                 {email?, tier?, balance_cents?, admin?, team_owner_id?,
                                          quota_overrides?, cloud_inference?} -> 201 user
    PATCH  /__mock/users/{id}            {quota_overrides} -> 200 user, its ceilings replaced
    POST   /__mock/tokens                {scopes, user_id?, label?, expires_at?} -> 201 {id, token, user_id}
    POST   /__mock/sessions              {user_id?} -> 201 {user_id, cookie_name, cookie} + Set-Cookie
    POST   /__mock/runs/{id}/finish      {status: ok|error, score?} -> 200 run
    POST   /__mock/topups/{id}/pay       -> 200 the top-up, now succeeded (id: top_…, bare, or the checkout cs_…)
    POST   /__mock/checkout/{id}/complete -> 200 a subscription checkout completed
    POST   /__mock/operators/{id}/kill-chat {death_log?} -> 200 the operator's chat process dies

`POST /__mock/sessions`' and `/__mock/tokens`' outputs are what the contract
suite and client tests log in with.
"""

from __future__ import annotations

from datetime import datetime

from starlette.requests import Request
from starlette.responses import Response

from ..control import api_of, json_body, json_response, route
from ..policies.problems import Problem, invalid
from .auth import SESSION_COOKIE
from .model import accounts
from .model import lifecycle as pipeline
from .model.expiry import parse_expiry
from .model.runs import run_json
from .resources import billing, operators
from .resources.secrets import enroll_cloud_inference
from .spec_data import all_scopes, tiers

QUOTA_KEYS = {"read_rpm", "write_rpm", "max_run_concurrency"}


async def users(request: Request) -> Response:
    api = api_of(request)
    body = await json_body(request)
    tier = body.get("tier", "growth")
    if tier not in tiers(api):
        raise invalid(f"tier must be one of {sorted(tiers(api))}")
    overrides = _overrides(body)
    user = accounts.create_user(
        api.store,
        email=body.get("email"),
        tier=tier,
        admin=bool(body.get("admin", False)),
        balance_cents=int(body.get("balance_cents", 10_000)),
        team_owner_id=body.get("team_owner_id"),
    )
    user.quota_overrides = overrides
    if body.get("cloud_inference"):
        enroll_cloud_inference(api.store, user.id)
    return json_response(accounts.describe_user(api.store, user), 201)


def _overrides(body: dict) -> dict[str, int]:
    overrides = body.get("quota_overrides") or {}
    if (
        not isinstance(overrides, dict)
        or not set(overrides) <= QUOTA_KEYS
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in overrides.values())
    ):
        raise invalid(f"quota_overrides: non-negative integers for any of {sorted(QUOTA_KEYS)}")
    return overrides


async def update_user(request: Request) -> Response:
    """An existing account's admin-raised ceilings (§13), replaced: what a deployment's account was given, made
    the mock's (the differential oracle's account takes its target's read and write quotas this way)."""
    api = api_of(request)
    body = await json_body(request)
    user_id = request.path_params["id"]
    if user_id not in api.store.users:
        raise Problem(404, "not_found", f"No user {user_id}.")
    if "quota_overrides" not in body:
        raise invalid("quota_overrides is required")
    api.store.users[user_id].quota_overrides = _overrides(body)
    return json_response(accounts.describe_user(api.store, api.store.users[user_id]))


async def tokens(request: Request) -> Response:
    api = api_of(request)
    body = await json_body(request)
    scopes = body.get("scopes")
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        raise invalid('scopes: a list of scope strings, or ["full"]')
    if "full" in scopes:
        scopes = all_scopes(api)
    user_id = body.get("user_id") or api.store.default_user_id
    if user_id not in api.store.users:
        raise Problem(404, "not_found", f"No user {user_id}.")
    expires_at: datetime | None = None
    if body.get("expires_at") is not None:
        expires_at = parse_expiry(str(body["expires_at"]))
    token, secret = api.store.add_token(user_id, scopes, label=body.get("label", ""), expires_at=expires_at)
    return json_response({"id": token.id, "token": secret, "user_id": user_id, "scopes": token.scopes}, 201)


async def sessions(request: Request) -> Response:
    api = api_of(request)
    body = await json_body(request)
    user_id = body.get("user_id") or api.store.default_user_id
    if user_id not in api.store.users:
        raise Problem(404, "not_found", f"No user {user_id}.")
    cookie = api.store.add_session(user_id)
    response = json_response({"user_id": user_id, "cookie_name": SESSION_COOKIE, "cookie": cookie}, 201)
    response.set_cookie(SESSION_COOKIE, cookie, httponly=True, samesite="lax")
    return response


async def finish(request: Request) -> Response:
    api = api_of(request)
    body = await json_body(request)
    status = body.get("status")
    if status not in ("ok", "error"):
        raise invalid("status: 'ok' or 'error'")
    score = body.get("score")
    if score is not None and (not isinstance(score, int | float) or isinstance(score, bool)):
        raise invalid("score: a number")
    api.sync()
    run = pipeline.get_run(api.store, request.path_params["id"])
    if run is None:
        raise Problem(404, "not_found", "No such run.")
    pipeline.finish_now(api, run, status, score)
    return json_response(run_json(api.store, run, detail=True))


async def pay_topup(request: Request) -> Response:
    return json_response(billing.mark_topup_paid(api_of(request), request.path_params["id"]))


async def complete_checkout(request: Request) -> Response:
    return json_response(billing.complete_checkout(api_of(request), request.path_params["id"]))


async def kill_chat(request: Request) -> Response:
    body = await json_body(request)
    return json_response(operators.kill_chat(api_of(request), request.path_params["id"], body.get("death_log")))


CONTROL_ROUTES = [
    route("/__mock/users", users, "POST"),
    route("/__mock/users/{id}", update_user, "PATCH"),
    route("/__mock/tokens", tokens, "POST"),
    route("/__mock/sessions", sessions, "POST"),
    route("/__mock/runs/{id}/finish", finish, "POST"),
    route("/__mock/topups/{id}/pay", pay_topup, "POST"),
    route("/__mock/checkout/{id}/complete", complete_checkout, "POST"),
    route("/__mock/operators/{id}/kill-chat", kill_chat, "POST"),
]
