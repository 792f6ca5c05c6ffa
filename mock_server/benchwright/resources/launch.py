"""Launching runs (§4.2): launch (natural language, pinned, replay) and fork.

The preflight checks run in the order §4.2.1 and §4.2.5 list them; the run they
construct is `model/runs.new_run`, and its lifecycle is `model/lifecycle.py`.
"""

from __future__ import annotations

import re
from typing import Any

from mock_server.benchwright.model import ledger
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.model.accounts import require_writer
from mock_server.benchwright.model.catalog import resolve_pin, runnable
from mock_server.benchwright.model.indices import expand_indices
from mock_server.benchwright.model.lifecycle import Run
from mock_server.benchwright.model.runs import DASHBOARD, can_read, new_run, team_ids
from mock_server.benchwright.ratelimit import limiter
from mock_server.benchwright.resources import handler
from mock_server.benchwright.resources.egress import endpoint_online, open_session
from mock_server.benchwright.store import Store, User
from mock_server.engine import Ctx, Reply
from mock_server.policies.pagination import clamp
from mock_server.policies.problems import Problem, invalid

MAX_FORK_DEPTH = 16
CONCURRENCY_RETRY_SECONDS = 30  # §13: every 429 carries Retry-After; a slot frees when a run ends
LEGACY_LIMITS = {  # §4.2.1: pre-`limits` spellings -> (level, quantity, scale to dollars/seconds)
    ("constraints", "max_cost_cents"): ("run", "cost", 0.01),
    ("constraints", "max_duration_ms"): ("run", "duration", 0.001),
    ("constraints", "max_tasks"): ("run", "tasks", 1),
    ("metadata", "limit"): ("run", "tasks", 1),
    ("metadata", "task_attempts"): ("task", "attempts", 1),
    ("metadata", "task_timeout_sec"): ("attempt", "duration", 1),
}


def _by_section(spellings: dict[tuple[str, str], tuple[str, str, float]]) -> dict[str, list[tuple[str, Any]]]:
    """The legacy spellings grouped by the body section that holds them, in their order."""
    grouped: dict[str, list[tuple[str, Any]]] = {}
    for (section, key), target in spellings.items():
        grouped.setdefault(section, []).append((key, target))
    return grouped


LEGACY_BY_SECTION = _by_section(LEGACY_LIMITS)
GEMINI_DRIVER = re.compile(r"^gemini-[0-9][\w.\-]*$")
BENCHMARK_IN_REQUEST = re.compile(r"\brun\s+([A-Za-z0-9][\w\-.]*)", re.IGNORECASE)


# -- preflight (§4.2.1, §4.2.5) ---------------------------------------------------


def _check_driver(user: User, spec: str | None) -> None:
    """An explicit Driver pin must be a priced Gemini model or `openrouter://` (§4.2.1)."""
    if spec is None or user.admin:
        return
    if spec.startswith("openrouter://") or GEMINI_DRIVER.match(spec):
        return
    raise Problem(403, "admin_required", f"Driver '{spec}' is not a priced Gemini model or an openrouter:// spec.")


def _limits(body: dict[str, Any]) -> dict[str, dict[str, float]]:
    limits: dict[str, dict[str, float]] = {}
    for section, spellings in LEGACY_BY_SECTION.items():
        values = body.get(section)
        if not values:
            continue
        for key, (level, quantity, scale) in spellings:
            value = values.get(key)
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


_ACCEPTED: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}  # id(spec) -> (spec, values)


def _accepted_values(ctx: Ctx) -> dict[str, Any]:
    """The values §4.2.1 accepts where an unknown one has its own code: read from the
    spec's `x-values` on the launch body (harnesses with their synonyms, providers,
    aggregators), once per bundled spec."""
    spec = ctx.api.spec
    held = _ACCEPTED.get(id(spec))
    if held is None or held[0] is not spec:
        held = _ACCEPTED[id(spec)] = (spec, _read_accepted(spec))
    return held[1]


def _read_accepted(spec: dict[str, Any]) -> dict[str, Any]:
    schemas = spec["components"]["schemas"]
    harnesses = schemas["LaunchRequest"]["properties"]["harness"]["x-values"]
    aggregator = schemas["LaunchRequest"]["properties"]["trials"]["properties"]["aggregator"]
    metadata = schemas["LaunchRequest"]["properties"]["metadata"]["properties"]
    return {
        "linger": metadata["proxy_linger_seconds"]["x-clamp"],
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
        "proxy_linger": _proxy_linger(metadata.get("proxy_linger_seconds"), accepted["linger"]),
        "harness": _harness(body, accepted)
        if "harness" in body or "bridge" in body or any(k.endswith(("_harness", "_bridge")) for k in metadata)
        else None,
    }


def _proxy_linger(requested: Any, rule: dict[str, Any]) -> tuple[Any, int]:
    """§4.2.1 `metadata.proxy_linger_seconds`: what was asked, and the seconds granted, silently
    clamped to the spec's `x-clamp` (`[0, 86400]`, `0` tears the proxy down at once)."""
    return requested, int(clamp(requested, rule))


def _check_secrets_and_money(ctx: Ctx, user: User, provider: str | None) -> None:
    store = ctx.store
    owner = store.account_of(user)
    secrets = [s for s in store.secrets.values() if s.user_id == owner.id]
    if not secrets:
        raise Problem(400, "no_provider_secret", "No provider API key in your vault; add one under /manage/vault.")
    if provider is not None:
        wanted = f"{provider.upper()}_API_KEY"
        if not any(s.name == wanted for s in secrets):
            raise Problem(412, "no_provider_secret", f"No {wanted} in your vault for the pinned provider.")
    if ledger.balance_cents(store, owner.id) < ledger.LAUNCH_FLOOR_CENTS:
        raise Problem(
            402,
            "insufficient_balance",
            "Top up to at least $1.00 before launching.",
            title="Balance below the $1.00 launch floor",
        )
    cap = limiter(ctx.api).band(owner.tier, owner.quota_overrides)["max_run_concurrency"]
    members = team_ids(store, owner)
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
    if not endpoint_online(ctx, endpoint_id):
        raise Problem(412, "egress_endpoint_unavailable", f"Egress endpoint {endpoint_id} is not serving.")


def _tasks(limits: dict[str, dict[str, float]], metadata: dict[str, Any]) -> tuple[int, str | None]:
    indices = metadata.get("indices")
    count = len(expand_indices(indices)) if isinstance(indices, str) and indices else pipeline.DEFAULT_TASKS
    cap = limits.get("run", {}).get("tasks")
    if cap is not None:
        count = min(count, int(cap))
    return max(count, 1), indices if isinstance(indices, str) and indices else f"0-{max(count, 1) - 1}"


def _model_pin(body: dict[str, Any], fallback: dict[str, Any] | None) -> dict[str, Any]:
    pin = body.get("model")
    if pin and pin.get("model"):
        return {"identifier": pin["model"], "source": pin.get("provider") or "openrouter", "provenance": "specified"}
    if fallback:
        return {**fallback, "provenance": "inherited"}
    return {"identifier": "openai/gpt-4o-mini", "source": "openrouter", "provenance": "account_default"}


def _benchmark_name(text: str) -> str:
    match = BENCHMARK_IN_REQUEST.search(text)
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
        pin = resolve_pin(ctx.store, user, body["benchmark"], body.get("subset"))
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
        ctx.store,
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
        proxy_linger=common["proxy_linger"],
    )
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
    subset = ctx.store.subsets.get(run.subset_id or "")
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
    user = ctx.user
    require_writer(ctx.store, user)  # a fork is a write: the general team-write guard (§2.5)
    parent = pipeline.get_run(ctx.store, ctx.path["id"])
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
        ctx.store,
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
