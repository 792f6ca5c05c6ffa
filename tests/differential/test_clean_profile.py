"""Clean against clean over the whole quick profile (the issue's "Must show"): a mock served as `make serve`
serves it (its own process, its clock in real time) is the target of `harness-contract --differential`,
the suite's own requests and schemathesis' (stateless cases and links state machine) all replayed on the
oracle: no behavioural drift. BenchGen's profile runs in a few seconds; the others run with `-m slow`
(`HARNESS_DRIFT_SLOW=1`); docs/differential.md has the measured runs."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time

import httpx
import pytest

from contracts.apis import contract

PROFILES = [
    pytest.param("benchgen", id="benchgen"),
    pytest.param("benchsdk", id="benchsdk", marks=pytest.mark.slow),
    pytest.param("bench", id="bench", marks=pytest.mark.slow),
    pytest.param("benchwright", id="benchwright", marks=pytest.mark.slow),
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("api", PROFILES)
def test_a_served_mock_against_the_oracle_shows_no_difference(api, tmp_path, monkeypatch):
    """Issue 21, clean against clean: every answer of the quick profile, the oracle's alike."""
    port = _free_port()
    command = [sys.executable, "-m", "mock_server.serve", "--api", api, "--port", str(port)]
    served = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{url}/__mock/credentials", timeout=2).raise_for_status()
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline and served.poll() is None, f"the {api} mock did not start"
                time.sleep(0.1)
        for name in [contract(a).url_env for a in ("bench", "benchsdk", "benchgen", "benchwright")]:
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv(contract(api).url_env, url)
        run = [sys.executable, "-m", "contracts.runner.cli", "--api", api, "--differential"]
        run += ["--report-dir", str(tmp_path)]
        done = subprocess.run(run, capture_output=True, text=True, timeout=900)
        report = next(tmp_path.rglob("drift-report.md")).read_text(encoding="utf-8")
        section = report[report.index("## Behavioural drift") :]
        compared = int(re.search(r"answered the same (\d+) request", section).group(1))
        assert compared > 100, section[:500]
        assert "no behavioural drift" in section, section[:3000]
        assert done.returncode == 0, done.stdout[-2000:]
    finally:
        served.terminate()
        served.wait(10)
