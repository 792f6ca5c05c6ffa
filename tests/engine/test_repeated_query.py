"""A query parameter that takes one value, given twice (`?page_size=x&page_size=2`), is refused in the API's
own error format (docs/interpretations.md): which value the client meant is anyone's guess, and the specs
declare a single value, so schemathesis sends the pair as schema-violating data (`make contract SEEDS=10`
met it as an accepted negative case on BenchGen). An array parameter still takes its values in turn."""

from __future__ import annotations

from starlette.testclient import TestClient

from mock_server.apis import profile
from mock_server.app import create_app


def _client(api: str) -> TestClient:
    return TestClient(create_app(api=api, **profile(api).serve_options))


def test_a_single_value_given_twice_is_refused_in_each_apis_format():
    benchgen = _client("benchgen")
    refused = benchgen.get("/api/competitions/public/?page_size=x&page_size=2")
    assert refused.status_code == 400 and refused.json()["code"] == "invalid", refused.text
    assert refused.json()["field"] == "page_size"
    assert benchgen.get("/api/competitions/public/?page_size=2").status_code == 200
    benchwright = _client("benchwright")
    token = profile("benchwright").ready_credentials(benchwright.app.state.api)["BW_PAT"]
    auth = {"Authorization": f"Bearer {token}"}
    twice = benchwright.get("/v1/runs?limit=1&limit=2", headers=auth)
    assert twice.status_code == 400 and twice.json()["code"] == "invalid_argument", twice.text
    assert benchwright.get("/v1/runs?limit=2", headers=auth).status_code == 200


def test_an_array_parameter_still_takes_repeated_values():
    """benchsdk's `participant` is a list (`minItems: 1`): given twice, it is not refused for it."""
    from mock_server.apis import bundle
    from mock_server.engine.compile import compile_operations

    params = [p for op in compile_operations(bundle("benchsdk")) for p in op.params]
    listed = [p for p in params if p.location == "query" and p.name == "participant"]
    assert listed and not any(p.single for p in listed)
    assert any(p.single for p in params if p.location == "query")
