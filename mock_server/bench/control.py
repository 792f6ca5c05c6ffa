"""The Bench control surface (beside the engine's reset, clock, requests and faults):

- `POST /__mock/accounts {plan?, allowance?}` -> 201 `{id, plan}`: a new account on a plan; `allowance`
  sets the evaluations it may start this period.
- `POST /__mock/tokens {account_id?, kind: api_key|sdk_key|oauth|session}` -> 201 `{id, token, kind}`; the
  account defaults to acct_growth (the fixture account that owns system 123). `sdk_key` is an API key spelt
  with the spec's `sdk_key_prefix` (`bench_sk_dev_`), the form the tracing client `bench_sdk.Bench` accepts;
  its `kind` reads `api_key`.
- `POST /__mock/evaluations/{id}/finish {status?: completed|failed}` -> 200 `{run}`: ends a queued or
  running evaluation now.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from mock_server.control import api_of, json_body, json_response, route
from mock_server.engine import Problem

from .model import accounts, evaluations

KINDS = ("api_key", "sdk_key", "oauth", "session")
DEFAULT_ACCOUNT = "acct_growth"


async def create_account(request: Request) -> Response:
    api = api_of(request)
    body = await json_body(request)
    cfg = api.store.config
    plan = body.get("plan", "free")
    if plan not in cfg.plans:
        raise Problem(400, "invalid_argument", f"plan is one of {', '.join(cfg.plan_order)}.")
    allowance = body.get("allowance")
    if allowance is not None and (not isinstance(allowance, int) or isinstance(allowance, bool) or allowance < 0):
        raise Problem(400, "invalid_argument", "allowance is a non-negative integer.")
    account = accounts.new_account(api.store, plan=plan, now=api.clock.now())
    account.limit_override = allowance
    return json_response({"id": account.id, "plan": account.plan}, 201)


async def create_token(request: Request) -> Response:
    api = api_of(request)
    body = await json_body(request)
    kind = body.get("kind")
    if kind not in KINDS:
        raise Problem(400, "invalid_argument", f"kind is one of {', '.join(KINDS)}.")
    account_id = body.get("account_id", DEFAULT_ACCOUNT)
    if account_id not in api.store.accounts:
        raise Problem(404, "not_found", f"No account {account_id}.")
    user = accounts.user_of(api.store, account_id)
    cred = accounts.mint(
        api.store,
        api.store.config,
        kind="api_key" if kind == "sdk_key" else kind,
        sdk=kind == "sdk_key",
        account_id=account_id,
        user_id=user.id,
        now=api.clock.now(),
        name="control",
    )
    return json_response({"id": cred.id, "token": cred.token, "kind": cred.kind}, 201)


async def finish_evaluation(request: Request) -> Response:
    api = api_of(request)
    body = await json_body(request)
    status = body.get("status", "completed")
    if status not in ("completed", "failed"):
        raise Problem(400, "invalid_argument", "status is completed or failed.")
    run = api.store.evaluations.get(int(request.path_params["id"]))
    if run is None:
        raise Problem(404, "evaluation_not_found", f"No evaluation run {request.path_params['id']}.")
    if run.status not in evaluations.ACTIVE:
        raise Problem(409, "evaluation_finished", f"Evaluation run {run.id} already ended ({run.status}).")
    evaluations.finish(api.store, run, status, api.clock.now())
    return json_response({"run": evaluations.run_json(run)}, 200)


CONTROL_ROUTES = [
    route("/__mock/accounts", create_account, "POST"),
    route("/__mock/tokens", create_token, "POST"),
    route("/__mock/evaluations/{id:int}/finish", finish_evaluation, "POST"),
]
