"""`reports/stress.md`: every figure of the stress suite, and which properties failed."""

from __future__ import annotations

import datetime as dt
from typing import Any

from .hostile import RSS_BOUND_KB


def _yes(ok: bool) -> str:
    return "pass" if ok else "**FAIL**"


def render(results: list[dict], up: Any, size: dict, skipped: list[str], seconds: float) -> tuple[str, bool]:
    ok = True
    lines = [
        "# Stress: reliability, non-disclosure and speed of the mocks",
        "",
        f"Generated {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC by `python -m mock_server.stress`"
        f"{' --short' if size['fuzz'] < 10_000 else ''} in {seconds:.0f} s. "
        "Every mock ran as its own process (`python -m mock_server`, uvicorn); memory is its RSS from /proc.",
    ]
    if skipped:
        lines.append(f"Not run (the app does not build, or not asked for): {', '.join(skipped)}.")
    lines += ["", "## 1. Fuzzing (schemathesis, every operation)", "",
              "| API | operations | cases | passed | failed | 5xx seen | failures by check | s |", "|---|---:|---:|---:|---:|---:|---|---:|"]  # fmt: skip  # noqa: E501
    for r in results:
        f = r["fuzz"]
        ok &= f.ok
        checks = ", ".join(f"{k}: {v}" for k, v in f.failures.items()) or "none"
        lines.append(
            f"| {r['api']} | {f.operations} | {f.cases} | {f.passed} | {f.failed} | {f.server_errors} | {checks} | {f.seconds} |"  # noqa: E501
        )
    excerpts = [(r["api"], r["fuzz"].excerpt) for r in results if r["fuzz"].excerpt and not r["fuzz"].ok]
    for api, text in excerpts:
        lines += [
            "",
            f"<details><summary>{api}: first failures</summary>",
            "",
            "```",
            text.strip()[:2500],
            "```",
            "</details>",
        ]
    lines += ["", "## 2. Hostile-input catalogue", "",
              "| API | cases | pass | fail | RSS before / peak / after (MiB) |", "|---|---:|---:|---:|---|"]  # fmt: skip  # noqa: E501
    failures = []
    for r in results:
        outs, mem = r["hostile"], r["hostile_memory"]
        bad = [o for o in outs if not o.ok]
        grown = mem["rss_after_kb"] - mem["rss_before_kb"]
        mem_ok = grown < RSS_BOUND_KB
        ok &= not bad and mem_ok and r["alive"]
        failures += bad
        lines.append(
            f"| {r['api']} | {len(outs)} | {len(outs) - len(bad)} | {len(bad)} | "
            f"{mem['rss_before_kb'] / 1024:.0f} / {mem['rss_peak_kb'] / 1024:.0f} / {mem['rss_after_kb'] / 1024:.0f}"
            f"{'' if mem_ok else ' **unbounded**'} |"
        )
    if failures:
        lines += ["", "Failed cases:", "", "| API | case | status | why |", "|---|---|---:|---|"]
        lines += [f"| {o.api} | {o.case} | {o.status} | {o.note} |" for o in failures]
    if results:
        lines += ["", "Every case, per API (status; s):", ""]
        for r in results:
            cells = "; ".join(f"{o.case} {o.status}{'' if o.ok else ' FAIL'}" for o in r["hostile"])
            lines.append(f"- {r['api']}: {cells}")
    lines += ["", "## 3. Concurrency", "", "| API | race | statuses | result | note |", "|---|---|---|---|---|"]
    for r in results:
        for race in r["races"]:
            ok &= race.ok
            lines.append(f"| {race.api} | {race.name} | {race.statuses} | {_yes(race.ok)} | {race.note} |")
    lines += ["", "## 4. Streams", "",
              "| API | kind | opened (rounds) | first event read | tasks baseline -> after each round | RSS per round (MiB) | result |",  # noqa: E501
              "|---|---|---:|---:|---|---|---|"]  # fmt: skip
    slow = []
    for r in results:
        for s in r["streams"]:
            ok &= s.ok
            if hasattr(s, "tasks_after"):
                rss = " / ".join(f"{k / 1024:.1f}" for k in s.rss_kb)
                lines.append(
                    f"| {s.api} | {s.kind} | {s.opened} ({len(s.tasks_after)}) | {s.first_events} | {s.baseline_tasks} -> {s.tasks_after} | {rss} | {_yes(s.ok)} |"  # noqa: E501
                )
            else:
                slow.append(s)
    for s in slow:
        lines += ["", f"Slow readers ({s.api}): {s.readers} sockets that never read (a full SSE backfill and a 100-run page); "  # noqa: E501
                  f"GET /v1/runs p99 {s.p99_alone_ms} ms alone, {s.p99_with_ms} ms beside them ({s.note}): {_yes(s.ok)}."]  # fmt: skip  # noqa: E501
    lines += [
        "",
        "## 5. Non-disclosure",
        "",
        "| API | secrets sent | texts scanned | occurrences | result |",
        "|---|---:|---|---|---|",
    ]
    for r in results:
        d = r["disclosure"]
        ok &= d.ok
        scanned = ", ".join(f"{k} {v}" for k, v in d.sources.items())
        lines.append(
            f"| {r['api']} | {d.secrets} | {scanned} | {len(d.hits)}{': ' + '; '.join(d.hits) if d.hits else ''} | {_yes(d.ok)} |"  # noqa: E501
        )
    lines += ["", "## 6. Uptime (Benchwright, one process, clock running)", ""]
    if up is None:
        lines.append("Not run.")
    else:
        errors_ok = not up.errors
        drift_ok = up.p99_drift <= 2.0 and up.p50_drift <= 2.0
        ok &= errors_ok and drift_ok
        extrapolated = (up.windows[-1].rss_kb if up.windows else up.rss_start_kb) / 1024 + up.kb_per_launch * (
            100_000 - up.launches
        ) / 1024
        lines += [
            f"Ran {up.launches} of the planned {up.planned} launches (every fifth also read its events) in {up.seconds} s "  # noqa: E501
            f"(budget {up.budget:.0f} s), 8 concurrent clients, clock scale {up.clock_scale} (a run finishes in about a second); "  # noqa: E501
            f"non-202: {up.errors or 'none'}.",
            "",
            "| launches so far | p50 ms | p99 ms | RSS MiB |", "|---:|---:|---:|---:|",
            *(f"| {w.launches} | {w.p50_ms} | {w.p99_ms} | {w.rss_kb / 1024:.0f} |" for w in up.windows),
            "",
            f"- last window / first window: p99 {up.p99_drift:.2f}, p50 {up.p50_drift:.2f} (stable means both <= 2): "
            f"{_yes(drift_ok)}",
            f"- memory per launch: {up.kb_per_launch:.1f} KiB; RSS start {up.rss_start_kb / 1024:.0f} MiB. Extrapolation rule: "  # noqa: E501
            f"RSS(n) = RSS(start) + n x {up.kb_per_launch:.1f} KiB, so 100,000 launches would hold about {extrapolated:.0f} MiB. "  # noqa: E501
            "Retention (docs/reliability.md): each owner keeps its newest 1,000 finished runs with their events, "
            "tasks and artifacts (`--set keep_finished_runs=N`); ledger rows and Idempotency-Key entries (24 h) are kept, "  # noqa: E501
            "so what still grows per launch is those.",
        ]  # fmt: skip
    lines += ["", "## 7. Speed", "", "See `reports/bench.md` (`make bench`)."]
    lines += ["", f"**Overall: {'pass' if ok else 'FAIL'}**", ""]
    return "\n".join(lines), ok
