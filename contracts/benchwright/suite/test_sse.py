"""§5.2–§5.3 the run event stream, read incrementally with a bounded budget (never
by waiting for an endless body): `id:` is the bare seq, `event:` the type folded
into `data`; a resume starts strictly after `Last-Event-ID` (or `?last_event_id=`);
ids are unique and in order; a terminal run's stream ends with `run.finished`.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass

import httpx
import pytest
from httpx_sse import connect_sse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.benchwright.suite._support import advance, expect, finished_run, launch_run
from contracts.benchwright.suite.conftest import OPERATIONS
from contracts.runner.http import curl
from contracts.runner.profiles import PROFILE

OP = "GET /v1/runs/{id}/events:stream"
MAX_EVENTS = 5000
MAX_SECONDS = 20.0
QUICK_PING_SECONDS = 5.0  # a longer keep-alive interval is waited out in the full profile only


@dataclass
class Read:
    events: list[tuple[str, str, dict]]  # (id, event, data), pings left out
    finished: bool  # run.finished arrived
    curl: str  # how to reproduce this read


def read_stream(
    target, run_id: str, *, last_event_id: str | None = None, query: bool = False, idle: float = 5.0
) -> Read:
    """One connection's worth of the stream.

    Stops after MAX_EVENTS, MAX_SECONDS, or `idle` seconds without a byte (a live
    run with nothing to say): the caller then reconnects, as a client would."""
    headers = {"Authorization": f"Bearer {target.credential}", "Accept": "text/event-stream"}
    params = {}
    if last_event_id is not None:
        if query:
            params["last_event_id"] = last_event_id
        else:
            headers["Last-Event-ID"] = last_event_id
    events: list[tuple[str, str, dict]] = []
    finished = False
    deadline = time.monotonic() + MAX_SECONDS
    with (
        httpx.Client(base_url=target.base_url, timeout=httpx.Timeout(MAX_SECONDS, read=idle)) as http,
        connect_sse(http, "GET", f"/v1/runs/{run_id}/events:stream", headers=headers, params=params) as source,
    ):
        expect(
            source.response.status_code == 200,
            "sse.shape",
            OP,
            f"the stream answered {source.response.status_code}",
            source.response,
        )
        expect(
            source.response.headers.get("cache-control") == "no-cache",
            "sse.shape",
            OP,
            "the stream is not Cache-Control: no-cache",
            source.response,
        )
        try:
            for sse in source.iter_sse():
                if sse.event == "ping":
                    continue
                data = json.loads(sse.data) if sse.data else {}
                if sse.event == "run.finished":
                    finished = True
                    continue
                events.append((sse.id, sse.event, data))
                if len(events) >= MAX_EVENTS or time.monotonic() > deadline:
                    break
        except httpx.ReadTimeout:
            pass
        reproduce = curl(source.response.request).replace("curl -sS", "curl -sSN", 1)
    return Read(events, finished, reproduce)


def _check_shape(read: Read) -> None:
    seqs = []
    for event_id, event, data in read.events:
        expect(event_id.isdigit(), "sse.shape", OP, f"SSE id {event_id!r} is not a bare seq", reproduce=read.curl)
        expect(
            data.get("type") == event,
            "sse.shape",
            OP,
            f"event {event!r} carries data.type {data.get('type')!r}",
            reproduce=read.curl,
        )
        seqs.append(int(event_id))
    expect(
        seqs == sorted(seqs) and len(seqs) == len(set(seqs)),
        "sse.dedupe",
        OP,
        "event ids repeat or go backwards within one stream",
        reproduce=read.curl,
    )


@pytest.fixture(scope="module")
def finished(client, target):
    run_id = finished_run(client, target)
    if run_id is None:
        pytest.skip("no finished run to stream")
    return run_id


def test_finished_run_backfills_then_run_finished(target, finished):
    """§5.2#2: each event's `id:` is its bare seq and `event:` its type, folded into `data`;
    §5.2#3: a finished run's stream backfills, then ends with `run.finished`."""
    read = read_stream(target, finished)
    _check_shape(read)
    expect(
        read.finished,
        "sse.finish",
        OP,
        "the stream of a finished run did not end with run.finished",
        reproduce=read.curl,
    )
    expect(bool(read.events), "sse.finish", OP, "no backfill before run.finished", reproduce=read.curl)


def test_resume_is_strictly_after_last_event_id(target, finished):
    everything = read_stream(target, finished).events
    last = int(everything[-1][0])

    @settings(max_examples=5, suppress_health_check=list(HealthCheck))
    @given(after=st.integers(min_value=0, max_value=last), query=st.booleans())
    def resume(after, query):
        read = read_stream(target, finished, last_event_id=str(after), query=query)
        seqs = [int(event_id) for event_id, _, _ in read.events]
        how = "?last_event_id=" if query else "Last-Event-ID"
        expect(
            all(seq > after for seq in seqs),
            "sse.resume",
            OP,
            f"{how} {after} replayed seq {min(seqs, default=None)}",
            reproduce=read.curl,
        )
        expect(
            seqs == [int(e[0]) for e in everything if int(e[0]) > after],
            "sse.resume",
            OP,
            f"{how} {after} skipped events",
            reproduce=read.curl,
        )
        expect(
            read.finished,
            "sse.finish",
            OP,
            "a resumed stream of a finished run did not end with run.finished",
            reproduce=read.curl,
        )

    resume()


def test_live_stream_with_reconnects_dedupes_by_id(client, target, mock_only):
    """A running run streamed across reconnects: resume from the highest seq, never
    a gap, never a duplicate, and run.finished once the run is terminal."""
    run_id = launch_run(client)
    seen: dict[int, str] = {}
    last = None
    for _ in range(40):
        advance(target, 7)
        read = read_stream(target, run_id, last_event_id=last, idle=0.3)
        for event_id, event, _ in read.events:
            seq = int(event_id)
            expect(
                seq not in seen,
                "sse.dedupe",
                OP,
                f"seq {seq} delivered again after resuming from {last}",
                reproduce=read.curl,
            )
            seen[seq] = event
        if read.events:
            last = read.events[-1][0]
        if read.finished:
            break
    expect(sorted(seen) == list(range(len(seen))), "sse.resume", OP, "the resumed streams left a gap")
    polled = client.get(f"/v1/runs/{run_id}/events", params={"limit": 1000}).json()["data"]
    expect(
        [row["seq"] for row in polled] == sorted(seen),
        "sse.resume",
        OP,
        "the streams and the polling list disagree about the run's events",
    )


def _polled(client, run_id: str) -> tuple[list[dict], str]:
    response = client.get(f"/v1/runs/{run_id}/events", params={"limit": 1000})
    return (response.json() if response.status_code == 200 else {}).get("data") or [], curl(response.request)


def test_event_ids_identify_events_across_runs_and_reads(client, target, finished):
    """§5.3: event ids are unique across runs, not only within one (§5.3#2); an event keeps its id
    from one read to the next, so a client dedupes overlapping polls by it (§5.3#3); a polling `id`
    sent as `Last-Event-ID` does not parse, and the stream replays the whole run rather than erroring
    (§5.3#4). §5.3#1, seq unique and ascending per run, is `sse.dedupe` (here, the crawl, the streams)."""
    rows, reproduce = _polled(client, finished)
    again, _ = _polled(client, finished)
    moved = [row.get("seq") for row, other in zip(rows, again, strict=False) if row.get("id") != other.get("id")]
    expect(
        not moved,
        "§5.3#3",
        "GET /v1/runs/{id}/events",
        f"events {moved[:8]} changed id between two reads",
        reproduce=reproduce,
    )
    ok = (client.get("/v1/runs", params={"status": "ok", "limit": 5}).json() or {}).get("data") or []
    other = next((run["id"] for run in ok if run.get("id") != finished), None)
    if other is None and target.control:
        other = finished_run(client, target)
    if other is not None:
        ids = {row.get("id") for row in rows}
        theirs, reproduce_other = _polled(client, other)
        shared = sorted(str(row.get("id")) for row in theirs if row.get("id") in ids)
        expect(
            not shared,
            "§5.3#2",
            "GET /v1/runs/{id}/events",
            f"runs {finished} and {other} share event ids {shared[:4]}",
            reproduce=reproduce_other,
        )
    if len(rows) < 2:
        return
    everything = [int(event_id) for event_id, _, _ in read_stream(target, finished).events]
    read = read_stream(target, finished, last_event_id=str(rows[len(rows) // 2].get("id")))
    resumed = [int(event_id) for event_id, _, _ in read.events]
    expect(
        resumed == everything,
        "§5.3#4",
        OP,
        f"a polling id as Last-Event-ID resumed at seq {resumed[:1]}, not the whole run from {everything[:1]}",
        reproduce=read.curl,
    )


def _documented_ping_seconds() -> float:
    """The keep-alive interval the spec documents for the run stream (`x-sse.ping`, §5.2)."""
    _, _, operation = OPERATIONS["streamRunEvents"]
    found = re.search(r"every (\d+(?:\.\d+)?) ?s", str((operation.get("x-sse") or {}).get("ping", "")))
    if found is None:
        raise AssertionError("the spec documents no keep-alive interval for streamRunEvents")
    return float(found.group(1))


def idle_run(client, target) -> str | None:
    """A run with nothing to say: one launched on the mock with its clock held, else a running
    run of the live account."""
    if target.control:
        return launch_run(client)
    rows = (client.get("/v1/runs", params={"status": "running", "limit": 1}).json() or {}).get("data") or []
    return rows[0]["id"] if rows else None


def test_idle_stream_sends_keepalives(client, target, interval: float | None = None):
    """§5.2: "Keep-alives are `event: ping` every 20 seconds" while a run has nothing to say:
    the first within the interval (and a little slack), the next one interval later."""
    documented = _documented_ping_seconds()
    interval = interval or documented
    if interval > QUICK_PING_SECONDS and PROFILE.startswith("quick"):
        pytest.skip(f"waiting out two {interval:g} s keep-alive intervals runs in the full profile")
    run_id = idle_run(client, target)
    if run_id is None:
        pytest.skip("no running run of this account to stream")
    slack = max(1.0, interval / 2)
    headers = {"Authorization": f"Bearer {target.credential}", "Accept": "text/event-stream"}
    start = time.monotonic()
    pings: list[float] = []
    with (
        httpx.Client(base_url=target.base_url, timeout=httpx.Timeout(10.0, read=interval + slack)) as http,
        connect_sse(http, "GET", f"/v1/runs/{run_id}/events:stream", headers=headers) as source,
    ):
        reproduce = curl(source.response.request).replace("curl -sS", "curl -sSN", 1)
        try:
            for sse in source.iter_sse():
                if sse.event == "ping":
                    pings.append(time.monotonic())
                    if len(pings) == 2:
                        break
                elif sse.event == "run.finished":
                    pytest.skip("the run finished before it fell idle")
                if time.monotonic() - start > 2 * (interval + slack):
                    break
        except httpx.ReadTimeout:
            pass
    gaps = [b - a for a, b in zip([start, *pings], pings, strict=False)]
    expect(
        len(pings) == 2 and all(gap <= interval + slack for gap in gaps),
        "sse.keepalive",
        OP,
        f"an idle stream sent {len(pings)} `event: ping` keep-alives in {time.monotonic() - start:.1f} s"
        f" (gaps {[round(g, 1) for g in gaps]} s; every {interval:g} s expected)",
        reproduce=reproduce,
    )
