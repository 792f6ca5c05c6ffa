"""§12 bug reports: description cap, trace_id visibility, 201 {id, status: open}."""

from __future__ import annotations

PUBLIC_RUN = "608721fe-54f1-43e3-ab9b-7e0269783f70"
OTHER_PRIVATE_RUN = "0c9d8e7f-6a5b-4c4d-9e2f-2a1b0c9d8e7f"
OWN_PRIVATE_RUN = "2a1b0c9d-8e7f-4a6b-9c5d-4e3f2a1b0c9d"


def test_12_generic_report_is_filed_open(api):
    response = api.post("/v1/bug-reports", json={"description": "The dashboard froze."})
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "open"
    stored = api.mock.store.bug_reports[body["id"]]
    assert stored.description == "The dashboard froze."
    assert stored.trace_id is None
    assert stored.user_id == api.mock.store.default_user_id


def test_12_report_against_a_run_the_caller_can_see(api):
    for run_id in (OWN_PRIVATE_RUN, PUBLIC_RUN):
        response = api.post("/v1/bug-reports", json={"description": "Scorer returns 1.0", "trace_id": run_id})
        assert response.status_code == 201
        assert api.mock.store.bug_reports[response.json()["id"]].trace_id == run_id


def test_12_a_run_the_caller_cannot_see_is_404(api):
    for run_id in (OTHER_PRIVATE_RUN, "00000000-0000-4000-8000-000000000000"):
        response = api.post("/v1/bug-reports", json={"description": "x", "trace_id": run_id})
        assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert api.mock.store.bug_reports == {}


def test_12_description_is_capped_at_8000(api):
    assert api.post("/v1/bug-reports", json={"description": "a" * 8000}).status_code == 201
    response = api.post("/v1/bug-reports", json={"description": "a" * 8001})
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"


def test_12_description_is_required_and_trace_id_is_a_uuid(api):
    assert api.post("/v1/bug-reports", json={}).status_code == 400
    assert api.post("/v1/bug-reports", json={"description": "x", "trace_id": "run_1"}).status_code == 400


def test_12_needs_authentication(anon):
    assert anon.post("/v1/bug-reports", json={"description": "x"}).status_code == 401
