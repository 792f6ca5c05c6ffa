"""One API's mock in its own process, as `python -m mock_server` serves it, plus one probe.

`python -m mock_server.stress.serve --api NAME --port N [--clock-scale S]` is
`python -m mock_server` with the same arguments (same config, gc settings and server
settings, whatever they are), except that it also answers
`GET /__stress/stats` itself, outside the mock: `{tasks, rss_kb}`, the number of
live asyncio tasks and the process' resident memory (issue item 4: "the server's
task count returns to its baseline"). Every other request goes to the mock
untouched.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import orjson

STATS_PATH = "/__stress/stats"


def rss_kb(pid: int | str = "self") -> int:
    """Resident set size in KiB, from /proc (the figure the issue asks for)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Probe:
    """The mock, plus `GET /__stress/stats` answered before it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == STATS_PATH:
            body = orjson.dumps({"tasks": len(asyncio.all_tasks()), "rss_kb": rss_kb()})
            await send(
                {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]}
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


def main(argv: list[str] | None = None) -> int:
    """`python -m mock_server` itself, with the probe wrapped around the app it serves: so
    whatever server settings that entry point uses (server, parser, limits) are what is measured."""
    from mock_server.__main__ import main as serve_main

    return serve_main(argv, wrap=Probe)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
