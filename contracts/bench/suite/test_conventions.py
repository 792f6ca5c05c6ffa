"""Conventions every response keeps (C-53, C-58, C-59, C-61): no redirect, the error envelope with a
documented code and a reference, bodies far below 16 MB, NDJSON only where the catalog streams.

Read-only operations only, so it is safe against a live target."""

from __future__ import annotations

import pytest

from mock_server.bench.spec_catalog import load_spec, spec_operations

from .._runner import Drift
from ..claims import BY_ID

SPEC_OPS = {op["operationId"]: op for _, _, op in spec_operations(load_spec())}
MAX_BYTES = 16 * 1024 * 1024


def check(op_id: str, response) -> None:
    """The conventions of one response, as drift findings."""
    label = f"{response.request.method} {response.request.url.path}"
    if 300 <= response.status_code < 400:
        raise Drift(BY_ID["C-59"], label, f"answered a redirect ({response.status_code})")
    if len(response.content) > MAX_BYTES // 16:
        raise Drift("C-58.1", label, f"{len(response.content)} bytes: not far below the clients' 16 MB ceiling")
    ctype = response.headers.get("content-type", "")
    if response.status_code >= 400:
        try:
            error = response.json()["error"]
        except (ValueError, KeyError, TypeError):
            raise Drift("C-53.1", label, f"error body is not the envelope: {response.text[:200]!r}") from None
        missing = [k for k in ("code", "message", "reference") if not error.get(k)]
        if missing:
            raise Drift("C-53.1", label, f"error object lacks {missing}")
        documented = {c for codes in SPEC_OPS[op_id]["x-errors"].values() for c in codes}
        if error["code"] not in documented | {"not_found"}:
            raise Drift("C-53.2", label, f"undocumented error code {error['code']!r} ({response.status_code})")
        # the status agrees with the code: the spec documents the code under this status
        for_status = SPEC_OPS[op_id]["x-errors"].get(str(response.status_code), [])
        if error["code"] in documented and error["code"] not in for_status:
            raise Drift("C-53.2", label, f"{error['code']!r} answered with status {response.status_code}")
    elif response.status_code != 204 and SPEC_OPS[op_id].get("x-streaming"):
        if "ndjson" not in ctype:
            raise Drift(BY_ID["C-61"], label, f"a stage stream answered {ctype}")
    elif response.status_code != 204 and not ctype.startswith("application/json"):
        raise Drift(BY_ID["C-13"], label, f"answered {ctype}, not JSON")


READS = sorted(op_id for op_id, op in SPEC_OPS.items() if op["x-read-only"] and op["x-auth-class"] != "account")


@pytest.fixture(scope="module")
def ids(bench):
    """Ids from the list operations (C-25); a made-up id where there is none, to see the documented 404."""
    systems = bench.call("list_systems").json().get("items") or [{"id": 999999999}]
    runs = bench.call("list_evaluations").json().get("items") or [{"id": 999999999}]
    return {"id": systems[0]["id"], "run": runs[0]["id"]}


@pytest.mark.parametrize("op_id", READS)
def test_read_operations_keep_the_conventions(bench, ids, op_id):
    """C-13, C-53.1, C-53.2, C-58.1, C-59: every read answers JSON (or NDJSON where it streams), never a
    redirect, far below 16 MB, and its errors in the envelope with a code the spec documents for that status."""
    op = bench.ops[op_id]
    values = {name: ids["id"] for name in op["path_parameters"]}
    if op["path"].startswith("/api/evaluation-runs/"):
        values["id"] = ids["run"]
    values.update({k: "contract-none" for k in op["path_parameters"] if k != "id"})
    query = {"branch": "main"} if "branch" in op["query"]["properties"] else None
    check(op_id, bench.call(op_id, path=values, query=query))


def test_missing_and_bad_credentials(bench):
    """C-17.2, C-53.1: no credential is 401 in the envelope; a made-up one too."""
    check("list_systems", r := bench.call("list_systems", token=None))
    if r.status_code != 401:
        raise Drift("C-17.2", "GET /api/ai-systems", f"no credential answered {r.status_code}")
    r = bench.call("list_systems", token="bench_dev_key_not_a_key")
    check("list_systems", r)
    if r.status_code != 401:
        raise Drift("C-17.2", "GET /api/ai-systems", f"a made-up credential answered {r.status_code}")


def test_account_class_refuses_an_api_key(bench):
    """C-18.1: an API key gets 403 on account-class operations (GitHub setup, trace privacy); C-19.3: and on
    API-key management, the account authority over credentials (read-only ones, safe live)."""
    for op_id, clause in (("get_setup_status", "C-18.1"), ("get_trace_privacy", "C-18.1"), ("list_api_keys", "C-19.3")):
        r = bench.call(op_id)
        check(op_id, r)
        if r.status_code != 403:
            raise Drift(clause, bench.ops[op_id]["path"], f"an API key got {r.status_code}")


def test_public_operations_need_no_credential(bench):
    """C-22: public read operations answer without a credential."""
    for op_id in ("list_operations", "list_plans", "get_processing_notice"):
        r = bench.call(op_id, token=None)
        check(op_id, r)
        if r.status_code != 200:
            raise Drift(BY_ID["C-22"], bench.ops[op_id]["path"], f"answered {r.status_code} without a credential")


def test_no_trailing_slash_redirect(bench, http):
    """C-59: a trailing slash is not redirected."""
    r = http.get("/api/ai-systems/", headers={"Authorization": f"Bearer {bench.key}"})
    if 300 <= r.status_code < 400:
        raise Drift(BY_ID["C-59"], "GET /api/ai-systems/", f"redirected ({r.status_code})")
