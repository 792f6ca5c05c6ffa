"""Registry reads and range names (§8 access, §8.1–§8.3)."""

from __future__ import annotations

import hashlib

import orjson
import pytest

from mock_server.benchwright.fixtures import OTHER_USER_ID, RUN_IDS

PUBLIC_RUN = RUN_IDS["ok_public"]
MODEL = {"model": "anthropic/claude-sonnet-4", "provider": "openrouter"}


def _subset_tail(benchmark_id: str, tasks: int) -> str:
    return hashlib.sha256(f"{benchmark_id}:{tasks}".encode()).hexdigest()[:12]


SEED_SUBSET = f"sub_bm_mmlu:{_subset_tail('bm_mmlu', 6)}"


def finished_run(api, *, indices: str, model=MODEL, public: bool = True, request: str = "Run MMLU on it") -> str:
    """Launch, finish and (optionally) publish a run over `indices`."""
    launched = api.post("/v1/runs", json={"request": request, "model": model, "metadata": {"indices": indices}})
    assert launched.status_code == 202, launched.text
    run_id = launched.json()["id"]
    assert api.http.post(f"/__mock/runs/{run_id}/finish", json={"status": "ok"}).status_code == 200
    if public:
        assert api.patch(f"/v1/runs/{run_id}", json={"visibility": "public"}).status_code == 200
    return run_id


def jsonl_get(client, url: str):
    """JSONL bodies bypass the spec check: contracts/validation.py parses every
    `*json` media type, `application/x-ndjson` included, as one JSON document."""
    response = client.http.get(url)
    assert response.headers["content-type"].startswith("application/x-ndjson")
    assert response.headers["cache-control"] == "no-store"
    return response


@pytest.fixture
def session(anon):
    return anon.as_session()


@pytest.fixture
def nobody(anon):
    return anon.anonymous()


# -- §8 access ------------------------------------------------------------------------


def test_s8_anonymous_sees_only_benchmarks_with_public_runs(nobody):
    response = nobody.get("/v1/registry/benchmarks")
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    (mmlu,) = response.json()["data"]
    assert mmlu["id"] == "bm_mmlu" and mmlu["visibility"] == "public"
    runs = [r for s in mmlu["subsets"] for r in s["runs"]]
    assert [r["id"] for r in runs] == [PUBLIC_RUN]


def test_s8_session_folds_in_own_private_rows_with_visibility(session, nobody):
    data = session.get("/v1/registry/benchmarks").json()["data"]
    by_id = {b["id"]: b for b in data}
    assert set(by_id) == {"bm_mmlu", "bm_gsm8k"}
    assert by_id["bm_gsm8k"]["visibility"] == "private"  # only an unlisted run of mine
    runs = {r["id"]: r["visibility"] for s in by_id["bm_mmlu"]["subsets"] for r in s["runs"]}
    assert runs[PUBLIC_RUN] == "public"
    assert runs[RUN_IDS["fork_root"]] == "private"
    assert RUN_IDS["other_private"] not in runs  # someone else's private run
    assert RUN_IDS["error"] not in runs  # not finished ok: no leaderboard row


def test_s8_pat_sees_the_public_catalog_only(api):
    """Only a browser session folds in the caller's private rows; a PAT does not."""
    data = api.get("/v1/registry/benchmarks").json()["data"]
    assert [b["id"] for b in data] == ["bm_mmlu"]
    assert [r["id"] for s in data[0]["subsets"] for r in s["runs"]] == [PUBLIC_RUN]


def test_s8_pat_without_registry_read_is_refused(api):
    response = api.as_token(["runs:read"]).get("/v1/registry/benchmarks")
    assert response.status_code == 403
    assert response.json()["required_scope"] == "registry:read"


def test_s8_no_store_on_registry_errors_too(nobody):
    response = nobody.get("/v1/registry/benchmarks/nope")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert response.headers["cache-control"] == "no-store"


def test_s8_4_benchmark_visibility_follows_its_runs(api, nobody):
    assert nobody.get("/v1/registry/benchmarks/GSM8K").status_code == 404
    run_id = finished_run(api, indices="0-5", public=False, request="Run GSM8K now")
    assert nobody.get("/v1/registry/benchmarks/GSM8K").status_code == 404
    assert api.patch(f"/v1/runs/{run_id}", json={"visibility": "public"}).status_code == 200
    body = nobody.get("/v1/registry/benchmarks/GSM8K").json()
    assert body["visibility"] == "public"


# -- §8.1 ------------------------------------------------------------------------------


def test_s8_1_summary_envelope_counts_only_on_request(session):
    plain = session.get("/v1/registry/benchmarks?summary=1").json()
    assert set(plain) == {"benchmarks", "total", "offset", "limit"}
    assert plain["total"] == 2 and plain["offset"] == 0 and plain["limit"] == 50
    mmlu = next(b for b in plain["benchmarks"] if b["id"] == "bm_mmlu")
    assert mmlu["runCount"] == 4 and mmlu["modelCount"] == 1 and mmlu["subsetCount"] == 1
    assert mmlu["subsets"][0]["sampleCount"] == 6 and "runs" not in mmlu["subsets"][0]
    counted = session.get("/v1/registry/benchmarks?summary=1&counts=1").json()
    assert counted["facets"]["visibility"] == {"public": 1, "private": 1}
    assert counted["agg"]["benchmarks"] == 2 and counted["agg"]["runs"] == 5


def test_s8_1_summary_limit_is_clamped_and_offset_pages(session):
    assert session.get("/v1/registry/benchmarks?summary=1&limit=5000").json()["limit"] == 200
    first = session.get("/v1/registry/benchmarks?summary=1&limit=1").json()
    second = session.get("/v1/registry/benchmarks?summary=1&limit=1&offset=1").json()
    assert first["total"] == second["total"] == 2
    assert [first["benchmarks"][0]["id"], second["benchmarks"][0]["id"]] == ["bm_gsm8k", "bm_mmlu"]


def test_s8_1_hide_private_and_hide_public(session):
    shown = session.get("/v1/registry/benchmarks?summary=1&hide_private=1").json()
    assert [b["id"] for b in shown["benchmarks"]] == ["bm_mmlu"]
    assert shown["benchmarks"][0]["runCount"] == 1
    mine = session.get("/v1/registry/benchmarks?summary=1&hide_public=1").json()
    assert {b["id"]: b["runCount"] for b in mine["benchmarks"]} == {"bm_gsm8k": 1, "bm_mmlu": 3}
    assert all(b["visibility"] == "private" for b in mine["benchmarks"])


def test_s8_1_q_search_and_category_filter(session):
    created = session.post(
        "/v1/benchmarks", json={"name": "BFCL v4 mirror", "category": "tool-use", "description": "Function calls"}
    )
    assert created.status_code == 201
    found = session.get("/v1/registry/benchmarks?summary=1&q=function").json()
    assert [b["name"] for b in found["benchmarks"]] == ["BFCL v4 mirror"]
    assert found["benchmarks"][0]["highlights"] == ["Function calls"]
    by_category = session.get("/v1/registry/benchmarks?summary=1&category=tool-use&counts=1").json()
    assert by_category["total"] == 1 and by_category["facets"]["category"] == {"tool-use": 1}
    assert session.get("/v1/registry/benchmarks?summary=1&q=zzz").json()["total"] == 0


# -- §8.2 ------------------------------------------------------------------------------


def test_s8_2_benchmark_by_id_or_name(nobody):
    by_id = nobody.get("/v1/registry/benchmarks/bm_mmlu").json()
    by_name = nobody.get("/v1/registry/benchmarks/MMLU").json()
    assert by_id == by_name
    assert by_id["subsets"][0]["id"] == SEED_SUBSET
    assert by_id["index_spans"] == [{"subset_id": SEED_SUBSET, "spans": [{"start": 0, "end": 5}]}]
    assert by_id["leaderboards"][0]["native"][0]["run_id"] == PUBLIC_RUN
    assert by_id["coverage"] == [{"subset_id": SEED_SUBSET, "covering_runs": 1, "derived_runs": 0}]
    assert by_id["range_names"] == []


def test_s8_2_private_benchmark_is_404_for_others(nobody, session):
    assert nobody.get("/v1/registry/benchmarks/GSM8K").status_code == 404
    assert session.get("/v1/registry/benchmarks/GSM8K").status_code == 200


# -- §8.3 ------------------------------------------------------------------------------


def test_s8_3_stats_count_what_the_caller_sees(nobody, session):
    assert nobody.get("/v1/registry/stats").json() == {
        "benchmarks": 1,
        "subsets": 1,
        "impls": 1,
        "runs": 1,
        "models": 1,
        "tasks": 6,
    }
    assert session.get("/v1/registry/stats?hide_public=1").json()["runs"] == 4


def test_s8_3_superset_runs_cover_derive_and_rescore(api, nobody):
    """A public run over 0-9 covers the 6-task subset: it is a covering run and,
    its model having no native run there, a derived row scored on 0-5 only."""
    wide = finished_run(api, indices="0-9")
    subset = f"/v1/registry/subsets/{SEED_SUBSET}"
    covering = nobody.get(f"{subset}/covering-runs").json()["data"]
    assert {r["run_id"] for r in covering} == {PUBLIC_RUN, wide}
    row = next(r for r in covering if r["run_id"] == wide)
    assert row["tasks_scored"] == 6 and row["source_subset_id"] != SEED_SUBSET
    (derived,) = nobody.get(f"{subset}/derived").json()["data"]
    assert derived["model"] == MODEL["model"] and derived["score"] == row["score"]
    assert nobody.get("/v1/registry/benchmarks/MMLU/coverage").json()["data"][0] == {
        "subset_id": SEED_SUBSET,
        "covering_runs": 2,
        "derived_runs": 1,
    }
    # a native public run of that model removes its derived row
    finished_run(api, indices="0-5")
    assert nobody.get(f"{subset}/derived").json()["data"] == []


def test_s8_3_subset_leaderboard_public_runs_only(session):
    """Even a session, whose view includes its private runs, ranks public runs only."""
    assert len(session.get(f"/v1/registry/subsets/{SEED_SUBSET}").json()["runs"]) == 4
    board = session.get(f"/v1/registry/subsets/{SEED_SUBSET}/leaderboard").json()
    assert board["id"] == SEED_SUBSET
    assert [e["run_id"] for e in board["data"]] == [PUBLIC_RUN]


def test_s8_3_catalog_form_ids_resolve(nobody):
    tail = SEED_SUBSET.rsplit(":", 1)[1]
    assert nobody.get(f"/v1/registry/subsets/MMLU:{tail}").json()["id"] == SEED_SUBSET
    impl_id = nobody.get("/v1/registry/benchmarks/MMLU").json()["impls"][0]["id"]
    impl = nobody.get(f"/v1/registry/impls/MMLU:{impl_id.rsplit(':', 1)[1]}").json()
    assert impl["id"] == impl_id and [r["id"] for r in impl["runs"]] == [PUBLIC_RUN]
    assert impl["fingerprint"] == impl_id[-12:] and impl["impl_fingerprint"].startswith(impl["fingerprint"])


def test_s8_3_range_scores_runs_on_just_those_positions(api, nobody):
    wide = finished_run(api, indices="0-9")
    body = nobody.get("/v1/registry/benchmarks/MMLU/range?indices=6-9").json()
    assert body["positions"] == 4 and [r["run_id"] for r in body["runs"]] == [wide]
    assert body["runs"][0]["tasks_scored"] == 4
    both = nobody.get("/v1/registry/benchmarks/MMLU/range?indices=0,2,4").json()
    assert {r["run_id"] for r in both["runs"]} == {PUBLIC_RUN, wide}
    best = {m: max(r["score"] for r in both["runs"] if r["model"] == m) for m in {r["model"] for r in both["runs"]}}
    assert {e["model"]: e["score"] for e in both["leaderboard"]} == best
    assert [e["score"] for e in both["leaderboard"]] == sorted(best.values(), reverse=True)


def test_s8_3_range_position_cap(nobody):
    response = nobody.get("/v1/registry/benchmarks/MMLU/range?indices=0-2000")
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"
    assert nobody.get("/v1/registry/benchmarks/MMLU/range?indices=0-1999").status_code == 200


def test_s8_3_range_dataset_is_a_jsonl_attachment_matching_info(nobody):
    response = jsonl_get(nobody, "/v1/registry/benchmarks/MMLU/range/dataset?indices=1-3")
    assert response.status_code == 200
    assert response.headers["content-disposition"].startswith("attachment")
    assert response.headers["cache-control"] == "no-store"
    lines = [orjson.loads(line) for line in response.content.splitlines()]
    assert [line["index"] for line in lines] == [1, 2, 3]
    assert set(lines[0]) == {"index", "input", "expected"}
    info = nobody.get("/v1/registry/benchmarks/MMLU/range/dataset/info?indices=1-3").json()
    assert info == {"rows": 3, "bytes": len(response.content)}
    full = nobody.get("/v1/registry/benchmarks/MMLU/range/dataset/info").json()
    assert full["rows"] == 6
    over = nobody.get("/v1/registry/benchmarks/MMLU/range/dataset?indices=0-40000,40001-50001")
    assert over.status_code == 400


def test_s8_3_distribution_is_slim_and_tasks_drill_in(api, nobody):
    finished_run(api, indices="0-9")
    base = f"/v1/registry/subsets/{SEED_SUBSET}"
    dist = nobody.get(f"{base}/distribution").json()
    assert dist["sample_count"] == 6 and [t["index"] for t in dist["tasks"]] == list(range(6))
    assert all(set(t) == {"index", "difficulty", "pass_rate"} for t in dist["tasks"])
    assert sum(b["count"] for b in dist["histogram"]) == 6
    assert dist["summary"]["run_count"] == 2 and dist["summary"]["model_count"] == 2
    task = nobody.get(f"{base}/tasks/2").json()
    assert task["index"] == 2 and task["pass_rate"] == dist["tasks"][2]["pass_rate"]
    assert len(task["results"]) == 2 and {"input", "expected"} <= set(task)
    assert nobody.get(f"{base}/tasks/7").status_code == 404


def test_s8_3_subset_dataset_lines_and_info_agree(nobody):
    base = f"/v1/registry/subsets/{SEED_SUBSET}"
    dataset = jsonl_get(nobody, f"{base}/dataset")
    assert dataset.headers["content-disposition"].startswith("attachment")
    lines = dataset.content.decode().splitlines()
    assert len(lines) == 6 and orjson.loads(lines[5])["index"] == 5
    assert nobody.get(f"{base}/dataset/info").json() == {"rows": 6, "bytes": len(dataset.content)}


def test_s8_3_range_names_are_per_user(api, nobody):
    body = {"subset_id": SEED_SUBSET, "name": "First Six"}
    created = api.post("/v1/registry/benchmarks/MMLU/names", json=body)
    assert created.status_code == 201
    assert created.json()["slug"] == "first-six" and created.json()["visibility"] == "private"
    taken = api.post("/v1/registry/benchmarks/MMLU/names", json=body)
    assert taken.status_code == 409 and taken.json()["code"] == "name_taken"
    other = api.as_token(["registry:publish"], user_id=OTHER_USER_ID)
    assert other.post("/v1/registry/benchmarks/MMLU/names", json=body).status_code == 201
    assert [n["slug"] for n in api.get("/v1/registry/benchmarks/MMLU").json()["range_names"]] == ["first-six"]
    assert nobody.get("/v1/registry/benchmarks/MMLU").json()["range_names"] == []
    assert api.delete("/v1/registry/benchmarks/MMLU/names/first-six").json() == {"ok": True}
    assert api.delete("/v1/registry/benchmarks/MMLU/names/first-six").status_code == 404
    bad = api.post("/v1/registry/benchmarks/MMLU/names", json={"subset_id": "GSM8K:000000000000", "name": "x"})
    assert bad.status_code == 400
