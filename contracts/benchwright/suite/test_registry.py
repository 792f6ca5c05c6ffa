"""The registry (§8): the catalog's shapes agree with each other (summary vs tree vs detail vs
the first-class reads), and the authoring routes behave as §8.4–§8.9 document.

The reads run anywhere (anonymous-readable catalog, §8). The authoring checks create new
private rows, which is what a live run may do; edits of those rows are writes and run only
where the policy permits them.
"""

from __future__ import annotations

from typing import Any

import pytest

from contracts.benchwright import section_claims  # noqa: F401  (registers the claims)
from contracts.benchwright.suite._support import advance, body_of, code_of, expect, launch_run
from contracts.benchwright.suite.conftest import require
from contracts.runner import unique


def _catalog(client) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Any, Any]:
    tree = client.get("/v1/registry/benchmarks")
    summary = client.get("/v1/registry/benchmarks", params={"summary": "1", "limit": 200})
    expect(tree.status_code == 200, "spec.status", "GET /v1/registry/benchmarks", str(tree.status_code), tree)
    return tree.json()["data"], summary.json()["benchmarks"], tree, summary


def test_summary_agrees_with_the_tree(client):
    """§8.1: each summary row's `subsetCount`, `implCount` and `runCount`, and each subset's
    `sampleCount`, are what the full tree holds; `facets` / `agg` appear only with `counts=1`."""
    tree, summary, _, response = _catalog(client)
    expect(
        "facets" not in response.json() and "agg" not in response.json(),
        "§8.1#2",
        "GET /v1/registry/benchmarks?summary=1",
        "facets/agg present without counts=1",
        response,
    )
    full = {row["id"]: row for row in tree}
    for row in summary:
        node = full.get(row["id"])
        expect(node is not None, "registry.summary", "GET /v1/registry/benchmarks?summary=1",
               f"{row['id']} is not in the tree", response)  # fmt: skip
        subsets = node.get("subsets") or []
        impls = {impl["id"] for subset in subsets for impl in subset.get("impls") or []}
        runs = {run["id"] for subset in subsets for run in subset.get("runs") or []}
        counted = (row.get("subsetCount"), row.get("implCount"), row.get("runCount"))
        expect(
            counted == (len(subsets), len(impls), len(runs)),
            "registry.summary",
            "GET /v1/registry/benchmarks?summary=1",
            f"{row['id']}: counts {counted}; the tree holds {(len(subsets), len(impls), len(runs))}",
            response,
        )
        samples = {subset["id"]: subset.get("sampleCount") for subset in subsets}
        for subset in row.get("subsets") or []:
            expect(
                samples.get(subset["id"]) == subset.get("sampleCount"),
                "registry.summary",
                "GET /v1/registry/benchmarks?summary=1",
                f"{subset['id']}: sampleCount {subset.get('sampleCount')} vs {samples.get(subset['id'])} in the tree",
                response,
            )
    counted = client.get("/v1/registry/benchmarks", params={"summary": "1", "counts": "1"})
    expect(
        "facets" in counted.json() and "agg" in counted.json(),
        "§8.1#2",
        "GET /v1/registry/benchmarks?summary=1&counts=1",
        "facets/agg absent with counts=1",
        counted,
    )


def test_detail_lists_the_tree(client):
    """§8.2: a benchmark's detail lists the subsets and impls the catalog tree shows for it (§8.2#1,
    `registry.detail`), with native and derived leaderboards (§8.2#2), covering-run counts (§8.2#3) and
    index spans (§8.2#4) per subset, and no per-task content or difficulty distribution (§8.2#5)."""
    tree, _, _, _ = _catalog(client)
    for node in tree[:5]:
        response = client.get(f"/v1/registry/benchmarks/{node['id']}")
        detail = body_of(response) or {}
        want_subsets = {subset["id"] for subset in node.get("subsets") or []}
        want_impls = {impl["id"] for subset in node.get("subsets") or [] for impl in subset.get("impls") or []}
        got_subsets = {subset.get("id") for subset in detail.get("subsets") or []}
        got_impls = {impl.get("id") for impl in detail.get("impls") or []}
        expect(
            (got_subsets, got_impls) == (want_subsets, want_impls),
            "registry.detail",
            "GET /v1/registry/benchmarks/{id}",
            f"{node['id']}: subsets {sorted(got_subsets)} impls {sorted(got_impls)}; the tree shows "
            f"{sorted(want_subsets)} / {sorted(want_impls)}",
            response,
        )
        _per_subset(detail, want_subsets, response)


def _per_subset(detail: dict, subsets: set, response) -> None:
    """§8.2#2-#5 on one benchmark's detail (the subsets its tree shows)."""
    op = "GET /v1/registry/benchmarks/{id}"
    boards = {row.get("subset_id"): row for row in detail.get("leaderboards") or []}
    expect(
        set(boards) == subsets and all(isinstance(row.get("native"), list) and isinstance(row.get("derived"), list)
                                       for row in boards.values()),
        "§8.2#2",
        op,
        f"leaderboards cover {sorted(map(str, boards))} (native and derived), the subsets are {sorted(subsets)}",
        response,
    )  # fmt: skip
    coverage = {row.get("subset_id"): row.get("covering_runs") for row in detail.get("coverage") or []}
    expect(
        set(coverage) == subsets and all(isinstance(n, int) and not isinstance(n, bool) for n in coverage.values()),
        "§8.2#3",
        op,
        f"covering-run counts {coverage}, the subsets are {sorted(subsets)}",
        response,
    )
    spans = {row.get("subset_id") for row in detail.get("index_spans") or []}
    expect(
        spans == subsets, "§8.2#4", op, f"index spans for {sorted(map(str, spans))}, not {sorted(subsets)}", response
    )
    heavy = sorted({"distribution", "tasks"} & set(detail))
    expect(not heavy, "§8.2#5", op, f"the overview carries {heavy}, fetched separately (§8.3)", response)


def test_first_class_reads_agree(client):
    """§8.3: `stats` counts what the tree holds; a subset's `dataset/info` is the rows and
    bytes of its JSONL `dataset` (served as an attachment); `distribution` has one row per
    sample; the `leaderboard` is the best score per model among the subset's public runs."""
    tree, _, _, _ = _catalog(client)
    stats_response = client.get("/v1/registry/stats")
    stats = body_of(stats_response) or {}
    subsets = [subset for node in tree for subset in node.get("subsets") or []]
    expect(
        stats.get("benchmarks") == len(tree) and stats.get("subsets") == len(subsets),
        "registry.reads",
        "GET /v1/registry/stats",
        f"stats {stats}; the tree holds {len(tree)} benchmarks and {len(subsets)} subsets",
        stats_response,
    )
    for subset in subsets[:3]:
        base = f"/v1/registry/subsets/{subset['id']}"
        dataset = client.get(f"{base}/dataset")
        info_response = client.get(f"{base}/dataset/info")
        info = body_of(info_response) or {}
        lines = [line for line in dataset.content.split(b"\n") if line.strip()]
        expect(
            info.get("rows") == len(lines) and info.get("bytes") == len(dataset.content),
            "§8.3#2",
            "GET /v1/registry/subsets/{id}/dataset/info",
            f"{subset['id']}: info {info}; the dataset has {len(lines)} rows, {len(dataset.content)} bytes",
            info_response,
        )
        expect(
            dataset.headers.get("content-disposition", "").startswith("attachment"),
            "§8.3#2",
            "GET /v1/registry/subsets/{id}/dataset",
            "the JSONL is not served as an attachment",
            dataset,
        )
        distribution = client.get(f"{base}/distribution")
        rows = (body_of(distribution) or {}).get("tasks") or []
        expect(
            len(rows) == subset.get("sampleCount") and all("input" not in row for row in rows),
            "registry.reads",
            "GET /v1/registry/subsets/{id}/distribution",
            f"{subset['id']}: {len(rows)} distribution rows for {subset.get('sampleCount')} samples",
            distribution,
        )
        board_response = client.get(f"{base}/leaderboard")
        board = {row["model"]: row["score"] for row in (body_of(board_response) or {}).get("data") or []}
        best: dict[str, float] = {}
        for run in subset.get("runs") or []:
            if run.get("visibility") == "public" and isinstance(run.get("score"), int | float):
                best[run["model"]] = max(best.get(run["model"], run["score"]), run["score"])
        expect(
            board == best,
            "§8.3#3",
            "GET /v1/registry/subsets/{id}/leaderboard",
            f"{subset['id']}: leaderboard {board}; best public run per model {best}",
            board_response,
        )


def test_publish_shortcut(client, target, policy, mock_only):
    """§8.4: an empty body publishes (`public`), the answer echoes the run's
    `fingerprint_hash`, the registry projects the run, and a run that did not finish `ok` is
    `409 visibility_constraint_violated`."""
    require(policy, "publishRun")
    running = launch_run(client)
    refused = client.post(f"/v1/runs/{running}/publish", json={})
    expect(
        refused.status_code == 409 and code_of(refused) == "visibility_constraint_violated",
        "§8.4#2",
        "POST /v1/runs/{id}/publish",
        f"publishing a running run answered {refused.status_code} {code_of(refused)}",
        refused,
    )
    advance(target, 600)
    response = client.post(f"/v1/runs/{running}/publish", json={})
    body = body_of(response) or {}
    run = client.get(f"/v1/runs/{running}").json()
    expect(
        response.status_code == 200 and body.get("visibility") == "public" and run.get("visibility") == "public",
        "registry.publish",
        "POST /v1/runs/{id}/publish",
        f"an empty body answered {response.status_code} {body}; the run reads {run.get('visibility')!r}",
        response,
    )
    expect(
        body.get("fingerprint_hash") == run.get("fingerprint_hash"),
        "§8.4#3",
        "POST /v1/runs/{id}/publish",
        f"fingerprint_hash {body.get('fingerprint_hash')!r}; the run carries {run.get('fingerprint_hash')!r}",
        response,
    )
    tree = client.get("/v1/registry/benchmarks")
    projected = {
        row.get("id")
        for node in (body_of(tree) or {}).get("data") or []
        for subset in node.get("subsets") or []
        for row in subset.get("runs") or []
    }
    expect(
        running in projected,
        "§8.4#4",
        "GET /v1/registry/benchmarks",
        "the published run is not projected into the catalog",
        tree,
    )


def _tasks(tag: str, n: int = 2) -> list[dict[str, Any]]:
    return [{"task_id": f"{tag}-{i}", "input": {"q": f"{tag} {i}"}, "expected": i} for i in range(n)]


def _new_benchmark(client, policy) -> str:
    require(policy, "createBenchmark")
    response = client.post(
        "/v1/benchmarks", json={"name": f"contract {unique.hex(8)}", "category": "tool-use", "tags": ["probe"]}
    )
    expect(
        response.status_code in (200, 201),
        "registry.create_benchmark",
        "POST /v1/benchmarks",
        f"answered {response.status_code}",
        response,
    )
    return response.json()["id"]


@pytest.fixture(scope="module")
def benchmark(client, policy) -> str:
    return _new_benchmark(client, policy)


def test_created_benchmark(client, policy):
    """§8.5: the answer is the Benchmark with a `bm_` id, the name sent, and the literal
    `visibility: private`."""
    require(policy, "createBenchmark")
    name = f"contract {unique.hex(8)}"
    response = client.post("/v1/benchmarks", json={"name": name, "description": "probe", "category": "tool-use"})
    body = body_of(response) or {}
    expect(
        str(body.get("id", "")).startswith("bm_") and body.get("name") == name,
        "registry.create_benchmark",
        "POST /v1/benchmarks",
        f"answered {response.status_code} {body}",
        response,
    )
    expect(
        body.get("visibility") == "private",
        "§8.5#2",
        "POST /v1/benchmarks",
        f"a created benchmark reports visibility {body.get('visibility')!r}, not the literal private",
        response,
    )


def test_subsets_are_content_addressed(client, policy, benchmark):
    """§8.6: `201 created: true`; the same tasks under another slug are `200 created: false`,
    the same id, `renamed_from_slug`; no slug, or over 1000 tasks, is 400 while a repeated
    `task_id` is not; a frozen subset refuses appends (`409
    subset_frozen`); a rolling one appends and bumps `sample_count`."""
    require(policy, "createSubset")
    tasks = _tasks(unique.hex(6))
    first = client.post(f"/v1/benchmarks/{benchmark}/subsets", json={"slug": "one", "name": "One", "tasks": tasks})
    one = body_of(first) or {}
    expect(
        first.status_code == 201 and one.get("created") is True and one.get("sample_count") == len(tasks),
        "registry.create_subset",
        "POST /v1/benchmarks/{bm_id}/subsets",
        f"a new subset answered {first.status_code} {one}",
        first,
    )
    expect(
        str(one.get("id", "")).startswith(f"sub_{benchmark}:"),
        "registry.create_subset",
        "POST /v1/benchmarks/{bm_id}/subsets",
        f"id {one.get('id')!r} is not sub_{benchmark}:<hash>",
        first,
    )
    second = client.post(f"/v1/benchmarks/{benchmark}/subsets", json={"slug": "two", "name": "Two", "tasks": tasks})
    two = body_of(second) or {}
    expect(
        second.status_code == 200
        and two.get("created") is False
        and two.get("id") == one.get("id")
        and two.get("renamed_from_slug") == "one",
        "registry.create_subset",
        "POST /v1/benchmarks/{bm_id}/subsets",
        f"the same tasks under a new slug answered {second.status_code} {two}",
        second,
    )
    oversized = client.post(
        f"/v1/benchmarks/{benchmark}/subsets", json={"slug": "big", "name": "Big", "tasks": _tasks("big", 1001)}
    )
    expect(
        oversized.status_code == 400,
        "§8.6#2",
        "POST /v1/benchmarks/{bm_id}/subsets",
        f"1001 tasks in one request answered {oversized.status_code}",
        oversized,
    )
    repeated = [{**row, "task_id": "same"} for row in _tasks(unique.hex(6))]
    duplicates = client.post(
        f"/v1/benchmarks/{benchmark}/subsets", json={"slug": "dup", "name": "Dup", "tasks": repeated}
    )
    expect(
        duplicates.status_code in (200, 201),
        "registry.create_subset",
        "POST /v1/benchmarks/{bm_id}/subsets",
        f"a repeated task_id (nothing rejects one) answered {duplicates.status_code}",
        duplicates,
    )
    slugless = client.post(f"/v1/benchmarks/{benchmark}/subsets", json={"name": "No slug", "tasks": tasks})
    expect(
        slugless.status_code == 400,
        "registry.create_subset",
        "POST /v1/benchmarks/{bm_id}/subsets",
        f"a subset without slug answered {slugless.status_code}",
        slugless,
    )
    require(policy, "appendSubsetTasks")
    frozen = client.post(f"/v1/subsets/{one['id']}/tasks:append", json={"tasks": _tasks("late", 1)})
    expect(
        frozen.status_code == 409 and code_of(frozen) == "subset_frozen",
        "§8.6#3",
        "POST /v1/subsets/{id}/tasks:append",
        f"appending to a frozen subset answered {frozen.status_code} {code_of(frozen)}",
        frozen,
    )
    rolling = client.post(
        f"/v1/benchmarks/{benchmark}/subsets",
        json={"slug": "rolling", "name": "Rolling", "rolling": True, "tasks": _tasks(unique.hex(6), 1)},
    ).json()
    appended = client.post(f"/v1/subsets/{rolling['id']}/tasks:append", json={"tasks": _tasks("more", 2)})
    expect(
        appended.status_code == 200 and (body_of(appended) or {}).get("sample_count") == rolling["sample_count"] + 2,
        "registry.create_subset",
        "POST /v1/subsets/{id}/tasks:append",
        f"appending 2 rows to {rolling['sample_count']} answered {appended.status_code} {body_of(appended)}",
        appended,
    )


def test_impls_are_content_addressed(client, policy, benchmark):
    """§8.7: the id is `imp_<benchmark>:<fingerprint>` with `fingerprint` its 12 characters,
    bound to the subset sent; registering the same code again answers the same id."""
    require(policy, "createSubset")
    subset = client.post(
        f"/v1/benchmarks/{benchmark}/subsets", json={"slug": "impl", "name": "Impl", "tasks": _tasks("impl")}
    ).json()["id"]
    code = f"# {unique.hex()}\nclass Task:\n    pass\n"
    response = client.post("/v1/impls", json={"subset": subset, "label": "probe v1", "code": code})
    body = body_of(response) or {}
    fingerprint = body.get("fingerprint") or ""
    expect(
        response.status_code in (200, 201)
        and len(fingerprint) == 12
        and body.get("id") == f"imp_{benchmark}:{fingerprint}"
        and (body.get("subset") or {}).get("id") == subset,
        "registry.create_impl",
        "POST /v1/impls",
        f"answered {response.status_code} {body}",
        response,
    )
    again = client.post("/v1/impls", json={"subset": subset, "label": "probe v1 again", "code": code})
    expect(
        (body_of(again) or {}).get("id") == body.get("id"),
        "§8.7#2",
        "POST /v1/impls",
        f"the same code registered as {(body_of(again) or {}).get('id')!r}, first {body.get('id')!r}",
        again,
    )


def test_patches_answer_an_ack(client, policy, benchmark):
    """§8.8: benchmark and subset PATCHes answer `{id, ok: true}`, an impl's echoes the label
    it changed; a PATCH naming no patchable field is 400; `official` is `403 admin_required`;
    `rolling→false` is one-way (true again is refused)."""
    require(policy, "patchBenchmark")
    response = client.patch(f"/v1/benchmarks/{benchmark}", json={"description": "edited"})
    expect(
        response.status_code == 200 and body_of(response) == {"id": benchmark, "ok": True},
        "registry.update",
        "PATCH /v1/benchmarks/{id}",
        f"answered {response.status_code} {body_of(response)}",
        response,
    )
    unknown = client.patch(f"/v1/benchmarks/{benchmark}", json={"tags": ["not", "patchable"]})
    expect(
        unknown.status_code == 400 and code_of(unknown) == "invalid_argument",
        "registry.update",
        "PATCH /v1/benchmarks/{id}",
        f"a PATCH naming no patchable field answered {unknown.status_code} {code_of(unknown)}",
        unknown,
    )
    require(policy, "patchSubset")
    require(policy, "createSubset")
    subset = client.post(
        f"/v1/benchmarks/{benchmark}/subsets",
        json={"slug": "freeze", "name": "Freeze", "rolling": True, "tasks": _tasks(unique.hex(6))},
    ).json()["id"]
    frozen = client.patch(f"/v1/subsets/{subset}", json={"rolling": False})
    expect(
        frozen.status_code == 200 and body_of(frozen) == {"id": subset, "ok": True},
        "registry.update",
        "PATCH /v1/subsets/{id}",
        f"freezing answered {frozen.status_code} {body_of(frozen)}",
        frozen,
    )
    reopened = client.patch(f"/v1/subsets/{subset}", json={"rolling": True})
    expect(
        reopened.status_code == 400,
        "§8.8#3",
        "PATCH /v1/subsets/{id}",
        f"reopening a frozen subset answered {reopened.status_code}",
        reopened,
    )
    require(policy, "patchImpl")
    impl = client.post("/v1/impls", json={"subset": subset, "label": "v1", "code": f"# {unique.hex()}\n"}).json()
    labelled = client.patch(f"/v1/impls/{impl['id']}", json={"label": "v2"})
    expect(
        labelled.status_code == 200 and body_of(labelled) == {"id": impl["id"], "ok": True, "label": "v2"},
        "registry.update",
        "PATCH /v1/impls/{id}",
        f"answered {labelled.status_code} {body_of(labelled)}",
        labelled,
    )
    official = client.patch(f"/v1/impls/{impl['id']}", json={"label": "v3", "official": True})
    expect(
        official.status_code == 403 and code_of(official) == "admin_required",
        "§8.8#2",
        "PATCH /v1/impls/{id}",
        f"a non-admin official=true answered {official.status_code} {code_of(official)}",
        official,
    )


def test_build_edits_version_as_documented(client, policy):
    """§8.9: the benchmark id resolves to its live subset; a recipe patch answers
    `recipe_fingerprint` and `changed_keys`, leaves the subset id, and re-sending it is
    `changed: false`; a recipe patch with neither `config` nor `type` is 400; a tasks patch
    forks to a new id and the old one then answers `409 superseded`; editing the samples back
    revives the retired subset."""
    benchmark = _new_benchmark(client, policy)  # one subset, so it is the live one
    require(policy, "createSubset")
    subset = client.post(
        f"/v1/benchmarks/{benchmark}/subsets",
        json={
            "slug": "built",
            "name": "Built",
            "tasks": _tasks(unique.hex(6)),
            "grader": {"type": "product", "config": {"run": "echo"}},
        },
    ).json()["id"]
    by_subset = client.get(f"/v1/build/subsets/{subset}")
    by_benchmark = client.get(f"/v1/build/subsets/{benchmark}")
    expect(
        by_subset.status_code == 200 and (body_of(by_benchmark) or {}).get("id") == subset,
        "registry.build",
        "GET /v1/build/subsets/{id}",
        f"the benchmark id resolves to {(body_of(by_benchmark) or {}).get('id')!r}, its subset is {subset}",
        by_benchmark,
    )
    require(policy, "patchBuildSubsetRecipe")
    patch = {"config": {"run_timeout": 900}, "note": "raise a timeout"}
    first = client.patch(f"/v1/build/subsets/{subset}/recipe", json=patch)
    one = body_of(first) or {}
    expect(
        first.status_code == 200
        and one.get("changed") is not False
        and "run_timeout" in (one.get("changed_keys") or [])
        and one.get("recipe_fingerprint"),
        "registry.build",
        "PATCH /v1/build/subsets/{id}/recipe",
        f"answered {first.status_code} {one}",
        first,
    )
    again = client.patch(f"/v1/build/subsets/{subset}/recipe", json=patch)
    expect(
        (body_of(again) or {}).get("changed") is False,
        "registry.build",
        "PATCH /v1/build/subsets/{id}/recipe",
        f"re-sending the same recipe answered {body_of(again)}",
        again,
    )
    empty = client.patch(f"/v1/build/subsets/{subset}/recipe", json={"note": "nothing"})
    expect(
        empty.status_code == 400,
        "registry.build",
        "PATCH /v1/build/subsets/{id}/recipe",
        f"a recipe patch with neither config nor type answered {empty.status_code}",
        empty,
    )
    reread = client.get(f"/v1/build/subsets/{subset}")
    expect(
        (body_of(reread) or {}).get("id") == subset,
        "registry.build",
        "GET /v1/build/subsets/{id}",
        "a recipe patch moved the subset id",
        reread,
    )
    require(policy, "patchBuildSubsetTasks")
    edited = client.patch(
        f"/v1/build/subsets/{subset}/tasks", json={"upsert": [{"task_id": "new", "input": {"q": "n"}, "expected": 0}]}
    )
    fork = body_of(edited) or {}
    named = {value for value in fork.values() if isinstance(value, str) and value.startswith("sub_")}
    expect(
        edited.status_code == 200 and subset in named and len(named) >= 2,
        "§8.9#2",
        "PATCH /v1/build/subsets/{id}/tasks",
        f"a tasks patch answered {edited.status_code} {fork}: it should name the old and the new subset",
        edited,
    )
    stale = client.patch(f"/v1/build/subsets/{subset}/tasks", json={"delete": ["new"]})
    expect(
        stale.status_code == 409 and code_of(stale) == "superseded",
        "§8.9#2",
        "PATCH /v1/build/subsets/{id}/tasks",
        f"editing the retired subset answered {stale.status_code} {code_of(stale)}",
        stale,
    )
    successor = next(iter(named - {subset}))
    back = client.patch(f"/v1/build/subsets/{successor}/tasks", json={"delete": ["new"]})
    revived = body_of(back) or {}
    expect(
        back.status_code == 200 and revived.get("id") == subset,
        "§8.9#3",
        "PATCH /v1/build/subsets/{id}/tasks",
        f"editing the samples back to the retired set answered {back.status_code} with id {revived.get('id')!r}, "
        f"not the retired {subset}",
        back,
    )


def test_build_handles_resolve_or_refuse(client, policy):
    """§8.9: a name shared by two benchmarks is `409 ambiguous` (nothing picked); a subset the
    catalog holds through a run has no recipe (`404 not_authored`); an unknown one is 404."""
    tree, _, _, _ = _catalog(client)
    projected = [subset["id"] for node in tree for subset in node.get("subsets") or [] if subset.get("runs")]
    if projected:
        response = client.get(f"/v1/build/subsets/{projected[0]}")
        expect(
            response.status_code == 404 and code_of(response) == "not_authored",
            "§8.9#4",
            "GET /v1/build/subsets/{id}",
            f"a run-projected subset answered {response.status_code} {code_of(response)}",
            response,
        )
    unknown = client.get(f"/v1/build/subsets/no-such-benchmark-{unique.hex(8)}")
    expect(
        unknown.status_code == 404,
        "§8.9#4",
        "GET /v1/build/subsets/{id}",
        f"an unknown name answered {unknown.status_code}",
        unknown,
    )
    require(policy, "createBenchmark")
    name = f"contract twin {unique.hex(8)}"
    for _ in range(2):
        client.post("/v1/benchmarks", json={"name": name}).raise_for_status()
    twin = client.get(f"/v1/build/subsets/{name}")
    expect(
        twin.status_code == 409 and code_of(twin) == "ambiguous",
        "§8.9#4",
        "GET /v1/build/subsets/{id}",
        f"a name two benchmarks share answered {twin.status_code} {code_of(twin)}",
        twin,
    )
