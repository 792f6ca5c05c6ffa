"""Whole `bench run`s as a hypothesis state machine (research A.4): benchmark → run →
participants → plan → claim → heartbeats and batches → artifacts → close → summary, with
`--run-key` siblings, lease expiry and reclaim, superseded-attempt fencing, duplicate and
out-of-order batches, and each limit at and past its bound. After any step the reads must
agree with what was written.

Everything the machine creates lives under a benchmark slug it owns (`contract-…`); nothing
else is written. Simulated time (lease expiry, imports) is moved only where the target is the
embedded mock (its `/__mock/clock`); against a live platform time is not moved and the lease
is never assumed to expire.
"""

from __future__ import annotations

import gzip
import threading
from collections import Counter
from dataclasses import dataclass, field

import httpx
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from contracts.runner import unique

from .._runner import Drift
from ._client import LIMITS, TIMING, Platform, enc

LEASE = TIMING["leaseSeconds"]
IMPORT_DELAY = TIMING["importDelaySeconds"]
PROVIDERS = ["e2b", "modal", "daytona"]
SEEN: Counter[str] = Counter()  # what the machine exercised (printed with -s; no pass/fail weight)


def event(name: str) -> None:
    SEEN[name] += 1


# ---- the model -------------------------------------------------------------------------------


@dataclass
class MAttempt:
    id: str
    number: int
    last_seen: float
    status: str = "running"  # running | completed | failed | released | superseded
    seqs: set[int] = field(default_factory=set)
    max_seq: int | None = None
    final: bool = False


@dataclass
class MWorker:
    id: str
    index: int
    start: int
    end: int
    status: str = "pending"
    attempts: list[MAttempt] = field(default_factory=list)

    @property
    def current(self) -> MAttempt | None:
        return self.attempts[-1] if self.attempts else None


@dataclass
class MPart:
    slug: str
    total: int
    workers: list[MWorker] = field(default_factory=list)


@dataclass
class MRun:
    id: str
    shared: bool
    total: int
    parts: dict[str, MPart] = field(default_factory=dict)
    batches: list[tuple[float, str, list[int], int]] = field(default_factory=list)  # (t, part, idx, attempt no.)
    heartbeats: int = 0
    samples: int = 0
    uploads: dict[str, bytes] = field(default_factory=dict)


def clipped(index: int, per: int, extent: int) -> tuple[int, int]:
    """Worker `index`'s inclusive range, `per` tasks each, clipped to the participant's extent: no
    index reaches `extent`, and a worker wholly past it owns nothing (end = start − 1) (A-43, A-44)."""
    start = min(index * per, extent)
    return start, max(min((index + 1) * per - 1, extent - 1), start - 1)


def status_of(task_index: int, attempt_number: int) -> str:
    """Records fail deterministically on a first attempt, so that a reclaim changes the figures."""
    return "error" if task_index % 5 == 4 and attempt_number == 1 else "success"


class BenchRunMachine(RuleBasedStateMachine):
    platform: Platform
    embedded: bool
    base_url: str

    def __init__(self) -> None:
        super().__init__()
        self.p = self.platform
        self.slug = f"contract-{unique.hex(12)}"
        self.t = 0.0
        self.runs: list[MRun] = []

    # ---- helpers ---------------------------------------------------------------------------
    def run_path(self, run: MRun) -> str:
        return f"/benchmarks/{self.slug}/runs/{enc(run.id)}"

    def worker_path(self, run: MRun, w: MWorker) -> str:
        return f"{self.run_path(run)}/workers/{enc(w.id)}"

    def all_attempts(self):
        for run in self.runs:
            for part in run.parts.values():
                for w in part.workers:
                    for a in w.attempts:
                        yield run, part, w, a

    def stale(self, a: MAttempt) -> bool:
        return a.status == "running" and self.t - a.last_seen >= LEASE

    def fence(self, w: MWorker, a: MAttempt) -> str | None:
        """The refusal the platform owes a mutation carrying `a` on `w` (A-14, A-15), or None."""
        if a is not w.current or a.status in ("released", "superseded"):
            return "stale_attempt"
        if a.status in ("completed", "failed"):
            return "attempt_closed"
        return None  # an expired lease alone refuses nothing: only a reclaim supersedes

    # ---- benchmark and runs --------------------------------------------------------------------
    @initialize()
    def upsert_benchmark(self):
        """W1 (A-24, A-25): PUT twice leaves one benchmark with the last body."""
        self.p.call("PUT", f"/benchmarks/{self.slug}", {"name": "Contract (draft)"}, claim="A-24")
        bench = self.p.json(
            "PUT",
            f"/benchmarks/{self.slug}",
            {
                "name": "Contract benchmark",
                "config": {"scoring": {"metrics": [{"name": "ttiMs"}]}, "display": {}},
            },
            claim="A-25.2",
        )["benchmark"]
        if bench["name"] != "Contract benchmark" or bench["slug"] != self.slug:
            raise Drift("A-25.2", "upsertBenchmark", f"the repeat did not replace the body: {bench}")
        self.touched: MRun | None = None
        self.self_contained_run(2, 3)
        run = self.runs[0]
        for name in sorted(run.parts):
            self._plan(run, run.parts[name], 2, 3)
            self._claim(run, run.parts[name])

    @precondition(lambda self: len(self.runs) < 3)
    @rule(n=st.integers(1, 3), per=st.integers(1, 4))
    def self_contained_run(self, n, per):
        """W2 (A-28, A-34, A-36): totalTasks + participants; each listed participant is registered."""
        names = PROVIDERS[:n]
        body = self.p.json(
            "POST",
            f"/benchmarks/{self.slug}/runs",
            {
                "totalTasks": n * per,
                "workerCount": n,
                "participants": names,
                "config": {
                    "benchmarkSlug": self.slug,
                    "iterations": per,
                    "groupBy": "participant",
                    "participants": names,
                },
            },
            expect=201,
            claim="A-34",
        )
        if [x["slug"] for x in body["participants"]] != names or not body["organizationSlug"]:
            raise Drift("A-36", "createRun", f"participants {body['participants']} are not {names}")
        run = MRun(id=body["run"]["id"], shared=False, total=n * per)
        run.parts = {name: MPart(name, per) for name in names}
        self.runs.append(run)
        self.touched = run

    @precondition(lambda self: len(self.runs) < 3)
    @rule(n=st.integers(1, 3), per=st.integers(1, 4), siblings=st.integers(2, 6))
    def shared_run(self, n, per, siblings):
        """W2, W3 (A-12, A-29, A-30, A-37): siblings race to get-or-create one run by runKey, then each
        registers only its own participant; the run's extent is the sum."""
        key = f"contract-{unique.hex()}"
        path = f"/benchmarks/{self.slug}/runs"
        results: list[httpx.Response] = []

        def sibling():
            results.append(
                self.p.call(
                    "POST",
                    path,
                    {"runKey": key, "workerCount": 1, "config": {"k": key}},
                    expect=(200, 201),
                    claim="A-12",
                )
            )

        threads = [threading.Thread(target=sibling) for _ in range(siblings)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        ids = {r.json()["run"]["id"] for r in results}
        created = sum(r.status_code == 201 for r in results)
        if len(results) != siblings or len(ids) != 1 or created != 1:
            raise Drift("A-12", "createRun", f"{siblings} racing creates made runs {ids} ({created} created)")
        run = MRun(id=ids.pop(), shared=True, total=0)
        for name in PROVIDERS[:n]:
            self.p.call("PUT", f"{self.run_path(run)}/participants/{name}", {"totalTasks": per}, claim="A-37")
            self.p.call("PUT", f"{self.run_path(run)}/participants/{name}", {"totalTasks": per}, claim="A-38")
            run.parts[name] = MPart(name, per)
            run.total += per
            got = self.p.json("GET", self.run_path(run))["run"]
            if got["totalTasks"] != run.total or not got["participantSized"]:
                raise Drift("A-30", "getRun", f"totalTasks {got['totalTasks']}, expected the sum {run.total}")
        self.runs.append(run)

    # ---- workers -------------------------------------------------------------------------------
    @precondition(lambda self: self.runs)
    @rule(data=st.data(), count=st.integers(1, 3), per=st.integers(1, 3))
    def plan(self, data, count, per):
        """W4 (A-39, A-40, A-43, A-44; P-ensure)."""
        run = data.draw(st.sampled_from(self.runs))
        part = run.parts[data.draw(st.sampled_from(sorted(run.parts)))]
        self._plan(run, part, count, per)

    def _plan(self, run: MRun, part: MPart, count: int, per: int) -> None:
        self.touched = run
        path = f"{self.run_path(run)}/participants/{enc(part.slug)}/workers"
        body = {"workerCount": count, "targetConcurrency": per}
        if part.workers and len(part.workers) != count:
            self.p.call("POST", path, body, expect=409, claim="P-ensure", code="worker_count_mismatch")
            return
        items = self.p.json("POST", path, body, claim="A-39")["items"]
        if part.workers:
            if [w["id"] for w in items] != [w.id for w in part.workers]:
                raise Drift("P-ensure", "planWorkers", "planning again created new workers")
            return
        for i, w in enumerate(items):
            start, end = clipped(i, per, part.total)
            if w["status"] != "pending" or (w["taskIndexStart"], w["taskIndexEnd"]) != (start, end):
                raise Drift(
                    "A-44", "planWorkers", f"worker {i} is not the pending range {start}..{end} ({per} per worker): {w}"
                )
            part.workers.append(MWorker(w["id"], i, start, end))

    @precondition(lambda self: self.runs)
    @rule(data=st.data())
    def claim(self, data):
        """W5 (A-41, A-42, A-45): the lowest pending worker, else a stale one, else null."""
        run = data.draw(st.sampled_from(self.runs))
        part = run.parts[data.draw(st.sampled_from(sorted(run.parts)))]
        self._claim(run, part)

    @precondition(
        lambda self: (
            self.embedded
            and any(w.status == "running" for run in self.runs for part in run.parts.values() for w in part.workers)
        )
    )
    @rule(data=st.data())
    def lease_expires_and_another_process_reclaims(self, data):
        """A-45 (P-lease): an attempt unheartbeated past the lease is reclaimed by the next claim."""
        running = [
            (run, part)
            for run in self.runs
            for part in run.parts.values()
            if any(w.status == "running" for w in part.workers)
        ]
        run, part = data.draw(st.sampled_from(running))
        self.advance_clock(LEASE)
        self._claim(run, part)

    def _claim(self, run: MRun, part: MPart) -> None:
        self.touched = run
        got = self.p.json(
            "POST",
            f"{self.run_path(run)}/participants/{enc(part.slug)}/workers/claim",
            {"processKind": "process", "processKey": "contract"},
            claim="A-41.2",
        )["assignment"]
        expected = next((w for w in part.workers if w.status == "pending"), None)
        if expected is None:
            expected = next((w for w in part.workers if w.status == "running" and self.stale(w.current)), None)
        if expected is None:
            if got is not None:
                raise Drift("A-42.1", "claimWorker", f"nothing is claimable, yet the claim answered {got}")
            return
        if got is None:
            raise Drift("A-41.2", "claimWorker", f"worker {expected.index} is claimable, yet the claim answered null")
        number = len(expected.attempts) + 1
        event(f"claim: attempt {min(number, 3)}")
        if got["workerId"] != expected.id or got["attemptNumber"] != number:
            raise Drift("A-45.2", "claimWorker", f"expected worker {expected.id} attempt {number}, got {got}")
        if any(a.id == got["attemptId"] for a in expected.attempts):
            raise Drift("A-45.1", "claimWorker", "a reclaim reused an old attemptId")
        span = {"start": expected.start, "end": expected.end, "count": expected.end - expected.start + 1}
        if got["taskRange"] != span:
            raise Drift("A-43", "claimWorker", f"taskRange {got['taskRange']} is not the worker's range")
        if expected.current is not None and expected.current.status == "running":
            expected.current.status = "superseded"
        expected.attempts.append(MAttempt(got["attemptId"], number, self.t))
        expected.status = "running"

    def _pick_attempt(self, data):
        choices = list(self.all_attempts())
        picked = data.draw(st.sampled_from(choices))
        self.touched = picked[0]
        return picked

    @precondition(lambda self: any(True for _ in self.all_attempts()))
    @rule(data=st.data(), samples=st.sampled_from([0, 1, 3, 20, 21, -2]))
    def heartbeat(self, data, samples):
        """W6 (A-10, A-14, A-15, A-47, A-49): fenced; ≤ 20 unique-step samples."""
        run, _part, w, a = self._pick_attempt(data)
        cap = LIMITS["heartbeat"]["maxConcurrencySamples"]
        conc = (
            [{"step": "same", "active": 1, "target": 1}] * 2
            if samples < 0
            else [{"step": f"s{i}", "active": i % 3, "target": 2} for i in range(samples)]
        )
        body = {
            "attemptId": a.id,
            "progressDone": 1,
            "progressInFlight": 0,
            "progressErrors": 0,
            "progressTotal": w.end - w.start + 1,
            "currentStep": "exec",
            "concurrency": conc,
        }
        refusal = self.fence(w, a)
        path = self.worker_path(run, w) + "/heartbeat"
        event(f"heartbeat: {refusal or samples}")
        if refusal == "attempt_closed" and 0 <= samples <= LIMITS["heartbeat"]["maxConcurrencySamples"]:
            # the worker's own closed attempt: a late heartbeat reporting no regression is taken, its
            # done and errors stored and nothing else; one that would lower or overrun them is refused
            before = self.p.json("GET", self.worker_path(run, w))["worker"]
            if before["progressDone"] <= 1 <= before["progressTotal"] and before["progressErrors"] == 0:
                got = self.p.json("POST", path, body, claim="A-47.1")["worker"]
                if (got["progressDone"], got["progressInFlight"], got["concurrency"]) != (1, 0, before["concurrency"]):
                    raise Drift("A-47.1", "heartbeatWorker", f"a late heartbeat on a closed worker left {got}")
                return
        if refusal:
            before = self.p.json("GET", self.worker_path(run, w))["worker"]
            self.p.call("POST", path, body, expect=409, claim="A-15.1", code=refusal)
            after = self.p.json("GET", self.worker_path(run, w))["worker"]
            if before != after:
                raise Drift("A-15.2", "heartbeatWorker", "a refused heartbeat changed the worker")
            return
        if samples < 0 or samples > cap:
            code = "duplicate_concurrency_step" if samples < 0 else "too_many_concurrency_samples"
            self.p.call("POST", path, body, expect=400, claim="A-10.2" if samples < 0 else "A-10.1", code=code)
            return
        got = self.p.json("POST", path, body, claim="A-47.1")
        if got["worker"]["concurrency"] != conc:
            raise Drift("A-88", "heartbeatWorker", "the worker row does not carry the samples just sent")
        a.last_seen = self.t
        run.heartbeats += 1
        run.samples += len(conc)

    @precondition(lambda self: any(True for _ in self.all_attempts()))
    @rule(
        data=st.data(),
        kind=st.sampled_from(["next", "next", "next", "duplicate", "regression", "gap", "final"]),
        size=st.sampled_from([1, 2, 3, 1, 2, 3, "max", "max+1", "steps", "steps+1"]),
    )
    def batch(self, data, kind, size):
        """W7 (A-08, A-09, A-16, A-51, A-52; P-sequence)."""
        run, part, w, a = self._pick_attempt(data)
        limits = LIMITS["events"]
        count = w.end - w.start + 1
        if count <= 0:  # a worker whose range starts past the participant's last task has none to report
            return
        steps = 1
        if size == "max":
            n = limits["maxRecords"]
        elif size == "max+1":
            n = limits["maxRecords"] + 1
        elif size in ("steps", "steps+1"):
            n, steps = 1, limits["maxStepsPerRecord"] + (size == "steps+1")
        else:
            n = size
        if kind == "duplicate" and a.seqs:
            seq = data.draw(st.sampled_from(sorted(a.seqs)))
        elif kind == "regression" and a.max_seq is not None and len(set(range(a.max_seq)) - a.seqs):
            seq = data.draw(st.sampled_from(sorted(set(range(a.max_seq)) - a.seqs)))
        elif kind == "gap":
            seq = (a.max_seq if a.max_seq is not None else -1) + 3
        else:
            seq = (a.max_seq if a.max_seq is not None else -1) + 1
        base = len(a.seqs) * 3
        indices = [w.start + (base + j) % count for j in range(n)]
        records = [
            {
                "taskIndex": i,
                "status": status_of(i, a.number),
                "latencyMs": 100 + i,
                "startedAt": "2026-04-20T10:00:00.000Z",
                "completedAt": "2026-04-20T10:00:01.000Z",
                "data": {"phase": "cold"},
                "steps": [{"name": f"s{k}", "status": "success", "latencyMs": 1} for k in range(steps)],
                **({"errorCode": "CONTRACT_ERROR"} if status_of(i, a.number) == "error" else {}),
            }
            for i in indices
        ]
        final = kind == "final"
        body = {"type": "task_results", "attemptId": a.id, "sequenceNumber": seq, "isFinal": final, "records": records}
        path = self.worker_path(run, w) + "/events"
        refusal = self.fence(w, a)
        event(f"batch: {refusal or kind}/{size}")
        if refusal:
            self.p.call("POST", path, body, expect=409, claim="A-15.1", code=refusal)
            return
        if seq in a.seqs:
            got = self.p.json("POST", path, body, claim="A-16.1")
            if got["duplicate"] is not True:
                raise Drift("A-16.1", "postWorkerEvents", f"a resent sequenceNumber {seq} was not a duplicate")
            a.last_seen = self.t
            return
        if n > limits["maxRecords"]:
            self.p.call("POST", path, body, expect=400, claim="A-08", code="too_many_records")
            return
        if steps > limits["maxStepsPerRecord"]:
            self.p.call("POST", path, body, expect=400, claim="A-09", code="too_many_steps")
            return
        if a.final:
            self.p.call("POST", path, body, expect=409, claim="A-52", code="attempt_finalized")
            return
        if a.max_seq is not None and seq < a.max_seq:
            self.p.call("POST", path, body, expect=409, claim="A-51", code="sequence_regression")
            return
        got = self.p.json("POST", path, body, claim="A-50")
        if got["duplicate"] is not False:
            raise Drift("A-16.1", "postWorkerEvents", "a new sequenceNumber was answered as a duplicate")
        a.seqs.add(seq)
        a.max_seq = seq if a.max_seq is None else max(a.max_seq, seq)
        a.final = a.final or final
        a.last_seen = self.t
        run.batches.append((self.t, part.slug, indices, a.number))

    @precondition(lambda self: any(True for _ in self.all_attempts()))
    @rule(data=st.data(), gz=st.booleans())
    def artifact(self, data, gz):
        """W8 (A-61, A-64, A-90): POST → presigned PUT → downloadUrl serves the same bytes."""
        run, part, w, a = self._pick_attempt(data)
        text = "".join(f"{part.slug} line {i}\n" for i in range(data.draw(st.integers(1, 50)))).encode()
        payload, ctype = (gzip.compress(text, mtime=0), "application/gzip") if gz else (text, "text/plain")
        body = {"attemptId": a.id, "kind": "coordinator.log", "contentType": ctype, "name": "worker.log"}
        refusal = self.fence(w, a)
        if refusal and refusal != "attempt_closed":  # the worker's own closed attempt still uploads at finish
            self.p.call("POST", self.worker_path(run, w) + "/artifacts", body, expect=409, claim="A-15.1", code=refusal)
            return
        created = self.p.json("POST", self.worker_path(run, w) + "/artifacts", body, claim="A-61")
        a.last_seen = self.t
        put = self.p.raw("PUT", created["uploadUrl"], content=payload, headers={"Content-Type": ctype})
        if put.status_code // 100 != 2:
            raise Drift("A-61", "PUT uploadUrl", f"the presigned upload answered {put.status_code}: {put.text[:200]}")
        detail = self.p.json(
            "GET", self.worker_path(run, w) + f"/artifacts/{enc(created['artifactId'])}", claim="A-90.1"
        )
        got = self.p.raw("GET", detail["downloadUrl"])
        if got.status_code != 200 or got.content != payload:
            raise Drift("A-90.2", "GET downloadUrl", f"the download is not the uploaded bytes ({got.status_code})")
        if gz and gzip.decompress(got.content) != text:
            raise Drift("A-90.2", "GET downloadUrl", "the gzip body does not round-trip")
        if detail["artifact"]["metadata"].get("sizeBytes") != len(payload):
            raise Drift("A-64", "getWorkerArtifact", f"sizeBytes {detail['artifact']['metadata']} ≠ {len(payload)}")
        run.uploads[created["artifactId"]] = payload

    @precondition(lambda self: any(True for _ in self.all_attempts()))
    @rule(data=st.data(), outcome=st.sampled_from(["complete", "fail", "release"]))
    def close(self, data, outcome):
        """W9 (A-69, A-70, A-71): fenced; a repeat of the same close is answered again."""
        run, _part, w, a = self._pick_attempt(data)
        target = {"complete": "completed", "fail": "failed", "release": "released"}[outcome]
        body = {"attemptId": a.id, **({"errorCode": "CONTRACT", "errorMessage": "m"} if outcome == "fail" else {})}
        path = self.worker_path(run, w) + f"/{outcome}"
        if a is w.current and a.status == target:
            self.p.call("POST", path, body, claim="A-69")
            return
        refusal = self.fence(w, a)
        if refusal:
            self.p.call("POST", path, body, expect=409, claim="A-15.1", code=refusal)
            return
        got = self.p.json("POST", path, body, claim="A-69")["worker"]
        a.status = target
        w.status = "pending" if outcome == "release" else target
        if got["status"] != w.status:
            raise Drift(
                "A-71.1" if outcome == "release" else "A-70",
                f"{outcome}Worker",
                f"the worker is {got['status']}, expected {w.status}",
            )

    @precondition(lambda self: self.embedded)
    @rule(seconds=st.sampled_from([IMPORT_DELAY, 30, LEASE]))
    def advance_clock(self, seconds):
        """Simulated time (embedded mock only): leases expire, imports run."""
        response = self.p.raw("POST", self.p.base_url + "/__mock/clock", json={"advance_seconds": seconds})
        assert response.status_code == 200, response.text
        self.t += seconds

    @precondition(lambda self: self.runs)
    @rule(data=st.data(), score=st.sampled_from([0, 55.5, 100, 100.5]))
    def summary(self, data, score):
        """W10 (A-73, A-75): stored with the run; compositeScore in [0, 100]."""
        run = data.draw(st.sampled_from(self.runs))
        self.touched = run
        rows = [
            {
                "provider": p,
                "dimensions": {"phase": "cold"},
                "metrics": [{"name": "ttiMs", "median": 1}],
                "compositeScore": score,
                "successRate": 1.0,
                "skipped": False,
            }
            for p in sorted(run.parts)
        ]
        body = {"run": {"gitRef": "main"}, "results": rows, "scoring": {"metrics": []}}
        if score > 100:
            self.p.call("POST", self.run_path(run) + "/summary", body, expect=400, claim="A-75")
            return
        self.p.call("POST", self.run_path(run) + "/summary", body, claim="A-73.1")
        stored = self.p.json("GET", self.run_path(run))["run"]["summary"]
        if {r["provider"] for r in stored["results"]} != set(run.parts):
            raise Drift("A-73.2", "getRun", f"the stored summary has {stored['results']}")

    # ---- the reads agree with the writes --------------------------------------------------------
    @invariant()
    def reads_agree(self):
        if getattr(self, "touched", None) is not None:  # the run the last step wrote to
            self.check_run(self.touched)

    def check_run(self, run: MRun) -> None:
        imports = self.p.json("GET", self.run_path(run) + "/results/imports", claim="A-100")
        if len(imports["items"]) != len(run.batches):
            raise Drift(
                "A-16.2", "getRunImports", f"{len(imports['items'])} batches listed, {len(run.batches)} accepted"
            )
        got = self.p.json("GET", self.run_path(run))["run"]
        if got["totalTasks"] != run.total:
            raise Drift("A-30", "getRun", f"totalTasks {got['totalTasks']} ≠ {run.total}")
        progress = self.p.json("GET", self.run_path(run) + "/progress", claim="A-85.1")
        for row in progress["participants"]:
            part = run.parts[row["slug"]]
            if row["totalTasks"] != part.total or row["workers"]["total"] != len(part.workers):
                raise Drift("A-85.1", "getRunProgress", f"{row['slug']}: {row['totalTasks']}/{row['workers']}")
        timeline = self.p.json("GET", self.run_path(run) + "/results/timeline", claim="A-99.3")
        if self.embedded:
            if timeline["concurrency"]["heartbeatCount"] != run.heartbeats:
                raise Drift(
                    "A-99.3",
                    "getRunTimeline",
                    f"{timeline['concurrency']['heartbeatCount']} heartbeats counted, {run.heartbeats} accepted",
                )
            if len(timeline["concurrency"]["points"]) != run.samples:
                raise Drift("A-99.3", "getRunTimeline", "not one concurrency point per heartbeat sample")
        settled = self.embedded and all(self.t - t >= IMPORT_DELAY for t, *_ in run.batches)
        if not settled:
            return
        event("reads: aggregates checked")
        effective: dict[tuple[str, int], str] = {}
        best: dict[tuple[str, int], int] = {}
        for _, part, indices, number in run.batches:
            for i in indices:
                if number >= best.get((part, i), 0):
                    best[(part, i)] = number
                    effective[(part, i)] = status_of(i, number)
        results = self.p.json("GET", self.run_path(run) + "/results", claim="A-96.4")
        overall = results["overall"]
        ok = sum(s == "success" for s in effective.values())
        if overall["taskCount"] != len(effective) or overall["successCount"] != ok:
            raise Drift(
                "A-96.4",
                "getRunResults",
                f"overall {overall['taskCount']}/{overall['successCount']}, expected {len(effective)}/{ok}",
            )
        rows = self.p.json("GET", self.run_path(run) + "/iterations", params={"type": "tasks"}, claim="A-101.1")[
            "tasks"
        ]
        if sorted((r["participantSlug"], r["taskIndex"]) for r in rows) != sorted(effective):
            raise Drift("A-101.1", "listRunIterations", "the task rows are not the records sent (latest attempt wins)")
        if {i["batchStatus"] for i in imports["items"]} - {"persisted"}:
            raise Drift("A-100", "getRunImports", "a batch past its import delay is not persisted")


def test_bench_runs(platform, target):
    """A.4: the whole lifecycle, shared-run convergence, fencing, sequencing and limits."""
    BenchRunMachine.platform = platform
    BenchRunMachine.embedded = target.control  # any mock with a control surface, embedded or served
    run_state_machine_as_test(
        BenchRunMachine,
        settings=settings(
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
    print("exercised:", dict(sorted(SEEN.items())))
