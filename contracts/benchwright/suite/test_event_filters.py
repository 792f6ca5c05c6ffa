"""§5.1 the events listing, clause by clause (contracts/benchwright/clauses.py): seq order
(§5.1#1), `after_seq` (§5.1#2) and `before_seq` (§5.1#3) bounds, `order=desc` (§5.1#4),
`types` (§5.1#5), `exclude_types` (§5.1#6), and both at once, where `exclude_types` wins
(§5.1#7). Each request is a read of one run's events, compared with the run's whole list:
on the mock a fresh finished run, on a live target the caller's latest finished run."""

from __future__ import annotations

import pytest

from contracts.benchwright.suite._support import body_of, expect, finished_run

OP = "GET /v1/runs/{id}/events"


@pytest.fixture(scope="module")
def events(client, target):
    run_id = finished_run(client, target)
    if run_id is None:
        pytest.skip("no finished run to read events from")
    response = client.get(f"/v1/runs/{run_id}/events", params={"limit": 1000})
    data = (body_of(response) or {}).get("data") or []
    if len({e.get("type") for e in data}) < 2:
        pytest.skip("the run's events are of fewer than two types")
    return run_id, data


def _read(client, run_id: str, **params) -> tuple[list[dict], object]:
    response = client.get(f"/v1/runs/{run_id}/events", params={"limit": 1000, **params})
    expect(response.status_code == 200, "spec.status", OP, f"{params} answered {response.status_code}", response)
    return (body_of(response) or {}).get("data") or [], response


def _seqs(rows: list[dict]) -> list[int]:
    return [row.get("seq") for row in rows]


def test_events_come_in_seq_order_and_desc_reverses_it(client, events):
    """§5.1#1, §5.1#4."""
    run_id, data = events
    seqs = _seqs(data)
    expect(seqs == sorted(seqs), "§5.1#1", OP, f"the default order is not seq-ascending: {seqs[:10]}")
    desc, response = _read(client, run_id, order="desc")
    expect(_seqs(desc) == sorted(seqs, reverse=True), "§5.1#4", OP, "order=desc is not newest first", response)


def test_after_and_before_seq_bound_the_window(client, events):
    """§5.1#2, §5.1#3: exclusive bounds, alone and together."""
    run_id, data = events
    seqs = _seqs(data)
    low, high = seqs[len(seqs) // 4], seqs[(3 * len(seqs)) // 4]
    after, response = _read(client, run_id, after_seq=low)
    expect(_seqs(after) == [s for s in seqs if s > low], "§5.1#2", OP, f"after_seq={low} is not seq > {low}", response)
    before, response = _read(client, run_id, before_seq=high)
    expect(
        _seqs(before) == [s for s in seqs if s < high], "§5.1#3", OP, f"before_seq={high} is not seq < {high}", response
    )
    window, response = _read(client, run_id, after_seq=low, before_seq=high)
    expect(
        _seqs(window) == [s for s in seqs if low < s < high],
        "§5.1#3",
        OP,
        f"after_seq={low}&before_seq={high} is not the window between them",
        response,
    )


def test_types_and_exclude_types_filter_and_exclude_wins(client, events):
    """§5.1#5, §5.1#6, §5.1#7."""
    run_id, data = events
    kinds = sorted({e.get("type") for e in data})
    keep, drop = kinds[0], kinds[-1]
    only, response = _read(client, run_id, types=keep)
    expect(
        _seqs(only) == [e["seq"] for e in data if e.get("type") == keep],
        "§5.1#5",
        OP,
        f"types={keep} is not exactly the {keep} events",
        response,
    )
    without, response = _read(client, run_id, exclude_types=drop)
    expect(
        _seqs(without) == [e["seq"] for e in data if e.get("type") != drop],
        "§5.1#6",
        OP,
        f"exclude_types={drop} is not every event but the {drop} ones",
        response,
    )
    both, response = _read(client, run_id, types=keep, exclude_types=drop)
    expect(
        _seqs(both) == _seqs(without),
        "§5.1#7",
        OP,
        f"types={keep}&exclude_types={drop} is not what exclude_types={drop} alone answers",
        response,
    )


def test_has_more_means_the_page_came_back_full(client, events):
    """§5.1#9: a page exactly as long as its limit says `has_more: true`, even when nothing follows;
    a page shorter than its limit says `false`."""
    run_id, data = events
    for limit, full in ((len(data), True), (len(data) + 1, False)):
        response = client.get(f"/v1/runs/{run_id}/events", params={"limit": limit})
        more = ((body_of(response) or {}).get("pagination") or {}).get("has_more")
        expect(
            more is full,
            "§5.1#9",
            OP,
            f"limit={limit} over {len(data)} events answered has_more={more!r}",
            response,
        )
