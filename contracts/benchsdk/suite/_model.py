"""An independent model of what the read path computes from the records a client sent (A-96, A-98),
written from the spec's words, not from the mock: `getRunResults` counts `status: success` and
`status: error` (anything else is `otherCount`), `successRate = successCount / taskCount` (0 over no
records), latency percentiles are nearest-rank over `latencyMs`, one step row per (participant, step
name); where a `taskIndex` was reported more than once the latest batch's record counts (A-44);
`getRunTaskResults` groups task indices `bucketSize` at a time with nearest-rank p50/p95/max per bucket,
counts every error record (`failureCount`) and lists at most `failureLimit` of them.

`sent_records()` is the hypothesis strategy the model is checked on: enough records (over a hundred) that the
nearest ranks of min, p50, p95, p99 and max are five different records, distinct latencies so that
different ranks give different numbers, success and error counts that differ from each other and from
half, and buckets of at least twenty tasks so that a bucket's p95 is not its max. A wrong rule (floor
rank, interpolation, p95 and p99 swapped, p99 read as the max, the first resent record kept) therefore
gives a different answer than the model."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

# more than 100 records: below that, the nearest rank of p99 is the last one (p99 = max)
MIN_RECORDS, MAX_RECORDS = 101, 140
# a bucket of at least 20 tasks: below that, the nearest rank of p95 is the last one (p95 = max)
MIN_BUCKET, MAX_BUCKET = 21, 45
PERCENTILES = {"p50": 50, "p95": 95, "p99": 99}


def nearest_rank(ordered: list[float], pct: float) -> float | None:
    """The smallest value with at least `pct` % of the values at or below it."""
    if not ordered:
        return None
    return ordered[max(1, math.ceil(pct * len(ordered) / 100)) - 1]


def latency(values: list[float]) -> dict[str, float | None]:
    ordered = sorted(values)
    stats: dict[str, float | None] = {
        "min": ordered[0] if ordered else None,
        "avg": sum(ordered) / len(ordered) if ordered else None,
    }
    stats |= {name: nearest_rank(ordered, pct) for name, pct in PERCENTILES.items()}
    stats["max"] = ordered[-1] if ordered else None
    return stats


def counts(items: list[dict[str, Any]]) -> dict[str, Any]:
    success = sum(1 for i in items if i["status"] == "success")
    error = sum(1 for i in items if i["status"] == "error")
    return {
        "successCount": success,
        "errorCount": error,
        "otherCount": len(items) - success - error,
        "successRate": success / len(items) if items else 0,
        "latencyMs": latency([i["latencyMs"] for i in items if "latencyMs" in i]),
    }


def effective(batches: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One record per taskIndex, the latest batch's (batches in the order they were sent)."""
    latest: dict[int, dict[str, Any]] = {}
    for records in batches:
        for record in records:
            latest[record["taskIndex"]] = record
    return [latest[i] for i in sorted(latest)]


def results(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The overall row (and, with one participant, its row), and one row per step name."""
    steps: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        for step in record.get("steps") or []:
            steps.setdefault(step["name"], []).append(step)
    return {
        "overall": {"taskCount": len(records), **counts(records)},
        "steps": {name: {"stepCount": len(items), **counts(items)} for name, items in steps.items()},
    }


def buckets(records: list[dict[str, Any]], size: int) -> dict[int, dict[str, Any]]:
    grouped: dict[int, list[dict[str, Any]]] = {}
    for record in records:
        grouped.setdefault(record["taskIndex"] // size, []).append(record)
    out = {}
    for k, items in grouped.items():
        stats = latency([i["latencyMs"] for i in items])
        out[k * size] = {
            "bucketEnd": (k + 1) * size - 1,
            "taskCount": len(items),
            "successCount": sum(1 for i in items if i["status"] == "success"),
            "errorCount": sum(1 for i in items if i["status"] == "error"),
            "latencyMs": {name: stats[name] for name in ("p50", "p95", "max")},
        }
    return out


@dataclass(frozen=True)
class Sent:
    """What the suite sends: `batches` in order (the last one resends one task with other values), the
    bucket size and failure limit it reads the buckets with."""

    batches: list[list[dict[str, Any]]]
    bucket_size: int
    failure_limit: int

    @property
    def tasks(self) -> int:
        return len(self.batches[0]) + len(self.batches[1])


def _distinct(stats: dict[str, float | None]) -> bool:
    """The answers a neighbouring rule would give differ: every statistic a different number."""
    values = [stats[k] for k in ("min", "avg", "p50", "p95", "p99", "max")]
    return len(set(values)) == len(values)


def _telling(n: int) -> bool:
    return all(n * pct % 100 and (n - 1) * pct % 100 for pct in (PERCENTILES["p95"], PERCENTILES["p99"]))


@st.composite
def sent_records(draw: st.DrawFn) -> Sent:
    # an even count at which the ranks of p95 and p99 are no whole numbers: there the nearest rank differs
    # from the floor rank (p95, p99) and from a linear interpolation between neighbours (p50, p95, p99)
    n = draw(st.integers(MIN_RECORDS // 2 + 1, MAX_RECORDS // 2).map(lambda k: 2 * k).filter(_telling))
    pool = draw(st.lists(st.integers(1, 60_000), min_size=2 * n + 1, max_size=2 * n + 1, unique=True))
    task_ms = draw(st.permutations(pool[:n]))
    create_ms = pool[n : 2 * n]
    errors = draw(st.sets(st.integers(0, n - 1), min_size=2, max_size=n - 2).filter(lambda s: 2 * len(s) != n))
    uploads = draw(st.sets(st.integers(0, n - 1), min_size=MIN_RECORDS, max_size=n))
    sent = []
    for i in range(n):
        record: dict[str, Any] = {"taskIndex": i, "status": "error" if i in errors else "success"}
        if i in errors:
            record["errorCode"] = "TIMEOUT"
        record["latencyMs"] = task_ms[i]
        record["steps"] = [{"name": "create", "status": record["status"], "latencyMs": create_ms[i]}]
        if i in uploads:  # a step on some records only: its row is its own records'
            record["steps"].append({"name": "upload", "status": "success", "latencyMs": create_ms[i] + 1})
        sent.append(record)
    cut = draw(st.integers(1, n - 1))
    again = draw(st.integers(0, n - 1))
    flipped = "success" if sent[again]["status"] == "error" else "error"
    resent = {**sent[again], "status": flipped, "latencyMs": pool[2 * n], "steps": sent[again]["steps"][:1]}
    if flipped == "error":
        resent["errorCode"] = "STORAGE_ERROR"
    else:
        resent.pop("errorCode", None)
    out = Sent(
        batches=[sent[:cut], sent[cut:], [resent]],
        bucket_size=draw(st.integers(MIN_BUCKET, MAX_BUCKET)),
        failure_limit=draw(st.integers(1, 2)),
    )
    model = results(effective(out.batches))
    overall = model["overall"]
    # wrong answers must differ: every statistic its own number, success and error counts apart, and the
    # resent record's latency not at the rank it would take in the first record's place
    assume(_distinct(overall["latencyMs"]) and overall["successCount"] != overall["errorCount"])
    first = results(sent)["overall"]
    assume(first["latencyMs"] != overall["latencyMs"] and first["successCount"] != overall["successCount"])
    assume(_distinct(model["steps"]["create"]["latencyMs"]))
    return out
