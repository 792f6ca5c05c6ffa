"""The clauses of the benchsdk claims (A-nn) that state more than one thing a server could break
alone. A claim not split here is one clause. A check asserts a clause by citing its id
(`platform.drift("A-96.2", ...)`, `claim="A-48.3"`)."""

from __future__ import annotations

from contracts.runner.claims import Clause

CLAUSES = [
    # A-41 a claim binds one pending worker and returns an assignment
    Clause("A-41.1", "a claim binds one pending worker to the calling process: it reads running, with the attempt"),
    Clause("A-41.2", "the claim answers the assignment (worker, attempt, task range, concurrency)"),
    Clause("A-41.3", "the assignment's lease runs x-timing.leaseSeconds from the claim"),
    # A-42 a claim answers null when no worker is pending
    Clause("A-42.1", "with every worker claimed, a claim answers {assignment: null}"),
    Clause("A-42.2", "a worker whose lease still runs is not handed out again"),
    # A-48 heartbeats at high frequency
    Clause("A-48.1", "heartbeats sent at a high rate are all accepted"),
    Clause("A-48.2", "each heartbeat renews the lease for x-timing.leaseSeconds from the heartbeat"),
    Clause("A-48.3", "progress's freshness window is the lease; a worker silent past it counts stale"),
    # A-96 run results
    Clause("A-96.1", "the overall latency summary is nearest-rank over the records' latencyMs"),
    Clause("A-96.2", "each participant's latency summary is its own records'"),
    Clause("A-96.3", "each step's latency summary is that step's records'"),
    Clause("A-96.4", "success rates: successCount / taskCount, overall and per participant"),
]
