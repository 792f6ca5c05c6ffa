"""A seed's contract run is reproducible: the same commit and seed send the same requests every
time (`contracts.runner.fingerprint`), so a check that fails fails the same way when rerun.

What used to vary between two runs of one seed, each now fixed where it lives: schemathesis'
own random seed on every non-derandomized test (`contracts.runner.conformance.schemathesis_config`),
the mock's random ids and tokens (`mock_server.state.ids.reproducible`), the suite's made-up names,
keys and nonces (`contracts.runner.unique`), and multipart boundaries (left out of the digest)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from contracts.runner import unique
from contracts.runner.fingerprint import Fingerprint
from mock_server.app import create_app
from mock_server.state import ids

ROOT = Path(__file__).resolve().parents[2]


def test_ids_follow_the_seed_and_are_random_without_one():
    try:
        ids.reproducible(7)
        first = [ids.uuid4(), ids.hex_token(12), ids.urlsafe_token(24)]
        ids.reproducible(7)
        again = [ids.uuid4(), ids.hex_token(12), ids.urlsafe_token(24)]
        ids.reproducible(8)
        other = [ids.uuid4(), ids.hex_token(12), ids.urlsafe_token(24)]
    finally:
        ids.reproducible(None)
    assert first == again and first[0] != other[0]
    assert ids.uuid4() != first[0] != ids.uuid4()  # the operating system's again


def test_made_up_names_follow_the_seed_and_are_random_without_one():
    try:
        unique.reproducible(3)
        first = [unique.hex(12), unique.uuid(), unique.choice("abc", 9), unique.token_bytes(4)]
        unique.reproducible(3)
        again = [unique.hex(12), unique.uuid(), unique.choice("abc", 9), unique.token_bytes(4)]
    finally:
        unique.reproducible(None)
    assert first == again
    assert len(first[0]) == 12 and first[1][14] == "4"  # a version-4 UUID
    assert unique.hex(32) != unique.hex(32)


def test_the_digest_is_of_the_requests_in_any_order_and_not_of_multipart_boundaries():
    from starlette.testclient import TestClient

    def digest(order: list[int], boundary: str) -> str:
        wrapped = Fingerprint(create_app(api="benchgen"))
        with TestClient(wrapped) as client:
            sends = [
                lambda: client.get("/api/competitions/public/?page=2"),
                lambda: client.post(
                    "/models/api/queue_benchmark_run",
                    content=f"--{boundary}\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--{boundary}--\r\n",
                    headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
                ),
            ]
            for index in order:
                sends[index]()
        return wrapped.text()

    assert digest([0, 1], "a" * 32) == digest([1, 0], "b" * 32)
    assert digest([0, 1], "a" * 32).startswith("2-")
    assert digest([0], "a" * 32) != digest([1], "a" * 32)


@pytest.mark.parametrize("seed", ["4", None], ids=["seeded", "derandomized"])
def test_the_same_seed_sends_the_same_requests_twice(seed, tmp_path):
    """BenchGen's whole suite, twice per seed, in fresh processes: equal fingerprints (and not empty)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "BENCHGEN_", "PYTEST_"))}
    prints = []
    for run in range(2):
        command = [sys.executable, "-m", "contracts.runner.cli", "--api", "benchgen", "--profile", "smoke"]
        command += ["--seed", seed] if seed else []
        # a different string hash each run: nothing the run sends may depend on a set's order
        env["PYTHONHASHSEED"] = str(run + 11)
        proc = subprocess.run(
            [*command, "--report-dir", str(tmp_path / str(run))], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stdout[-2000:]
        prints.append((tmp_path / str(run) / "fingerprint.txt").read_text().strip())
    assert prints[0] == prints[1], "the run's requests depend on something other than its seed"
    assert int(prints[0].split("-")[0]) > 100


def test_no_suite_makes_up_data_outside_the_seeded_sources():
    """Names, keys and nonces come from `contracts.runner.unique`, never from the operating system or
    the clock directly: one `uuid.uuid4()` in a check makes every run of its seed send other data."""
    unseeded = re.compile(
        r"\buuid\.uuid[14]\(|\bsecrets\.(?:token_\w+|choice|randbelow)\(|\btime\.time_ns\(\)"
        r"|\brandom\.(?:random|choice|randint|randrange|shuffle|sample)\(|\bEd25519PrivateKey\.generate\(|\bos\.urandom\("
    )
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "contracts").rglob("*.py"))
        if path.name != "unique.py" and "differential" not in path.parts and "proxy" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if unseeded.search(line)
    ]
    assert not found, "made up outside contracts.runner.unique:\n" + "\n".join(found)
