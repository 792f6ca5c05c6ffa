"""A mock in a subprocess: start, wait, probe its tasks and RSS, keep its log, stop.

Load and memory are measured on a real process (issue: "uvicorn in a subprocess,
measure its RSS from /proc"), never in the test's own interpreter.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from .serve import STATS_PATH, rss_kb

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class MockProcess:
    """`python -m mock_server.stress.serve` for one API, its stdout and stderr kept in a file."""

    def __init__(self, api: str, clock_scale: float = 0.0) -> None:
        self.api = api
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile(prefix=f"stress-{api}-", suffix=".log", delete=False)  # noqa: SIM115
        argv = [sys.executable, "-m", "mock_server.stress.serve", "--api", api, "--port", str(self.port)]
        argv += ["--clock-scale", str(clock_scale)]
        self.proc = subprocess.Popen(argv, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the {api} mock exited: {self.log_text()[-2000:]}")
            try:
                httpx.get(self.url + STATS_PATH, timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the {api} mock did not come up")

    def stats(self) -> dict[str, int]:
        return httpx.get(self.url + STATS_PATH, timeout=30).json()

    def reset(self) -> None:
        """`POST /__mock/reset`: the seed back (the fuzzer deletes and edits fixtures)."""
        assert httpx.post(self.url + "/__mock/reset", timeout=30).status_code == 204

    def rss_kb(self) -> int:
        return rss_kb(self.proc.pid)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log_text(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()

    def close(self) -> None:
        self.stop()
        try:  # noqa: SIM105
            os.unlink(self.log.name)
        except OSError:
            pass

    def __enter__(self) -> MockProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
