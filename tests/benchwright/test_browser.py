"""CORS for browser clients, and §5.2's stream in a real browser (headless Chromium).

The issue: a page on another localhost port could not call the mock or open an
`EventSource` on a public run (no `Access-Control-Allow-Origin`, and `OPTIONS`
answered 405). The mock now answers preflights and sends CORS headers by
default, as Prism does; `create_app(cors=False)` (`--no-cors`) turns that off.
Only a browser enforces CORS, so only a browser can tell whether it works: the
page here is served from a second port, is anonymous (§4: public and unlisted
runs are readable without credentials, SSE included), and records what its
`EventSource` receives.

§5.2: `GET /v1/runs/{id}/events:stream` sends each event with `id:` = its seq;
`Last-Event-ID` resumes strictly after it. The injected fault `sse_drop_after`
cuts the stream mid-run; the browser then reconnects on its own, sending
`Last-Event-ID` itself, and the two connections together must be the run's log
exactly once, ending with `run.finished`.

Every event on this stream is named (`event:` is its type), so an `EventSource`
sees only the types it listens for: the page listens for every type §15
documents (read from the spec) plus `run.finished`.

Chromium comes from the system (Debian's `chromium`, which `.ci/run` installs);
without it these tests skip. It is driven over the DevTools protocol with the
`websockets` client that `uvicorn[standard]` already brings.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from websockets.sync.client import connect

from contracts.runner.target import LiveServer
from mock_server.app import create_app
from mock_server.benchwright.fixtures import RUN_IDS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.http,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="needs headless Chromium: the system package `chromium` is not installed (.ci/run installs it)",
    ),
]

# Headless as root on a closed network: no sandbox, and none of the background
# connections Chromium would otherwise make at start.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
]
DROP_AFTER = 5  # events on the first connection before the injected cut
BUDGET = 20.0  # seconds any one wait may take

PAGE = """<!doctype html>
<meta charset="utf-8">
<title>cross-origin client</title>
<script>
const config = JSON.parse(new URLSearchParams(location.search).get("config"));
const report = window.report = {events: [], opens: 0, errors: [], finished: null, done: false};
window.preflight = () => fetch(`${config.api}/v1/runs/${config.run}`, {headers: {"X-Client-Check": "cors"}})
  .then(async (r) => ({ok: true, status: r.status, id: (await r.json()).id,
                       requestId: r.headers.get("X-Benchwright-Request-Id")}),
        (e) => ({ok: false, error: String(e)}));
const source = new EventSource(`${config.api}/v1/runs/${config.run}/events:stream`);
source.onopen = () => { report.opens += 1; };
source.onerror = () => {
  report.errors.push(source.readyState);
  if (source.readyState === EventSource.CLOSED) report.done = true;
};
for (const type of config.types) {
  source.addEventListener(type, (e) => report.events.push(
    {id: e.lastEventId, type: e.type, dataType: JSON.parse(e.data).type, connection: report.opens}));
}
source.addEventListener("run.finished", (e) => {
  report.finished = JSON.parse(e.data);
  source.close();  // otherwise the browser reconnects to a finished run forever
  report.done = true;
});
</script>
"""


# -- the browser --------------------------------------------------------------


class Tab:
    """One Chromium page, driven over the DevTools protocol."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.last_id = 0

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.last_id += 1
        self.ws.send(json.dumps({"id": self.last_id, "method": method, "params": params}))
        while True:  # no domain is enabled, so little but replies arrives
            message = json.loads(self.ws.recv(timeout=BUDGET))
            if message.get("id") == self.last_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, budget: float = BUDGET) -> Any:
        deadline = time.monotonic() + budget
        while not (value := self.evaluate(expression)):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {expression}; page saw {self.report()}")
            time.sleep(0.05)
        return value

    def report(self) -> dict[str, Any] | None:
        return self.evaluate("window.report")


@pytest.fixture(scope="module")
def devtools(tmp_path_factory) -> Iterator[str]:
    """A headless Chromium with a fresh profile; the DevTools HTTP endpoint's URL."""
    profile = tmp_path_factory.mktemp("chromium")
    log = (profile / "chromium.log").open("wb")
    process = subprocess.Popen(
        [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        yield f"http://127.0.0.1:{_devtools_port(process, profile)}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _devtools_port(process: subprocess.Popen, profile: Path) -> int:
    """Chromium writes the port it chose (and the browser's path) once it listens."""
    active = profile / "DevToolsActivePort"
    deadline = time.monotonic() + BUDGET
    while len(lines := (active.read_text().split() if active.exists() else [])) < 2:
        if process.poll() is not None or time.monotonic() > deadline:
            tail = (profile / "chromium.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"Chromium did not start (exit {process.poll()}):\n{tail}")
        time.sleep(0.05)
    return int(lines[0])


@pytest.fixture
def tab(devtools) -> Iterator[Tab]:
    target = httpx.put(f"{devtools}/json/new?about:blank", timeout=10).json()
    try:
        with connect(target["webSocketDebuggerUrl"], max_size=None, open_timeout=10) as ws:
            yield Tab(ws)
    finally:
        httpx.get(f"{devtools}/json/close/{target['id']}", timeout=10)


# -- the two origins ----------------------------------------------------------


class _PageHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        found = self.path.split("?", 1)[0] == "/"
        body = PAGE.encode() if found else b"not found"
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8" if found else "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def page_origin() -> Iterator[str]:
    """The page's own origin: the same host as the mock, another port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _PageHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class Recorder:
    """ASGI wrapper: every request's method, path, headers and status, as the mock saw them."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.state = app.state
        self.seen: list[dict[str, Any]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        row = {
            "method": scope["method"],
            "path": scope["path"],
            "headers": {k.decode().lower(): v.decode() for k, v in scope["headers"]},
        }
        self.seen.append(row)

        async def recording_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                row["status"] = message["status"]
                row["response_headers"] = {k.decode().lower(): v.decode() for k, v in message["headers"]}
            await send(message)

        await self.app(scope, receive, recording_send)


@pytest.fixture
def mock(request) -> Iterator[tuple[LiveServer, Recorder]]:
    recorder = Recorder(create_app(**getattr(request, "param", {})))
    with LiveServer(recorder) as server:
        yield server, recorder


def _event_types(recorder: Recorder) -> list[str]:
    """The event types §15 documents, from the spec's `Event.type`."""
    description = recorder.state.api.spec["components"]["schemas"]["Event"]["properties"]["type"]["description"]
    return re.findall(r"`(\w+)`", description)


def _open_page(tab: Tab, page_origin: str, server: LiveServer, recorder: Recorder, run_id: str) -> None:
    config = {"api": server.url, "run": run_id, "types": _event_types(recorder)}
    tab.call("Page.navigate", url=f"{page_origin}/?config={quote(json.dumps(config))}")
    tab.wait_for("window.report !== undefined")


def _token(server: LiveServer) -> str:
    return httpx.post(f"{server.url}/__mock/tokens", json={"scopes": ["full"]}, timeout=10).json()["token"]


def _unlisted_live_run(server: LiveServer) -> str:
    """A launched run made `unlisted`: anonymous readers may stream it while it runs
    (`public` needs a finished-ok run, §4.8), so its events arrive live."""
    auth = {"Authorization": f"Bearer {_token(server)}"}
    body = {"request": "Run MMLU on qwen/qwen3-32b", "metadata": {"limit": 2}}
    launched = httpx.post(f"{server.url}/v1/runs", json=body, headers=auth, timeout=10)
    assert launched.status_code == 202, launched.text
    run_id = launched.json()["id"]
    patched = httpx.patch(f"{server.url}/v1/runs/{run_id}", json={"visibility": "unlisted"}, headers=auth, timeout=10)
    assert patched.status_code == 200, patched.text
    return run_id


def _seqs(server: LiveServer, run_id: str) -> list[int]:
    rows = httpx.get(f"{server.url}/v1/runs/{run_id}/events", params={"limit": 1000}, timeout=10).json()["data"]
    return [row["seq"] for row in rows]


# -- the tests ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("mock", "which"),
    [({}, "ok_public"), ({"clock_scale": 4.0}, "live")],  # a ~27 s simulated run takes ~7 s here
    indirect=["mock"],
    ids=["seeded-public-run", "live-unlisted-run"],
)
def test_5_2_eventsource_from_another_origin_reconnects_with_no_gap_or_duplicate(tab, page_origin, mock, which):
    """§5.2 in a browser: events arrive cross-origin; after the cut the browser resumes
    with `Last-Event-ID` = the last seq it saw; together the two connections are the
    log, strictly increasing, no gap, no duplicate; `run.finished` ends it."""
    server, recorder = mock
    run_id = RUN_IDS["ok_public"] if which == "ok_public" else _unlisted_live_run(server)
    fault = {"operation_id": "streamRunEvents", "sse_drop_after": DROP_AFTER}
    assert httpx.post(f"{server.url}/__mock/faults", json=fault, timeout=10).status_code == 201

    _open_page(tab, page_origin, server, recorder, run_id)
    tab.wait_for("window.report.errors.length >= 1")  # the cut; the browser retries in ~3 s
    assert httpx.delete(f"{server.url}/__mock/faults", timeout=10).status_code == 204
    status_at_cut = httpx.get(f"{server.url}/v1/runs/{run_id}", timeout=10).json()["status"]
    tab.wait_for("window.report.done")
    report = tab.report()

    assert report["errors"] == [0], report  # one error: the cut, while CONNECTING again, not CLOSED
    assert report["opens"] == 2
    assert report["finished"] == {"type": "run.finished", "status": "ok", "run_id": run_id}
    ids = [int(e["id"]) for e in report["events"]]
    assert all(e["dataType"] == e["type"] for e in report["events"])  # §5.2: the type, folded into data
    assert [e["connection"] for e in report["events"]] == [1] * DROP_AFTER + [2] * (len(ids) - DROP_AFTER)
    assert ids == list(range(len(ids))), ids  # strictly increasing, no gap, no duplicate
    assert ids == _seqs(server, run_id)  # and that is the whole log
    if which == "live":
        assert status_at_cut != "ok"  # the cut came mid-run: what followed the reconnect arrived live

    streams = [r for r in recorder.seen if r["path"] == f"/v1/runs/{run_id}/events:stream"]
    assert [r["method"] for r in streams] == ["GET", "GET"]
    assert all(r["headers"]["origin"] == page_origin for r in streams)  # a cross-origin request, twice
    assert all("authorization" not in r["headers"] and "cookie" not in r["headers"] for r in streams)
    assert "last-event-id" not in streams[0]["headers"]
    assert streams[1]["headers"]["last-event-id"] == str(DROP_AFTER - 1)  # sent by the browser itself
    assert all(r["response_headers"]["access-control-allow-origin"] == page_origin for r in streams)


def test_a_preflighted_fetch_from_another_origin_succeeds(tab, page_origin, mock):
    """The issue: a custom header makes the browser preflight; the mock answers the
    `OPTIONS`, then the request itself, and exposes its response headers."""
    server, recorder = mock
    _open_page(tab, page_origin, server, recorder, RUN_IDS["ok_public"])
    result = tab.evaluate("window.preflight()")
    assert result["ok"], result
    assert result["status"] == 200 and result["id"] == RUN_IDS["ok_public"]
    assert result["requestId"]  # an exposed header, readable by the page
    calls = [(r["method"], r["status"]) for r in recorder.seen if r["path"] == f"/v1/runs/{RUN_IDS['ok_public']}"]
    assert calls == [("OPTIONS", 200), ("GET", 200)]


@pytest.mark.parametrize("mock", [{"cors": False}], indirect=True)
def test_with_cors_off_the_browser_refuses_both(tab, page_origin, mock):
    """`cors=False` (`--no-cors`): the preflight is refused and the stream's response,
    though served, is withheld from the page; the browser gives up on it (CLOSED)."""
    server, recorder = mock
    _open_page(tab, page_origin, server, recorder, RUN_IDS["ok_public"])
    result = tab.evaluate("window.preflight()")
    assert not result["ok"] and "TypeError" in result["error"], result
    report = tab.wait_for("window.report.done && window.report")
    assert report["events"] == [] and report["opens"] == 0 and report["errors"] == [2], report
    preflights = [r for r in recorder.seen if r["method"] == "OPTIONS"]
    assert preflights and all(r["status"] == 405 for r in preflights)
    assert all("access-control-allow-origin" not in r.get("response_headers", {}) for r in recorder.seen)
