"""Legacy stage streams (C-61, C-62), raw and through the published client: NDJSON on HTTP 200, progress events
then exactly one terminal event; the client returns the whole event array, and raises a `PlatformError` with
status 200 and the event's code when the terminal event is an error (one of the operation's documented
`x-stream-errors`). A stage writes the repository's generated benchmark and needs a known scanned branch, so
it runs against the mock (its seeded repository scan) only."""

from __future__ import annotations

import json

import pytest
from bench_sdk import PlatformError

from .test_conventions import SPEC_OPS, check
from .test_credentials import platform, usable_endpoint

OP = "generate_eval_benchmark"
TERMINAL = ("result", "error")


def events_of(bench, response) -> list[dict]:
    label = f"{response.request.method} {response.request.url.path}"
    if response.status_code != 200 or "ndjson" not in response.headers.get("content-type", ""):
        raise bench.drift(
            "C-61", label, f"a stage answered {response.status_code} {response.headers.get('content-type')}"
        )
    try:
        events = [json.loads(line) for line in response.text.splitlines() if line.strip()]
    except ValueError:
        raise bench.drift("C-61", label, "a line of the stream is not JSON") from None
    kinds = [e.get("type") for e in events]
    if not events or kinds[-1] not in TERMINAL or any(k in TERMINAL for k in kinds[:-1]):
        raise bench.drift("C-62.1", label, f"events {kinds}: not progress then one terminal event")
    return events


def check_stage_streams(bench, base_url: str, owner: str, repo: str, scanned: str, unscanned: str) -> None:
    path = {"owner": owner, "repo": repo}
    curl = bench.curl(OP, path, f"?branch={unscanned}")
    raw = bench.call(OP, path=path, query={"branch": unscanned}, body={})
    check(OP, raw)
    failed = events_of(bench, raw)
    last = failed[-1]
    if last["type"] != "error" or last.get("code") not in SPEC_OPS[OP]["x-stream-errors"]:
        raise bench.drift("C-62.2", "POST eval-benchmark", f"an unscanned branch ended with {last}", curl)
    client = platform(base_url, bench.key)
    try:
        client.call(OP, path=path, query={"branch": unscanned}, body={})
    except PlatformError as error:
        if error.status != 200 or error.code != last["code"]:
            raise bench.drift(
                "C-62.3", "POST eval-benchmark", f"the client raised {error.status} {error.code}"
            ) from None
    else:
        raise bench.drift("C-62.3", "POST eval-benchmark", "the client returned a stream that ended in an error", curl)
    ok = bench.call(OP, path=path, query={"branch": scanned}, body={})
    check(OP, ok)
    events = events_of(bench, ok)
    if events[-1]["type"] != "result":
        raise bench.drift("C-62.1", "POST eval-benchmark", f"a scanned branch ended with {events[-1]}")
    got = client.call(OP, path=path, query={"branch": scanned}, body={})
    if [e["type"] for e in got] != [e["type"] for e in events]:
        raise bench.drift("C-62.3", "POST eval-benchmark", "the client's event array is not the stream's events")


def test_stage_streams(target, bench, embedded):
    """C-61, C-62.1, C-62.2, C-62.3: a stage that fails ends with a terminal error event on a 200 and the
    client raises on it; one that succeeds ends with its result, and the client returns every event."""
    if not usable_endpoint(target.base_url):
        pytest.skip("the client accepts only HTTPS or loopback endpoints")
    check_stage_streams(bench, target.base_url, "acme", "support-bot", "main", "dev")
