"""Operators (§12a): create, boot, chat with, and release simulated operators.

An operator is an `Operator` row of `store.operators` owned by one user ("your
operators only"; anyone else's is `404`). Like runs, it moves only with the
simulated clock and is brought up to date lazily whenever it is read
(`_sync`):

- `booting` becomes `running` `BOOT_SECONDS` after a boot, with a `note` turn.
- A message (`POST …/message`) is a file in the operator's inbox. The bridge
  drains the inbox one message at a time, whenever the operator is free:
  `on_disk` → (`HANDOFF_SECONDS`) `handed_off_unread` → (`READ_SECONDS`)
  `read`, when the `you` turn appears → (`THINK_SECONDS`) an `operator` turn
  lands, `working` → (`REPLY_SECONDS`) the reply is complete and the message
  `answered`.
- A chat can die while its machine keeps running (`kill_chat`, the
  `POST /__mock/operators/{id}/kill-chat` control route): nothing moves until
  `start` revives it in place. A dead chat is what this mock means by "the pod
  never answered": a `wait` that elapses on one carries `wait_timed_out`.
- `shutdown` discards the machine: its inbox and its `~/chat-files/` go with
  it. The transcript is kept, so `start` boots a fresh machine under the same
  id and name.

The whole surface answers legacy `{"error": "…"}` bodies (§3.9); the engine
renders each `Problem` that way because the spec marks it `x-error-format:
legacy`.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta
from typing import Any

import orjson
from sse_starlette import EventSourceResponse, ServerSentEvent

from mock_server.benchwright.model import ledger
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.model.charts import bar_chart_png
from mock_server.benchwright.model.rows import InboxMessage, Operator, OperatorTurn
from mock_server.benchwright.resources import handler
from mock_server.benchwright.store import Store, User
from mock_server.engine import Ctx, Reply
from mock_server.policies.problems import Problem, invalid
from mock_server.state.ids import uuid4

BOOT_SECONDS = 5.0
HANDOFF_SECONDS = 1.0
READ_SECONDS = 1.0
THINK_SECONDS = 1.0
REPLY_SECONDS = 3.0
OPERATOR_LIMIT = 5  # operator records per account (the payer's wallet, §2.5); none is ever deleted
MESSAGE_MAX_BYTES = 64 * 1024
FILE_MAX_BYTES = 8 * 1024 * 1024
TURN_TEXT_MAX = 16 * 1024
PREVIEW_CHARS = 80
EPOCH_SINCE = 1_000_000_000
STREAM_RECHECK_SECONDS = 1.0
FROZEN_WAIT_REAL_SECONDS = 1.0
DEFAULT_MODEL = "gemini-2.5-pro"
NAMES = ("yara", "otto", "quinn", "ines", "tove", "arlo", "mina", "sol")
WITHDRAWABLE = ("on_disk", "handed_off_unread")
STATE_MEANINGS = {
    "on_disk": "still a file, the bridge has not taken it",
    "handed_off_unread": "the bridge has it, the operator has not seen it",
    "read": "the operator has it, no reply yet",
    "answered": "replied to",
}
MEDIA_TYPES = {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp", "gif": "image/gif"}
SINCE_SEMANTICS = "see cursor fields; page with resume_index or resume_t0"


def operators(store: Store) -> dict[str, Operator]:
    return store.operators


# -- the simulated operator ---------------------------------------------------------


def _epoch(moment: datetime) -> float:
    return moment.timestamp()


def _add_turn(op: Operator, role: str, text: str, at: datetime, *, working: bool = False) -> OperatorTurn:
    turn = OperatorTurn(
        role=role,
        text=text,
        t0=_epoch(at),
        t1=None if working else _epoch(at),
        working=working,
        index=len(op.turns),
    )
    op.turns.append(turn)
    return turn


def _head(op: Operator) -> InboxMessage | None:
    """The message the bridge is on: the oldest one not yet answered."""
    return next((m for m in op.inbox if m.state != "answered"), None)


def _due(op: Operator, message: InboxMessage) -> datetime:
    """An `on_disk` file is taken only once the operator is free."""
    if message.state == "on_disk":
        return max(message.due, op.ready_at)
    return message.due


def _progressing(op: Operator) -> bool:
    return op.status == "running" and op.chat_alive


def next_due(op: Operator) -> datetime | None:
    """When this operator next changes by itself, or None when it will not."""
    if op.status == "booting":
        return op.boot_at + timedelta(seconds=BOOT_SECONDS)
    head = _head(op)
    if head is None or not _progressing(op):
        return None
    return _due(op, head)


def _sync(store: Store, op: Operator, now: datetime | None = None) -> None:
    """Apply every step whose simulated time has come (by `now`), in order."""
    now = now or store.clock.now()
    if op.status == "booting" and now >= op.boot_at + timedelta(seconds=BOOT_SECONDS):
        up = op.boot_at + timedelta(seconds=BOOT_SECONDS)
        op.status = "running"
        op.ready_at = up
        _add_turn(op, "note", f"Operator {op.name} is up on a fresh machine.", up)
    while _progressing(op):
        head = _head(op)
        if head is None or _due(op, head) > now:
            return
        _step(store, op, head, _due(op, head))


def _step(store: Store, op: Operator, message: InboxMessage, at: datetime) -> None:
    if message.state == "on_disk":
        message.state = "handed_off_unread"
        message.due = at + timedelta(seconds=READ_SECONDS)
    elif message.state == "handed_off_unread":
        message.state = "read"
        _add_turn(op, "you", message.text, at)
        message.due = at + timedelta(seconds=THINK_SECONDS)
    elif message.reply is None:
        message.final = _reply_text(store, op, message.text)
        words = message.final.split(" ")
        message.reply = _add_turn(op, "operator", " ".join(words[: max(1, len(words) // 2)]), at, working=True).index
        message.due = at + timedelta(seconds=REPLY_SECONDS)
    else:
        turn = op.turns[message.reply]
        turn.text, turn.t1, turn.working = message.final, _epoch(at), False
        message.state = "answered"
        op.ready_at = at


def _scored_runs(store: Store, user_id: str) -> list[pipeline.Run]:
    finished = [r for r in pipeline.runs(store).values() if r.user_id == user_id and r.score is not None]
    return sorted(finished, key=lambda r: r.finished_at or r.created_at)


def _reply_text(store: Store, op: Operator, text: str) -> str:
    """What the simulated operator says: it knows the owner's runs and can chart their pass rates."""
    lowered = text.lower()
    scored = _scored_runs(store, op.user_id)
    if "chart" in lowered or "plot" in lowered:
        name = f"chart-{len(op.files) + 1}.png" if op.files else "chart.png"
        op.files[name] = bar_chart_png([1 + round(r.score * 10) for r in scored[-5:]] or [1])
        return f"Pass rate of your last {len(scored[-5:])} runs:\n\n![chart](/v1/operators/{op.id}/files/{name})"
    if "pass rate" in lowered or "score" in lowered:
        if not scored:
            return "You have no scored runs yet."
        run = scored[-1]
        return f"Run {run.id[:8]} ({run.benchmark_name}) finished {run.status}: pass rate {run.score:.2f}."
    return f"Done: {_preview(text)}"


def _preview(text: str) -> str:
    return " ".join(text.split())[:PREVIEW_CHARS]


def kill_chat(mock: Any, operator_id: str, death_log: str | None = None) -> dict[str, Any]:
    """The operator's chat process dies; its machine keeps running (`POST /__mock/operators/{id}/kill-chat`)."""
    store = mock.store
    op = operators(store).get(operator_id)
    if op is None:
        raise Problem(404, "not_found", f"No operator {operator_id}.")
    _sync(store, op)
    if op.status != "running":
        raise invalid(f"operator {op.name} is {op.status}; only a running operator's chat can die")
    op.chat_alive = False
    op.died_at = store.clock.now()
    op.death_log = death_log or "acp: chat process exited (signal 9)"
    store.clock.notify()
    return summary_json(op)


# -- representation ---------------------------------------------------------------------


def summary_json(op: Operator) -> dict[str, Any]:
    return {"id": op.id, "name": op.name, "status": op.status, "placement": op.placement, "mode": op.mode}


def _activity(op: Operator) -> str:
    if op.status != "running":
        return op.status
    if not op.chat_alive:
        return "unresponsive"
    head = _head(op)
    return "working" if head is not None and head.state == "read" else "idle"


def _turn_json(turn: OperatorTurn) -> dict[str, Any]:
    body = dataclasses.asdict(turn)
    if len(body["text"]) > TURN_TEXT_MAX:
        body["text"] = body["text"][:TURN_TEXT_MAX]
        body["truncated"] = True
    return body


def _pending_json(message: InboxMessage) -> dict[str, Any]:
    return {
        "ts": message.ts,
        "chars": len(message.text),
        "preview": _preview(message.text),
        "state": message.state,
        "withdrawable": message.state in WITHDRAWABLE,
    }


def _settled(op: Operator) -> bool:
    """Every message answered and no turn still being written (`wait_for=idle`)."""
    return _head(op) is None and not any(turn.working for turn in op.turns)


# -- access ------------------------------------------------------------------------------


def _owned(ctx: Ctx) -> Operator:
    """The caller's operator, brought up to date; `404` for unknown or not owned."""
    op = operators(ctx.store).get(ctx.path["id"])
    if op is None or op.user_id != ctx.user.id:
        raise Problem(404, "not_found", "Operator not found, or not yours.")
    _sync(ctx.store, op)
    return op


def _running(ctx: Ctx) -> Operator:
    op = _owned(ctx)
    if op.status != "running":
        raise Problem(409, "invalid_state", f"operator {op.name} is not running (status: {op.status})")
    return op


def _check_balance(store: Store, account: User) -> None:
    if ledger.balance_cents(store, account.id) <= 0:
        raise Problem(402, "insufficient_balance", "insufficient balance: top up to run an operator")


# -- lifecycle -------------------------------------------------------------------------------


def new_operator(
    store: Store, user: User, name: str, *, at: datetime | None = None, operator_id: str | None = None
) -> Operator:
    at = at or store.clock.now()
    setting = store.settings.get((store.account_of(user).id, "operator_model"))
    op = Operator(
        id=operator_id or uuid4(),
        user_id=user.id,
        name=name,
        status="booting",
        placement="pod",
        mode="chat",
        model=setting.value if setting and isinstance(setting.value, str) else DEFAULT_MODEL,
        created_at=at,
        boot_at=at,
        ready_at=at,
    )
    operators(store)[op.id] = op
    return op


def _boot(store: Store, op: Operator) -> None:
    op.status, op.boot_at, op.chat_alive, op.died_at, op.death_log = "booting", store.clock.now(), True, None, None
    store.clock.notify()


@handler("createOperator")
async def create_operator(ctx: Ctx) -> Reply:
    """§12a: `402` when the plan has no operators, at the limit, or with no balance; `409 name_taken`."""
    store = ctx.store
    user = ctx.user
    account = store.account_of(user)
    if account.tier == "free":
        raise Problem(402, "operators_not_in_plan", "your plan does not include operators; upgrade to entry or above")
    held = [op for op in operators(store).values() if store.account_of(store.users[op.user_id]).id == account.id]
    if len(held) >= OPERATOR_LIMIT:
        raise Problem(402, "operator_limit_reached", f"operator limit reached ({OPERATOR_LIMIT} per account)")
    _check_balance(store, account)
    mine = {op.name for op in operators(store).values() if op.user_id == user.id}
    name = (ctx.body or {}).get("name")
    if name is None:
        name = next((n for n in NAMES if n not in mine), f"operator-{len(mine) + 1}")
    elif name in mine:
        raise Problem(409, "name_taken", f"you already have an operator named {name}")
    op = new_operator(store, user, name)
    return Reply({"ok": True, "id": op.id, "status": "booting"})


@handler("listOperators")
async def list_operators(ctx: Ctx) -> Reply:
    """§12a: your operators only, oldest first."""
    mine = [op for op in operators(ctx.store).values() if op.user_id == ctx.user.id]
    for op in mine:
        _sync(ctx.store, op)
    mine.sort(key=lambda op: op.created_at)
    return Reply({"data": [summary_json(op) for op in mine]})


@handler("startOperator")
async def start_operator(ctx: Ctx) -> Reply:
    """§12a: boot a stopped operator; revive a running one whose chat died (safe on a healthy one)."""
    op = _owned(ctx)
    store = ctx.store
    _check_balance(store, store.account_of(ctx.user))
    if op.status == "stopped":
        _boot(store, op)
    if op.status == "booting":
        return Reply({"ok": True, "action": "boot", "status": "booting"})
    if op.chat_alive:
        return Reply(
            {"ok": True, "action": "revive", "detail": "chat is healthy; nothing to restore", "death_log": None}
        )
    now = store.clock.now()
    head = _head(op)
    if head is not None and head.state != "on_disk":
        head.due += now - op.died_at
    op.chat_alive, op.ready_at = True, max(op.ready_at, now)
    death_log, op.death_log, op.died_at = op.death_log, None, None
    store.clock.notify()
    return Reply(
        {
            "ok": True,
            "action": "revive",
            "detail": "chat restored in place; machine, working directory and session kept",
            "death_log": death_log,
        }
    )


@handler("shutdownOperator")
async def shutdown_operator(ctx: Ctx) -> Reply:
    """§12a: release the machine; the record stays and reads `stopped`."""
    op = _owned(ctx)
    store = ctx.store
    if op.status != "stopped":
        now = store.clock.now()
        for turn in op.turns:
            if turn.working:
                turn.working, turn.t1 = False, _epoch(now)
        op.status, op.inbox, op.files = "stopped", [], {}
        op.chat_alive, op.died_at, op.death_log = False, None, None
        _add_turn(op, "note", "Machine released; the operator is stopped.", now)
        store.clock.notify()
    return Reply({"ok": True})


# -- chat ------------------------------------------------------------------------------------


def _queue(op: Operator, text: str, at: datetime) -> InboxMessage:
    """A file in the inbox; its `ts` (epoch ms, unique per operator) is the withdrawal handle."""
    ts = max([int(_epoch(at) * 1000), *(m.ts + 1 for m in op.inbox[-1:])])
    due = at + timedelta(seconds=HANDOFF_SECONDS)
    op.inbox.append(InboxMessage(ts=ts, text=text, sent_at=at, state="on_disk", due=due))
    return op.inbox[-1]


@handler("sendOperatorMessage")
async def send_operator_message(ctx: Ctx) -> Reply:
    """§12a: queue one message in the operator's inbox; `202`, with no handle."""
    text = ctx.body["text"]
    if len(text.encode()) > MESSAGE_MAX_BYTES:
        raise invalid("text: at most 64 KiB", field="body.text")
    op = _running(ctx)
    store = ctx.store
    _queue(op, text, store.clock.now())
    store.clock.notify()
    return Reply({"ok": True}, status=202)


def _parse_since(raw: str | None) -> tuple[str, float | int | None]:
    """§12a: none = tail; bare int < 1e9, `i:N` or `index:N` = index; float or int ≥ 1e9 = epoch."""
    if raw is None:
        return "tail", None
    text = raw.strip()
    for prefix in ("i:", "index:"):
        if text.startswith(prefix):
            if text[len(prefix) :].isdigit():
                return "index", int(text[len(prefix) :])
            raise invalid(f"since: {raw!r} is not a turn index", field="since")
    if text.isdigit():
        number = int(text)
        return ("index", number) if number < EPOCH_SINCE else ("epoch", float(number))
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        raise invalid(f"since: {raw!r} is neither a turn index (i:N) nor epoch seconds", field="since")
    return "epoch", seconds


def _anchor(op: Operator, mode: str, value: float | int | None) -> int:
    """The first turn index past the cursor."""
    turns = op.turns
    if mode == "index":
        return int(value)  # type: ignore[arg-type]
    if mode == "epoch":
        return next((t.index for t in turns if t.t0 > value), len(turns))
    return len(turns)


def _page(
    op: Operator,
    chosen: list[OperatorTurn],
    *,
    more: bool,
    next_index: int,
    resume: str,
    limit: int,
    since: str | None,
    mode: str,
) -> dict[str, Any]:
    last_t0 = chosen[-1].t0 if chosen else (op.turns[-1].t0 if op.turns and mode == "tail" else None)
    return {
        "state": _activity(op),
        "model": op.model,
        "turns": [_turn_json(t) for t in chosen],
        "pending": [_pending_json(m) for m in op.inbox if m.state in WITHDRAWABLE],
        "total_turns": len(op.turns),
        "limit": limit,
        "since": since,
        "since_mode": mode,
        "cursor": {
            "next_index": next_index,
            "next_since_t0": last_t0,
            "has_more": more,
            "resume_index": resume,
            "resume_t0": last_t0,
        },
        "since_semantics": SINCE_SEMANTICS,
    }


def _after(op: Operator, mode: str, value: float | int | None, anchor: int) -> list[OperatorTurn]:
    if mode == "epoch":
        return [t for t in op.turns if t.t0 > value]
    return op.turns[anchor:]


async def _hold(ctx: Ctx, op: Operator, ready: Callable[[], bool], wait: float) -> float | None:
    """Hold until `ready()`, or until the window closes; None when ready, else the seconds served.

    `wait` bounds both clocks: simulated time (so `/__mock/clock` can end a
    wait) and real time (the reference's "hard upper bound on the whole
    request"). With the clock frozen (`scale=0`: tests, contract runs) no
    simulated deadline ever arrives by itself, so the real hold is capped at
    `FROZEN_WAIT_REAL_SECONDS`; ending early is always safe for a client,
    which reissues an empty page at once (§12a)."""
    store = ctx.store
    clock = store.clock
    real_window = wait if clock.scale else min(wait, FROZEN_WAIT_REAL_SECONDS)
    sim0, real0 = clock.now(), time.monotonic()
    while True:
        _sync(store, op)
        if ready() or op.status != "running":
            return None
        sim_spent = (clock.now() - sim0).total_seconds()
        real_spent = time.monotonic() - real0
        if sim_spent >= wait or real_spent >= real_window:
            return min(wait, max(sim_spent, real_spent))
        bound = min(real_window - real_spent, clock.real_seconds_until(wait - sim_spent))
        due = next_due(op)
        if due is not None:
            bound = min(bound, clock.real_seconds_until(max(0.0, (due - clock.now()).total_seconds())))
        await clock.wait_for_change(bound)


@handler("getOperatorMessages")
async def get_operator_messages(ctx: Ctx) -> Reply:
    """§12a: a conversation slice by `since`/`limit`; `wait` holds until the conversation
    moves past the cursor (`wait_for=idle`: until the reply is complete)."""
    op = _running(ctx)
    since = ctx.query.get("since")
    mode, value = _parse_since(since)
    limit, wait, wait_for = ctx.query["limit"], ctx.query.get("wait") or 0, ctx.query.get("wait_for") or "turn"
    anchor = _anchor(op, mode, value)
    served = None
    if wait > 0:

        def ready() -> bool:
            return bool(_after(op, mode, value, anchor)) and (wait_for == "turn" or _settled(op))

        served = await _hold(ctx, op, ready, wait)
    if served is not None:
        chosen, more = [], False  # the window elapsed: an empty page, the cursor unmoved
    elif mode == "tail" and wait <= 0:
        chosen, more = op.turns[-limit:], False
    else:
        matching = _after(op, mode, value, anchor)
        chosen, more = matching[:limit], len(matching) > limit
    next_index = chosen[-1].index + 1 if chosen else anchor
    body = _page(
        op,
        chosen,
        more=more and mode != "tail",
        next_index=next_index,
        resume=f"i:{next_index}" if chosen or since is None else since,
        limit=limit,
        since=since,
        mode=mode,
    )
    if served is not None and not op.chat_alive:
        body.update(wait_timed_out=True, wait_effective_sec=round(served, 3))
    return Reply(body)


def _sse(event: str, cursor: int, data: dict[str, Any]) -> ServerSentEvent:
    return ServerSentEvent(orjson.dumps(data).decode(), event=event, id=f"i:{cursor}")


async def _stream(
    ctx: Ctx, op: Operator, since: str | None, wait_for: str, drop_after: int | None
) -> AsyncIterator[ServerSentEvent]:
    """`ready`, then `turns` whenever the conversation moves past the cursor.

    With `wait_for=turn` a turn still being written is sent as it lands and
    again once complete (the cursor stays on it meanwhile); with `idle` only a
    settled conversation is sent. `bye` when the operator stops running."""
    store = ctx.store
    mode, value = _parse_since(since)
    cursor, limit = _anchor(op, mode, value), ctx.query["limit"]
    ping = ctx.api.config.operator_ping_seconds
    yield _sse(
        "ready",
        cursor,
        {"cursor": {"resume_index": f"i:{cursor}"}, "wait_for": wait_for, "heartbeat_sec": max(1, math.ceil(ping))},
    )
    sent_forms: dict[int, tuple[bool, str]] = {}
    sent = 0
    while True:
        _sync(store, op)
        if op.status != "running":
            yield _sse("bye", cursor, {"reason": f"operator is {op.status}; reconnect once it is running"})
            return
        fresh = op.turns[cursor:]
        if wait_for == "idle":
            batch = fresh[:limit] if fresh and _settled(op) else []
        else:
            batch = [t for t in fresh if sent_forms.get(t.index) != (t.working, t.text)][:limit]
        if batch:
            for turn in batch:
                sent_forms[turn.index] = (turn.working, turn.text)
            writing = [t.index for t in op.turns[cursor : batch[-1].index + 1] if t.working]
            cursor = writing[0] if writing else batch[-1].index + 1
            more = len(op.turns) > batch[-1].index + 1
            body = _page(
                op, batch, more=more, next_index=cursor, resume=f"i:{cursor}", limit=limit, since=since, mode=mode
            )
            yield _sse("turns", cursor, body)
            sent += 1
            if drop_after is not None and sent >= drop_after:
                yield _sse("error", cursor, {"error": "upstream connection to the operator lost"})
                return
            continue
        due = next_due(op)
        bound = STREAM_RECHECK_SECONDS
        if due is not None:
            bound = min(bound, store.clock.real_seconds_until(max(0.0, (due - store.clock.now()).total_seconds())))
        await store.clock.wait_for_change(bound)


@handler("streamOperatorEvents")
async def stream_operator_events(ctx: Ctx) -> EventSourceResponse:
    """§12a: the conversation as SSE; `Last-Event-ID` (an `i:N` id) wins over `since` on reconnect."""
    op = _running(ctx)
    since = ctx.query.get("Last-Event-ID") or ctx.query.get("since")
    _parse_since(since)  # a bad cursor is a 400 before the stream opens
    return EventSourceResponse(
        _stream(ctx, op, since, ctx.query.get("wait_for") or "turn", ctx.api.faults.stream_drop_after(ctx.op)),
        headers={"Cache-Control": "no-cache"},
        ping=ctx.api.config.operator_ping_seconds,
        ping_message_factory=lambda: ServerSentEvent(comment="ping"),
        sep="\n",
    )


@handler("stopOperatorTurn")
async def stop_operator_turn(ctx: Ctx) -> Reply:
    """§12a: interrupt the current turn, leaving the operator running; on a dead chat
    this force-clears a stuck `working` turn (`forced_clear`)."""
    op = _running(ctx)
    store = ctx.store
    now = store.clock.now()
    stuck = [turn for turn in op.turns if turn.working]
    forced = bool(stuck) and not op.chat_alive
    for turn in stuck:
        turn.working, turn.t1 = False, _epoch(now)
    head = _head(op)
    current = head is not None and head.state == "read"
    if current:
        head.state = "answered"
        op.ready_at = now
    if current or stuck:
        _add_turn(op, "note", "Turn stopped.", now)
        store.clock.notify()
    return Reply({"ok": True, "cancelled": current or bool(stuck), "forced_clear": forced})


# -- files -----------------------------------------------------------------------------------


@handler("getOperatorFile")
async def get_operator_file(ctx: Ctx) -> Reply:
    """§12a: an image from the operator's `~/chat-files/`, only while it runs, up to 8 MB."""
    op = _running(ctx)
    name = ctx.path["name"]
    data = op.files.get(name)
    if data is None or len(data) > FILE_MAX_BYTES:
        raise Problem(404, "not_found", f"no image {name} on operator {op.name}")
    return Reply(raw=data, media_type=MEDIA_TYPES[name.rsplit(".", 1)[1].lower()])


# -- pending ---------------------------------------------------------------------------------


@handler("listOperatorPending")
async def list_operator_pending(ctx: Ctx) -> Reply:
    """§12a: every message not yet answered, with the stage it reached; `answered` is counted, not listed."""
    op = _running(ctx)
    outstanding = [_pending_json(m) for m in op.inbox if m.state != "answered"]
    states = dict.fromkeys(STATE_MEANINGS, 0)
    for message in op.inbox:
        states[message.state] += 1
    return Reply(
        {
            "pending": outstanding,
            "count": len(outstanding),
            "outstanding": len(outstanding),
            "states": states,
            "state_meanings": STATE_MEANINGS,
        }
    )


@handler("withdrawOperatorPending")
async def withdraw_operator_pending(ctx: Ctx) -> Reply:
    """§12a: take back one withdrawable message by `ts`; `409` naming a later state; `404` once gone."""
    op = _owned(ctx)
    ts = ctx.query["ts"]
    message = next((m for m in op.inbox if m.ts == ts), None)
    if message is None:
        raise Problem(404, "pending_not_found", f"no outstanding message {ts}: already gone, or never queued")
    if message.state not in WITHDRAWABLE:
        raise Problem(
            409,
            "invalid_state",
            f"message already {message.state} by the operator (state: {message.state}); it can no longer be withdrawn",
            state=message.state,
        )
    op.inbox.remove(message)
    ctx.store.clock.notify()
    return Reply({"ok": True, "id": str(message.ts)})


@handler("clearOperatorPending")
async def clear_operator_pending(ctx: Ctx) -> Reply:
    """§12a: drop every message still `on_disk`."""
    op = _owned(ctx)
    dropped = [m for m in op.inbox if m.state == "on_disk"]
    op.inbox = [m for m in op.inbox if m.state != "on_disk"]
    if dropped:
        ctx.store.clock.notify()
    return Reply({"ok": True, "deleted": len(dropped), "ids": [str(m.ts) for m in dropped]})


# -- fixtures ---------------------------------------------------------------------------------

SEED_IDS = {
    "running": "3f6b2d9e-8a41-4c7e-b052-1d9e7a6c4f08",
    "wedged": "4a7c3e0f-9b52-4d8f-a163-2e0f8b7d5a19",
    "stopped": "5b8d4f1a-0c63-4e9a-b274-3f1a9c8e6b2a",
    "other": "6c9e5a2b-1d74-4fab-8385-4a2b0d9f7c3b",
}


def seed_operators(store: Store, owner_id: str, other_id: str) -> None:
    """A running operator that shared a chart, one whose chat died mid-reply, a
    stopped one (all the owner's), and another user's. Idempotent."""

    if SEED_IDS["running"] in operators(store):
        return
    now = store.clock.now()
    owner = store.users[owner_id]

    def seeded(key: str, user: User, name: str, minutes_ago: float) -> Operator:
        at = now - timedelta(minutes=minutes_ago)
        op = new_operator(store, user, name, at=at, operator_id=SEED_IDS[key])
        _sync(store, op)
        return op

    def converse(op: Operator, text: str, minutes_ago: float) -> None:
        at = now - timedelta(minutes=minutes_ago)
        _queue(op, text, at)
        _sync(store, op, at + timedelta(seconds=60))

    yara = seeded("running", owner, "yara", 90)
    converse(yara, "Plot the pass rate of my last five runs as a chart.", 60)
    converse(yara, "Thanks, that is what I needed.", 50)

    quinn = seeded("wedged", owner, "quinn", 80)
    converse(quinn, "Summarize the failures in my last GSM8K run.", 40)
    asked = now - timedelta(minutes=30)
    died = asked + timedelta(seconds=HANDOFF_SECONDS + READ_SECONDS + THINK_SECONDS + 1)
    _queue(quinn, "Then draft a fork description that fixes them.", asked)
    _sync(store, quinn, died)  # read, and a reply half written
    quinn.chat_alive, quinn.died_at = False, died
    quinn.death_log = "acp: chat process killed (OOM, exit 137) mid-reply"

    otto = seeded("stopped", owner, "otto", 70)
    otto.status = "stopped"
    _add_turn(otto, "note", "Machine released; the operator is stopped.", now - timedelta(minutes=65))
    otto.chat_alive = False

    seeded("other", store.users[other_id], "zed", 20)
