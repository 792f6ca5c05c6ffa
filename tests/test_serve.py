"""Serving: `python -m mock_server` and `make serve` (issue: interfaces kept, and new ones).

- the ready credential printed at start-up keeps working after `POST /__mock/reset`;
- seeded ids are the same in every process (no salted `hash()`);
- `--api NAME` picks the API and its port, `make serve` serves every registered one.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from mock_server.apis import APIS, profile
from mock_server.serve import main as serve_main

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(*args: str) -> tuple[subprocess.Popen, dict[str, str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "mock_server", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    exports: dict[str, str] = {}
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        found = re.match(r"\s*export (\w+)=(\S+)", line)
        if found:
            exports[found.group(1)] = found.group(2)
        if "control surface" in line:
            break
    return proc, exports


def _wait(url: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError(f"{url} never came up")


def test_the_printed_token_survives_a_reset_and_a_restart():
    """The ready PAT is fixed and re-created by every reset (§2.1 tokens; the issue's bug report)."""
    seen = []
    for _ in range(2):
        port = _free_port()
        proc, exports = _start("--api", "benchwright", "--port", str(port), "--clock-scale", "0")
        try:
            url, token = exports["BW_API_URL"], exports["BW_PAT"]
            _wait(f"{url}/__mock/requests")
            headers = {"Authorization": f"Bearer {token}"}
            assert httpx.get(f"{url}/v1/runs", headers=headers).status_code == 200
            assert httpx.post(f"{url}/__mock/reset").status_code == 204
            assert httpx.get(f"{url}/v1/runs", headers=headers).status_code == 200
            seen.append(token)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    assert seen[0] == seen[1]


SEEDED = """
from starlette.testclient import TestClient
from mock_server.app import create_app
from mock_server.benchwright.fixtures import READY_TOKEN
client = TestClient(create_app(ready_token=READY_TOKEN))
auth = {"Authorization": "Bearer " + READY_TOKEN}
for path in ("/v1/secrets", "/v1/runs?page_size=100", "/v1/host-policy"):
    print(path, client.get(path, headers=auth).text)
"""


def _seeded(hash_seed: str) -> str:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run([sys.executable, "-c", SEEDED], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_seeded_ids_are_the_same_in_every_process():
    """Fixed fixture ids (DESIGN: "fixed ids that are the same on every start"): two processes
    with different hash seeds serve the same seeded secrets, runs and host policy (ids included)."""
    first, second = _seeded("1"), _seeded("2")
    assert '"id"' in first and first == second


def test_make_serve_refuses_a_port_for_several_apis(capsys):
    if len(APIS) < 2:
        pytest.skip("one API registered: --port is always allowed")
    with pytest.raises(SystemExit):
        serve_main(["--port", "4999"])


@pytest.mark.parametrize("port", ["188012", "-1", "http"])
def test_every_server_command_refuses_a_port_out_of_range(port, capsys):
    """A port past 65535 reached the socket and the operating system bound it modulo 65536 (188012 became
    56940, which another process held): `make serve`, `python -m mock_server` and the proxy refuse it."""
    from contracts.proxy.cli import main as proxy_main
    from mock_server.__main__ import main as mock_main

    for command in (
        lambda: serve_main(["--api", "benchwright", "--port", port]),
        lambda: mock_main(["--api", "benchwright", "--port", port]),
        lambda: proxy_main(["--api", "benchwright", "--upstream", "http://127.0.0.1:9", "--port", port]),
    ):
        with pytest.raises(SystemExit) as stopped:
            command()
        assert stopped.value.code == 2
        assert "--port" in capsys.readouterr().err


def test_make_serve_serves_every_api_on_its_own_port():
    """`make serve` (issue: interfaces): every registered API, each on its profile's port,
    each printing its base URL and a ready credential that works."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "mock_server.serve", "--clock-scale", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while sum("control surface" in line for line in lines) < len(APIS):
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
        urls = [line.split("=", 1)[1].strip() for line in lines if re.match(r"\s*export \w+_URL=", line)]
        assert urls == [f"http://127.0.0.1:{4010 + i}" for i in range(len(APIS))], lines
        for url in urls:
            _wait(f"{url}/__mock/openapi.json")
            assert httpx.get(f"{url}/__mock/openapi.json").json()["openapi"].startswith("3.1")
        assert (
            httpx.get(
                "http://127.0.0.1:4012/api/user_llm_models/",
                headers={"Authorization": "Bearer bgn_demo_0123456789abcdef0123456789abcdef"},
            ).status_code
            == 200
        )
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_set_reaches_the_api_config_and_refuses_unknown_fields(capsys):
    """`--set FIELD=VALUE`: any config field of the served API, its value read as JSON (docs/benchwright.md,
    "Reliability and speed": Benchwright's retention is `--set keep_finished_runs=N`)."""
    from mock_server.__main__ import build_from_argv

    _, api, _ = build_from_argv(["--api", "benchwright", "--set", "keep_finished_runs=2", "--set", "cors=false"])
    assert api.config.keep_finished_runs == 2 and api.config.cors is False
    _, api, _ = build_from_argv(["--api", "benchwright", "--set", "keep_finished_runs=null"])
    assert api.config.keep_finished_runs is None
    with pytest.raises(SystemExit):
        build_from_argv(["--api", "benchgen", "--set", "keep_finished_runs=2"])  # not a BenchGen field
    assert "no such config field for benchgen: keep_finished_runs" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("module", "api"), [("mock_server", "benchgen"), ("mock_server.serve", "benchsdk")], ids=["mock_server", "serve"]
)
def test_port_zero_binds_a_free_port_and_the_banner_prints_it(module, api):
    """`--port 0` (the convention every server follows: any free port) binds a port the system
    chose, not the API's default one, and the banner's URL is the port actually bound: the mock
    answers there."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", module, "--api", api, "--port", "0", "--clock-scale", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while not any("control surface" in line for line in lines):
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
        listening = next(line for line in lines if "listening on" in line)
        url = listening.rsplit(" ", 1)[1].strip()
        port = int(url.rsplit(":", 1)[1])
        assert port not in (0, profile(api).port), lines
        assert f"export {profile(api).url_env}={url}" in "".join(lines)
        _wait(f"{url}/__mock/openapi.json")
        assert httpx.get(f"{url}/__mock/openapi.json").json()["openapi"].startswith("3.1")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
