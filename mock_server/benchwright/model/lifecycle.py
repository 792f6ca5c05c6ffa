"""The simulated run lifecycle (§4.1, §4.2, §4.6–§4.11, §15).

A launch writes a *plan*: the events the run will emit, each at a simulated
instant (phases in order: Find → Analyze → Setup → Atomize → Materialize →
Report, or Attach → Materialize → Report for a replay), written as a generator
whose steps are built when they are reached (`plan.py`). `advance()` applies the
steps whose time has come, whenever anything reads the state, so progress is a
pure function of the simulated clock: tests move it with `POST /__mock/clock`,
`make serve` lets it follow the wall clock.

Applying a step appends the event and folds its effect into the run: phase,
costs (debited from the ledger in whole cents as they accrue), tokens, task
results. Ceilings (`limits`, §4.2.1) are checked between phases, as the
reference says halts are acted on; the balance floor is checked on every debit.
"""

from __future__ import annotations

import hashlib
import heapq
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import orjson

from mock_server.benchwright.model import ledger, retention
from mock_server.benchwright.model.plan import Plan, Step
from mock_server.benchwright.store import Store
from mock_server.state.clock import epoch_ms

PHASES = ["find", "analyze", "setup", "atomize", "materialize", "report"]
REPLAY_PHASES = ["attach", "materialize", "report"]
PHASE_SECONDS = 4.0
TASK_SECONDS = 1.0
DRIVER_CALL_USD = 0.0125
DRIVER_CALL_TOKENS = (4200, 380)
SANDBOX_PHASE_USD = 0.0061
TASK_MODEL_USD = 0.00083
TASK_MODEL_TOKENS = (410, 120)
DEFAULT_TASKS = 10
TERMINAL = ("ok", "error")


@dataclass(slots=True)
class Run:
    id: str
    user_id: str
    token_id: str | None
    mode: str
    request: str
    driver: str
    model: dict[str, Any]
    harness: str
    backend: str
    benchmark_name: str
    created_at: datetime
    updated_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    status: str = "running"
    current_phase: str | None = None
    halted: bool = False
    halt_reason: str | None = None
    visibility: str = "private"
    error: str | None = None
    error_type: str | None = None
    review_resolution: str | None = None
    forked_from: str | None = None
    forked_from_deleted: str | None = None
    fork_description: str | None = None
    score: float | None = None
    task_count: int = 0
    materialize_indices: str | None = None
    canonical_indices: str | None = None
    fingerprint_hash: str | None = None
    benchmark_id: str | None = None
    subset_id: str | None = None
    impl_id: str | None = None
    publish_on_complete: bool = False
    sandbox_id: str = ""
    sut_config: dict[str, Any] | None = None
    harness_config: dict[str, Any] | None = None
    limits: dict[str, dict[str, float]] = field(default_factory=dict)
    trials: int = 1
    aggregator: str | None = None
    outcome: str = "ok"
    usd: dict[str, float] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    debited_cents: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)
    plan: Plan = field(default_factory=Plan)
    pause_requested: bool = False
    _held: bool = False
    phase_calls: int = 0
    phase_started_at: datetime | None = None
    inference: dict[str, Any] | None = None
    relaunch_count: int = 0
    proxy_linger: tuple[Any, int] = (None, 0)  # metadata.proxy_linger_seconds as sent, and the seconds granted
    # what the run's simulated course (which trials pass, how long each task takes) is drawn from: the order
    # it was made in on this server, so two mocks given the same session run it alike (the differential
    # oracle, docs/differential.md); its id when unset
    course: str = ""
    seq: int = 0  # its place in creation order (`run_index.py`)
    seeded: bool = False  # made by the fixtures: retention never lets it go (`retention.py`)

    memo: dict[str, Any] = field(default_factory=dict, repr=False)
    wake: Any = field(default=None, repr=False)  # set by add_run: reschedules the run

    @property
    def held(self) -> bool:
        """Parked (paused, awaiting review or a machine): the plan does not advance."""
        return self._held

    @held.setter
    def held(self, value: bool) -> None:
        self._held = value
        if not value and self.wake is not None:
            self.wake(self)

    def derived(self, name: str, compute) -> Any:
        """A value derived from the event log, recomputed only when the log grows."""
        key = len(self.events)
        cached = self.memo.get(name)
        if cached is None or cached[0] != key:
            cached = self.memo[name] = (key, compute(self))
        return cached[1]

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def last_seq(self) -> int:
        return self.events[-1]["seq"] if self.events else -1


# -- state access ----------------------------------------------------------


def runs(store: Store) -> dict[str, Run]:
    return store.runs


def active(store: Store) -> dict[str, Run]:
    """Runs not yet terminal, by id."""
    return store.runs_active


def activate(store: Store, run: Run) -> None:
    active(store)[run.id] = run
    store.runs_active_by_user.setdefault(run.user_id, set()).add(run.id)


def deactivate(store: Store, run: Run) -> None:
    active(store).pop(run.id, None)
    store.runs_active_by_user.get(run.user_id, set()).discard(run.id)


def running_count(store: Store, user_ids: set[str]) -> int:
    """Concurrent runs of these users (§13), without scanning every run."""
    by_user = store.runs_active_by_user
    return sum(len(by_user.get(user_id, ())) for user_id in user_ids)


def get_run(store: Store, run_id: str) -> Run | None:
    return runs(store).get(run_id)


def add_run(store: Store, run: Run) -> Run:
    runs(store)[run.id] = run
    store.run_index.add(run)
    if not run.terminal:
        activate(store, run)
    run.wake = store.run_waker or _waker(store)
    wake(store, run)
    return run


def remove_run(store: Store, run: Run) -> None:
    """Forget the run (`DELETE /v1/runs/{id}`): its record, its events and plan with it."""
    retention.forget(store, run)
    _unlink(store, run)


def _unlink(store: Store, run: Run) -> None:
    if runs(store).pop(run.id, None) is not None:
        store.run_index.remove(run)
    deactivate(store, run)
    if store.narrations:
        for key in [key for key in store.narrations if key[0] == run.id]:
            del store.narrations[key]


def _waker(store: Store) -> Any:
    """The one callable every run of the store reschedules itself with (`Run.held`)."""
    store.run_waker = partial(wake, store)
    return store.run_waker


def _schedule(store: Store) -> list[tuple[datetime, str, str]]:
    return store.schedule  # a heap of (next step time, course, run id)


def wake(store: Store, run: Run) -> None:
    """(Re)schedule the run at its next plan step. Entries are checked when they
    come due, so a stale one (the plan moved) is simply rescheduled then."""
    at = next_step_at(run)
    if at is not None:
        heapq.heappush(_schedule(store), (at, run.course or run.id, run.id))  # ties in the order runs were made


def stable_fraction(*parts: Any) -> float:
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def cents_up(usd: float) -> int:
    """Any non-zero cost rounds UP to at least 1¢ (§3.3)."""
    return math.ceil(round(usd * 100, 9)) if usd > 0 else 0


def incurred_usd(run: Run) -> float:
    return run.usd.get("driver", 0.0) + run.usd.get("model", 0.0) + run.usd.get("sandbox", 0.0)


def billed_usd(run: Run) -> float:
    """What the account is charged: the SUT's own spend is never billed here (§4.1)."""
    return run.usd.get("driver", 0.0) + run.usd.get("sandbox", 0.0) + run.usd.get("narration", 0.0)


# -- planning ----------------------------------------------------------------


def plan_run(run: Run, start: datetime, tasks: int, phases: list[str] | None = None) -> None:
    """Write the plan for a fresh run from `start`: a generator of its steps, built as they
    are reached (`plan.Plan`), from the run's values as they are now."""
    phases = phases or (REPLAY_PHASES if run.mode == "replay" else PHASES)
    frame = _PlanFrame(
        run.id, run.course or run.id, run.mode, run.sandbox_id, run.driver, run.request, run.model["identifier"],
        run.benchmark_name, run.limits, run.trials, run.aggregator, start, tasks, tuple(phases),
    )  # fmt: skip
    run.plan = Plan(_steps(frame))


@dataclass(slots=True)  # never changed once made; not `frozen`, whose __init__ costs each launch ~1 µs more
class _PlanFrame:
    """What a plan reads of its run, taken when the plan is written, and where it starts."""

    id: str
    course: str  # what its draws are made from (`Run.course`)
    mode: str
    sandbox_id: str
    driver: str
    request: str
    model: str
    benchmark_name: str
    limits: dict[str, dict[str, float]]
    trials: int
    aggregator: str | None
    start: datetime
    tasks: int
    phases: tuple[str, ...]

    def at(self, seconds: float) -> datetime:
        return self.start + timedelta(seconds=seconds)


def _steps(run: _PlanFrame) -> Iterator[Step]:
    """The plan's steps in order."""
    tasks = run.tasks  # `run.at` is looked up each time: a waiting plan holds no bound method
    yield Step(
        run.at(0),
        "RunLaunched",
        {"sandbox_id": run.sandbox_id, "template": "work", "agent": run.driver, "request": run.request},
    )
    yield Step(run.at(0.2), "PipelineStarted", {"model": run.model, "request": run.request})
    yield Step(run.at(0.4), "SandboxCreated", {"sandbox_id": run.sandbox_id, "role": "work", "metadata": {}})
    clock = 0.5
    for phase in run.phases:
        yield from _phase_steps(run, phase, run.at, clock, tasks)
        clock += PHASE_SECONDS + (tasks * TASK_SECONDS if phase == "materialize" else 0)
    yield Step(
        run.at(clock + 0.1),
        "SandboxKilled",
        {"sandbox_id": run.sandbox_id, "cost_usd": 0.0, "duration_ms": int(clock * 1000)},
    )
    yield Step(
        run.at(clock + 0.2),
        "PipelineFinished",
        {"benchmark_name": run.benchmark_name, "duration_ms": int(clock * 1000)},
    )


def _phase_steps(run: _PlanFrame, phase: str, at, offset: float, tasks: int) -> Iterator[Step]:
    yield Step(at(offset), "PhaseStarted", {"phase": phase, "invocation": 1})
    driver_in, driver_out = DRIVER_CALL_TOKENS
    yield Step(
        at(offset + 0.5),
        "LlmCallEvent",
        {
            "agent": "driver",
            "model": run.driver,
            "input_tokens": driver_in,
            "output_tokens": driver_out,
            "cost_usd": DRIVER_CALL_USD,
            "phase": phase,
        },
        cost={"driver": DRIVER_CALL_USD, "sandbox": SANDBOX_PHASE_USD},
        tokens={"driver_input": driver_in, "driver_output": driver_out},
    )
    yield Step(at(offset + 1.0), "PhaseOutput", {"phase": phase, "text": f"{phase} under way"})
    yield from _artifact_steps(run, phase, at, offset)
    duration = PHASE_SECONDS
    if phase == "materialize":
        yield from _task_steps(run, at, offset + 2.0, tasks)
        duration += tasks * TASK_SECONDS
    yield Step(at(offset + duration - 0.1), "PhaseCompleted", {"phase": phase, "duration_ms": int(duration * 1000)})


def _artifact_steps(run: _PlanFrame, phase: str, at, offset: float) -> list[Step]:
    if phase == "find":
        return [
            Step(
                at(offset + 1.5),
                "FetchArtifact",
                {
                    "url": "https://huggingface.co/datasets/cais/mmlu",
                    "size_bytes": 48213,
                    "name": "dataset.json",
                    "mime": "application/json",
                    "content": '{"rows": 1500}',
                },
            )
        ]
    if phase == "analyze":
        return [
            Step(
                at(offset + 1.5),
                "AnalyzeArtifact",
                {"name": "analysis.json", "mime": "application/json", "content": '{"columns": ["question", "answer"]}'},
            )
        ]
    if phase == "atomize":
        code = (
            "from bench_task import BenchTask\n\nclass Task(BenchTask):\n    def score(self, out, exp):\n"
            "        return float(out.strip() == exp.strip())\n"
        )
        return [
            Step(at(offset + 1.5), "PendingAtomizeCode", {"content": code, "invocation": 1}),
            Step(
                at(offset + 2.5),
                "AtomizeArtifact",
                {"name": "task_impl.py", "content": code, "mime": "text/x-python", "invocation": 1},
            ),
        ]
    if phase == "attach" or (phase == "materialize" and run.mode != "replay"):
        return [
            Step(
                at(offset + 1.5),
                "ModelProxyArtifact",
                {
                    "model": run.model,
                    "config_yaml": "model_list: []\n",
                    "proxy_url": "http://proxy.internal:4000",
                    "name": "litellm.yaml",
                    "mime": "text/yaml",
                },
            )
        ]
    if phase == "report":
        html = f"<html><body><h1>Report for {run.id}</h1><script>alert(1)</script></body></html>"
        return [Step(at(offset + 2.0), "ReportFile", {"name": "report.html", "content": html, "mime": "text/html"})]
    return []


def _task_steps(run: _PlanFrame, at, offset: float, tasks: int) -> Iterator[Step]:
    """Each task's trials. A `task` or `attempt` ceiling stops only that task (§4.2.1): the try that
    reaches it is recorded failed (`timeout`, cut at the ceiling), the task runs no further try, and the
    remaining tasks carry on. `attempt.duration` bounds one try, `task.duration` the task's tries together."""
    model_in, model_out = TASK_MODEL_TOKENS
    attempt_limit = run.limits.get("attempt", {}).get("duration")
    task_limit = run.limits.get("task", {}).get("duration")
    for index in range(tasks):
        trial_scores = []
        took_ms = int(TASK_SECONDS * 1000 * (0.6 + 0.4 * stable_fraction(run.course, index)))
        spent = 0.0
        for trial in range(run.trials):
            passed = stable_fraction(run.course, index, trial) < 0.8
            score = 1.0 if passed else 0.0
            error = None
            error_class = "ok"
            left = math.inf if task_limit is None else task_limit - spent
            bound = left if attempt_limit is None else min(attempt_limit, left)
            duration_ms = took_ms
            if took_ms / 1000 > bound:
                score, error, error_class = 0.0, "task exceeded its duration ceiling", "timeout"
                duration_ms = int(max(bound, 0.0) * 1000)
            spent += duration_ms / 1000
            trial_scores.append(score)
            yield Step(
                at(offset + index * TASK_SECONDS + trial * 0.1),
                "MaterializeTaskResult",
                {
                    "task_id": f"task_{index}",
                    "index": index,
                    "trial": trial,
                    "invocation": 1,
                    "score": score,
                    "duration_ms": duration_ms,
                    "output_preview": f"The answer is ({'ABCD'[index % 4]}).",
                    "error": error,
                    "error_class": error_class,
                },
                cost={"model": TASK_MODEL_USD},
                tokens={"input": model_in, "output": model_out},
            )
            if task_limit is not None and spent >= task_limit:
                break  # stopped by its task ceiling: never tried again
        if run.trials > 1:
            folded = _aggregate(run.aggregator or "any_pass", trial_scores)
            yield Step(
                at(offset + index * TASK_SECONDS + 0.5),
                "MaterializeTaskAggregated",
                {
                    "task_id": f"task_{index}",
                    "index": index,
                    "score": folded,
                    "aggregator": run.aggregator or "any_pass",
                    "trial_scores": trial_scores,
                },
            )


def _aggregate(name: str, scores: list[float]) -> float:
    if name == "all_pass":
        return 1.0 if all(s >= 1.0 for s in scores) else 0.0
    if name in ("mean", "weighted_mean"):
        return sum(scores) / len(scores)
    if name == "majority_on":
        return 1.0 if sum(1 for s in scores if s >= 1.0) * 2 > len(scores) else 0.0
    if name == "min_above":
        return min(scores)
    return 1.0 if any(s >= 1.0 for s in scores) else 0.0


# -- applying ------------------------------------------------------------------


def emit(store: Store, run: Run, type_: str, data: dict[str, Any], at: datetime | None = None) -> dict[str, Any]:
    event = {"seq": run.last_seq + 1, "type": type_, "created_at": at or store.clock.now(), "data": data}
    run.events.append(event)
    run.updated_at = max(run.updated_at, event["created_at"])
    return event


def advance_all(mock: Any) -> None:
    """Apply every plan step that has come due, across runs in the order their moments came: O(due steps),
    not O(runs). A run's steps apply up to the next other run's due step, then that run's, so what two runs
    post (their debits, in the ledger's order and running balance) reads the same however often requests
    arrived while they ran: one request after both steps, or one between them."""
    store = mock.store
    now = store.clock.now()
    heap = _schedule(store)
    while heap and heap[0][0] <= now:
        _, _, run_id = heapq.heappop(heap)
        run = runs(store).get(run_id)
        if run is None or run.terminal or run.held or not run.plan:
            continue
        bound = min(now, heap[0][0]) if heap else now
        if run.plan[0].at <= bound:
            advance(mock, run, bound)
        wake(store, run)


def advance(mock: Any, run: Run, now: datetime) -> None:
    store = mock.store
    while run.plan and not run.held and not run.terminal and run.plan[0].at <= now:
        step = run.plan.popleft()
        _apply(mock, run, step)
    if run.terminal:
        deactivate(store, run)


def next_step_at(run: Run) -> datetime | None:
    if run.terminal or run.held or not run.plan:
        return None
    return run.plan[0].at


def _apply(mock: Any, run: Run, step: Step) -> None:
    store = mock.store
    if step.type == "PipelineFinished":
        _finalize(mock, run, run.outcome, at=step.at, data=step.data)
        return
    emit(store, run, step.type, step.data, at=step.at)
    if step.type == "RunLaunched" and run.started_at is None:
        run.started_at = step.at
    if step.type == "PhaseStarted":
        run.current_phase = step.data["phase"]
        run.phase_calls = 0
        run.phase_started_at = step.at
    if step.type == "LlmCallEvent":
        run.phase_calls += 1
    if step.tokens:
        for key, value in step.tokens.items():
            run.tokens[key] = run.tokens.get(key, 0) + value
    if step.cost:
        for key, value in step.cost.items():
            run.usd[key] = run.usd.get(key, 0.0) + value
        if not _debit(mock, run, step.at):
            return
    if step.type == "PhaseCompleted":
        _phase_boundary(mock, run, step)


def _debit(mock: Any, run: Run, at: datetime) -> bool:
    """Debit what the run has newly spent; halt it the moment the balance
    drops under the launch floor (§3.9). False when the run was halted."""
    store = mock.store
    owed = cents_up(billed_usd(run)) - run.debited_cents
    if owed <= 0:
        return True
    owner = store.account_of(store.users[run.user_id])
    ledger.post(store, owner.id, "trace_debit", -owed, reference_id=run.id, reference_type="run")
    run.debited_cents += owed
    if ledger.balance_cents(store, owner.id) < ledger.LAUNCH_FLOOR_CENTS:
        stop(mock, run, "insufficient_balance", at=at, error="balance fell below the $1.00 launch floor")
        return False
    return True


def _phase_boundary(mock: Any, run: Run, step: Step) -> None:
    breach = _limit_breach(run, step)
    if breach is not None:
        kind, limit, observed = breach
        emit(mock.store, run, "LimitExceeded", {"kind": kind, "limit": limit, "observed": observed}, at=step.at)
        stop(mock, run, f"limit_exceeded:{kind}", at=step.at, error=f"{kind} ceiling of {limit} reached")
        return
    if run.pause_requested:
        run.pause_requested = False
        run.held = True
        emit(
            mock.store,
            run,
            "PhasePaused",
            {"phase": step.data["phase"], "reason": "operator_pause", "detail": run.halt_reason},
            at=step.at,
        )


def _limit_breach(run: Run, step: Step) -> tuple[str, float, float] | None:
    limits = run.limits
    elapsed = (step.at - (run.started_at or run.created_at)).total_seconds()
    checks = [
        ("run.cost", limits.get("run", {}).get("cost"), incurred_usd(run)),
        ("run.model_cost", limits.get("run", {}).get("model_cost"), run.usd.get("model", 0.0)),
        ("run.duration", limits.get("run", {}).get("duration"), elapsed),
        ("run.tokens", limits.get("run", {}).get("tokens"), run.tokens.get("input", 0) + run.tokens.get("output", 0)),
    ]
    phase = step.data["phase"]
    phase_limits = {**limits.get("phase", {}), **limits.get(f"phase:{phase}", {})}
    checks.append(("phase.calls", phase_limits.get("calls"), run.phase_calls))
    checks.append(("phase.duration", phase_limits.get("duration"), step.data["duration_ms"] / 1000))
    for kind, limit, observed in checks:
        if limit is not None and observed >= limit:
            return kind, limit, round(observed, 4)
    return None


def stop(mock: Any, run: Run, reason: str, *, at: datetime | None = None, error: str | None = None) -> None:
    """Halt and end the run now (kill, ceiling, balance): `status=error`."""
    store = mock.store
    at = at or store.clock.now()
    run.halted = True
    run.halt_reason = reason
    run.plan.clear()
    run.held = False
    emit(store, run, "SandboxKilled", {"sandbox_id": run.sandbox_id, "cost_usd": 0.0, "duration_ms": 0}, at=at)
    _finalize(mock, run, "error", at=at, data={"benchmark_name": run.benchmark_name, "error": error or reason})


def _finalize(
    mock: Any, run: Run, outcome: str, *, at: datetime, data: dict[str, Any], score: float | None = None
) -> None:
    store = mock.store
    run.plan.clear()
    duration_ms = int(((at - (run.started_at or run.created_at)).total_seconds()) * 1000)
    payload = {"benchmark_name": run.benchmark_name, "duration_ms": duration_ms, **data}
    if outcome == "error" and "error" not in payload:
        payload["error"] = run.error or "pipeline failed"
    payload["duration_ms"] = duration_ms
    _linger(store, run, at)
    emit(store, run, "PipelineFinished", payload, at=at)
    run.status = outcome
    run.finished_at = at
    run.current_phase = None if outcome == "ok" else run.current_phase
    if outcome == "error":
        run.error = payload.get("error")
        run.error_type = "halted" if run.halted else "pipeline_error"
    results = task_scores(run)
    run.score = score if score is not None else (round(sum(results) / len(results), 4) if results else None)
    _project(run)
    if outcome == "ok" and run.publish_on_complete:
        run.visibility = "public"
    deactivate(store, run)
    for old in retention.finished(store, run, mock.config.keep_finished_runs):
        _unlink(store, old)
    store.clock.notify()


def _linger(store: Store, run: Run, at: datetime) -> None:
    """§4.2.1 `metadata.proxy_linger_seconds`: the proxy sandbox is kept the granted seconds (already
    clamped to `[0, 86400]`) after the run finishes; `0` tears it down at once, so nothing lingers."""
    requested, granted = run.proxy_linger
    if granted <= 0:
        return
    emit(
        store,
        run,
        "ProxySandboxLinger",
        {
            "sandbox_id": run.sandbox_id,
            "requested_seconds": requested,
            "lingered": True,
            "detail": f"proxy kept {granted}s after the run",
            "granted_expires_at_ms": epoch_ms(at) + granted * 1000,
        },
        at=at,
    )


def _project(run: Run) -> None:
    """The catalog projection written at finalization (§4.1, §3.10)."""
    slug = "".join(ch if ch.isalnum() else "_" for ch in run.benchmark_name.lower()).strip("_") or "adhoc"
    benchmark_id = run.benchmark_id or f"bm_{slug}"
    indices_hash = hashlib.sha256(f"{benchmark_id}:{run.task_count}".encode()).hexdigest()[:12]
    code = next((e["data"]["content"] for e in run.events if e["type"] == "AtomizeArtifact"), run.id)
    code_hash = hashlib.sha256(code.encode()).hexdigest()[:12]
    run.benchmark_id = benchmark_id
    run.subset_id = run.subset_id or f"sub_{benchmark_id}:{indices_hash}"
    run.impl_id = run.impl_id or f"imp_{benchmark_id}:{code_hash}"
    if fingerprint_components(run):
        run.fingerprint_hash = fingerprint_of(run)


def task_scores(run: Run) -> list[float]:
    aggregated = [e["data"]["score"] for e in run.events if e["type"] == "MaterializeTaskAggregated"]
    if aggregated:
        return aggregated
    return [
        e["data"]["score"]
        for e in run.events
        if e["type"] == "MaterializeTaskResult" and e["data"].get("error_class") == "ok"
    ]


FINGERPRINT_TYPES = ("ModelProxyArtifact", "AtomizeArtifact")


def fingerprint_components(run: Run) -> list[dict[str, Any]]:
    """The hash chain over the run's artifact events (§6.4)."""
    chain = hashlib.sha256()
    out = []
    for event in run.events:
        if event["type"] not in FINGERPRINT_TYPES:
            continue
        data = {k: v for k, v in event["data"].items() if k in ("model", "config_yaml", "content", "name")}
        canonical = orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()
        chain.update(canonical.encode())
        out.append(
            {
                "type": event["type"],
                "seq": event["seq"],
                "data": data,
                "canonical": canonical,
                "cumulative_hash": chain.hexdigest(),
            }
        )
    return out


def fingerprint_of(run: Run) -> str | None:
    components = fingerprint_components(run)
    return components[-1]["cumulative_hash"][:12] if components else None


def finish_now(mock: Any, run: Run, status: str, score: float | None) -> None:
    """`POST /__mock/runs/{id}/finish`: emit what a real finish emits, at once."""
    if run.terminal:
        return
    now = mock.store.clock.now()
    pending = [s for s in run.plan if s.type not in ("PipelineFinished",)]
    run.plan.clear()
    run.held = False
    for step in pending:
        step.at = now
        _apply(mock, run, step)
        if run.terminal:
            return
    _finalize(mock, run, status, at=now, data={}, score=score)


def retime(run: Run, now: datetime) -> None:
    """Shift the remaining plan so its next step happens now (resume, review)."""
    if not run.plan:
        return
    delta = now - run.plan[0].at
    if delta.total_seconds() <= 0:
        return
    run.plan.shift(delta)
