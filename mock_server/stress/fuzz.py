"""Issue item 1: schemathesis over every operation of the mock's own bundled spec.

`st run` (the schemathesis CLI of the pinned version) against the running process, phases
examples + coverage + fuzzing, checks `not_a_server_error` and the four conformance
checks (status code, content type, response headers, response schema), repeated with
new seeds until at least `cases` test cases have run. A HAR of every exchange is kept
so the non-disclosure scan (item 5) reads every response body the fuzzer received.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from .process import MockProcess
from .targets import TARGETS

CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance"  # noqa: E501
ST = Path(sys.executable).with_name("st")


@dataclass
class FuzzResult:
    api: str
    operations: int = 0
    cases: int = 0
    passed: int = 0
    failed: int = 0
    server_errors: int = 0  # 5xx responses in the HAR, whatever the checks said
    failures: dict[str, int] = field(default_factory=dict)  # check -> count, from the summary
    bodies: list[str] = field(default_factory=list)  # every response body, for the scan
    seconds: float = 0.0
    excerpt: str = ""

    @property
    def ok(self) -> bool:
        return self.cases > 0 and self.failed == 0 and not self.failures and self.server_errors == 0


def _token(mock: MockProcess) -> str:
    """Benchwright: a token of an account with the §13 ceilings raised, so fuzzing is not all 429s."""
    target = TARGETS[mock.api]
    if mock.api != "benchwright":
        return target.token
    quota = {"read_rpm": 10**9, "write_rpm": 10**9, "max_run_concurrency": 10**9}
    user = httpx.post(
        mock.url + "/__mock/users", json={"tier": "scale", "balance_cents": 10**8, "quota_overrides": quota}
    ).json()
    return httpx.post(mock.url + "/__mock/tokens", json={"scopes": ["full"], "user_id": user["id"]}).json()["token"]


def _parse(stdout: str, result: FuzzResult) -> None:
    block = stdout.split("Test cases:", 1)[-1].split("\n\n", 1)[0] if "Test cases:" in stdout else ""
    for word, attr in (("generated", "cases"), ("passed", "passed"), ("failed", "failed")):
        found = re.search(rf"(\d+) {word}", block)
        if found:
            setattr(result, attr, getattr(result, attr) + int(found.group(1)))
    unique = re.search(r"(\d+) unique failures?", block)
    if unique and not re.search(r"\d+ failed", block):
        result.failed += int(unique.group(1))
    if block and "passed" not in block:
        result.passed = max(0, result.cases - result.failed)
    ops = re.search(r"Operations:\s+(\d+) selected", stdout)
    if ops:
        result.operations = int(ops.group(1))
    summary = stdout.split("SUMMARY", 1)[-1]
    for name, count in re.findall(r"❌\s+([^:\n]+):\s+(\d+)", summary):
        result.failures[name.strip()] = result.failures.get(name.strip(), 0) + int(count)
    if "FAILURES" in stdout and not result.excerpt:
        result.excerpt = stdout.split("FAILURES", 1)[1][:3000]


def run(
    mock: MockProcess,
    cases: int = 10_000,
    seed: int = 1,
    exclude: tuple[str, ...] = (),
    phases: str = "examples,coverage,fuzzing",
) -> FuzzResult:
    """At least `cases` test cases; `exclude`: operation ids left out (a known defect has its own test)."""
    import time

    result = FuzzResult(mock.api)
    token = _token(mock)
    operations = len(httpx.get(mock.url + "/__mock/openapi.json").json().get("paths", {})) or 1
    started = time.monotonic()
    per_op = max(3, math.ceil(cases / operations / (2 if "coverage" in phases else 1)))  # coverage adds as many
    attempt = 0
    with tempfile.TemporaryDirectory() as scratch:
        while result.cases < cases and attempt < 6:
            har = Path(scratch) / f"fuzz-{attempt}.har"
            argv = [
                str(ST), "run", mock.url + "/__mock/openapi.json", "--url", mock.url,
                "-n", str(per_op), "-c", CHECKS, "-H", f"Authorization: Bearer {token}",
                "--phases", phases, "--seed", str(seed + attempt), "--no-color",
                "-w", "2", "--report", "har", "--report-har-path", str(har),
            ]  # fmt: skip
            for operation_id in exclude:
                argv += ["--exclude-operation-id", operation_id]
            done = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
            _parse(done.stdout, result)
            if har.exists():
                for entry in json.loads(har.read_text())["log"]["entries"]:
                    response = entry["response"]
                    if response["status"] >= 500:
                        result.server_errors += 1
                    result.bodies.append(response.get("content", {}).get("text") or "")
                    result.bodies.extend(f"{h['name']}: {h['value']}" for h in response.get("headers", []))
            if result.cases == 0:
                result.excerpt = (done.stdout + done.stderr)[-3000:]
                break
            attempt += 1
            remaining = cases - result.cases
            per_op = max(3, math.ceil(remaining / operations))
    result.seconds = round(time.monotonic() - started, 1)
    return result


if __name__ == "__main__":
    for name in sys.argv[1:] or list(TARGETS):
        with MockProcess(name) as mock:
            r = run(mock, 500)
            print(name, r.operations, r.cases, r.passed, r.failed, r.server_errors, r.failures, r.seconds)
            print(r.excerpt[:6000])
