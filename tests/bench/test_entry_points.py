"""The inventory of trybench-sdk's entry points (tests/bench/entry_points.json) is the installed package's whole
public surface, and each entry point is driven by a test against the mock: tests name what they drive with
`@covers(...)` (the `entry_point` marker), and a test that names one must take the `bench_mock` fixture
(except the runtime gateway, whose transport is files, not HTTP). Also here: every catalog operation through
`BenchPlatform.call`, and the runtime gateway."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import inspect
import json
import threading
from pathlib import Path
from typing import Any

import bench_sdk
import pytest
from bench_sdk import Bench, BenchPlatform, BenchSpanExporter, EvaluationClient, PlatformError, RuntimeGateway
from bench_sdk import cli as bench_cli

from .sdk_helpers import Mock, covers

HERE = Path(__file__).parent
INVENTORY = json.loads((HERE / "entry_points.json").read_text())
IDS = {f"{group}:{name}" for group, g in INVENTORY["groups"].items() for name in g["entry_points"]}
CATALOG = BenchPlatform().operations()["operations"]
NO_HTTP = {"runtime_gateway"}  # groups whose entry points send nothing to the platform API


def _cli_parser() -> argparse.ArgumentParser:
    """The CLI's own parser, caught as `main()` builds it (the module builds it inside `main`)."""

    class Built(Exception):
        pass

    def catch(self, *args, **kwargs):
        raise Built(self)

    original = argparse.ArgumentParser.parse_args
    argparse.ArgumentParser.parse_args = catch  # type: ignore[method-assign]
    try:
        bench_cli.main()
    except Built as built:
        return built.args[0]
    finally:
        argparse.ArgumentParser.parse_args = original  # type: ignore[method-assign]
    raise AssertionError("bench_sdk.cli.main did not parse arguments")


def _public(cls: type) -> set[str]:
    return {n for n, v in vars(cls).items() if not n.startswith("_") and (callable(v) or isinstance(v, property))}


def test_the_inventory_is_the_installed_package():
    """Package and version read, and nothing of its public surface missing: every catalog operation, every
    public method of the tracer, exporter and evaluation client, every CLI command and flag."""
    assert (INVENTORY["package"], INVENTORY["version"]) == ("trybench-sdk", importlib.metadata.version("trybench-sdk"))
    groups = {g: set(v["entry_points"]) for g, v in INVENTORY["groups"].items()}
    assert {n.removeprefix("call:") for n in groups["platform"] if n.startswith("call:")} == {o["id"] for o in CATALOG}
    assert _public(BenchPlatform) - {"call"} <= {n.removeprefix("BenchPlatform.") for n in groups["platform"]}
    assert {f"Bench.{n}" for n in _public(Bench) - {"trace"}} <= groups["tracer"] and "Bench.trace" in groups["tracer"]
    options = set(inspect.signature(Bench.__init__).parameters) - {"self"}
    assert {f"Bench({o}=)" for o in options} <= groups["tracer"]
    trace_options = set(inspect.signature(Bench.trace).parameters) - {"self", "name"}
    assert {f"Bench.trace({o}=)" for o in trace_options} <= groups["tracer"]
    assert {f"BenchSpanExporter.{n}" for n in _public(BenchSpanExporter)} <= groups["otel"]
    otel = importlib.import_module("bench_sdk.otel")
    assert {
        n
        for n, v in vars(otel).items()
        if inspect.isfunction(v) and v.__module__ == otel.__name__ and not n.startswith("_")
    } <= groups["otel"]
    assert {f"EvaluationClient.{n}" for n in _public(EvaluationClient)} == {
        n for n in groups["evaluations"] if n.startswith("EvaluationClient.")
    }
    assert {f"RuntimeGateway.{n}" for n in _public(RuntimeGateway)} == groups["runtime_gateway"]
    parser = _cli_parser()
    (command,) = [a for a in parser._actions if a.dest == "command"]
    flags = {s for a in parser._actions for s in a.option_strings if s.startswith("--") and s != "--help"}
    assert groups["cli"] == {f"bench eval {c}" for c in command.choices} | flags
    exported = set(bench_sdk.__all__) | {"BenchPlatform", "PlatformError"}
    named = {n.split(".")[0].split("(")[0].removeprefix("call:") for g in groups.values() for n in g}
    assert exported <= named | {"Bench", "Span"}, exported - named


def _marked() -> dict[str, list[tuple[str, Any]]]:
    """Each `@covers` id, with the tests (module:function, function) that name it."""
    found: dict[str, list[tuple[str, Any]]] = {}
    for path in sorted(HERE.glob("test_*.py")):
        module = importlib.import_module(f"{__package__}.{path.stem}")
        for name, fn in vars(module).items():
            if not name.startswith("test_") or not callable(fn):
                continue
            for mark in getattr(fn, "pytestmark", []):
                if mark.name == "entry_point":
                    for entry in mark.args:
                        found.setdefault(entry, []).append((f"{path.stem}:{name}", fn))
    return found


def test_every_entry_point_is_driven_against_the_mock():
    """Every inventoried entry point is named by a test; every name is inventoried; a naming test drives
    the mock (takes `bench_mock`), unless the entry point sends nothing over HTTP."""
    marked = _marked()
    assert sorted(IDS - set(marked)) == [], "entry points no test drives"
    assert sorted(set(marked) - IDS) == [], "tests name entry points the inventory lacks"
    for entry, tests in marked.items():
        if entry.split(":")[0] in NO_HTTP:
            continue
        for where, fn in tests:
            assert "bench_mock" in inspect.signature(fn).parameters, (entry, where)


# every catalog operation through the real client: seeded ids where the path names one, otherwise a
# placeholder; what comes back must be a success or an error the operation documents, never a route miss
SEEDED = {
    "id": "123",
    "componentID": "456",
    "datasetID": "ds_1",
    "owner": "acme",
    "repo": "support-bot",
    "installationID": "9001",
    "edgeID": "1",
    "spanID": "sp_1",
    "action": "events",
}
BY_PATH = {"/api/evaluation-runs/": "789", "/api/traces/{id}": "tr_seed"}


def _path(op: dict[str, Any]) -> dict[str, str]:
    values = {p: SEEDED.get(p, "x1") for p in op["path_parameters"]}
    for prefix, value in BY_PATH.items():
        if op["path"].startswith(prefix) and "id" in values:
            values["id"] = value
    return values


@pytest.mark.http
@covers("platform:PlatformError", *(f"platform:call:{o['id']}" for o in CATALOG))
@pytest.mark.parametrize("op", CATALOG, ids=[o["id"] for o in CATALOG])
def test_every_operation_answers_through_the_client(bench_mock: Mock, op: dict[str, Any]):
    """C-10–C-13, C-22, C-53: each operation, called through `BenchPlatform.call` with the account's OAuth
    credential (account operations need it, C-18) and an empty request, reaches its route and answers a
    success or a documented error, which the client raises as PlatformError with the server's code."""
    documented = bench_mock.control.openapi()
    spec_op = next(
        o
        for item in documented["paths"].values()
        for method, o in item.items()
        if isinstance(o, dict) and o.get("operationId") == op["id"]
    )
    platform = BenchPlatform(bench_mock.credentials["BENCH_OAUTH_TOKEN"], endpoint=bench_mock.url)
    kwargs: dict[str, Any] = {"path": _path(op)}
    if op["method"] in ("POST", "PUT", "PATCH"):
        kwargs.update({"form": {}, "files": []} if op.get("multipart") else {"body": {}})
    try:
        platform.call(op["id"], **kwargs)
    except PlatformError as error:
        codes = {c for cs in spec_op["x-errors"].values() for c in cs}
        assert error.status < 500 and error.code in codes, (error.status, error.code, error.details)
        assert str(error.status) in spec_op["x-errors"] or error.status == 200, error.status
    (sent,) = [e for e in bench_mock.control.journal() if e["operation_id"] == op["id"]]
    assert sent["method"] == op["method"]


@covers("runtime_gateway:RuntimeGateway.model")
def test_the_runtime_gateway_exchanges_files(tmp_path: Path, monkeypatch):
    """The guest side of the offline sandbox: each model call is a numbered request file, answered by a
    response file of the same number; an `error` answer raises. It sends nothing to the platform API."""
    monkeypatch.setenv("BENCH_GATEWAY_PATH", str(tmp_path))
    gateway = RuntimeGateway()
    seen: list[dict] = []

    def host() -> None:
        for n, answer in enumerate(({"message": {"role": "assistant", "content": "hi"}}, {"error": "quota"})):
            request = tmp_path / f"request-{n}.json"
            while not request.exists():
                threading.Event().wait(0.01)
            seen.append(json.loads(request.read_text()))
            (tmp_path / f"response-{n}.json").write_text(json.dumps(answer))

    worker = threading.Thread(target=host, daemon=True)
    worker.start()
    assert gateway.model([{"role": "user", "content": "hello"}], tools=[{"name": "lookup"}]) == {
        "role": "assistant",
        "content": "hi",
    }
    with pytest.raises(RuntimeError, match="quota"):
        gateway.model([{"role": "user", "content": "again"}])
    worker.join(5)
    assert seen == [
        {"operation": "model", "messages": [{"role": "user", "content": "hello"}], "tools": [{"name": "lookup"}]},
        {"operation": "model", "messages": [{"role": "user", "content": "again"}]},
    ]
