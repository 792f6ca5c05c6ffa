"""§3.5 filter operators and sorts, on the run list (it declares them: `x-filters`, `x-sorts`).

Each operator is read against the unfiltered list of the same target: a value with no prefix is an
exact match (§3.5#1), `in:` set membership (§3.5#2), `gte:`/`lte:` inclusive bounds (§3.5#3),
`gt:`/`lt:` strict ones (§3.5#4), `like:` a case-sensitive pattern (§3.5#5), `ilike:` a
case-insensitive one (§3.5#6); `sort` orders by its key, `-` reversing (§3.5#7), and a comma list
orders ties of the first key by the next (§3.5#8). Unknown filter keys are ignored (`filters.unknown`).

When the unfiltered list fits one page, a filter must keep exactly the rows that match; on a longer
list, every row it keeps must match. On the mock, a few runs are launched first (at distinct times, one
erring and one still running, so there is something to tell apart, bound and order); a live target is read as it is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime
from itertools import pairwise
from typing import Any

import pytest

from contracts.benchwright.suite._support import advance, body_of, expect, launch_run
from contracts.benchwright.suite.conftest import require

OP = "GET /v1/runs"
REQUESTS = ("Run MMLU Abstract Algebra via OpenRouter", "Run GSM8K via OpenRouter", "Run MMLU Anatomy via OpenRouter")
Row = dict[str, Any]


def _instant(value: Any) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if isinstance(value, str) else None


def _billed(row: Row) -> float:
    return float((((row.get("cost") or {}).get("billed") or {}).get("amount_usd")) or 0)


class Runs:
    """The unfiltered run list, and filtered reads checked against it."""

    def __init__(self, client) -> None:
        self.client = client
        self.all, response = self.read()
        self.complete = not ((body_of(response) or {}).get("pagination") or {}).get("has_more")

    def read(self, **params: str) -> tuple[list[Row], Any]:
        response = self.client.get("/v1/runs", params={"limit": 100, **params})
        expect(response.status_code == 200, "spec.status", OP, f"{params} answered {response.status_code}", response)
        return (body_of(response) or {}).get("data") or [], response

    def keeps(self, clause: str, params: dict[str, str], match: Callable[[Row], bool]) -> None:
        rows, response = self.read(**params)
        ids = [row.get("id") for row in rows]
        wanted = [row.get("id") for row in self.all if match(row)]
        stray = [row.get("id") for row in rows if not match(row)]
        missing = sorted(set(wanted) - set(ids)) if self.complete else []
        expect(
            not stray and not missing,
            clause,
            OP,
            f"{params} kept {len(stray)} rows that do not match and left out {len(missing)} that do",
            response,
        )

    def ordered(self, clause: str, sort: str, key: Callable[[Row], Any], descending: bool) -> list[Row]:
        rows, response = self.read(sort=sort)
        values = [key(row) for row in rows if key(row) is not None]
        expect(
            values == sorted(values, reverse=descending),
            clause,
            OP,
            f"?sort={sort} is not in {'descending' if descending else 'ascending'} order",
            response,
        )
        return rows


def test_filter_operators_and_sorts(client, target, policy):
    """§3.5#1-#8, and the unknown key ignored (`filters.unknown`)."""
    if target.control:
        require(policy, "launchRun")
        for index, request in enumerate(REQUESTS):
            launch_run(client, request=request, metadata={"mock_outcome": "error"} if index == 1 else {})
            advance(target, 60)
        advance(target, 600)
        launch_run(client, request=REQUESTS[0])  # one still running
        advance(target, 5)
    runs = Runs(client)
    if len(runs.all) < 2:
        pytest.skip("fewer than two runs to filter and sort")
    counts = Counter(str(row.get("status")) for row in runs.all)
    rarest = min(counts, key=lambda status: (counts[status], status))
    runs.keeps("§3.5#1", {"status": rarest}, lambda row: row.get("status") == rarest)
    statuses = sorted(counts)
    chosen = set(statuses[:2]) if len(statuses) > 2 else {statuses[0], "error"}
    runs.keeps("§3.5#2", {"status": "in:" + ",".join(sorted(chosen))}, lambda row: row.get("status") in chosen)
    starts = sorted({_instant(row.get("started_at")) for row in runs.all} - {None})
    if starts:
        pivot = starts[len(starts) // 2]
        at = pivot.isoformat().replace("+00:00", "Z")

        def started(row: Row) -> datetime | None:
            return _instant(row.get("started_at"))

        runs.keeps(
            "§3.5#3", {"started_at": f"gte:{at}"}, lambda row: started(row) is not None and started(row) >= pivot
        )
        runs.keeps(
            "§3.5#3", {"started_at": f"lte:{at}"}, lambda row: started(row) is not None and started(row) <= pivot
        )
        runs.keeps("§3.5#4", {"started_at": f"gt:{at}"}, lambda row: started(row) is not None and started(row) > pivot)
        runs.keeps("§3.5#4", {"started_at": f"lt:{at}"}, lambda row: started(row) is not None and started(row) < pivot)
    name = next(
        (str(row["benchmark_name"]) for row in runs.all if str(row.get("benchmark_name") or "")[:1].isalpha()), ""
    )
    if name:
        stem = name[:3]
        runs.keeps(
            "§3.5#5", {"benchmark": f"like:{stem}%"}, lambda row: str(row.get("benchmark_name")).startswith(stem)
        )
        swapped = stem.swapcase()
        runs.keeps(
            "§3.5#5", {"benchmark": f"like:{swapped}%"}, lambda row: str(row.get("benchmark_name")).startswith(swapped)
        )
        runs.keeps(
            "§3.5#6",
            {"benchmark": f"ilike:{swapped}%"},
            lambda row: str(row.get("benchmark_name")).lower().startswith(stem.lower()),
        )
    runs.ordered("§3.5#7", "started_at", lambda row: _instant(row.get("started_at")), descending=False)
    runs.ordered("§3.5#7", "-started_at", lambda row: _instant(row.get("started_at")), descending=True)
    rows = runs.ordered("§3.5#8", "-cost_billed,started_at", _billed, descending=True)
    pairs = [(_billed(row), _instant(row.get("started_at"))) for row in rows]
    ties = [(a, b) for a, b in pairwise(pairs) if a[0] == b[0] and None not in (a[1], b[1]) and a[1] > b[1]]
    expect(not ties, "§3.5#8", OP, f"?sort=-cost_billed,started_at leaves ties out of started_at order: {ties[:2]}")
    ignored, response = runs.read(no_such_field="x")
    expect(
        [row.get("id") for row in ignored] == [row.get("id") for row in runs.all],
        "filters.unknown",
        OP,
        "an unknown filter key changed the list",
        response,
    )
