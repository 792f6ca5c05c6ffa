"""The stock schemathesis CLI against every served mock, with the shipped `schemathesis.toml`.

The spec states every constraint the mock enforces: a schema-valid request is refused only
where the operation documents a refusal no schema can express (`x-schema-valid-refusals`),
and the shipped configuration tells schemathesis exactly those statuses on exactly those
operations. So `schemathesis run <mock>/__mock/openapi.json --checks all` reports no
failure of any kind (docs/schemathesis.md).

`SCHEMATHESIS_MAX_EXAMPLES` sets the examples per operation: small in `make test`, 25 for
the documented run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from mock_server.apis import APIS, bundle
from tests.test_serve import _free_port, _start

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "schemathesis.toml"
MAX_EXAMPLES = os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "2")
STOCK_EXPECTED = {"2XX", "3XX", "401", "403", "404", "409", "429", "5XX"}  # positive_data_acceptance's default
METHODS = ("get", "put", "post", "patch", "delete")


def _operations(api: str):
    for path, item in bundle(api)["paths"].items():
        for method in METHODS:
            if method in item:
                yield f"{method.upper()} {path}", item[method]


def _entries() -> list[dict]:
    return tomllib.loads(CONFIG.read_text(encoding="utf-8"))["operations"]


def _matches(entry: dict, op: dict) -> bool:
    """The entry's `include-by` (`/pointer == value`, the only form the file uses) on an operation."""
    pointer, _, value = entry["include-by"].partition("==")
    node = op
    for part in pointer.strip().strip("/").split("/"):
        node = node.get(part) if isinstance(node, dict) else None
    return node is not None and node == tomllib.loads(f"v = {value.strip()}")["v"]


@pytest.mark.parametrize("api", list(APIS))
def test_schema_valid_refusals_are_documented_and_configured(api):
    """Each `x-schema-valid-refusals`: its statuses are its codes' statuses, every code is one the
    operation documents (`x-errors`), and exactly one entry of the shipped configuration widens
    `positive_data_acceptance` by exactly those statuses; no other operation is widened but by
    the spec's own If-Match data (§3.8)."""
    entries = _entries()
    for name, op in _operations(api):
        matched = [e for e in entries if _matches(e, op)]
        assert len(matched) <= 1, (name, matched)
        refusals = op.get("x-schema-valid-refusals")
        if refusals is None:
            assert all("x-if-match" in e["include-by"] for e in matched), name
            continue
        codes = refusals["codes"]
        assert refusals["statuses"] == ",".join(sorted(codes)), name
        documented = op.get("x-error-codes") or op.get("x-errors") or {}
        for status, listed in codes.items():
            assert set(listed) <= set(documented.get(status, [])), (name, status, listed)
        assert len(matched) == 1, name
        widened = set(matched[0]["checks"]["positive_data_acceptance"]["expected-statuses"])
        assert widened == STOCK_EXPECTED | set(codes), name


def _credential(exports: dict[str, str]) -> str:
    return next(value for value in exports.values() if not re.match(r"https?://", value))


@pytest.mark.parametrize("api", list(APIS))
def test_stock_cli_reports_no_failures_against_the_served_mock(api):
    """`schemathesis run … --checks all` with the shipped configuration: exit 0, no failure."""
    port = _free_port()
    proc, exports = _start("--api", api, "--port", str(port))
    try:
        cli = Path(sys.executable).with_name("schemathesis")
        run = subprocess.run(
            [
                str(cli),
                "--config-file",
                str(CONFIG),
                "run",
                f"http://127.0.0.1:{port}/__mock/openapi.json",
                "--checks",
                "all",
                "--max-examples",
                MAX_EXAMPLES,
                "--seed",
                "1",
                "--wait-for-schema",
                "30",
                "--no-color",
                "-H",
                f"Authorization: Bearer {_credential(exports)}",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    failures = run.stdout.find("FAILURES")
    shown = run.stdout[failures : failures + 8000] if failures >= 0 else run.stdout[-6000:]
    assert run.returncode == 0, shown + run.stderr[-2000:]
