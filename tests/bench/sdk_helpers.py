"""Shared by the tests that drive trybench-sdk's other doors (tracer, OTel bridge, evaluation helpers, CLI)
against the `bench_mock` fixture: the marker naming the entry points a test drives, and read-backs through the
platform API (`BenchPlatform`, itself the published client)."""

from __future__ import annotations

from typing import Any

import pytest
from bench_sdk import Bench, BenchPlatform

from harness_fixtures import BenchControl, ServedMock

Mock = ServedMock[BenchControl]

# `@covers("tracer:Bench.trace", ...)`: the entry points of tests/bench/entry_points.json a test drives
covers = pytest.mark.entry_point

REPO, BRANCH = "acme/support-bot", "main"
SYSTEM = 123  # the seeded system of acct_growth, the account of every ready credential


def tracer(mock: Mock, **options: Any) -> Bench:
    """A `Bench` tracer with the mock's SDK key (`BENCH_SDK_KEY`, the `bench_sk_` form it requires)."""
    options.setdefault("environment", "staging-eu")
    return Bench(
        api_key=mock.credentials["BENCH_SDK_KEY"], repository=REPO, branch=BRANCH, endpoint=mock.url, **options
    )


def platform(mock: Mock, key: str = "BENCH_API_KEY") -> BenchPlatform:
    return BenchPlatform(mock.credentials[key], endpoint=mock.url)


def traces(mock: Mock, **query: str) -> list[dict[str, Any]]:
    """list_traces, filtered as asked."""
    return platform(mock).call("list_traces", query=query)["items"]


def only_trace(mock: Mock, environment: str = "staging-eu") -> dict[str, Any]:
    """The one trace of `environment`, read whole with get_trace."""
    found = traces(mock, environment=environment)
    assert len(found) == 1, [t["id"] for t in found]
    return platform(mock).call("get_trace", path={"id": found[0]["id"]})["trace"]


def by_name(trace: dict[str, Any]) -> dict[str, dict[str, Any]]:
    spans = {s["name"]: s for s in trace["spans"]}
    assert len(spans) == len(trace["spans"]), "span names repeat"
    return spans


def parents(trace: dict[str, Any]) -> dict[str, str | None]:
    """Each span's parent, by name (None for a root)."""
    ids = {s["span_id"]: s["name"] for s in trace["spans"]}
    return {s["name"]: ids.get(s.get("parent_span_id")) if s.get("parent_span_id") else None for s in trace["spans"]}
