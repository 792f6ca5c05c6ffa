"""Issue item 6: many launches and their events on one long-running mock process.

`python -m mock_server --api benchwright` (the per-API form of `make serve`, with its
clock running so runs progress and finish) takes `launches` `POST /v1/runs`, each with
its own `Idempotency-Key` as the CLI sends (§3.7), from `workers` concurrent clients;
every fifth launch also reads its events (§5.1). Per window of 1,000 launches the
suite records p50 / p99 latency and the process' RSS, so the report shows whether p99
is stable from the first thousand to the last and how memory grows per launch. Runs are
bounded by Benchwright's retention rule (the newest 1,000 finished runs per owner,
`model/retention.py`; at clock scale 60 a run finishes in about half a second, so the
account's runs stay at about a thousand); what still grows is what the rule keeps on
purpose: ledger rows, and `Idempotency-Key` entries for their 24 simulated hours (§3.7).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import httpx

from .concurrency import _bw_user
from .process import MockProcess
from .streams import p99
from .targets import LAUNCH


@dataclass
class Window:
    launches: int
    p50_ms: float
    p99_ms: float
    rss_kb: int


@dataclass
class Uptime:
    launches: int = 0
    errors: dict[int, int] = field(default_factory=dict)
    windows: list[Window] = field(default_factory=list)
    seconds: float = 0.0
    rss_start_kb: int = 0
    clock_scale: float = 0.0
    planned: int = 0
    budget: float = 0.0

    @property
    def kb_per_launch(self) -> float:
        if not self.windows or not self.launches:
            return 0.0
        return (self.windows[-1].rss_kb - self.rss_start_kb) / self.launches

    @property
    def p50_drift(self) -> float:
        """Last window's p50 over the first's (p99 on a shared machine is mostly other people's load)."""
        if len(self.windows) < 2:
            return 1.0
        return self.windows[-1].p50_ms / max(self.windows[0].p50_ms, 0.001)

    @property
    def p99_drift(self) -> float:
        """Last window's p99 over the first's."""
        if len(self.windows) < 2:
            return 1.0
        return self.windows[-1].p99_ms / max(self.windows[0].p99_ms, 0.001)


async def _load(
    mock: MockProcess, launches: int, workers: int, window: int, result: Uptime, budget: float = 1e9
) -> None:
    limits = httpx.Limits(max_connections=workers, max_keepalive_connections=workers)
    async with httpx.AsyncClient(base_url=mock.url, limits=limits, timeout=60) as client:
        headers = await _bw_user(client)
        counter = iter(range(launches))
        latencies: list[float] = []
        lock = asyncio.Lock()
        deadline = time.monotonic() + budget

        async def worker() -> None:
            for i in counter:
                if time.monotonic() > deadline:
                    return
                started = time.perf_counter()
                r = await client.post("/v1/runs", json=LAUNCH, headers={**headers, "Idempotency-Key": f"uptime-{i}"})
                elapsed = (time.perf_counter() - started) * 1000
                if r.status_code != 202:
                    result.errors[r.status_code] = result.errors.get(r.status_code, 0) + 1
                elif i % 5 == 0:
                    events = await client.get(f"/v1/runs/{r.json()['id']}/events", headers=headers)
                    if events.status_code != 200:
                        result.errors[events.status_code] = result.errors.get(events.status_code, 0) + 1
                async with lock:
                    latencies.append(elapsed)
                    result.launches += 1
                    if len(latencies) == window:
                        result.windows.append(
                            Window(
                                result.launches,
                                round(sorted(latencies)[len(latencies) // 2], 2),
                                round(p99(latencies), 2),
                                mock.rss_kb(),
                            )
                        )
                        latencies.clear()

        await asyncio.gather(*(worker() for _ in range(workers)))


def run(
    launches: int = 20_000, workers: int = 8, window: int = 1000, clock_scale: float = 60.0, budget: float = 240.0
) -> Uptime:
    """Up to `launches`, stopping when `budget` seconds have passed (the report gives the count run)."""
    result = Uptime(clock_scale=clock_scale, planned=launches, budget=budget)
    with MockProcess("benchwright", clock_scale=clock_scale) as mock:
        result.rss_start_kb = mock.rss_kb()
        started = time.monotonic()
        asyncio.run(_load(mock, launches, workers, min(window, launches), result, budget))
        result.seconds = round(time.monotonic() - started, 1)
    return result


if __name__ == "__main__":
    import sys

    r = run(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
    print(r.launches, r.errors, r.seconds, r.kb_per_launch, r.p99_drift)
    for w in r.windows:
        print(w)
