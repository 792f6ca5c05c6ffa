"""§5.2 the SSE event stream and §5.3 resume, over real HTTP (uvicorn on 127.0.0.1).

The server pings every 0.2 s here, so "idle" is observable quickly; the
simulated clock only moves when a test posts to `/__mock/clock`.
"""

from __future__ import annotations

import json
import time

import httpx
import pytest
from httpx_sse import connect_sse

from contracts.runner.validation import default_validator
from mock_server.app import create_app
from mock_server.benchwright.fixtures import RUN_IDS
from mock_server.benchwright.resources.events import event_id

pytestmark = pytest.mark.http

PUBLIC = RUN_IDS["ok_public"]
PING = 0.2


@pytest.fixture
def app(request):
    """Overrides conftest's `app`: the `live` server pings every 0.2 s unless
    a test passes its own config (`indirect` parametrization)."""
    return create_app(**getattr(request, "param", {"sse_ping_seconds": PING}))


@pytest.fixture
def client(live):
    token = httpx.post(f"{live.url}/__mock/tokens", json={"scopes": ["full"]}).json()["token"]
    with httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {token}"}, timeout=10) as http:
        yield http


def _read(client, run_id: str, *, headers=None, params=None, until=None, budget: float = 10.0):
    """Read one stream to its end (or until `until(event)`); returns (response, events)."""
    events = []
    deadline = time.monotonic() + budget
    url = f"/v1/runs/{run_id}/events:stream"
    with connect_sse(client, "GET", url, headers=dict(headers or {}), params=params) as source:
        response = source.response
        if response.status_code != 200:
            response.read()
            return response, events
        for sse in source.iter_sse():
            events.append(sse)
            if (until and until(sse)) or time.monotonic() > deadline:
                break
    return response, events


def _data(events):
    return [e for e in events if e.event not in ("ping", "run.finished")]


def _advance(live, seconds: float) -> None:
    assert httpx.post(f"{live.url}/__mock/clock", json={"advance_seconds": seconds}).status_code == 200


def test_5_2_finished_run_backfills_then_run_finished_and_closes(client):
    """§5.2: on an already-finished run, the backfill and then `run.finished` at once."""
    response, events = _read(client, PUBLIC)
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-cache"
    findings = default_validator().check("GET", f"/v1/runs/{PUBLIC}/events:stream", 200, dict(response.headers), b"")
    assert not findings, findings
    polled = client.get(f"/v1/runs/{PUBLIC}/events").json()["data"]
    assert [int(e.id) for e in _data(events)] == [row["seq"] for row in polled]
    assert events[-1].event == "run.finished"
    assert json.loads(events[-1].data) == {"type": "run.finished", "status": "ok", "run_id": PUBLIC}


def test_5_2_data_folds_in_the_type_and_drops_secret_fields(client):
    """§5.2 type appears twice; §15 note: the proxy UI password never streams."""
    _, events = _read(client, PUBLIC)
    for sse in _data(events):
        assert json.loads(sse.data)["type"] == sse.event
    credentials = next(e for e in events if e.event == "ModelProxyCredentials")
    assert json.loads(credentials.data) == {
        "type": "ModelProxyCredentials",
        "ui_url": "https://proxy.internal/ui",
        "ui_username": "admin",
    }
    assert all("hunter2" not in e.data for e in events)


@pytest.mark.parametrize("how", ["header", "query"])
def test_5_2_resume_strictly_after_last_event_id(client, how):
    """§5.2: `Last-Event-ID` (or `?last_event_id=`) resumes after that seq, not at it."""
    headers, params = ({"Last-Event-ID": "40"}, None) if how == "header" else (None, {"last_event_id": "40"})
    _, events = _read(client, PUBLIC, headers=headers, params=params)
    assert int(_data(events)[0].id) == 41
    assert events[-1].event == "run.finished"


def test_5_3_a_polling_id_as_last_event_id_replays_from_the_start(client):
    """§5.3: a polling `id` does not parse as a seq; the stream replays the whole run."""
    _, events = _read(client, PUBLIC, headers={"Last-Event-ID": event_id(PUBLIC, 40)})
    assert int(_data(events)[0].id) == 0


def _launch(client) -> str:
    response = client.post("/v1/runs", json={"request": "Run MMLU on qwen/qwen3-32b", "metadata": {"limit": 2}})
    assert response.status_code == 202, response.text
    return response.json()["id"]


def test_5_2_live_run_streams_as_the_clock_moves_then_finishes(live, client):
    """§5.2: events arrive as the run progresses; ids never repeat; `run.finished` closes it."""
    run_id = _launch(client)
    events = []
    with connect_sse(client, "GET", f"/v1/runs/{run_id}/events:stream") as source:
        for sse in source.iter_sse():
            events.append(sse)
            if sse.event == "ping":  # idle: move the run along
                _advance(live, 3)
            assert len(events) < 500
    assert events[-1].event == "run.finished"
    assert json.loads(events[-1].data)["status"] == "ok"
    ids = [int(e.id) for e in _data(events)]
    assert ids == sorted(set(ids))
    assert {"PhaseStarted", "MaterializeTaskResult", "PipelineFinished"} <= {e.event for e in events}
    polled = client.get(f"/v1/runs/{run_id}/events?limit=1000").json()["data"]
    assert ids == [row["seq"] for row in polled]


@pytest.mark.parametrize("app", [{"clock_scale": 40.0, "sse_ping_seconds": 60.0}], indirect=True)
def test_5_2_scaled_clock_wakes_the_stream_at_each_plan_step(client):
    """§5.2 with a wall-following clock: nobody notifies, no ping fires, yet the
    stream wakes when the run's next step falls due and runs to `run.finished`."""
    run_id = _launch(client)
    started = time.monotonic()
    _, events = _read(client, run_id, budget=8)
    assert events[-1].event == "run.finished"
    assert "ping" not in {e.event for e in events}
    assert time.monotonic() - started < 8


def test_5_3_reconnect_mid_run_resumes_without_duplicates(live, client):
    """§5.3: resume from the highest seq seen; together the two streams are the log, once."""
    run_id = _launch(client)
    _advance(live, 6)
    _, first = _read(client, run_id, until=lambda e: e.event == "ping")
    first_ids = [int(e.id) for e in _data(first)]
    assert first_ids and first[-1].event == "ping"
    _advance(live, 60)
    _, second = _read(client, run_id, headers={"Last-Event-ID": str(first_ids[-1])})
    second_ids = [int(e.id) for e in _data(second)]
    assert second_ids[0] == first_ids[-1] + 1
    assert first_ids + second_ids == list(range(first_ids[-1] + 1 + len(second_ids)))
    assert second[-1].event == "run.finished"


def test_5_2_pings_while_idle_and_no_run_finished_on_a_paused_run(client):
    """§5.2: keep-alives are `event: ping`; a held run never reports `run.finished`."""
    _, events = _read(client, RUN_IDS["paused"], until=lambda e: e.event == "ping", budget=5)
    assert events[-1].event == "ping"
    assert "run.finished" not in {e.event for e in events}
    assert _data(events)[-1].event == "PhasePaused"


def test_5_2_a_disconnected_client_costs_nothing_afterwards(app, client):
    """§5.2: once the client goes, its stream stops waking up and syncing."""
    mock = app.state.mock
    calls = []
    original = mock.sync

    def counting_sync():
        calls.append(time.monotonic())
        original()

    mock.sync = counting_sync
    _read(client, RUN_IDS["paused"], until=lambda e: e.event == "ping", budget=5)
    time.sleep(3 * PING)
    calls.clear()
    time.sleep(5 * PING)
    assert calls == []


def test_5_2_drop_fault_ends_the_stream_after_n_events(live, client):
    """Fault injection: `sse_drop_after` cuts the stream without `run.finished`; resume continues."""
    fault = {"operation_id": "streamRunEvents", "sse_drop_after": 3}
    assert httpx.post(f"{live.url}/__mock/faults", json=fault).status_code == 201
    _, first = _read(client, PUBLIC)
    assert [int(e.id) for e in first] == [0, 1, 2]
    _, second = _read(client, PUBLIC, headers={"Last-Event-ID": "2"})
    assert [int(e.id) for e in second] == [3, 4, 5]
    assert httpx.delete(f"{live.url}/__mock/faults").status_code == 204
    _, rest = _read(client, PUBLIC, headers={"Last-Event-ID": "5"})
    assert int(rest[0].id) == 6 and rest[-1].event == "run.finished"


def test_2_2_anonymous_streams_public_runs_but_not_private_ones(live):
    with httpx.Client(base_url=live.url, timeout=10) as anonymous:
        response, events = _read(anonymous, RUN_IDS["ok_unlisted"])
        assert response.status_code == 200 and events[-1].event == "run.finished"
        hidden, _ = _read(anonymous, RUN_IDS["error"])
        assert hidden.status_code == 404 and hidden.json()["code"] == "not_found"
