"""The drift catalogue through the differential engine alone: each drift of tests/drift is served as
the live target, the traffic of the catalogue's own session for that drift (its check, or the crawl)
goes through the differential front with the check's verdict discarded, and the drift counts as
reported when the engine found any difference.

A drift *changes an answer* when some answer the session received differs from the one the
unmodified mock inside the drift wrapper gave (status, headers or body), or when the wrapper
changed a request on its way in: `Tap`s on both sides of the wrapper record it.

`python -m tests.differential.catalogue [--out FILE] [API ...]` writes reports/differential-catalogue.md.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contracts.runner.differential.engine import Engine
from contracts.runner.differential.front import Front
from contracts.runner.differential.oracle import clock_of
from contracts.runner.target import LiveServer
from mock_server.app import create_app

CREDENTIALS = {
    "bench": {"BENCH_API_KEY": "bench_dev_key_growth", "BENCH_OAUTH_TOKEN": "bench_dev_oauth_growth"},
}


class Tap:
    """Records, per request, the scope it saw and the answer it passed on (streams as they pass)."""

    def __init__(self, app: Any, mark: bool) -> None:
        self.app = app
        self.state = app.state
        self.mark = mark
        self.seen: dict[int, dict[str, Any]] = {}
        self.count = 0
        self.crashed: list[tuple[str, str]] = []  # (method, path) of requests the wrapped app failed on

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.mark:
            self.count += 1
            scope = {**scope, "tap": self.count}
        key = scope.get("tap", 0)
        record = self.seen.setdefault(key, {"status": 0, "headers": [], "body": bytearray()})
        record["request"] = (scope["method"], scope["path"], scope.get("query_string", b""),
                             sorted((k.lower(), v) for k, v in scope.get("headers", [])))  # fmt: skip

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                record["status"] = message["status"]
                record["headers"] = sorted((k.lower(), v) for k, v in message.get("headers", [])
                                           if k.lower() != b"content-length")  # fmt: skip
            elif message["type"] == "http.response.body":
                record["body"] += message.get("body", b"")
            await send(message)

        try:
            await self.app(scope, receive, capture)
        except Exception:
            self.crashed.append((scope["method"], scope["path"]))
            raise


def changed(outer: Tap, inner: Tap) -> bool:
    for key, seen in outer.seen.items():
        other = inner.seen.get(key)
        if other is None:
            return True  # the wrapper answered by itself
        if seen["request"] != other["request"]:
            return True
        if (seen["status"], seen["headers"], bytes(seen["body"])) != (
            other["status"],
            other["headers"],
            bytes(other["body"]),
        ):
            return True
    return False


@dataclass
class Outcome:
    api: str
    name: str
    claim: str
    changes: bool
    reported: list[str] = field(default_factory=list)
    seconds: float = 0.0
    compared: int = 0  # exchanges the engine compared


def measure(api: str, name: str, claim: str, wrap: Callable[[Any], Any], check: Callable[[str], Any],
            app: Callable[[], Any] | None = None) -> Outcome:  # fmt: skip
    started = time.monotonic()
    inner = Tap((app or (lambda: create_app(api=api)))(), mark=False)
    outer = Tap(wrap(inner), mark=True)
    with LiveServer(outer) as target:
        scale, now = clock_of(target.url)
        engine = Engine(api, target.url, CREDENTIALS.get(api, {}), clock_scale=scale, adopt_credentials=False)
        engine.meet(target.url, scale, now, CREDENTIALS.get(api, {}))
        try:
            with LiveServer(Front(engine, target.url), relay=True) as front, contextlib.suppress(BaseException):
                check(front.url)  # the hand-written check's verdict is discarded: only its traffic counts
        finally:
            found = engine.finish()
    # a wrapper that fails on an answer it was not written for (an NDJSON body read as JSON) is not the
    # drift under measure: differences of the operations it failed on are left out
    crashed = set()
    for method, path in outer.crashed:
        op, _, _ = engine.router.match(method, path)
        crashed.add(f"{method} {op.template}" if op is not None else f"{method} {path}")
    lines = [d.line() for d in found if d.operation not in crashed]
    return Outcome(api, name, claim, changed(outer, inner), lines, time.monotonic() - started, engine.ledger.compared)


def entries(api: str) -> list[tuple[str, str, Callable, Callable, Callable | None]]:
    """(name, claim, wrap, check, app) of every drift the catalogue holds for `api`."""
    from tests.drift import test_bench, test_benchgen, test_benchsdk, test_benchwright, test_benchwright_resources

    out = []
    if api == "benchwright":
        for module in (test_benchwright, test_benchwright_resources):
            apps = getattr(module, "APPS", {})
            names = {id(v): k for k, v in getattr(module, "CHECKS", {}).items()}
            for name, _kind, claim, wrap, check in module.DRIFTS:
                out.append((name, claim, wrap, check, apps.get(names.get(id(check), ""))))
        return out
    module = {"bench": test_bench, "benchgen": test_benchgen, "benchsdk": test_benchsdk}[api]
    for entry in module.DRIFTS:
        name, _kind, claim, wrap = entry[:4]
        out.append((name, claim, wrap, entry[4] if len(entry) > 4 else module._crawl, None))
    for name, _kind, claim, wrap, check in module.SUITE_DRIFTS:
        out.append((name, claim, wrap, module.SUITE_CHECKS[check] if isinstance(check, str) else check, None))
    return out


def run(api: str) -> list[Outcome]:
    return [measure(api, name, claim, wrap, check, app) for name, claim, wrap, check, app in entries(api)]


def render(results: dict[str, list[Outcome]]) -> str:
    lines = ["# The drift catalogue, differential mode alone", "",
             "| API | drifts | change an answer | reported | share |", "|---|---:|---:|---:|---:|"]  # fmt: skip
    for api, outcomes in results.items():
        changing = [o for o in outcomes if o.changes]
        hit = [o for o in changing if o.reported]
        share = 100.0 * len(hit) / len(changing) if changing else 100.0
        lines.append(f"| {api} | {len(outcomes)} | {len(changing)} | {len(hit)} | {share:.0f}% |")
    lines.append("")
    for api, outcomes in results.items():
        missed = [o for o in outcomes if o.changes and not o.reported]
        quiet = [o for o in outcomes if not o.changes]
        lines += [f"## {api}", "", f"Missed ({len(missed)}):", ""]
        lines += [f"- `{o.name}` ({o.claim})" for o in missed] or ["- none"]
        lines += ["", f"Changing no answer of its session ({len(quiet)}): "
                  + ", ".join(f"`{o.name}`" for o in quiet), ""]  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    out = Path("reports/differential-catalogue.md")
    if argv[:1] == ["--out"]:
        out, argv = Path(argv[1]), argv[2:]
    apis = argv or ["bench", "benchgen", "benchsdk", "benchwright"]
    results = {}
    for api in apis:
        results[api] = run(api)
        print(render({api: results[api]}).splitlines()[4], flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(results), encoding="utf-8")
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
