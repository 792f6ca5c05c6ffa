"""Issue item 4: streams opened and dropped mid-stream, and slow readers.

- `n` SSE streams (Benchwright §5.2 `GET /v1/runs/{id}/events:stream` on a running run,
  which stays open) and `n` NDJSON stage streams (Bench `POST .../eval-benchmark`, C-61)
  are opened at once, each read to its first event and dropped. Then the server's asyncio
  task count must return to its baseline and its RSS stay flat across rounds.
- Slow readers: sockets that open a stream and never read. Hot reads made meanwhile
  must answer as they do without them (p99 beside the same reads with no slow reader).
"""

from __future__ import annotations

import asyncio
import socket
import time
from dataclasses import dataclass, field

import httpx

from .concurrency import _bw_user
from .process import MockProcess
from .rawhttp import request_head
from .targets import BW_RUN, LAUNCH, TARGETS


@dataclass
class StreamResult:
    api: str
    kind: str
    opened: int
    first_events: int
    baseline_tasks: int
    tasks_after: list[int] = field(default_factory=list)
    rss_kb: list[int] = field(default_factory=list)
    ok: bool = False
    note: str = ""


async def _open_and_drop(client: httpx.AsyncClient, method: str, path: str, headers: dict, body: dict | None) -> bool:
    """Open a stream, read until its first event (a non-empty line), drop it."""
    async with client.stream(method, path, headers=headers, json=body) as response:
        if response.status_code != 200:
            return False
        async for line in response.aiter_lines():
            if line.strip() and not line.startswith(":"):
                return True
    return False


async def _settle(mock: MockProcess, baseline: int, seconds: float = 15.0) -> int:
    deadline = time.monotonic() + seconds
    tasks = mock.stats()["tasks"]
    while tasks > baseline and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
        tasks = mock.stats()["tasks"]
    return tasks


async def _rounds(mock: MockProcess, kind: str, n: int, rounds: int, open_one) -> StreamResult:
    async with httpx.AsyncClient(base_url=mock.url, timeout=30) as client:
        await open_one(client)  # warm-up: process-wide singletons (sse-starlette's shutdown watcher) start once
    await asyncio.sleep(0.5)
    baseline = mock.stats()["tasks"]
    result = StreamResult(mock.api, kind, 0, 0, baseline)
    result.rss_kb.append(mock.rss_kb())
    limits = httpx.Limits(max_connections=n + 10, max_keepalive_connections=0)
    for _ in range(rounds):
        async with httpx.AsyncClient(base_url=mock.url, limits=limits, timeout=30) as client:
            firsts = await asyncio.gather(*(open_one(client) for _ in range(n)), return_exceptions=True)
        result.opened += n
        result.first_events += sum(1 for f in firsts if f is True)
        result.tasks_after.append(await _settle(mock, baseline))
        result.rss_kb.append(mock.rss_kb())
    grown = result.rss_kb[-1] - result.rss_kb[1] if rounds > 1 else 0
    result.ok = (
        result.first_events == result.opened and all(t <= baseline for t in result.tasks_after) and grown < 8 * 1024
    )
    result.note = f"RSS growth after the first round: {grown} KiB"
    return result


async def sse(mock: MockProcess, n: int = 200, rounds: int = 3) -> StreamResult:
    async with httpx.AsyncClient(base_url=mock.url) as client:
        headers = await _bw_user(client)
        run = (await client.post("/v1/runs", json=LAUNCH, headers=headers)).json()
    path = f"/v1/runs/{run['id']}/events:stream"
    return await _rounds(mock, "SSE", n, rounds, lambda c: _open_and_drop(c, "GET", path, headers, None))


async def ndjson(mock: MockProcess, n: int = 200, rounds: int = 3) -> StreamResult:
    headers = TARGETS["bench"].headers
    path = "/api/repos/acme/support-bot/eval-benchmark?branch=main"
    return await _rounds(mock, "NDJSON", n, rounds, lambda c: _open_and_drop(c, "POST", path, headers, {}))


def _slow_socket(mock: MockProcess, path: str, headers: dict[str, str]) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", mock.port))
    sock.sendall(request_head("GET", path, headers))
    return sock


async def _latencies(mock: MockProcess, path: str, headers: dict, n: int) -> list[float]:
    out = []
    async with httpx.AsyncClient(base_url=mock.url, timeout=10) as client:
        for _ in range(n):
            started = time.perf_counter()
            response = await client.get(path, headers=headers)
            assert response.status_code == 200, response.text[:200]
            out.append((time.perf_counter() - started) * 1000)
    return out


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else float("nan")


@dataclass
class SlowReaders:
    api: str
    readers: int
    p99_alone_ms: float
    p99_with_ms: float
    ok: bool
    note: str = ""


async def slow_readers(mock: MockProcess, readers: int = 20, reads: int = 300) -> SlowReaders:
    """Readers of the seeded finished run's stream (a full backfill) and of a large run page, never read."""
    async with httpx.AsyncClient(base_url=mock.url) as client:
        headers = await _bw_user(client)
        for _ in range(30):
            await client.post("/v1/runs", json=LAUNCH, headers=headers)
    alone = await _latencies(mock, "/v1/runs", headers, reads)
    paths = [f"/v1/runs/{BW_RUN}/events:stream", "/v1/runs?limit=100"]
    socks = [_slow_socket(mock, paths[i % 2], headers) for i in range(readers)]
    try:
        await asyncio.sleep(0.5)
        with_slow = await _latencies(mock, "/v1/runs", headers, reads)
    finally:
        for sock in socks:
            sock.close()
    a, w = p99(alone), p99(with_slow)
    ok = w < max(3 * a, a + 25)
    return SlowReaders(mock.api, readers, round(a, 2), round(w, 2), ok, f"{reads} reads each, sequential")


def run(mock: MockProcess, n: int = 200, rounds: int = 3) -> list:
    mock.reset()
    if mock.api == "benchwright":
        return [asyncio.run(sse(mock, n, rounds)), asyncio.run(slow_readers(mock))]
    if mock.api == "bench":
        return [asyncio.run(ndjson(mock, n, rounds))]
    return []


if __name__ == "__main__":
    import sys

    for name in sys.argv[1:] or ["benchwright", "bench"]:
        with MockProcess(name) as mock:
            for item in run(mock):
                print(item)
