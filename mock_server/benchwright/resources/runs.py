"""Runs (§4): launch, list, read, change, stop, delete; fork, replay, publish.

Handlers check the preconditions their section lists, in the order it lists
them. The lifecycle itself (phases, events, costs, halts) is `pipeline.py`.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta
from typing import Any

from mock_server.benchwright.filters import apply_sort, build_filters, parse_sort
from mock_server.benchwright.model import ledger
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.model.accounts import require_writer
from mock_server.benchwright.model.lifecycle import Run
from mock_server.benchwright.ratelimit import limiter
from mock_server.benchwright.resources import handler
from mock_server.benchwright.store import Store, User
from mock_server.engine import Ctx, Reply
from mock_server.policies.pagination import page
from mock_server.policies.preconditions import weak_etag
from mock_server.policies.problems import Problem, invalid, not_found
from mock_server.state.clock import rfc3339

DASHBOARD = "https://benchwright.ai/run/"
DEFAULT_DRIVER = "gemini-3-flash-preview"
MAX_FORK_DEPTH = 16
MIN_REVISION_STEP = timedelta(milliseconds=1)
CONCURRENCY_RETRY_SECONDS = 30  # §13: every 429 carries Retry-After; a slot frees when a run ends
LEGACY_LIMITS = {  # §4.2.1: pre-`limits` spellings -> (level, quantity, scale to dollars/seconds)
    ("constraints", "max_cost_cents"): ("run", "cost", 0.01),
    ("constraints", "max_duration_ms"): ("run", "duration", 0.001),
    ("constraints", "max_tasks"): ("run", "tasks", 1),
    ("metadata", "limit"): ("run", "tasks", 1),
    ("metadata", "task_attempts"): ("task", "attempts", 1),
    ("metadata", "task_timeout_sec"): ("attempt", "duration", 1),
}


# -- access -------------------------------------------------------------------


def _team_ids(store: Store, user: User) -> set[str]:
    if not user.team_id:
        return {user.id}
    team = store.table("teams").get(user.team_id)
    return set(team["member_ids"]) if team else {user.id}


def can_read(store: Store, user: User | None, run: Run) -> bool:
    if run.visibility in ("public", "unlisted"):
        return True
    if user is None:
        return False
    return user.admin or run.user_id in _team_ids(store, user)


def readable_run(ctx: Ctx, run_id: str | None = None) -> Run:
    """The run if the caller may read it; `404` when it is hidden (§14)."""
    run = pipeline.get_run(ctx.store, run_id or ctx.path["id"])
    if run is None or not can_read(ctx.store, ctx.user, run):
        raise not_found("Run")
    return run


def owned_run(ctx: Ctx) -> Run:
    """The run if the caller may change it: its owner or an admin (§4.3, §4.11).
    A teammate gets `403 team_readonly` (§2.5), anyone else who can see it `403 forbidden`."""
    run = readable_run(ctx)
    user = ctx.user
    if user is None:
        raise Problem(401, "auth_required")
    if user.admin or run.user_id == user.id:
        return run
    if run.user_id in _team_ids(ctx.store, user):
        raise Problem(403, "team_readonly", "Team members may read this run but not change it.")
    raise Problem(403, "forbidden", "Only the run's owner can do this.")


# -- representation -----------------------------------------------------------


def display_status(run: Run) -> str:
    """§4.1.1: fold `halted`/`halt_reason` into what a UI should show."""
    reason = run.halt_reason or ""
    if run.halted or reason.startswith("operator_kill"):
        if reason.startswith("operator_kill"):
            return "killed"
        if reason.startswith("operator_pause"):
            return "paused"
        if reason.startswith("agent_review"):
            return "waiting"
        return "halted"
    return run.status


def _money(usd: float) -> dict[str, Any]:
    return {"amount_cents": pipeline.cents_up(usd), "currency": "USD", "amount_usd": round(usd, 6)}


def _links(run_id: str) -> dict[str, str]:
    base = f"/v1/runs/{run_id}"
    return {
        "self": base,
        "events": f"{base}/events",
        "artifacts": f"{base}/artifacts",
        "tasks": f"{base}/tasks",
        "report": f"{base}/report",
        "dashboard": DASHBOARD + run_id,
    }


def run_json(mock: Any, run: Run, *, detail: bool = False, expand: set[str] | None = None) -> dict[str, Any]:
    """The Run object (§4.1). Cached per run state: the key holds everything the
    representation reads that can change, so a stale copy is never served."""
    if expand:
        return _run_json(mock, run, detail, expand)
    key = (
        detail,
        len(run.events),
        run.updated_at,
        run.status,
        run.halted,
        run.halt_reason,
        run.visibility,
        run.fingerprint_hash,
        run.review_resolution,
        run.forked_from,
        run.forked_from_deleted,
        run.benchmark_id,
        run.subset_id,
        run.impl_id,
        run.score,
        run.current_phase,
        run.error,
        None if run.finished_at or not run.started_at else mock.store.clock.now(),
    )
    cached = run.memo.get("json")
    if cached is None or cached[0] != key:
        cached = run.memo["json"] = (key, _run_json(mock, run, detail, None))
    return dict(cached[1])


def _run_json(mock: Any, run: Run, detail: bool, expand: set[str] | None) -> dict[str, Any]:
    usd = run.usd
    narration = _money(usd.get("narration", 0.0))
    narration.update(calls=0, input_tokens=0, output_tokens=0)
    tokens_in, tokens_out = run.tokens.get("input", 0), run.tokens.get("output", 0)
    driver_in, driver_out = run.tokens.get("driver_input", 0), run.tokens.get("driver_output", 0)
    end = run.finished_at or mock.store.clock.now()
    body: dict[str, Any] = {
        "id": run.id,
        "object": "run",
        "user_id": run.user_id,
        "status": run.status,
        "display_status": display_status(run),
        "current_phase": run.current_phase,
        "halted": run.halted,
        "halt_reason": run.halt_reason,
        "request": run.request,
        "driver": run.driver,
        "benchmark": None,
        "benchmark_name": run.benchmark_name,
        "subset": None,
        "impl": None,
        "model": dict(run.model),
        "sut_config": run.sut_config,
        "backend": run.backend,
        "harness": run.harness,
        "harness_config": run.harness_config,
        "fingerprint_hash": run.fingerprint_hash,
        "score": run.score,
        "task_count": run.task_count,
        "cache_hits": {"count": 0, "phases": {}},
        "materialize_indices": run.materialize_indices,
        "canonical_indices": run.canonical_indices,
        "cost": {
            "incurred": _money(pipeline.incurred_usd(run)),
            "driver": _money(usd.get("driver", 0.0)),
            "model": _money(usd.get("model", 0.0)),
            "sandbox": _money(usd.get("sandbox", 0.0)),
            "billed": _money(pipeline.billed_usd(run)),
            "proxy_linger": _money(usd.get("proxy_linger", 0.0)),
            "narration": narration,
        },
        "tokens": {
            "input": tokens_in,
            "output": tokens_out,
            "total": tokens_in + tokens_out,
            "driver": {"input": driver_in, "output": driver_out, "total": driver_in + driver_out},
        },
        "duration_ms": int((end - (run.started_at or run.created_at)).total_seconds() * 1000) if run.started_at else 0,
        "visibility": run.visibility,
        "forked_from": run.forked_from,
        "forked_from_deleted": run.forked_from_deleted,
        "fork_description": run.fork_description,
        "relaunch_count": run.relaunch_count,
        "relaunch_budget_sec": None,
        "port_version": "0.5.15",
        "storage": dict(run.derived("storage", _storage)),
        "created_at": rfc3339(run.created_at),
        "started_at": rfc3339(run.started_at) if run.started_at else None,
        "finished_at": rfc3339(run.finished_at) if run.finished_at else None,
        "updated_at": rfc3339(run.updated_at),
        "error": run.error,
        "error_type": run.error_type,
        "review_resolution": run.review_resolution,
        "links": _links(run.id),
    }
    if run.terminal:  # the catalog projection exists only once finalized (§4.1, §3.10)
        body["benchmark_id"] = run.benchmark_id
        body["subset_id"] = run.subset_id
        body["impl_id"] = run.impl_id
    if detail:
        body["inference"] = run.derived("inference", _inference)
    if expand and "phase_breakdown" in expand:
        body["phase_breakdown"] = phase_breakdown(run)
    if expand and "child_forks" in expand:
        body["child_forks"] = [
            {
                "id": child.id,
                "fork_description": child.fork_description,
                "status": child.status,
                "created_at": rfc3339(child.created_at),
            }
            for child in pipeline.runs(mock.store).values()
            if child.forked_from == run.id
        ]
    return body


def _storage(run: Run) -> dict[str, int]:
    """§4.1 `storage`: always present, every counter defaulting to 0."""
    event_bytes = sum(len(str(e["data"])) for e in run.events)
    payloads = [e for e in run.events if e["type"] == "MaterializeTaskResult"]
    payload_bytes = sum(len(str(e["data"])) * 4 for e in payloads)
    return {
        "event_count": len(run.events),
        "event_bytes": event_bytes,
        "payload_count": len(payloads),
        "payload_bytes": payload_bytes,
        "total_bytes": event_bytes + payload_bytes,
    }


def _inference(run: Run) -> dict[str, Any] | None:
    results = [e for e in run.events if e["type"] == "MaterializeTaskResult"]
    if not results:
        return None
    calls = len(results)
    ok = sum(1 for e in results if e["data"].get("error_class") == "ok")
    completion = run.tokens.get("output", 0)
    duration = sum(e["data"].get("duration_ms", 0) for e in results)
    return {
        "calls": calls,
        "ok": ok,
        "completion_tokens": completion,
        "duration_ms": duration,
        "by_model": [
            {
                "model": run.model["identifier"],
                "calls": calls,
                "ok": ok,
                "completion_tokens": completion,
                "duration_ms": duration,
                "status_codes": {"200": ok, **({"429": calls - ok} if calls > ok else {})},
            }
        ],
    }


def phase_breakdown(run: Run) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for event in run.events:
        data = event["data"]
        if event["type"] == "PhaseStarted":
            current = {
                "phase": data["phase"],
                "invocation": data.get("invocation", 1),
                "duration_ms": 0,
                "tokens": {"input": 0, "output": 0},
                "cost": {"llm_cents": 0},
                "llm_calls": 0,
                "model": run.driver,
            }
            rows.append(current)
        elif current is not None and event["type"] == "LlmCallEvent":
            current["llm_calls"] += 1
            current["tokens"]["input"] += data.get("input_tokens", 0)
            current["tokens"]["output"] += data.get("output_tokens", 0)
            current["cost"]["llm_cents"] = pipeline.cents_up(current["llm_calls"] * data.get("cost_usd", 0.0))
        elif current is not None and event["type"] == "PhaseCompleted":
            current["duration_ms"] = data.get("duration_ms", 0)
    return rows


def _expand(ctx: Ctx) -> set[str]:
    raw = ctx.query.get("expand") or ""
    return {part.strip() for part in raw.split(",") if part.strip()}


# -- launch -------------------------------------------------------------------


def _check_driver(user: User, spec: str | None) -> None:
    """An explicit Driver pin must be a priced Gemini model or `openrouter://` (§4.2.1)."""
    if spec is None or user.admin:
        return
    if spec.startswith("openrouter://") or re.match(r"^gemini-[0-9][\w.\-]*$", spec):
        return
    raise Problem(403, "admin_required", f"Driver '{spec}' is not a priced Gemini model or an openrouter:// spec.")


def _limits(body: dict[str, Any]) -> dict[str, dict[str, float]]:
    limits: dict[str, dict[str, float]] = {}
    for (section, key), (level, quantity, scale) in LEGACY_LIMITS.items():
        value = (body.get(section) or {}).get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            limits.setdefault(level, {})[quantity] = value * scale
    for level, quantities in (body.get("limits") or {}).items():
        if level == "attempt" and "cost" in (quantities or {}):
            raise invalid(
                "limits.attempt.cost is not enforced (retries share one tally), so it is refused",
                field="limits.attempt.cost",
            )
        for quantity, value in (quantities or {}).items():
            limits.setdefault(level, {})[quantity] = value
    return limits


def _accepted_values(ctx: Ctx) -> dict[str, Any]:
    """The values §4.2.1 accepts where an unknown one has its own code: read from the
    spec's `x-values` on the launch body (harnesses with their synonyms, providers,
    aggregators)."""
    schemas = ctx.api.spec["components"]["schemas"]
    harnesses = schemas["LaunchRequest"]["properties"]["harness"]["x-values"]
    aggregator = schemas["LaunchRequest"]["properties"]["trials"]["properties"]["aggregator"]
    return {
        "harnesses": harnesses,
        "harness_of": {alias: name for name, aliases in harnesses.items() for alias in [name, *aliases]},
        "providers": schemas["LaunchModelPin"]["properties"]["provider"]["x-values"],
        "aggregators": aggregator["properties"]["name"]["x-values"],
    }


def _harness(body: dict[str, Any], accepted: dict[str, Any]) -> str:
    metadata = body.get("metadata") or {}
    if "bridge" in body or any(k.endswith("_bridge") for k in metadata):
        raise Problem(
            400,
            "bridge_renamed_to_harness",
            "`bridge` is now `harness` (and `metadata.<x>_bridge` is `metadata.<x>_harness`).",
        )
    raw = body.get("harness")
    if raw is None:
        inferred = [name for name in accepted["harnesses"] if name != "benchwright" and f"{name}_harness" in metadata]
        return inferred[0] if inferred else "benchwright"
    name = accepted["harness_of"].get(raw)
    if name is None:
        raise Problem(400, "unknown_harness", f"harness '{raw}' is not one of {sorted(accepted['harnesses'])}.")
    return name


def _preflight_common(ctx: Ctx, body: dict[str, Any], user: User) -> dict[str, Any]:
    """The checks launch and fork share (§4.2.1, §4.2.5), in the reference's order."""
    accepted = _accepted_values(ctx)
    _check_driver(user, body.get("driver"))
    for spec in (body.get("phase_models") or {}).values():
        _check_driver(user, spec)
    model = body.get("model") or {}
    provider = model.get("provider")
    if provider is not None and provider not in accepted["providers"]:
        raise Problem(
            400,
            "unknown_provider",
            f"model.provider '{provider}' is not pinnable; use {' or '.join(accepted['providers'])}.",
        )
    aggregator = ((body.get("trials") or {}).get("aggregator") or {}).get("name")
    if aggregator is not None and aggregator not in accepted["aggregators"]:
        raise Problem(
            400, "unknown_aggregator", f"trials.aggregator '{aggregator}' is not one of {accepted['aggregators']}."
        )
    metadata = body.get("metadata") or {}
    if metadata.get("autonomous") and not model.get("model"):
        raise Problem(400, "autonomous_model_required", "metadata.autonomous needs an explicit model pin.")
    return {
        "limits": _limits(body),
        "harness": _harness(body, accepted)
        if "harness" in body or "bridge" in body or any(k.endswith(("_harness", "_bridge")) for k in metadata)
        else None,
    }


def _check_secrets_and_money(ctx: Ctx, user: User, provider: str | None) -> None:
    store = ctx.store
    owner = store.account_of(user)
    secrets = [s for s in store.table("secrets").values() if s["user_id"] == owner.id]
    if not secrets:
        raise Problem(400, "no_provider_secret", "No provider API key in your vault; add one under /manage/vault.")
    if provider is not None:
        wanted = f"{provider.upper()}_API_KEY"
        if not any(s["name"] == wanted for s in secrets):
            raise Problem(412, "no_provider_secret", f"No {wanted} in your vault for the pinned provider.")
    if ledger.balance_cents(store, owner.id) < ledger.LAUNCH_FLOOR_CENTS:
        raise Problem(
            402,
            "insufficient_balance",
            "Top up to at least $1.00 before launching.",
            title="Balance below the $1.00 launch floor",
        )
    cap = limiter(ctx.api).band(owner.tier, owner.quota_overrides)["max_run_concurrency"]
    members = _team_ids(store, owner)
    running = pipeline.running_count(store, members)
    if running >= cap:
        raise Problem(
            429,
            "tier_concurrency_exceeded",
            f"The account is at its tier's cap of {cap} concurrent run(s).",
            headers={"Retry-After": str(CONCURRENCY_RETRY_SECONDS)},
        )


def _compute(ctx: Ctx, raw: str | None) -> str:
    """§4.2.1 `compute`, and §4.2.5: the chosen backend must be configured on this deploy."""
    backend = "sandbox0" if raw in (None, "default", "auto") else raw
    if backend not in ctx.api.config.compute_backends:
        if backend == "e2b":
            raise Problem(501, "e2b_not_configured", "E2B has no credentials on this deploy.")
        raise Problem(400, "compute_not_configured", f"Compute backend '{backend}' is not configured here.")
    return backend


def _egress(ctx: Ctx, metadata: dict[str, Any]) -> None:
    """§9a.2: a pinned endpoint must be serving now, unless `wait_for_egress`."""
    endpoint_id = metadata.get("egress_endpoint")
    if not endpoint_id or metadata.get("wait_for_egress"):
        return
    from mock_server.benchwright.resources.egress import endpoint_online  # part of the local-egress resource

    if not endpoint_online(ctx, endpoint_id):
        raise Problem(412, "egress_endpoint_unavailable", f"Egress endpoint {endpoint_id} is not serving.")


def _tasks(limits: dict[str, dict[str, float]], metadata: dict[str, Any]) -> tuple[int, str | None]:
    indices = metadata.get("indices")
    count = len(expand_indices(indices)) if isinstance(indices, str) and indices else pipeline.DEFAULT_TASKS
    cap = limits.get("run", {}).get("tasks")
    if cap is not None:
        count = min(count, int(cap))
    return max(count, 1), indices if isinstance(indices, str) and indices else f"0-{max(count, 1) - 1}"


def expand_indices(spec: str) -> list[int]:
    """`"0-99"`, `"0,2,4"` -> indices; bad specs are `400 invalid_argument`."""
    out: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not match:
            raise invalid(f"index spec '{spec}': use forms like '0-99' or '0,2,4'", field="indices")
        low = int(match.group(1))
        high = int(match.group(2) or low)
        if high < low or high - low > 50_000:
            raise invalid(f"index spec '{spec}': bad range '{part}'", field="indices")
        out.extend(range(low, high + 1))
    return out


def new_run(
    ctx_or_mock: Any,
    user: User,
    *,
    mode: str,
    request: str,
    model: dict[str, Any],
    harness: str,
    backend: str,
    benchmark_name: str,
    limits: dict[str, dict[str, float]],
    tasks: int,
    indices: str | None,
    driver: str | None = None,
    token_id: str | None = None,
    trials: int = 1,
    aggregator: str | None = None,
    outcome: str = "ok",
    publish_on_complete: bool = False,
    created_at: datetime | None = None,
    **fields: Any,
) -> Run:
    mock = getattr(ctx_or_mock, "mock", ctx_or_mock)
    now = created_at or mock.store.clock.now()
    run = Run(
        id=str(uuid.uuid4()),
        user_id=user.id,
        token_id=token_id,
        mode=mode,
        request=request,
        driver=driver or DEFAULT_DRIVER,
        model=model,
        harness=harness,
        backend=backend,
        benchmark_name=benchmark_name,
        created_at=now,
        updated_at=now,
        limits=limits,
        task_count=tasks,
        materialize_indices=indices,
        trials=trials,
        aggregator=aggregator,
        outcome=outcome,
        publish_on_complete=publish_on_complete,
        sandbox_id="sbx_" + uuid.uuid4().hex[:12],
        sut_config={"temperature": 0.0, "max_tokens": 2048},
        **fields,
    )
    pipeline.plan_run(run, now, tasks)
    return pipeline.add_run(mock.store, run)


def _model_pin(body: dict[str, Any], fallback: dict[str, Any] | None) -> dict[str, Any]:
    pin = body.get("model")
    if pin and pin.get("model"):
        return {"identifier": pin["model"], "source": pin.get("provider") or "openrouter", "provenance": "specified"}
    if fallback:
        return {**fallback, "provenance": "inherited"}
    return {"identifier": "openai/gpt-4o-mini", "source": "openrouter", "provenance": "account_default"}


def _benchmark_name(text: str) -> str:
    match = re.search(r"\brun\s+([A-Za-z0-9][\w\-.]*)", text, re.IGNORECASE)
    return match.group(1) if match else "adhoc"


def _root(store: Store, run: Run) -> Run:
    """Walk `forked_from` to the first ancestor that is not a fork (§4.2.3)."""
    current = run
    for _ in range(MAX_FORK_DEPTH):
        if current.forked_from is None:
            return current
        parent = pipeline.get_run(store, current.forked_from)
        if parent is None:
            return current
        current = parent
    return current


def _accepted(run: Run, mode: str) -> Reply:
    base = f"/v1/runs/{run.id}"
    return Reply(
        {
            "id": run.id,
            "status": "launching",
            "mode": mode,
            "sandbox_id": run.sandbox_id,
            "links": {"self": base, "events": f"{base}/events", "dashboard": DASHBOARD + run.id},
        },
        status=202,
    )


@handler("launchRun")
async def launch_run(ctx: Ctx) -> Reply:
    body = ctx.body or {}
    user = ctx.user
    modes = [name for name in ("request", "benchmark", "replay") if body.get(name) not in (None, "", {})]
    if len(modes) != 1:
        raise invalid(
            "Send exactly one launch mode: `request` (natural language), `benchmark` (pinned) or "
            "`replay.from_run` (replay)." + (f" Got {modes}." if modes else "")
        )
    require_writer(ctx.store, user)
    common = _preflight_common(ctx, body, user)
    metadata = body.get("metadata") or {}
    mode = modes[0]
    parent: Run | None = None
    benchmark_name = ""
    pin = None
    if mode == "benchmark":
        from mock_server.benchwright.resources.registry_lookup import resolve_pin

        pin = resolve_pin(ctx, body["benchmark"], body.get("subset"))
        benchmark_name = pin.name
        request = f"Run {benchmark_name}"
    elif mode == "replay":
        parent = pipeline.get_run(ctx.store, body["replay"]["from_run"])
        if (
            parent is None
            or not can_read(ctx.store, user, parent)
            or (parent.user_id != user.id and not user.admin and parent.visibility == "private")
        ):
            raise Problem(404, "parent_not_found", "replay.from_run does not exist or is not accessible.")
        if not parent.terminal:
            raise Problem(400, "parent_still_running", "Replay a run only once it has finished.")
        parent = _root(ctx.store, parent)
        if parent.harness == "benchwright":
            raise Problem(
                409,
                "replay_unsupported",
                "The benchwright harness authors its impl per run; there is nothing fixed to re-materialize against.",
            )
        request = parent.request
        benchmark_name = parent.benchmark_name
    else:
        request = body["request"]
        benchmark_name = _benchmark_name(request)
    model = _model_pin(body, parent.model if parent else None)
    backend = _compute(ctx, body.get("compute"))
    _check_secrets_and_money(ctx, user, (body.get("model") or {}).get("provider"))
    _egress(ctx, metadata)
    tasks, indices = _tasks(common["limits"], metadata)
    if parent is not None:
        tasks, indices = parent.task_count, parent.materialize_indices
    trials = ((body.get("trials") or {}).get("plan") or {}).get("k") or 1
    run = new_run(
        ctx,
        user,
        mode=mode,
        request=request,
        model=model,
        harness=common["harness"] or (parent.harness if parent else "benchwright"),
        backend=backend,
        benchmark_name=benchmark_name,
        limits=common["limits"],
        tasks=tasks,
        indices=indices,
        driver=body.get("driver"),
        token_id=ctx.principal.token.id if ctx.principal.token else None,
        trials=trials,
        aggregator=((body.get("trials") or {}).get("aggregator") or {}).get("name"),
        outcome="error" if metadata.get("mock_outcome") == "error" else "ok",
        publish_on_complete=bool(metadata.get("publish_on_complete")),
        forked_from=parent.id if parent else None,
        canonical_indices=metadata.get("canonical_indices"),
    )
    from mock_server.benchwright.resources.egress import open_session  # egress imports this module

    open_session(ctx.store, run, metadata)
    if parent is not None:
        run.impl_id = parent.impl_id
    if pin is not None and pin.authored:  # the run projects onto the authored rows (§4.2.2)
        run.benchmark_id, run.subset_id = pin.benchmark_id, pin.subset_id
        _fail_without_recipe(ctx, run)
    return _accepted(run, "natural_language" if mode == "request" else mode)


def _fail_without_recipe(ctx: Ctx, run: Run) -> None:
    """§8.6: "a run pinned to a subset that has none fails immediately with
    `product_benchmark_no_recipe` rather than part-way through setup"."""
    from mock_server.benchwright.resources.authoring import runnable

    subset = ctx.store.table("subsets").get(run.subset_id or "")
    if subset is not None and not runnable(subset):
        pipeline.stop(
            ctx.api,
            run,
            "product_benchmark_no_recipe",
            error="product_benchmark_no_recipe: the pinned subset has no recipe (grader) to run its samples with",
        )
        run.halted, run.halt_reason, run.error_type = False, None, "product_benchmark_no_recipe"


@handler("forkRun")
async def fork_run(ctx: Ctx) -> Reply:
    body = ctx.body or {}
    if not (body.get("description") or "").strip():
        raise invalid("body.description: required; it tells ForkPhase what to change", field="body.description")
    parent = pipeline.get_run(ctx.store, ctx.path["id"])
    user = ctx.user
    if parent is None or not can_read(ctx.store, user, parent):
        raise Problem(404, "parent_not_found", "The run to fork does not exist or is not accessible.")
    if parent.user_id != user.id and not user.admin:
        raise Problem(403, "forbidden", "Only your own runs can be forked.")
    if not parent.terminal:
        raise Problem(400, "parent_still_running", "Fork a run only once it has finished.")
    if parent.harness == "benchwright":
        raise Problem(409, "fork_unsupported", "Runs of the benchwright harness cannot be forked.")
    common = _preflight_common(ctx, body, user)
    _check_secrets_and_money(ctx, user, (body.get("model") or {}).get("provider"))
    indices = body.get("indices")
    tasks = len(expand_indices(indices)) if indices else parent.task_count
    phases = (
        pipeline.PHASES[pipeline.PHASES.index(body["from_phase"]) :]
        if body.get("from_phase") in pipeline.PHASES
        else ["atomize", "materialize", "report"]
    )
    run = new_run(
        ctx,
        user,
        mode="fork",
        request=parent.request,
        model=_model_pin(body, parent.model),
        harness=parent.harness,
        backend=parent.backend,
        benchmark_name=parent.benchmark_name,
        limits=common["limits"],
        tasks=tasks,
        indices=indices or parent.materialize_indices,
        driver=body.get("driver") or parent.driver,
        token_id=ctx.principal.token.id if ctx.principal.token else None,
        forked_from=parent.id,
        fork_description=body["description"],
    )
    pipeline.plan_run(run, run.created_at, tasks, phases)
    return _accepted(run, "replay")


# -- reads ----------------------------------------------------------------------


@handler("getRun")
async def get_run(ctx: Ctx) -> Reply:
    run = readable_run(ctx)
    return Reply(
        run_json(ctx.api, run, detail=True, expand=_expand(ctx)), headers={"ETag": weak_etag(run.id, run.updated_at)}
    )


LIST_FIELDS = {
    "status": lambda r: r.status,
    "benchmark": lambda r: r.benchmark_name,
    "visibility": lambda r: r.visibility,
    "started_at": lambda r: r.started_at,
    "finished_at": lambda r: r.finished_at,
    "created_at": lambda r: r.created_at,
    "cost_total": lambda r: pipeline.incurred_usd(r),
    "cost_billed": lambda r: pipeline.billed_usd(r),
}


@handler("listRuns")
async def list_runs(ctx: Ctx) -> Reply:
    user = ctx.user
    store = ctx.store
    everyone = ctx.query.get("scope") == "all" and user.admin
    members = _team_ids(store, user)
    rows = [r for r in pipeline.runs(store).values() if everyone or r.user_id in members]
    for name, keep in build_filters(ctx.raw_query, ctx.op.raw.get("x-filters", {})):
        rows = [r for r in rows if keep(LIST_FIELDS[name](r))]
    keys = parse_sort(ctx.query.get("sort"), ctx.op.raw.get("x-sorts", []), "-created_at")
    rows = apply_sort(rows, [*keys, ("created_at", True)], lambda r, name: LIST_FIELDS[name](r))
    position = {r.id: i for i, r in enumerate(rows)}
    chunk, pagination = page(rows, ctx.query["limit"], ctx.query.get("page_token"), "runs", key=lambda r: r.id)
    del position
    return Reply({"data": [run_json(ctx.api, r) for r in chunk], "pagination": pagination})


@handler("getRunPhaseStats")
async def phase_stats(ctx: Ctx) -> Reply:
    """§4.10: the caller's most recent 100 finalized runs, keyed by phase."""
    mine = [r for r in pipeline.runs(ctx.store).values() if r.user_id == ctx.user.id and r.terminal]
    mine.sort(key=lambda r: r.finished_at or r.created_at, reverse=True)
    stats: dict[str, dict[str, Any]] = {}
    for run in mine[:100]:
        started: dict[str, Any] = {}
        for event in run.events:
            phase = event["data"].get("phase")
            if event["type"] == "PhaseStarted":
                started[phase] = event
                entry = stats.setdefault(phase, {"total_ms": 0, "attempts": 0, "success": 0, "failed": 0})
                entry["attempts"] += 1
            elif event["type"] == "PhaseCompleted" and phase in started:
                entry = stats[phase]
                entry["success"] += 1
                entry["total_ms"] += event["data"].get("duration_ms", 0)
                started.pop(phase)
        if run.status == "error":
            for phase in started:
                stats[phase]["failed"] += 1
    return Reply(
        {
            phase: {
                "avg_ms": entry["total_ms"] // entry["success"] if entry["success"] else 0,
                "attempts": entry["attempts"],
                "success": entry["success"],
                "failed": entry["failed"],
            }
            for phase, entry in stats.items()
        }
    )


# -- changes -------------------------------------------------------------------


def _who(ctx: Ctx) -> str:
    return ctx.user.email if ctx.user else "anonymous"


@handler("haltRun")
async def halt_run(ctx: Ctx) -> Reply:
    run = owned_run(ctx)
    reason = " ".join(str((ctx.body or {}).get("reason") or "").split())[:200]
    text = f"operator_kill by {_who(ctx)}" + (f": {reason}" if reason else "")
    if not run.terminal:
        pipeline.stop(ctx.api, run, text, error="halted by operator")
    else:
        run.halted = True
        run.halt_reason = text
        run.updated_at = ctx.store.clock.now()
    return Reply(run_json(ctx.api, run, detail=True))


@handler("pauseRun")
async def pause_run(ctx: Ctx) -> Reply:
    run = owned_run(ctx)
    if run.status != "running":
        raise Problem(409, "invalid_state", f"Only a running run can be paused; this one is {run.status}.")
    if run.halted:
        raise Problem(409, "already_halted", f"The run is already halted ({run.halt_reason}).")
    run.halted = True
    run.halt_reason = f"operator_pause: {_who(ctx)}"
    run.pause_requested = True
    run.updated_at = ctx.store.clock.now()
    return Reply(run_json(ctx.api, run, detail=True))


@handler("resumeRun")
async def resume_run(ctx: Ctx) -> Reply:
    run = owned_run(ctx)
    if not (run.halt_reason or "").startswith("operator_pause") or run.terminal:
        raise Problem(
            409,
            "not_paused",
            "Only an operator pause can be resumed; a review is answered with PATCH review_resolution.",
        )
    now = ctx.store.clock.now()
    run.halted = False
    run.halt_reason = None
    run.pause_requested = False
    if run.held:
        run.held = False
        pipeline.emit(ctx.store, run, "PhaseResumed", {"phase": run.current_phase, "leg": 2})
        pipeline.retime(run, now)
    run.updated_at = now
    ctx.store.clock.notify()
    return Reply(run_json(ctx.api, run, detail=True))


@handler("patchRun")
async def patch_run(ctx: Ctx) -> Reply:
    run = owned_run(ctx)
    ctx.precondition(weak_etag(run.id, run.updated_at))
    body = ctx.body or {}
    if "visibility" not in body and "review_resolution" not in body:
        raise invalid("Patchable fields are exactly `visibility` and `review_resolution`.")
    now = ctx.store.clock.now()
    if "visibility" in body:
        set_visibility(run, body["visibility"])
    if body.get("review_resolution") is not None:
        run.review_resolution = body["review_resolution"]
        if (run.halt_reason or "").startswith("agent_review"):
            run.halted = False
            run.halt_reason = None
            run.held = False
            pipeline.emit(
                ctx.store,
                run,
                "HumanReviewResolution",
                {"phase": run.current_phase, "instructions": body["review_resolution"]},
            )
            pipeline.retime(run, now)
            pipeline.activate(ctx.store, run)
    run.updated_at = max(now, run.updated_at + MIN_REVISION_STEP)  # every write is a new revision (§3.8)
    ctx.store.clock.notify()
    return Reply(run_json(ctx.api, run, detail=True), headers={"ETag": weak_etag(run.id, run.updated_at)})


def set_visibility(run: Run, visibility: str) -> None:
    """§4.8/§8.4: `public` needs `status == ok`; going non-private restamps the fingerprint."""
    if visibility == "public" and run.status != "ok":
        raise Problem(409, "visibility_constraint_violated", "Only a run that finished ok can be public.")
    run.visibility = visibility
    if visibility != "private":
        run.fingerprint_hash = pipeline.fingerprint_of(run) or run.fingerprint_hash


@handler("publishRun")
async def publish_run(ctx: Ctx) -> Reply:
    run = owned_run(ctx)
    visibility = (ctx.body or {}).get("visibility") or "public"
    if visibility != "private" and (run.status != "ok" or not run.benchmark_id):
        raise Problem(
            409,
            "visibility_constraint_violated",
            "Publishing needs a run that finished ok and has a benchmark to publish under.",
        )
    set_visibility(run, visibility)
    run.updated_at = ctx.store.clock.now()
    body = {"id": run.id, "visibility": run.visibility}
    if run.fingerprint_hash:
        body["fingerprint_hash"] = run.fingerprint_hash
    return Reply(body)


@handler("deleteRun")
async def delete_run(ctx: Ctx) -> Reply:
    """§4.7: tear down, adopt the fork children, then remove the record."""
    run = owned_run(ctx)
    store = ctx.store
    reason = f"operator_kill by {_who(ctx)}"
    sandboxes = 0 if run.terminal else 1
    if not run.terminal:
        pipeline.stop(ctx.api, run, reason, error="deleted by operator")
    children = [r for r in pipeline.runs(store).values() if r.forked_from == run.id]
    adopted_events = 0
    for child in children:
        own = {(e["type"], e["data"].get("phase")) for e in child.events}
        inherited = [
            e
            for e in run.events
            if e["type"] in (*pipeline.FINGERPRINT_TYPES, "FetchArtifact", "AnalyzeArtifact", "PhaseCompleted")
            and (e["type"], e["data"].get("phase")) not in own
        ]
        for event in inherited:
            pipeline.emit(store, child, event["type"], {**event["data"], "_adopted_from": run.id})
            adopted_events += 1
        child.forked_from = run.forked_from
        child.forked_from_deleted = run.id
        child.updated_at = store.clock.now()
    pipeline.runs(store).pop(run.id, None)
    pipeline.deactivate(store, run)
    store.clock.notify()
    return Reply(
        {
            "id": run.id,
            "deleted": True,
            "halt_reason": reason,
            "sandboxes_killed": sandboxes,
            "snapshots_freed": 0,
            "forks_adopted": [c.id for c in children],
            "events_adopted": adopted_events,
            "reparented_to": run.forked_from,
        }
    )


@handler("narrateRun")
async def narrate_run(ctx: Ctx) -> Reply:
    """§4.9: opt-in via `run_narration_enabled`; cached per (run, last_seq)."""
    run = readable_run(ctx)
    slice_ = ctx.query.get("slice") or "recent"
    if ctx.user is not None:
        owner = ctx.store.account_of(ctx.user)
        setting = ctx.store.table("settings").get((owner.id, "run_narration_enabled"))
        if not (setting and setting["value"] is True):
            return Reply(status=204)
    cache = ctx.store.table("narrations")
    key = (run.id, run.last_seq, slice_)
    cached = cache.get(key)
    if cached is not None:
        return Reply({**cached, "from_cache": True})
    window = run.events[-20:] if slice_ == "recent" else run.events
    phase = run.current_phase or "report"
    sentence = (
        f"Working through {phase} ({len(run.events)} events so far)."
        if slice_ == "recent"
        else f"The run went through {len({e['data'].get('phase') for e in run.events} - {None})} phases "
        f"and finished {run.status}."
    )
    body = {
        "sentence": sentence,
        "generated_at": rfc3339(ctx.store.clock.now()),
        "slice": slice_,
        "from_cache": False,
        "first_seq": window[0]["seq"] if window else 0,
        "last_seq": window[-1]["seq"] if window else 0,
    }
    cache[key] = body
    return Reply(body)
