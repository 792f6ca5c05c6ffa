"""§6 artifacts: the list (§6.1), one row (§6.2), content (§6.3), fingerprint (§6.4), report (§6.5)."""

from __future__ import annotations

import base64

import pytest

from mock_server.benchwright.fixtures import RUN_IDS
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.resources.events import natural_id

PUBLIC = RUN_IDS["ok_public"]
SOURCES = {
    "AtomizeArtifact": "atomize",
    "PendingAtomizeCode": "atomize_draft",
    "AnalyzeArtifact": "analyze",
    "FetchArtifact": "fetch",
    "ModelProxyArtifact": "model_proxy",
    "ReportFile": "report",
}


def _list(api, run_id: str = PUBLIC, query: str = "") -> list[dict]:
    response = api.get(f"/v1/runs/{run_id}/artifacts{query}")
    assert response.status_code == 200, response.text
    return response.json()["data"]


def _emit(api, run_id: str, type_: str, data: dict) -> int:
    run = pipeline.get_run(api.mock.store, run_id)
    return pipeline.emit(api.mock.store, run, type_, data)["seq"]


def test_6_1_one_row_per_artifact_event_typed_by_the_source_table(api):
    rows = _list(api)
    run = pipeline.get_run(api.mock.store, PUBLIC)
    sources = [e for e in run.events if e["type"] in SOURCES]
    assert [(r["seq"], r["type"]) for r in rows] == [(e["seq"], SOURCES[e["type"]]) for e in sources]
    for row in rows:
        assert base64.urlsafe_b64decode(row["id"] + "==").decode() == f"{PUBLIC}:{row['seq']}"
        assert row["download_url"] == f"/v1/runs/{PUBLIC}/artifacts/{row['id']}/content"
        assert row["invocation"] == 1
        assert ("version" in row) == (row["type"] in ("atomize", "atomize_draft"))
    report = next(r for r in rows if r["type"] == "report")
    assert (report["name"], report["mime"]) == ("report.html", "text/html")


def test_6_1_type_filter_exact_set_and_atomize_wildcard(api):
    assert {r["type"] for r in _list(api, query="?type=report")} == {"report"}
    chosen = _list(api, query="?type=in:atomize,report,fetch")
    assert {r["type"] for r in chosen} == {"atomize", "report", "fetch"}
    assert {r["type"] for r in _list(api, query="?type=atomize*")} == {"atomize", "atomize_draft"}
    assert _list(api, query="?type=materialize") == []


def test_6_1_type_filter_refuses_an_undeclared_operator(api):
    response = api.get(f"/v1/runs/{PUBLIC}/artifacts?type=gte:atomize")
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"


def test_6_1_versions_latest_only_unless_include_versions(api):
    """§6.1: atomize versions per invocation, atomize_draft per save."""
    code = "def score(o, e):\n    return 1.0\n"
    _emit(api, PUBLIC, "PendingAtomizeCode", {"content": code, "invocation": 2})
    _emit(api, PUBLIC, "PendingAtomizeCode", {"content": code + "# v3\n", "invocation": 2})
    atomize = {"name": "task_impl.py", "content": code, "mime": "text/x-python", "invocation": 2}
    newest = _emit(api, PUBLIC, "AtomizeArtifact", atomize)
    latest = _list(api, query="?type=atomize*")
    assert [(r["type"], r["version"], r["latest_version"]) for r in latest] == [
        ("atomize_draft", 3, 3),
        ("atomize", 2, 2),
    ]
    assert latest[1]["seq"] == newest and latest[1]["invocation"] == 2
    every = _list(api, query="?type=atomize*&include_versions=true")
    assert sorted((r["type"], r["version"]) for r in every) == [
        ("atomize", 1),
        ("atomize", 2),
        ("atomize_draft", 1),
        ("atomize_draft", 2),
        ("atomize_draft", 3),
    ]
    assert {r["latest_version"] for r in every if r["type"] == "atomize"} == {2}
    assert len(_list(api, query="?include_versions=false")) == len(_list(api))


def test_6_1_size_bytes_counts_characters_so_non_ascii_reads_low(api):
    text = "naïve ✓ résumé"
    seq = _emit(api, PUBLIC, "AnalyzeArtifact", {"name": "notes.txt", "mime": "text/plain", "content": text})
    row = next(r for r in _list(api) if r["seq"] == seq)
    assert row["size_bytes"] == len(text) < len(text.encode())


def test_3_4_artifact_list_paginates_with_cursor(api):
    everything = _list(api)
    first = api.get(f"/v1/runs/{PUBLIC}/artifacts?limit=4").json()
    assert len(first["data"]) == 4 and first["pagination"]["has_more"] is True
    token = first["pagination"]["next_page_token"]
    rest = api.get(f"/v1/runs/{PUBLIC}/artifacts?limit=4&page_token={token}").json()
    assert first["data"] + rest["data"] == everything and rest["pagination"]["has_more"] is False


def test_6_2_one_row_without_version_fields(api):
    listed = next(r for r in _list(api) if r["type"] == "atomize")
    response = api.get(f"/v1/runs/{PUBLIC}/artifacts/{listed['id']}")
    assert response.status_code == 200
    assert response.json() == {k: v for k, v in listed.items() if k not in ("version", "latest_version")}


def test_6_2_ids_that_name_no_artifact_of_this_run_are_404(api):
    launched = next(e["seq"] for e in pipeline.get_run(api.mock.store, PUBLIC).events if e["type"] == "RunLaunched")
    unlisted = RUN_IDS["ok_unlisted"]
    foreign = next(r["id"] for r in _list(api, unlisted))
    for art_id in (natural_id(PUBLIC, launched), natural_id(PUBLIC, 9999), foreign, "Zm9vYmFy", "AAAA"):
        response = api.get(f"/v1/runs/{PUBLIC}/artifacts/{art_id}")
        assert response.status_code == 404, art_id
        assert response.json()["code"] == "not_found"
    assert api.get(f"/v1/runs/{PUBLIC}/artifacts/not%20an%20id").status_code == 400


def test_6_3_content_is_the_raw_body_with_its_mime(api):
    row = next(r for r in _list(api) if r["type"] == "atomize")
    response = api.get(row["download_url"])
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/x-python")
    assert "x-content-type-options" not in response.headers
    assert response.text.startswith("from bench_task import BenchTask")
    assert len(response.text) == row["size_bytes"]


@pytest.mark.parametrize(
    "mime",
    ["text/html", "image/svg+xml", "application/xml", "text/xml", "application/javascript", "text/javascript"],
)
def test_6_3_active_content_is_downgraded_to_text_plain_nosniff(api, mime):
    body = "<svg onload=alert(1)></svg>"
    seq = _emit(api, PUBLIC, "ReportFile", {"name": "x", "mime": mime, "content": body})
    response = api.get(f"/v1/runs/{PUBLIC}/artifacts/{natural_id(PUBLIC, seq)}/content")
    assert response.headers["content-type"].startswith("text/plain")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.text == body


def test_6_3_model_proxy_serves_its_config(api):
    row = next(r for r in _list(api) if r["type"] == "model_proxy")
    response = api.get(row["download_url"])
    assert response.headers["content-type"].startswith("text/yaml")
    assert response.text == "model_list: []\n"


def test_6_4_fingerprint_hash_and_its_chain(api):
    body = api.get(f"/v1/runs/{PUBLIC}/fingerprint").json()
    assert body["hash"] == api.get(f"/v1/runs/{PUBLIC}").json()["fingerprint_hash"]
    assert [c["type"] for c in body["components"]] == ["AtomizeArtifact", "ModelProxyArtifact"]
    assert body["components"][-1]["cumulative_hash"].startswith(body["hash"])
    assert "content" in body["components"][0]["data"]


def test_6_4_no_artifact_events_no_fingerprint(api):
    launched = api.post("/v1/runs", json={"request": "Run MMLU on qwen/qwen3-32b"})
    assert launched.status_code == 202
    response = api.get(f"/v1/runs/{launched.json()['id']}/fingerprint")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert api.get(f"/v1/runs/{RUN_IDS['killed']}/fingerprint").status_code == 404


def test_6_5_report_redirects_to_the_lowest_seq_report_file(api):
    first = next(r for r in _list(api) if r["type"] == "report")
    _emit(api, PUBLIC, "ReportFile", {"name": "appendix.html", "mime": "text/html", "content": "<p>later</p>"})
    response = api.get(f"/v1/runs/{PUBLIC}/report", follow_redirects=False)
    assert response.status_code == 302
    assert response.headers["location"] == first["download_url"]
    content = api.get(response.headers["location"])
    assert content.headers["content-type"].startswith("text/plain")
    assert content.headers["x-content-type-options"] == "nosniff"


def test_6_5_report_is_gated_by_run_visibility_only(api, anon):
    runs_only = api.as_token(["runs:read"])
    assert runs_only.get(f"/v1/runs/{PUBLIC}/report", follow_redirects=False).status_code == 302
    denied = runs_only.get(f"/v1/runs/{PUBLIC}/artifacts")
    assert denied.status_code == 403 and denied.json()["required_scope"] == "artifacts:read"
    assert anon.get(f"/v1/runs/{PUBLIC}/report", follow_redirects=False).status_code == 302
    assert anon.get(f"/v1/runs/{RUN_IDS['error']}/report", follow_redirects=False).status_code == 404


def test_6_5_a_run_without_a_report_is_404(api):
    response = api.get(f"/v1/runs/{RUN_IDS['killed']}/report", follow_redirects=False)
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_2_2_anonymous_artifact_reads_follow_run_visibility(anon):
    rows = _list(anon, RUN_IDS["ok_unlisted"])
    assert anon.get(rows[0]["download_url"]).status_code == 200
    assert anon.get(f"/v1/runs/{RUN_IDS['ok_unlisted']}/fingerprint").status_code == 200
    for path in ("artifacts", "fingerprint"):
        assert anon.get(f"/v1/runs/{RUN_IDS['other_private']}/{path}").status_code == 404
