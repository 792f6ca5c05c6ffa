"""What @benchsdk/worker sends, call by call, in its order and on its timers, replayed against the mock
over the simulated clock. The runtime is not on a registry: its behaviour was read from
`packages/benchsdk-worker/src/worker.ts`, `reporter.ts` and `metrics.ts` at the commit that
`entry_points.json` records, and is restated here as the sequence of requests it makes (no code of
it is copied). Each method names the runtime behaviour it replays (the inventory's `worker` entries).

`runWorker` with one task in flight at a time (concurrency 1):
- claim (`processKind`, `processKey` = the host name);
- an immediate heartbeat (`progressDone` 0, empty `concurrency`), and a baseline metrics sample;
- per task, per step: a heartbeat on entering it (the step active, `currentStep`), a readiness poll of
  `GET …/progress` before a `readiness: 'poll'` step runs, the log line, a heartbeat on leaving it;
  then the task counts as done; a batch of results whenever `batchSize` records are pending;
- every `heartbeatIntervalMs` (30 s) a heartbeat, every `metricsIntervalMs` (30 s) a sample, every
  `logFlushIntervalMs` (when set) an upload of the log lines buffered so far;
- at the end the final batch (`isFinal`), then `complete` (or `fail` with 'One or more tasks failed');
- in `finally`, after the close: the rest of the log as `worker.log` (`coordinator.log`,
  `text/plain`), a last sample and the samples as `metrics.jsonl` (`system-metrics`,
  `application/x-ndjson`), each a two-step upload with `metadata.sizeBytes` of the body; the
  heartbeat timer is cleared only after those uploads, so it can fire once more, carrying done = total.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .client import Platform, enc

HEARTBEAT_S = 30  # DEFAULT_HEARTBEAT_INTERVAL_MS
METRICS_S = 30  # DEFAULT_METRICS_INTERVAL_MS
HOST = "ci-runner-01"


@dataclass
class Worker:
    """One `runWorker` process: its assignment, counters and buffers, and the clock it has seen."""

    platform: Platform
    advance: Any
    slug: str
    run_id: str
    participant: str
    batch_size: int = 1000  # DEFAULT_BATCH_SIZE
    log_flush_s: int = 0  # DEFAULT_LOG_FLUSH_INTERVAL_MS: off
    a: dict[str, Any] = field(default_factory=dict)
    done: int = 0
    errors: int = 0
    in_flight: int = 0
    seq: int = 0
    t: float = 0.0
    pending: list[dict] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    samples: list[dict] = field(default_factory=list)
    heartbeats: list[tuple[int, dict]] = field(default_factory=list)  # (status, body) of each heartbeat sent
    uploads: list[tuple[str, bytes, int]] = field(default_factory=list)  # (name, body, status of the announcement)
    next_beat: float = HEARTBEAT_S
    next_sample: float = METRICS_S
    next_log_flush: float = 0.0

    # -- claim and the start --------------------------------------------------------------------------
    def claim(self) -> dict | None:
        got = self.platform.call(
            "POST",
            f"/benchmarks/{enc(self.slug)}/runs/{enc(self.run_id)}/participants/{enc(self.participant)}/workers/claim",
            {"processKind": "process", "processKey": HOST},
        ).json()["assignment"]
        self.a = got or {}
        self.next_log_flush = float(self.log_flush_s)
        return got

    @property
    def total(self) -> int:
        return self.a["taskRange"]["count"]

    def heartbeat(self, concurrency: list[dict] | None = None) -> int:
        body: dict[str, Any] = {
            "attemptId": self.a["attemptId"],
            "progressDone": self.done,
            "progressInFlight": self.in_flight,
            "progressErrors": self.errors,
            "progressTotal": self.total,
        }
        if concurrency:
            body["currentStep"] = concurrency[0]["step"]
        body["concurrency"] = concurrency or []
        response = self.platform.heartbeat(self.slug, self.run_id, self.a, expect=None, **body)
        self.heartbeats.append((response.status_code, body))
        return response.status_code

    def sample(self) -> None:
        """metrics.ts: one sample of the process (its field names; values of this replay)."""
        n = len(self.samples)
        self.samples.append({"ts": f"t+{self.t:.0f}s", "uptimeMs": int(self.t * 1000), "memRssMb": 40 + n})

    def start(self) -> None:
        self.heartbeat()
        self.sample()  # the baseline sample

    # -- time -------------------------------------------------------------------------------------------
    def wait(self, seconds: float) -> None:
        """Let `seconds` pass: the timers due in them fire, in time order."""
        end = self.t + seconds
        while True:
            due = [(self.next_beat, "beat"), (self.next_sample, "sample")]
            if self.log_flush_s:
                due.append((self.next_log_flush, "log"))
            at, what = min(due)
            if at > end:
                break
            self.advance(at - self.t)
            self.t = at
            if what == "beat":
                self.heartbeat(self._active)
                self.next_beat += HEARTBEAT_S
            elif what == "sample":
                self.sample()
                self.next_sample += METRICS_S
            else:
                if self.log:
                    self.upload_log()
                self.next_log_flush += self.log_flush_s
        self.advance(end - self.t)
        self.t = end

    _active: list[dict] | None = None

    # -- tasks ------------------------------------------------------------------------------------------
    def task(self, index: int, *, seconds: float, fail: bool = False, poll: bool = False) -> None:
        self.in_flight += 1
        # a step's target is the worker's concurrency (`options.concurrency`, 1 in this replay)
        step = {"step": "create", "active": 1, "target": 1}
        self._active = [step]
        self.heartbeat(self._active)  # entering the step
        if poll:  # readiness: 'poll': GET progress until this participant's step reads ready
            progress = self.platform.get(f"/benchmarks/{enc(self.slug)}/runs/{enc(self.run_id)}/progress")
            part = next(p for p in progress["participants"] if p["slug"] == self.participant)
            assert any(c["step"] == "create" and c["ready"] for c in part["concurrency"]), part
        self.wait(seconds)
        self.log.append(f"t+{self.t:.0f}s [task {index}] [{'error' if fail else 'info'}] create")
        self._active = None
        self.heartbeat()  # leaving the step: the step is no longer active; the task is not done yet
        self.done += 1
        self.in_flight -= 1
        self.errors += int(fail)
        record: dict[str, Any] = {"taskIndex": index, "status": "error" if fail else "success", "latencyMs": 1000}
        if fail:
            record["errorCode"] = "Error"
        self.pending.append(record)
        if len(self.pending) >= self.batch_size:
            self.flush(final=False)

    def flush(self, *, final: bool) -> None:
        while len(self.pending) >= self.batch_size or (final and self.pending):
            batch, self.pending = self.pending[: self.batch_size], self.pending[self.batch_size :]
            self.platform.events(self.slug, self.run_id, self.a, self.seq, batch, final=final and not self.pending)
            self.seq += 1

    # -- the end ----------------------------------------------------------------------------------------
    def finish(self, *, late_beat: bool = True) -> str:
        """The final batch, complete or fail, then the `finally` block: the log and the metrics
        uploaded after the close; the heartbeat timer, not yet cleared, fires once more."""
        self.flush(final=True)
        outcome = "fail" if self.errors else "complete"
        fields = {"errorCode": "Error", "errorMessage": "One or more tasks failed"} if self.errors else {}
        self.platform.close(self.slug, self.run_id, self.a, outcome, **fields)
        if late_beat:
            self.wait(self.next_beat - self.t)  # the timer's tick lands while the uploads run
        self.upload_log()
        self.sample()  # the last sample
        body = "".join(json.dumps(s) + "\n" for s in self.samples).encode()
        self._upload("system-metrics", "metrics.jsonl", "application/x-ndjson", body)
        return outcome

    def upload_log(self) -> None:
        if not self.log:
            return
        body = ("\n".join(self.log) + "\n").encode()
        if self._upload("coordinator.log", "worker.log", "text/plain", body) == 200:
            self.log = []  # only the lines uploaded leave the buffer

    def _upload(self, kind: str, name: str, content_type: str, body: bytes) -> int:
        path = self.platform.worker_path(self.slug, self.run_id, self.a["workerId"]) + "/artifacts"
        announced = self.platform.call(
            "POST",
            path,
            {
                "attemptId": self.a["attemptId"],
                "kind": kind,
                "contentType": content_type,
                "name": name,
                "metadata": {"sizeBytes": len(body)},
            },
            expect=None,
        )
        self.uploads.append((name, body, announced.status_code))
        if announced.status_code == 200:
            put = self.platform.client.put(
                announced.json()["uploadUrl"], content=body, headers={"Content-Type": content_type}
            )
            assert put.status_code == 200, put.text
        return announced.status_code
