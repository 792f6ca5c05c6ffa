"""Authoring (§8.5–§8.9) and pinned launch of authored rows (§4.2.2, §4.2.5)."""

from __future__ import annotations

import hashlib
import re

import orjson
import pytest

from mock_server.benchwright.fixtures import OTHER_USER_ID

TASKS = [
    {"task_id": "q1", "input": {"at": "00:01:10", "clip": "c1"}, "expected": {"rows": 3}},
    {"task_id": "q2", "input": {"at": "00:04:40", "clip": "c2"}, "expected": {"rows": 1}},
]
GRADER = {"setup": "pip install -r requirements.txt", "boot": "mint", "run": "python drive.py", "run_timeout": 600}
UUID_ID = re.compile(r"^bm_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def task_set_hash(tasks) -> str:
    keys = sorted(orjson.dumps(t, option=orjson.OPT_SORT_KEYS).decode() for t in tasks)
    return hashlib.sha256("\n".join(keys).encode()).hexdigest()[:12]


def new_benchmark(client, name: str = "sqlbot", **fields) -> dict:
    response = client.post("/v1/benchmarks", json={"name": name, **fields})
    assert response.status_code == 201, response.text
    return response.json()


def new_subset(client, bench_id: str, tasks=TASKS, **fields) -> dict:
    body = {"slug": "core", "name": "Core", "tasks": tasks, **fields}
    response = client.post(f"/v1/benchmarks/{bench_id}/subsets", json=body)
    assert response.status_code in (200, 201), response.text
    return response.json()


@pytest.fixture
def built(api) -> dict:
    """An authored benchmark with a runnable subset."""
    bench = new_benchmark(api)
    return {"bench": bench, "subset": new_subset(api, bench["id"], grader=GRADER)}


# -- §8.5 ------------------------------------------------------------------------------


def test_s8_5_create_benchmark_reports_fixed_private_and_no_provenance(api):
    body = new_benchmark(api, "BFCL v4", category="tool-use", tags=["fc"], source="x", paper="y")
    assert UUID_ID.match(body["id"])
    assert body["visibility"] == "private"
    assert body["source"] is None and body["paper"] is None and body["sources"] is None and body["dataset"] is None
    assert body["tags"] == ["fc"] and body["category"] == "tool-use"


def test_s8_5_authored_benchmark_is_the_owners_private_row(api, anon):
    bench = new_benchmark(api, "mine only")
    session = anon.as_session()
    nobody = anon.anonymous()
    row = session.get(f"/v1/registry/benchmarks/{bench['id']}")
    assert row.status_code == 200 and row.json()["visibility"] == "private"
    assert nobody.get(f"/v1/registry/benchmarks/{bench['id']}").status_code == 404
    assert api.get(f"/v1/registry/benchmarks/{bench['id']}").status_code == 404  # a PAT sees the public catalog
    other = anon.as_session(OTHER_USER_ID)
    assert other.get(f"/v1/registry/benchmarks/{bench['id']}").status_code == 404


# -- §8.8: benchmarks ---------------------------------------------------------------------


def test_s8_8_patch_benchmark_enforces_if_match_and_ignores_visibility(api, anon):
    bench = new_benchmark(api)
    url = f"/v1/benchmarks/{bench['id']}"
    assert api.patch(url, json={"name": "x"}, headers={"If-Match": f'W/"{bench["id"]}:1"'}).status_code == 412
    current = anon.as_session().get(f"/v1/registry/benchmarks/{bench['id']}").headers["etag"]
    ok = api.patch(url, json={"description": "d", "visibility": "public"}, headers={"If-Match": current})
    assert ok.status_code == 200 and ok.json() == {"id": bench["id"], "ok": True}
    stale = api.patch(url, json={"category": "c"}, headers={"If-Match": current})
    assert stale.status_code == 412 and stale.headers["etag"] == ok.headers["etag"]
    shown = anon.as_session().get(f"/v1/registry/benchmarks/{bench['id']}").json()
    assert shown["description"] == "d" and shown["visibility"] == "private"


def test_s8_8_patch_naming_nothing_patchable_lists_the_fields(api):
    bench = new_benchmark(api)
    response = api.patch(f"/v1/benchmarks/{bench['id']}", json={"visibility": "public"})
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"
    assert "name, description, category" in response.json()["detail"]


def test_s8_8_patch_someone_elses_benchmark_is_404(api):
    bench = new_benchmark(api)
    other = api.as_token(["registry:publish"], user_id=OTHER_USER_ID)
    assert other.patch(f"/v1/benchmarks/{bench['id']}", json={"name": "mine"}).status_code == 404
    assert api.patch("/v1/benchmarks/bm_mmlu", json={"name": "x"}).status_code == 404  # projected, not authored


# -- §8.6 ------------------------------------------------------------------------------


def test_s8_6_subset_id_is_content_addressed_and_runnable_follows_the_grader(api):
    bench = new_benchmark(api)
    ack = new_subset(api, bench["id"])
    assert ack["id"] == f"sub_{bench['id']}:{task_set_hash(TASKS)}"
    assert ack["created"] is True and ack["sample_count"] == 2 and ack["runnable"] is False
    assert "renamed_from_slug" not in ack


def test_s8_6_same_tasks_new_slug_is_an_update(api):
    bench = new_benchmark(api)
    first = new_subset(api, bench["id"])
    response = api.post(
        f"/v1/benchmarks/{bench['id']}/subsets",
        json={"slug": "core-v2", "name": "Core v2", "tasks": list(reversed(TASKS)), "grader": GRADER},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == first["id"] and body["created"] is False
    assert body["renamed_from_slug"] == "core" and body["slug"] == "core-v2" and body["runnable"] is True
    again = api.post(
        f"/v1/benchmarks/{bench['id']}/subsets", json={"slug": "core-v2", "name": "Core v2", "tasks": TASKS}
    )
    assert again.status_code == 200 and "renamed_from_slug" not in again.json()


def test_s8_6_at_most_1000_tasks_per_request(api):
    bench = new_benchmark(api)
    tasks = [{"task_id": f"t{i}", "input": i, "expected": i} for i in range(1001)]
    response = api.post(f"/v1/benchmarks/{bench['id']}/subsets", json={"slug": "s", "name": "n", "tasks": tasks})
    assert response.status_code == 400


def test_s8_6_subset_on_someone_elses_benchmark_is_404(api):
    bench = new_benchmark(api)
    other = api.as_token(["registry:publish"], user_id=OTHER_USER_ID)
    body = {"slug": "s", "name": "n", "tasks": TASKS}
    assert other.post(f"/v1/benchmarks/{bench['id']}/subsets", json=body).status_code == 404


def test_s8_6_rolling_subsets_append_unversioned_frozen_ones_refuse(api):
    bench = new_benchmark(api)
    rolling = new_subset(api, bench["id"], rolling=True)
    extra = {"tasks": [{"task_id": "q3", "input": {"clip": "c3"}, "expected": {"rows": 0}}]}
    appended = api.post(f"/v1/subsets/{rolling['id']}/tasks:append", json=extra)
    assert appended.status_code == 200
    assert appended.json() == {"id": rolling["id"], "sample_count": 3, "appended": 1}
    frozen = new_subset(api, bench["id"], tasks=TASKS[:1])
    refused = api.post(f"/v1/subsets/{frozen['id']}/tasks:append", json=extra)
    assert refused.status_code == 409 and refused.json()["code"] == "subset_frozen"


def test_s8_8_freezing_is_one_way(api):
    bench = new_benchmark(api)
    rolling = new_subset(api, bench["id"], rolling=True)
    url = f"/v1/subsets/{rolling['id']}"
    assert api.patch(url, json={"rolling": False}).json() == {"id": rolling["id"], "ok": True}
    assert api.patch(url, json={"rolling": True}).status_code == 400
    extra = {"tasks": [{"task_id": "q3", "input": 1, "expected": 1}]}
    assert api.post(f"/v1/subsets/{rolling['id']}/tasks:append", json=extra).status_code == 409
    nothing = api.patch(url, json={"slug": "x"})
    assert nothing.status_code == 400 and "name, description, rolling" in nothing.json()["detail"]


# -- §8.7 / §8.8: impls ---------------------------------------------------------------------


def test_s8_7_impl_id_is_the_code_hash_and_repeats(api, built):
    code = "from bench_task import BenchTask\n\nclass Task(BenchTask):\n    pass\n"
    body = {"subset": built["subset"]["id"], "label": "v1", "code": code, "benchmark": "ignored", "language": "go"}
    first = api.post("/v1/impls", json=body)
    assert first.status_code == 201
    digest = hashlib.sha256(code.encode()).hexdigest()
    impl = first.json()
    assert impl["id"] == f"imp_{built['bench']['id']}:{digest[:12]}"
    assert impl["fingerprint"] == digest[:12] and impl["impl_fingerprint"] == digest
    assert impl["subset"] == {"id": built["subset"]["id"]}
    assert api.post("/v1/impls", json={**body, "label": "again"}).json()["id"] == impl["id"]
    unknown = api.post("/v1/impls", json={**body, "subset": "sub_bm_x:000000000000"})
    assert unknown.status_code == 400


def test_s8_8_official_is_admin_only_and_a_mixed_patch_changes_nothing(api, anon, built):
    impl = api.post("/v1/impls", json={"subset": built["subset"]["id"], "label": "v1", "code": "x = 1"}).json()
    url = f"/v1/impls/{impl['id']}"
    mixed = api.patch(url, json={"label": "v2", "official": True})
    assert mixed.status_code == 403 and mixed.json()["code"] == "admin_required"
    session = anon.as_session()
    shown = session.get(f"/v1/registry/impls/{impl['id']}").json()
    assert shown["label"] == "v1" and shown["official"] is False
    assert api.patch(url, json={"label": "v2", "description": None}).json() == {
        "id": impl["id"],
        "ok": True,
        "label": "v2",
    }
    admin = api.as_token(["registry:publish"], user_id=api.user(admin=True)["id"])
    assert admin.patch(url, json={"official": True}).json() == {"id": impl["id"], "ok": True, "official": True}
    assert api.patch(url, json={"language": "py"}).status_code == 400


# -- §8.9 ------------------------------------------------------------------------------


def test_s8_9_build_subset_resolves_subset_id_benchmark_id_and_name(api, built):
    subset_id, bench = built["subset"]["id"], built["bench"]
    for handle in (subset_id, bench["id"], bench["id"].removeprefix("bm_"), bench["name"]):
        response = api.get(f"/v1/build/subsets/{handle}")
        assert response.status_code == 200, handle
        assert response.json()["id"] == subset_id
    body = api.get(f"/v1/build/subsets/{subset_id}").json()
    assert body["recipe"]["config"] == GRADER and body["tasks"] == TASKS and body["runnable"] is True
    assert re.match(r'^W/"', api.get(f"/v1/build/subsets/{subset_id}").headers["etag"])


def test_s8_9_others_get_404_and_runs_have_no_recipe(api, built):
    other = api.as_token(["registry:read", "registry:publish"], user_id=OTHER_USER_ID)
    assert other.get(f"/v1/build/subsets/{built['subset']['id']}").status_code == 404
    for handle in ("MMLU", "bm_mmlu"):
        response = api.get(f"/v1/build/subsets/{handle}")
        assert response.status_code == 404 and response.json()["code"] == "not_authored"
    catalog_subset = api.get("/v1/registry/benchmarks/MMLU").json()["subsets"][0]["id"]
    assert api.get(f"/v1/build/subsets/{catalog_subset}").json()["code"] == "not_authored"
    assert api.get("/v1/build/subsets/no-such-thing").json()["code"] == "not_found"


def test_s8_9_a_name_matching_several_benchmarks_is_ambiguous(api):
    ids = sorted(new_benchmark(api, "twin")["id"] for _ in range(2))
    response = api.get("/v1/build/subsets/twin")
    assert response.status_code == 409
    assert response.json()["code"] == "ambiguous" and response.json()["candidates"] == ids


def test_s8_9_recipe_patch_merges_and_reports_changed_keys(api, built):
    url = f"/v1/build/subsets/{built['subset']['id']}"
    etag = api.get(url).headers["etag"]
    patch = {"config": {"boot": "mint --match x", "run_timeout": 900, "setup": None, "run": "python drive.py"}}
    response = api.patch(f"{url}/recipe", json=patch, headers={"If-Match": etag})
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == built["subset"]["id"] and body["changed"] is True
    assert body["changed_keys"] == ["boot", "run_timeout", "setup"]
    config = api.get(url).json()["recipe"]["config"]
    assert config == {"boot": "mint --match x", "run": "python drive.py", "run_timeout": 900}
    stale = api.patch(f"{url}/recipe", json={"type": "other"}, headers={"If-Match": etag})
    assert stale.status_code == 412 and stale.headers["etag"] == response.headers["etag"]
    again = api.patch(f"{url}/recipe", json=patch).json()
    assert again["changed"] is False and again["changed_keys"] == []
    assert again["recipe_fingerprint"] == body["recipe_fingerprint"]
    retype = api.patch(f"{url}/recipe", json={"type": "harness"}).json()
    assert retype["changed_keys"] == ["type"] and retype["recipe_fingerprint"] != body["recipe_fingerprint"]
    assert api.patch(f"{url}/recipe", json={"note": "why"}).status_code == 400


def test_s8_9_tasks_patch_forks_retires_and_revives(api, built):
    original = built["subset"]["id"]
    bench_id = built["bench"]["id"]
    upsert = {"upsert": [{"task_id": "q2", "input": {"at": "00:04:40", "clip": "c3"}}], "note": "retarget"}
    forked = api.patch(f"/v1/build/subsets/{original}/tasks", json=upsert)
    assert forked.status_code == 200
    body = forked.json()
    edited = [TASKS[0], {**TASKS[1], "input": {"at": "00:04:40", "clip": "c3"}}]
    assert body == {
        "id": f"sub_{bench_id}:{task_set_hash(edited)}",
        "previous_id": original,
        "sample_count": 2,
        "changed": True,
    }
    successor = api.get(f"/v1/build/subsets/{bench_id}").json()
    assert successor["id"] == body["id"] and successor["recipe"]["config"] == GRADER
    stale = api.patch(f"/v1/build/subsets/{original}/recipe", json={"config": {"trials": 2}})
    assert stale.status_code == 409 and stale.json()["code"] == "superseded"
    assert stale.json()["successor"] == body["id"]
    back = api.patch(f"/v1/build/subsets/{body['id']}/tasks", json={"tasks": TASKS}).json()
    assert back == {"id": original, "previous_id": body["id"], "sample_count": 2, "changed": True}
    assert api.get(f"/v1/build/subsets/{bench_id}").json()["id"] == original


def test_s8_9_tasks_patch_bounds_and_if_match(api, built):
    url = f"/v1/build/subsets/{built['subset']['id']}/tasks"
    emptied = api.patch(url, json={"delete": ["q1", "q2"]})
    assert emptied.status_code == 400 and emptied.json()["code"] == "invalid_argument"
    too_many = [{"task_id": f"t{i}", "input": i, "expected": i} for i in range(2001)]
    assert api.patch(url, json={"tasks": too_many}).status_code == 400
    same = api.patch(url, json={"tasks": TASKS}).json()
    assert same["changed"] is False and same["id"] == built["subset"]["id"]
    stale = api.patch(url, json={"tasks": TASKS[:1]}, headers={"If-Match": 'W/"x:1"'})
    assert stale.status_code == 412


# -- §4.2.2: pinned launch of authored rows ----------------------------------------------------

PIN = {"model": {"model": "qwen/qwen3-32b", "provider": "openrouter"}}


def test_s4_2_2_pinned_launch_resolves_authored_benchmarks(api, built):
    bench = built["bench"]
    for handle in (bench["id"], bench["id"].removeprefix("bm_"), bench["name"]):
        response = api.post("/v1/runs", json={"benchmark": handle, **PIN})
        assert response.status_code == 202, handle
        run = api.get(f"/v1/runs/{response.json()['id']}").json()
        assert run["request"] == f"Run {bench['name']}"
    pinned = api.post("/v1/runs", json={"benchmark": bench["id"], "subset": built["subset"]["id"], **PIN})
    assert pinned.status_code == 202


def test_s4_2_5_pinned_subset_errors(api, built):
    other = new_benchmark(api, "other bench")
    foreign = new_subset(api, other["id"], tasks=TASKS[:1])
    mismatched = api.post("/v1/runs", json={"benchmark": built["bench"]["id"], "subset": foreign["id"], **PIN})
    assert mismatched.status_code == 400 and mismatched.json()["code"] == "invalid_argument"
    unknown = api.post("/v1/runs", json={"benchmark": built["bench"]["id"], "subset": "sub_nope:000000000000", **PIN})
    assert unknown.status_code == 404 and unknown.json()["code"] == "subset_not_found"
    missing = api.post("/v1/runs", json={"benchmark": "bm_00000000-0000-4000-8000-000000000000", **PIN})
    assert missing.status_code == 404 and missing.json()["code"] == "benchmark_not_found"


def test_s4_2_2_pinned_launch_of_a_catalog_subset(api):
    subset = api.get("/v1/registry/benchmarks/MMLU").json()["subsets"][0]["id"]
    tail = subset.rsplit(":", 1)[1]
    assert api.post("/v1/runs", json={"benchmark": "MMLU", "subset": f"MMLU:{tail}", **PIN}).status_code == 202
    other = api.as_token(["full"], user_id=OTHER_USER_ID)
    private = new_benchmark(api, "not yours")
    assert other.post("/v1/runs", json={"benchmark": private["id"], **PIN}).status_code == 404


def test_s8_4_runs_on_authored_rows_project_onto_them(api, anon, built):
    """A run carrying the authored ids `resolve_pin` returns (what pinned launch
    stamps on it) lands on the authored rows, and its publication makes the
    benchmark public: visibility is derived from runs."""
    bench_id, subset_id = built["bench"]["id"], built["subset"]["id"]
    launched = api.post("/v1/runs", json={"benchmark": bench_id, **PIN}).json()
    run = api.mock.store.runs[launched["id"]]
    run.benchmark_id, run.subset_id = bench_id, subset_id
    assert api.http.post(f"/__mock/runs/{run.id}/finish", json={"status": "ok"}).status_code == 200
    nobody = anon.anonymous()
    assert nobody.get(f"/v1/registry/benchmarks/{bench_id}").status_code == 404
    assert api.patch(f"/v1/runs/{run.id}", json={"visibility": "public"}).status_code == 200
    shown = nobody.get(f"/v1/registry/benchmarks/{bench_id}").json()
    assert shown["visibility"] == "public" and shown["name"] == "sqlbot"
    (subset,) = shown["subsets"]
    assert subset["id"] == subset_id and subset["sample_count"] == 2 and subset["run_count"] == 1
    (row,) = nobody.get(f"/v1/registry/subsets/{subset_id}/covering-runs").json()["data"]
    assert row["run_id"] == run.id and row["tasks_scored"] == 2
    lines = nobody.http.get(f"/v1/registry/subsets/{subset_id}/dataset").content.splitlines()
    assert [orjson.loads(line)["input"] for line in lines] == [t["input"] for t in TASKS]
