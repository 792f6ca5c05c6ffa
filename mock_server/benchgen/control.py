"""BenchGen's own control routes, beside the engine's reset/clock/requests/faults.

They stand in for what the reference does out of band, in the web app:

    POST   /__mock/users {credits?}                                  -> 201 {id, credits}
    POST   /__mock/tokens {user_id?, scopes}                         -> 201 {id, token, scopes}
    DELETE /__mock/tokens/{id}                                       -> 204 (revoke)
    POST   /__mock/competitions {name, auto_approve?, published?}    -> 201 {id}
    POST   /__mock/competitions/{id}/participants/{user_id}/approve  -> 200
    POST   /__mock/submissions/{id}/finish {score?, error?}          -> 200

`credits` defaults to 100, `user_id` to the seed's demo user, `auto_approve` and `published`
to true. `scopes` is a list (or a space-separated string) of the spec's `x-scopes`; a
token's secret is shown here once and kept only as a hash. A new competition costs
10 credits a run and asks the store's template questions (the seed's grade-school maths). Errors are DRF
bodies, `{"detail", "code"}`.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from mock_server.control import api_of, json_body, json_response, route
from mock_server.engine import Problem

from .model.errors import DomainError
from .model.state import Store
from .model.tokens import new_secret
from .resources.runs import status_view

DEFAULT_CREDITS = 100
DEFAULT_RUN_COST = 10


def _bad(detail: str) -> Problem:
    return Problem(400, "invalid", detail)


@contextlib.contextmanager
def _domain() -> Iterator[None]:
    try:
        yield
    except DomainError as exc:
        raise Problem(exc.status, exc.code, exc.message, **exc.fields) from None


def _endpoint(fn: Callable[[Request, Any], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """Runs in flight are brought up to the clock first; domain refusals become DRF errors."""

    async def endpoint(request: Request) -> Response:
        api = api_of(request)
        api.store.advance(api.clock.now())
        with _domain():
            return await fn(request, api)

    endpoint.__name__ = fn.__name__
    return endpoint


def _int(value: Any, name: str, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _bad(f"{name} must be an integer >= {minimum}.")
    return value


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise _bad(f"{name} must be true or false.")
    return value


def _path_int(request: Request, name: str) -> int:
    raw = request.path_params[name]
    if not raw.isdigit():
        raise Problem(404, "not_found", f"No {name} {raw}.")
    return int(raw)


async def create_user(request: Request, api: Any) -> Response:
    body = await json_body(request)
    store: Store = api.store
    user = store.add_user(credits=_int(body.get("credits", DEFAULT_CREDITS), "credits"))
    return json_response({"id": user.id, "credits": user.credits}, 201)


def _scopes(raw: Any, known: set[str]) -> tuple[str, ...]:
    if isinstance(raw, str):
        raw = raw.split()
    if not isinstance(raw, list) or not all(isinstance(s, str) for s in raw):
        raise _bad("scopes must be a list of scope names (or one space-separated string).")
    unknown = sorted(set(raw) - known)
    if unknown:
        raise _bad(f"Unknown scopes {unknown}; known: {sorted(known)}.")
    return tuple(raw)


async def create_token(request: Request, api: Any) -> Response:
    body = await json_body(request)
    if "scopes" not in body:
        raise _bad("scopes is required.")
    spec = api.spec
    scopes = _scopes(body["scopes"], set(spec["x-scopes"]["scopes"]))
    store: Store = api.store
    if "user_id" not in body and store.default_user_id is None:
        raise _bad("user_id is required: this mock runs without its fixtures.")
    user_id = _int(body.get("user_id", store.default_user_id), "user_id", minimum=1)
    prefix = spec["components"]["securitySchemes"]["token"]["x-token-prefix"]
    secret = new_secret(prefix)
    token = store.add_token(user_id, scopes, secret, api.clock.now())
    return json_response({"id": token.id, "token": secret, "scopes": list(token.scopes)}, 201)


async def revoke_token(request: Request, api: Any) -> Response:
    api.store.revoke_token(_path_int(request, "id"), api.clock.now())
    return Response(status_code=204)


def _slug(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-") or "competition"
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = f"{base}-{n}"
    return slug


async def create_competition(request: Request, api: Any) -> Response:
    body = await json_body(request)
    name = body.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _bad("name is required: a non-empty string.")
    store: Store = api.store
    comp = store.add_competition(
        name=name.strip(),
        slug=_slug(name, {c.slug for c in store.competitions.values()}),
        description="",
        auto_approve=_bool(body.get("auto_approve", True), "auto_approve"),
        published=_bool(body.get("published", True), "published"),
        run_cost_credits=DEFAULT_RUN_COST,
        questions=store.template_questions,
    )
    return json_response({"id": comp.id}, 201)


async def approve_participant(request: Request, api: Any) -> Response:
    cid, uid = _path_int(request, "id"), _path_int(request, "user_id")
    participation = api.store.approve(cid, uid)
    body = {"competition_id": cid, "user_id": uid, "participant_status": participation.status.value}
    return json_response(body, 200)


async def finish_submission(request: Request, api: Any) -> Response:
    body = await json_body(request)
    score, error = body.get("score"), body.get("error")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise _bad("score must be a number between 0 and 1.")
    if error is not None and (not isinstance(error, str) or not error):
        raise _bad("error must be a non-empty string.")
    store: Store = api.store
    now = api.clock.now()
    sub = store.finish(_path_int(request, "id"), now, score=score, error=error)
    return json_response(status_view(store.run_view(sub, now)), 200)


CONTROL_ROUTES = [
    route("/__mock/users", _endpoint(create_user), "POST"),
    route("/__mock/tokens", _endpoint(create_token), "POST"),
    route("/__mock/tokens/{id}", _endpoint(revoke_token), "DELETE"),
    route("/__mock/competitions", _endpoint(create_competition), "POST"),
    route("/__mock/competitions/{id}/participants/{user_id}/approve", _endpoint(approve_participant), "POST"),
    route("/__mock/submissions/{id}/finish", _endpoint(finish_submission), "POST"),
]
