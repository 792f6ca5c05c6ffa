"""`python -m mock_server.stress [--short] [--api NAME] [--out reports/stress.md]` (`make stress`).

Per API, on one fresh mock process: plant the secrets (item 5), fuzz (item 1), the
hostile catalogue (item 2), the races (item 3), the streams (item 4), then scan
everything said for the secrets (item 5). Then the uptime run (item 6, Benchwright).
`--short` is the CI size (a few hundred fuzz cases without schemathesis' coverage phase, 50
streams over two rounds, 30 s of launches).
Exits non-zero when any property failed; the report holds every figure either way.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import concurrency, disclosure, fuzz, hostile, streams, uptime
from .process import MockProcess
from .report import render
from .targets import TARGETS, available

FULL = {"fuzz": 10_000, "streams": 200, "rounds": 3, "launches": 100_000, "uptime_seconds": 240}
SHORT = {"fuzz": 300, "streams": 50, "rounds": 2, "launches": 2_000, "uptime_seconds": 30}


def run_api(name: str, size: dict[str, int]) -> dict:
    out: dict = {"api": name}
    with MockProcess(name) as mock:
        secrets = disclosure.plant(mock)
        said: list[str] = []
        started = time.monotonic()
        phases = "examples,fuzzing" if size["fuzz"] < 10_000 else "examples,coverage,fuzzing"
        out["fuzz"] = fuzz.run(mock, size["fuzz"], phases=phases)
        said.extend(out["fuzz"].bodies)
        out["fuzz"].bodies = []
        outcomes, memory = hostile.run(mock, TARGETS[name])
        out["hostile"], out["hostile_memory"] = outcomes, memory
        said.extend(o.body.decode("latin-1") for o in outcomes)
        out["races"] = concurrency.run(mock)
        out["streams"] = streams.run(mock, size["streams"], size["rounds"])
        secrets += disclosure.probe(mock, said)
        swept = disclosure.sweep(mock)
        out["disclosure"] = disclosure.scan(name, secrets, {"responses": said, **swept})
        out["alive"] = mock.alive()
        out["seconds"] = round(time.monotonic() - started, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mock_server.stress", description=__doc__)
    parser.add_argument("--short", action="store_true", help="the CI size")
    parser.add_argument("--api", action="append", choices=sorted(TARGETS), help="only this API (repeatable)")
    parser.add_argument("--out", default="reports/stress.md")
    parser.add_argument("--launches", type=int, default=None, help="uptime launches (item 6)")
    args = parser.parse_args(argv)
    size = dict(SHORT if args.short else FULL)
    if args.launches is not None:
        size["launches"] = args.launches
    names = [n for n in (args.api or available()) if n in available()]
    started = time.monotonic()
    results = []
    for name in names:
        print(f"stress: {name}", flush=True)
        results.append(run_api(name, size))
    up = None
    if "benchwright" in names and size["launches"]:
        print(f"stress: uptime ({size['launches']} launches)", flush=True)
        up = uptime.run(size["launches"], budget=size["uptime_seconds"])
    text, ok = render(
        results, up, size, skipped=[n for n in TARGETS if n not in names], seconds=time.monotonic() - started
    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
