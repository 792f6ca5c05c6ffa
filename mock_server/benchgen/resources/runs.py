"""API reference 3 — Launch a run; 4 — Follow it and read the results.

`model_token` (an external endpoint's key) reaches the domain only to be fingerprinted
for its run (B-31); no view here reads it, and the journal never holds bodies.
"""

from __future__ import annotations

from typing import Any

from mock_server.engine import Ctx, Reply

from ..model.rows import ModelSource, Submission
from ..model.state import RunRequest, RunView
from .common import caller, domain, drf_page, handlers, path_id


def run_path(sub: Submission) -> str:
    """The run's page in the web app (B-36), relative to its origin."""
    return f"/competitions/{sub.competition_id}/runs/{sub.id}"


def status_view(view: RunView) -> dict[str, Any]:
    sub = view.submission
    return {
        "submission_id": sub.id,
        "competition_id": sub.competition_id,
        "done": view.done,
        "status": view.state.value,
        "score": sub.score if view.done else None,
        "error": sub.error if view.done else None,
        "run_path": run_path(sub),
        "check_again_seconds": view.check_again_seconds,
    }


def run_request(body: dict[str, Any]) -> RunRequest:
    """The body, already validated against `QueueRunRequest` (one model source), as a domain request."""
    return RunRequest(
        competition_id=body["competition_id"],
        source=ModelSource(body.get("model_source", ModelSource.PLATFORM.value)),
        model_id=body.get("model_id"),
        model=body.get("model"),
        model_name=body.get("model_name"),
        model_token=body.get("model_token"),
    )


@handlers("queueBenchmarkRun")
async def queue_benchmark_run(ctx: Ctx) -> Reply:
    """201 with submission_id (B-26); 402 without the credits (B-27); only an approved participant (B-49)."""
    principal = caller(ctx)
    with domain():
        sub = ctx.store.queue_run(principal.user_id, run_request(ctx.body), ctx.clock.now())
    body = {
        "submission_id": sub.id,
        "competition_id": sub.competition_id,
        "status": sub.state.value,
        "credits_charged": sub.credits_charged,
        "credits_remaining": ctx.store.users[principal.user_id].credits,
        "run_path": run_path(sub),
    }
    return Reply(body, status=201)


@handlers("getRunStatus")
async def get_run_status(ctx: Ctx) -> dict[str, Any]:
    """done/score/error/run_path/check_again_seconds (B-33…B-38); an early poll is 429 throttled."""
    principal = caller(ctx)
    with domain():
        sub = ctx.store.submission_for(principal.user_id, path_id(ctx, "submission_id"))
        view = ctx.store.poll(principal.token_id, sub, ctx.clock.now())
    return status_view(view)


@handlers("getItemResults")
async def get_item_results(ctx: Ctx) -> dict[str, Any]:
    """Each question's expected answer, the model's answer and whether it was right (B-39…B-41)."""
    with domain():
        sub = ctx.store.submission_for(caller(ctx).user_id, path_id(ctx, "submission_id"))
        items = ctx.store.item_results(sub, ctx.clock.now())
    chunk, envelope = drf_page(ctx, items)
    results = [
        {
            "index": i.index,
            "question": i.question,
            "expected_answer": i.expected_answer,
            "model_answer": i.model_answer,
            "correct": i.correct,
        }
        for i in chunk
    ]
    return {**envelope, "results": results}
