"""`make stress`: the mocks under load, faults and hostile input, measured.

`python -m mock_server.stress [--short] [--api NAME] [--out reports/stress.md]` runs,
against each API's mock served by uvicorn in its own process (`serve.py`):

1. fuzzing (`fuzz.py`): schemathesis over every operation, no 5xx, nothing off-spec;
2. the hostile-input catalogue (`hostile.py`), over raw sockets where HTTP clients
   would refuse to send the bytes;
3. concurrency (`concurrency.py`): idempotent launches, `runKey` creates, worker
   claims, versioned context writes and ETag PATCHes raced through asyncio + httpx;
4. streams (`streams.py`): SSE and NDJSON opened and dropped, tasks and memory;
5. non-disclosure (`disclosure.py`): every secret sent, searched for in everything
   the mock said, journaled and logged;
6. uptime (`uptime.py`): many launches on one process, memory and p99 per window.

Item 7 (speed) is `make bench` (`mock_server/benchmark.py`). Each item is a function
returning a `Section` (figures plus the properties that failed); `report.py`
writes them as Markdown. `tests/stress/` runs the short version and asserts the
properties, not the timings.
"""
