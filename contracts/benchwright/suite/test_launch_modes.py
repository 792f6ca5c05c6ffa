"""§4.2 the three launch modes, their one response shape, and the preflight refusals.

- §4.2.1 natural language (`request`), §4.2.2 pinned (`benchmark`), §4.2.3 replay
  (`replay.from_run` of the pinned `inspect` run: the new run shares its benchmark, subset and
  impl; a `benchwright`-harness parent is `409 replay_unsupported`): each is
  accepted and answers §4.2.4's one `202` shape, `mode` naming the mode and `links` pointing
  at the run and its events.
- §4.2.5 preflight errors come back synchronously and create no run: two modes at once is
  `400 invalid_argument`, an unknown pinned benchmark `404 benchmark_not_found`, an unknown
  replay parent `404 parent_not_found`.

Launching spends, so these run where the policy permits `launchRun` (the mock; a live target
with spending opted in).
"""

from __future__ import annotations

import pytest

from contracts.benchwright.suite._support import LAUNCH, advance, body_of, code_of, expect, random_uuid
from contracts.benchwright.suite.conftest import require

OP = "POST /v1/runs"


def _accepted(client, body: dict, mode: str, section: str) -> str:
    response = client.post("/v1/runs", json=body)
    answer = body_of(response) or {}
    expect(response.status_code == 202, section, OP, f"a {mode} launch answered {response.status_code}", response)
    run_id = answer.get("id")
    links = answer.get("links") or {}
    expect(
        answer.get("mode") == mode
        and answer.get("status") == "launching"
        and links.get("self") == f"/v1/runs/{run_id}"
        and links.get("events") == f"/v1/runs/{run_id}/events",
        "§4.2.4#1",
        OP,
        f"a {mode} launch answered {answer}",
        response,
    )
    estimates = [key for key in answer if "cost" in key or "estimate" in key]
    expect(not estimates, "§4.2.4#2", OP, f"a {mode} launch answered a cost estimate {estimates}", response)
    return run_id


def test_each_launch_mode_answers_the_one_202_shape(client, target, policy):
    """§4.2.1#1 (a natural-language launch is accepted), §4.2.2, §4.2.3#1 (the replay shares its
    parent's benchmark, subset and impl); each answers §4.2.4#1's one 202 shape, with no cost estimate
    (§4.2.4#2)."""
    require(policy, "launchRun")
    _accepted(client, LAUNCH, "natural_language", "§4.2.1#1")
    pinned = _accepted(
        client, {"benchmark": "MMLU", "harness": "inspect", "model": LAUNCH["model"]}, "benchmark", "§4.2.2#1"
    )
    if target.control:
        advance(target, 600)
        read = body_of(client.get(f"/v1/runs/{pinned}")) or {}
        expect(
            "mmlu" in str(read.get("benchmark_id") or "").lower(),
            "§4.2.2#1",
            "GET /v1/runs/{id}",
            f"a run pinned to MMLU reads benchmark_id {read.get('benchmark_id')!r}",
        )
    finished = body_of(client.get(f"/v1/runs/{pinned}")) or {}
    if finished.get("status") not in ("ok", "error"):
        return  # a live parent still running: a replay of it is §4.2.5's parent_still_running
    child = _accepted(client, {"replay": {"from_run": pinned}}, "replay", "§4.2.3")
    if target.control:
        advance(target, 600)
    replay = body_of(client.get(f"/v1/runs/{child}")) or {}
    if replay.get("impl_id") is None and not target.control:
        return  # a live replay resolves what it inherits as it runs; not waited out here
    inherited = ("benchmark_id", "subset_id", "impl_id")
    expect(
        all(replay.get(k) == finished.get(k) for k in inherited),
        "§4.2.3#1",
        "GET /v1/runs/{id}",
        f"the replay reads {[replay.get(k) for k in inherited]}, its parent {[finished.get(k) for k in inherited]}",
    )


def test_preflight_errors_create_no_run(client, policy):
    """§4.2.5: refused synchronously, each with its code (§4.2.5#1 two modes at once, §4.2.5#2 an unknown
    pinned benchmark, §4.2.5#3 an unknown replay parent), and no run is created (§4.2.5#4)."""
    require(policy, "launchRun")
    before = len((body_of(client.get("/v1/runs", params={"limit": 100})) or {}).get("data") or [])
    refusals = [
        ({**LAUNCH, "benchmark": "MMLU"}, 400, "invalid_argument", "§4.2.5#1"),
        (
            {"benchmark": f"no-such-benchmark-{random_uuid()}", "model": LAUNCH["model"]},
            404,
            "benchmark_not_found",
            "§4.2.5#2",
        ),
        ({"replay": {"from_run": random_uuid()}, "model": LAUNCH["model"]}, 404, "parent_not_found", "§4.2.5#3"),
    ]
    for body, status, code, clause in refusals:
        response = client.post("/v1/runs", json=body)
        expect(
            response.status_code == status and code_of(response) == code,
            clause,
            OP,
            f"{sorted(body)} answered {response.status_code} {code_of(response)}, not {status} {code}",
            response,
        )
    after = len((body_of(client.get("/v1/runs", params={"limit": 100})) or {}).get("data") or [])
    expect(after == before, "§4.2.5#4", "GET /v1/runs", f"refused launches left {after - before} new runs")


REPLAYED_PHASES = {"attach", "materialize", "report"}
OTHER_MODEL = {"model": "qwen/qwen3-235b-a22b-thinking", "provider": "openrouter"}


def test_replay_resolves_its_root_model_and_sample_count(client, target, policy, mock_only):
    """§4.2.3 on a fork of a finished pinned run: the replay of the fork replays from the root, so its
    `forked_from` names the root, not the fork sent (§4.2.3#2); without `model` it runs the parent's
    model (§4.2.3#3), with one it runs that one (§4.2.3#4); it pins the parent's task count (§4.2.3#5);
    it re-runs only Attach, Materialize and Report, inheriting the phases before (§4.2.3#6).
    Mock only: the parents must finish, which the simulated clock makes quick."""
    require(policy, "launchRun")
    require(policy, "forkRun")
    pinned = {"benchmark": "MMLU", "harness": "inspect", "model": LAUNCH["model"]}
    root = _accepted(client, pinned, "benchmark", "§4.2.2#1")
    advance(target, 600)
    fork = client.post(f"/v1/runs/{root}/fork", json={"description": "normalize whitespace", "indices": "0-2"})
    expect(fork.status_code == 202, "runs.fork", "POST /v1/runs/{id}/fork", f"answered {fork.status_code}", fork)
    fork_id = (body_of(fork) or {}).get("id")
    advance(target, 600)
    parent = body_of(client.get(f"/v1/runs/{root}")) or {}
    same = _accepted(client, {"replay": {"from_run": fork_id}}, "replay", "§4.2.3")
    other = _accepted(client, {"replay": {"from_run": root}, "model": OTHER_MODEL}, "replay", "§4.2.3")
    advance(target, 600)
    read = client.get(f"/v1/runs/{same}", params={"expand": "phase_breakdown"})
    replay = body_of(read) or {}
    expect(
        replay.get("forked_from") == root,
        "§4.2.3#2",
        "GET /v1/runs/{id}",
        f"a replay of the fork {fork_id} reads forked_from {replay.get('forked_from')!r}, not its root {root}",
        read,
    )
    expect(
        (replay.get("model") or {}).get("identifier") == (parent.get("model") or {}).get("identifier"),
        "§4.2.3#3",
        "GET /v1/runs/{id}",
        f"a replay without model runs {replay.get('model')!r}, its parent {parent.get('model')!r}",
        read,
    )
    expect(
        replay.get("task_count") == parent.get("task_count"),
        "§4.2.3#5",
        "GET /v1/runs/{id}",
        f"the replay pins {replay.get('task_count')} tasks, its parent ran {parent.get('task_count')}",
        read,
    )
    phases = {row.get("phase") for row in replay.get("phase_breakdown") or []}
    expect(
        "materialize" in phases and phases <= REPLAYED_PHASES,
        "§4.2.3#6",
        "GET /v1/runs/{id}?expand=phase_breakdown",
        f"the replay ran the phases {sorted(map(str, phases))}, not Attach, Materialize and Report",
        read,
    )
    moved = client.get(f"/v1/runs/{other}")
    expect(
        ((body_of(moved) or {}).get("model") or {}).get("identifier") == OTHER_MODEL["model"],
        "§4.2.3#4",
        "GET /v1/runs/{id}",
        f"a replay sent {OTHER_MODEL['model']} runs {(body_of(moved) or {}).get('model')!r}",
        moved,
    )


# §4.2.1's refusals: (clause, what the body changes, status, code); each is refused before any run exists
NL_REFUSALS = [
    ("§4.2.1#2", {"driver": "anthropic/claude-opus-4"}, 403, "admin_required"),
    ("§4.2.1#3", {"phase_models": {"analyze": "anthropic/claude-opus-4"}}, 403, "admin_required"),
    ("§4.2.1#4", {"compute": "no-such-backend"}, 400, "invalid_argument"),
    ("§4.2.1#6", {"model": {"model": "qwen/qwen3-32b", "provider": "no-such-provider"}}, 400, "unknown_provider"),
    (
        "§4.2.1#7",
        {"trials": {"plan": {"k": 2}, "aggregator": {"name": "no_such_aggregator"}}},
        400,
        "unknown_aggregator",
    ),
    ("§4.2.1#8", {"limits": {"attempt": {"cost": 1.0}}}, 400, None),
    ("§4.2.1#9", {"model": None, "metadata": {"autonomous": True}}, 400, "autonomous_model_required"),
    ("§4.2.1#12", {"harness": "no-such-harness"}, 400, "unknown_harness"),
    ("§4.2.1#13", {"bridge": "inspect"}, 400, "bridge_renamed_to_harness"),
]


OLD_DRIVER = "openrouter://deepseek/deepseek-v4-flash"


def _launch_body(change: dict) -> dict:
    return {key: value for key, value in {**LAUNCH, **change}.items() if value is not None}


def test_natural_language_launch_keys(client, target, policy):
    """§4.2.1, key by key: each refusal with its status and code (§4.2.1#2 a driver pin that is neither a
    priced Gemini model nor openrouter://, §4.2.1#3 the same in phase_models, §4.2.1#4 an unknown compute,
    §4.2.1#6 an unpinnable provider, §4.2.1#7 an unknown aggregator, §4.2.1#8 a limit the platform does not
    enforce, §4.2.1#9 autonomous without a model pin, §4.2.1#12 an unknown harness, §4.2.1#13 the old
    `bridge` key); then what an accepted launch reads back: the backend chosen by `compute` (§4.2.1#5), no
    `metadata` on the run (§4.2.1#10), the old `operator` and `agent` keys pinning no Driver (§4.2.1#11),
    a harness synonym resolved (§4.2.1#14), the harness inferred from `metadata.<x>_harness` (§4.2.1#15),
    `metadata.limit` capping the sample count (§4.2.1#16); on the mock, `publish_on_complete` flipping an ok
    run public (§4.2.1#17) and leaving an erring one private (§4.2.1#18)."""
    require(policy, "launchRun")
    for clause, change, status, code in NL_REFUSALS:
        response = client.post("/v1/runs", json=_launch_body(change))
        expect(
            response.status_code == status and (code is None or code_of(response) == code),
            clause,
            OP,
            f"{sorted(change)} answered {response.status_code} {code_of(response)}, not {status} {code or ''}",
            response,
        )
    checks = [
        ("§4.2.1#5", {"compute": "sandbox0"}, lambda run: run.get("backend") == "sandbox0"),
        ("§4.2.1#11", {"operator": OLD_DRIVER}, lambda run: run.get("driver") != OLD_DRIVER),
        ("§4.2.1#11", {"agent": OLD_DRIVER}, lambda run: run.get("driver") != OLD_DRIVER),
        ("§4.2.1#10", {"metadata": {"limit": 3, "ci_job": "build-8812"}}, lambda run: "metadata" not in run),
        ("§4.2.1#14", {"harness": "scratch"}, lambda run: run.get("harness") == "benchwright"),
        (
            "§4.2.1#15",
            {"metadata": {"inspect_harness": {"task": "inspect_evals/mmlu_0_shot"}}},
            lambda run: run.get("harness") == "inspect",
        ),
        ("§4.2.1#16", {"metadata": {"limit": 3}}, lambda run: run.get("task_count") == 3),
    ]
    for clause, change, holds in checks:
        response = client.post("/v1/runs", json=_launch_body(change))
        if clause == "§4.2.1#5" and code_of(response) == "compute_not_configured":
            continue  # §4.2.5: this deploy has no sandbox0 endpoint to stamp
        if response.status_code != 202:
            expect(False, clause, OP, f"{change} answered {response.status_code} {code_of(response)}", response)
        read = client.get(f"/v1/runs/{(body_of(response) or {}).get('id')}")
        run = body_of(read) or {}
        expect(holds(run), clause, "GET /v1/runs/{id}", f"a launch with {change} reads back {run!r:.300}", read)
    if target.control:  # the runs must finalize: the mock's clock, and its erring outcome
        _publish_on_complete(client, target)


def _publish_on_complete(client, target) -> None:
    """§4.2.1#17: `metadata.publish_on_complete` flips the run public once it finalizes ok;
    §4.2.1#18: one that errors stays private."""
    ok = client.post("/v1/runs", json=_launch_body({"metadata": {"publish_on_complete": True}}))
    failed = client.post(
        "/v1/runs", json=_launch_body({"metadata": {"publish_on_complete": True, "mock_outcome": "error"}})
    )
    advance(target, 600)
    for clause, launched, status, visibility in (
        ("§4.2.1#17", ok, "ok", "public"),
        ("§4.2.1#18", failed, "error", "private"),
    ):
        read = client.get(f"/v1/runs/{(body_of(launched) or {}).get('id')}")
        run = body_of(read) or {}
        expect(
            run.get("status") != status or run.get("visibility") == visibility,
            clause,
            "GET /v1/runs/{id}",
            f"a publish_on_complete run that finalized {run.get('status')} reads visibility {run.get('visibility')!r}",
            read,
        )


def test_pinned_launch_resolves_the_catalog_row(client, target, policy, mock_only):
    """§4.2.2: the catalog id with its `bm_` prefix, without it, and the exact name resolve to the one
    catalog row (§4.2.2#3); the launcher writes the synthetic request `Run <name>` (§4.2.2#2).
    Mock only: the pinned rows are read once the clock has moved the runs past Find."""
    require(policy, "launchRun")
    rows = (body_of(client.get("/v1/registry/benchmarks", params={"q": "MMLU"})) or {}).get("data") or []
    row = next((r for r in rows if r.get("name") == "MMLU"), None)
    if row is None:
        pytest.skip("no MMLU row in the catalog to pin")
    bare = str(row["id"]).removeprefix("bm_")
    launched = {
        spelling: _accepted(client, {"benchmark": spelling, "model": LAUNCH["model"]}, "benchmark", "§4.2.2#1")
        for spelling in (f"bm_{bare}", bare, row["name"])
    }
    advance(target, 600)
    reads = {spelling: (client.get(f"/v1/runs/{run_id}")) for spelling, run_id in launched.items()}
    runs = {spelling: body_of(read) or {} for spelling, read in reads.items()}
    pinned = {spelling: run.get("benchmark_id") for spelling, run in runs.items()}
    expect(
        len(set(pinned.values())) == 1 and None not in pinned.values(),
        "§4.2.2#3",
        "GET /v1/runs/{id}",
        f"the spellings of one catalog row pinned {pinned}",
        reads[bare],
    )
    for spelling, run in runs.items():
        expect(
            run.get("request") == f"Run {run.get('benchmark_name')}",
            "§4.2.2#2",
            "GET /v1/runs/{id}",
            f"a launch pinned to {spelling!r} reads request {run.get('request')!r}",
            reads[spelling],
        )
