"""Events and streaming (§5): polling (`GET …/events`) and SSE (`…/events:stream`).

Both modes read the same event log (`Run.events`, written by `model/lifecycle.py`) and
pass every event's `data` through one function, `public_data`, which drops
secret-named fields: "the events API drops secret-named fields from any older
event that still has one" (§15 note on `ModelProxyCredentials`).

The stream is an `sse_starlette.EventSourceResponse` rather than a plain
`StreamingResponse`, because it is the simpler *correct* one here: it keeps
listening for the client's disconnect whatever ASGI spec version the server
speaks (Starlette's `StreamingResponse` stops listening on 2.4 servers, so an
idle stream would outlive its client until its next write), its own task sends
the `event: ping` keep-alive (§5.2) on a timer independent of our waits, and it
answers `HEAD` without opening a stream. On disconnect it cancels the
generator, so a gone client costs nothing afterwards.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import AsyncIterator
from itertools import pairwise
from typing import Any

import orjson
from sse_starlette import EventSourceResponse, ServerSentEvent

from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.model.lifecycle import Run
from mock_server.benchwright.model.runs import readable_run
from mock_server.benchwright.resources import handler
from mock_server.engine import Ctx, Reply
from mock_server.policies.pagination import decode_cursor, encode_cursor
from mock_server.policies.problems import invalid
from mock_server.policies.text import comma_items
from mock_server.state.clock import rfc3339

# -- natural-key ids (§3.1) ------------------------------------------------------


def natural_id(*parts: Any) -> str:
    """base64url of `part:part:…`, unpadded (§3.1: event, artifact, task ids)."""
    return base64.urlsafe_b64encode(":".join(str(p) for p in parts).encode()).decode().rstrip("=")


def decode_natural_id(token: str, arity: int) -> list[str] | None:
    """The `arity` parts of a natural-key id, or None when it is not one.
    The run id (a UUID, no colons) is the first part, the integers follow."""
    try:
        text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    parts = text.split(":")
    if len(parts) != arity or not all(re.fullmatch(r"-?\d+", p) for p in parts[1:]):
        return None
    return parts


def event_id(run_id: str, seq: int) -> str:
    return natural_id(run_id, seq)


# -- secret-named fields (§15 note) ---------------------------------------------

_SECRET_WORDS = {"password", "passwd", "passphrase", "secret", "credential", "credentials", "apikey", "authorization"}
_SECRET_PAIRS = {("api", "key"), ("private", "key"), ("access", "key"), ("secret", "key")}
_NOT_A_VALUE = {"id", "ids", "name", "names", "count", "url"}  # `secret_id` names a secret, it is not one


def _words(key: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def secret_named(key: str) -> bool:
    """True when a field's name says its value is a password, secret, API key,
    credential or bearer token (`ui_password`, `client_secret`, `openai_api_key`,
    `access_token`), not when it merely counts or names one (`input_tokens`,
    `secret_id`)."""
    words = _words(key)
    if not words or words[-1] in _NOT_A_VALUE:
        return False
    if words[-1] == "token" or _SECRET_WORDS.intersection(words):
        return True
    return any(pair in _SECRET_PAIRS for pair in pairwise(words))


def public_data(value: Any) -> Any:
    """An event's data with secret-named fields dropped, at any depth."""
    if isinstance(value, dict):
        return {k: public_data(v) for k, v in value.items() if not (isinstance(k, str) and secret_named(k))}
    if isinstance(value, list):
        return [public_data(v) for v in value]
    return value


# -- polling (§5.1) --------------------------------------------------------------


def event_row(run: Run, event: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": event_id(run.id, event["seq"]),
        "seq": event["seq"],
        "type": event["type"],
        "created_at": rfc3339(event["created_at"]),
        "data": public_data(event["data"]),
    }


def _type_filter(ctx: Ctx):
    """`types` keeps, `exclude_types` drops; they write the same filter, so
    when both are sent `exclude_types` wins and `types` is discarded (§5.1)."""

    def names(raw: str) -> set[str]:
        return set(comma_items(raw))

    if ctx.query.get("exclude_types") is not None:
        excluded = names(ctx.query["exclude_types"])
        return lambda event: event["type"] not in excluded
    if ctx.query.get("types") is not None:
        kept = names(ctx.query["types"])
        return lambda event: event["type"] in kept
    return lambda event: True


@handler("listRunEvents")
async def list_run_events(ctx: Ctx) -> Reply:
    """§5.1. The cursor is the last seq served (seq is monotonic, §5.3), tagged
    with the order so a desc cursor is refused by an asc list. `has_more` means
    only "this page came back full", never "the run has more to say"."""
    run = readable_run(ctx.store, ctx.user, ctx.path["id"])
    descending = ctx.query.get("order") == "desc"
    after, before = ctx.query.get("after_seq"), ctx.query.get("before_seq")
    keep = _type_filter(ctx)
    kind = "events:desc" if descending else "events:asc"
    cursor = decode_cursor(kind, ctx.query["page_token"]) if ctx.query.get("page_token") else None
    if cursor is not None and not isinstance(cursor, int):
        raise invalid("query parameter 'page_token': not a page token of this list", field="page_token")
    rows = [
        e
        for e in run.events
        if (after is None or e["seq"] > after)
        and (before is None or e["seq"] < before)
        and (cursor is None or (e["seq"] < cursor if descending else e["seq"] > cursor))
        and keep(e)
    ]
    if descending:
        rows.reverse()
    limit = ctx.query["limit"]
    chunk = rows[:limit]
    pagination: dict[str, Any] = {"has_more": len(chunk) == limit}
    if pagination["has_more"]:
        pagination["next_page_token"] = encode_cursor(kind, chunk[-1]["seq"])
    return Reply({"data": [event_row(run, e) for e in chunk], "pagination": pagination})


# -- streaming (§5.2) ------------------------------------------------------------


def resume_after(ctx: Ctx) -> int:
    """The seq to resume strictly after: `Last-Event-ID`, else `?last_event_id=`.
    It is read as a number; anything else (a polling `id`, §5.3) replays from
    the start rather than erroring."""
    raw = ctx.query.get("Last-Event-ID")
    if raw is None:
        raw = ctx.query.get("last_event_id")
    try:
        return int((raw or "").strip())
    except ValueError:
        return -1


def sse_event(event: dict[str, Any]) -> ServerSentEvent:
    """`id:` the bare seq, `event:` the type, `data:` the data with the type
    folded in, so a consumer that only parses `data` still knows it (§5.2)."""
    data = {"type": event["type"]} | {k: v for k, v in public_data(event["data"]).items() if k != "type"}
    return ServerSentEvent(orjson.dumps(data).decode(), id=str(event["seq"]), event=event["type"])


def finished_event(run: Run) -> ServerSentEvent:
    data = {"type": "run.finished", "status": run.status, "run_id": run.id}
    return ServerSentEvent(orjson.dumps(data).decode(), event="run.finished")


def _idle_timeout(ctx: Ctx, run: Run) -> float:
    """Real seconds to sleep: until the next ping or the run's next plan step,
    whichever comes first (any clock move or state change wakes us earlier).
    With `clock_scale > 0` a step falls due without anyone calling `notify()`,
    so the step time must bound the sleep."""
    ping = ctx.api.config.sse_ping_seconds or math.inf
    step_at = pipeline.next_step_at(run)
    if step_at is None:
        return ping
    clock = ctx.store.clock
    return min(ping, clock.real_seconds_until(max(0.0, (step_at - clock.now()).total_seconds())))


async def _stream(ctx: Ctx, run: Run, after: int, drop_after: int | None) -> AsyncIterator[ServerSentEvent]:
    """Sync, send what is new, and only then sleep: no await separates the
    last look at the run from the wait, so no clock move is missed."""
    sent = 0
    while True:
        ctx.api.sync()
        fresh = [e for e in run.events if e["seq"] > after]
        if fresh:
            for event in fresh:
                if drop_after is not None and sent >= drop_after:
                    return  # the injected fault: the connection ends without `run.finished`
                yield sse_event(event)
                after = event["seq"]
                sent += 1
            continue
        if run.terminal:
            yield finished_event(run)
            return
        await ctx.store.clock.wait_for_change(_idle_timeout(ctx, run))


@handler("streamRunEvents")
async def stream_run_events(ctx: Ctx) -> EventSourceResponse:
    """§5.2: backfill after the resume point, then live events, then a final
    `run.finished` once the run is terminal (at once on a finished run)."""
    run = readable_run(ctx.store, ctx.user, ctx.path["id"])
    ping = ctx.api.config.sse_ping_seconds
    return EventSourceResponse(
        _stream(ctx, run, resume_after(ctx), ctx.api.faults.stream_drop_after(ctx.op)),
        headers={"Cache-Control": "no-cache"},
        ping=ping,
        ping_message_factory=lambda: ServerSentEvent(event="ping"),
        sep="\n",
    )
