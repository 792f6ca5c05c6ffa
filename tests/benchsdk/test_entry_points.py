"""The inventory of the benchsdk client packages' entry points (`entry_points.json`: every
`@benchsdk/api` method of client.ts and the `@benchsdk/worker` behaviours read from worker.ts,
reporter.ts and metrics.ts, each with the commit read) has a test for each entry, against the mock.

Fails when a client method is not inventoried, an entry names no test, a named test does not exist,
or the test's module never reaches the entry's route (the operation's path in the spec)."""

from __future__ import annotations

import ast
import json
import re
from functools import cache
from pathlib import Path

import pytest

from mock_server.benchsdk.profile import PROFILE
from mock_server.engine.spec import iter_operations, load_bundle

from .client_types import DATA

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
INVENTORY = json.loads((HERE / "entry_points.json").read_text(encoding="utf-8"))
API = INVENTORY["packages"]["@benchsdk/api"]
WORKER = INVENTORY["packages"]["@benchsdk/worker"]
BEHAVIOURS = {
    "finish sequence",
    "heartbeats",
    "log flushing",
    "metrics",
    "readiness polling",
    "reporter round mode",
    "reclaim",
}


@cache
def routes() -> dict[str, str]:
    spec = load_bundle(PROFILE.spec_dir, PROFILE.expand)
    return {op["operationId"]: path for _, path, _, op in iter_operations(spec)}


@cache
def functions(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def _entries():
    for package in (API, WORKER):
        yield from package["entries"].items()


def reach(path: str) -> str:
    """The test module's source and that of the sibling modules it imports its calls from."""
    source = (ROOT / path).read_text(encoding="utf-8")
    siblings = re.findall(r"^from \.(\w+) import", source, re.M)
    return "\n".join([source, *((HERE / f"{name}.py").read_text(encoding="utf-8") for name in siblings)])


def test_every_client_method_is_inventoried():
    """client.ts's methods (client_types.json, read at the same commit) are the `@benchsdk/api` entries."""
    methods = {m for entry in DATA["operations"].values() for m in entry["client"]} | set(DATA["not_in_the_reference"])
    assert set(API["entries"]) == methods
    assert API["commit"] == DATA["source"]["commit"]
    assert set(WORKER["entries"]) == BEHAVIOURS
    for package in (API, WORKER):
        assert re.fullmatch(r"[0-9a-f]{40}", package["commit"]) and package["repository"] == "computesdk/benchmarks"


@pytest.mark.parametrize(("name", "entry"), list(_entries()), ids=[name for name, _ in _entries()])
def test_every_entry_names_tests_that_exist_and_reach_its_route(name, entry):
    assert entry["tests"], f"{name}: no test exercises it"
    for node in entry["tests"]:
        path, _, function = node.partition("::")
        assert function in functions(path), f"{name}: {node} does not exist"
        operation = entry.get("operation")
        if operation:
            route = routes()[operation]
            tail = [part for part in route.split("/") if part and not part.startswith("{")][-1]
            assert tail in reach(path), f"{name}: {path} never reaches {route}"
