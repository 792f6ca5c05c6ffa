"""The clauses of the benchsdk claims (A-nn) that state more than one thing a server could break
alone, worked through in claim order. A claim not split here is one clause (`A-12` is `A-12.1`). A
check asserts a clause by citing its id (`platform.drift("A-96.2", ...)`, `claim="A-48.3"`).
`checkable=False` marks what no HTTP exchange with the platform shows (what the client does)."""

from __future__ import annotations

from contracts.runner.claims import Clause

CLIENT = "what the published client does; the platform sees only the requests it results in"

CLAUSES = [
    # A-01 the API lives under /api/v1 of a root URL
    Clause("A-01.1", "the API answers under `/api/v1` of its root, not at the root"),
    Clause("A-01.2", "the URL override is a root to which the client appends `/api/v1`", checkable=False,
           reason=CLIENT),
    # A-03 three credential kinds
    Clause("A-03.1", "an org-scoped API key (`bp_…`) is accepted, its organisation implied"),
    Clause("A-03.2", "an OAuth token naming its organisation (X-Org-Slug) is accepted"),
    Clause("A-03.3", "a token stored by `bench login` is accepted", checkable=False,
           reason="the stored login token is an OAuth token the CLI keeps on disk: over HTTP it is A-03.2"),
    # A-04 an OAuth request names its org in one of two headers
    Clause("A-04.1", "X-Organization-Id names the organisation as well as X-Org-Slug does"),
    Clause("A-04.2", "an OAuth request naming no organisation is refused"),
    # A-07 every rejection is non-2xx
    Clause("A-07.1", "every rejection answers a non-2xx status with a body"),
    Clause("A-07.2", "the client keeps only the status and the raw body", checkable=False, reason=CLIENT),
    # A-10 heartbeat samples
    Clause("A-10.1", "a heartbeat holds at most x-limits.maxConcurrencySamples (20) samples"),
    Clause("A-10.2", "a heartbeat holds one sample per step name: a repeated step is refused"),
    # A-13 the same runKey elsewhere gives another run
    Clause("A-13.1", "the same runKey under another benchmark gives a different run"),
    Clause("A-13.2", "the same runKey under another organisation gives a different run"),
    # A-15 a superseded attemptId changes nothing
    Clause("A-15.1", "every worker mutation carrying a superseded attemptId is refused (409 stale_attempt)"),
    Clause("A-15.2", "a refused mutation of a superseded attempt leaves the worker as it was"),
    # A-16 event batches are idempotent
    Clause("A-16.1", "a resent batch (same attemptId + sequenceNumber) answers duplicate: true"),
    Clause("A-16.2", "a resent batch is counted once: one batch in the imports view, none accepted again"),
    # A-25 repeating the PUT
    Clause("A-25.1", "repeating the PUT leaves exactly one benchmark of the slug"),
    Clause("A-25.2", "the benchmark holds the last PUT's body"),
    # A-27 a PUT by a non-owner
    Clause("A-27.1", "a PUT by a non-owner would rename the owner's benchmark", checkable=False,
           reason="checking it writes another organisation's benchmark; the client never sends it (the mock "
                  "refuses it with 403 not_benchmark_owner)"),
    # A-28 the create request's two shapes
    Clause("A-28.1", "the self-contained shape (totalTasks + participants) creates a run"),
    Clause("A-28.2", "the shared shape (runKey, without totalTasks or participants) creates a run"),
    # A-33 config.groupBy
    Clause("A-33.1", "config.groupBy `participant` and `round` are accepted"),
    Clause("A-33.2", "any other config.groupBy is refused"),
    # A-41 a claim binds one pending worker and returns an assignment
    Clause("A-41.1", "a claim binds one pending worker to the calling process: it reads running, with the attempt"),
    Clause("A-41.2", "the claim answers the assignment (worker, attempt, task range, concurrency)"),
    Clause("A-41.3", "the assignment's lease runs x-timing.leaseSeconds from the claim"),
    # A-42 a claim answers null when no worker is pending
    Clause("A-42.1", "with every worker claimed, a claim answers {assignment: null}"),
    Clause("A-42.2", "a worker whose lease still runs is not handed out again"),
    # A-45 reclaiming mints a new attempt
    Clause("A-45.1", "a reclaim after the lease hands out the same worker with a new attemptId"),
    Clause("A-45.2", "the reclaim's attemptNumber is one higher"),
    # A-47 what a heartbeat carries
    Clause("A-47.1", "the heartbeat's progressDone, progressInFlight, progressErrors, progressTotal are kept"),
    Clause("A-47.2", "the heartbeat's currentStep is kept"),
    Clause("A-47.3", "the heartbeat's concurrency samples {step, active, target} are kept"),
    # A-48 heartbeats at high frequency
    Clause("A-48.1", "heartbeats sent at a high rate are all accepted"),
    Clause("A-48.2", "each heartbeat renews the lease for x-timing.leaseSeconds from the heartbeat"),
    Clause("A-48.3", "progress's freshness window is the lease; a worker silent past it counts stale"),
    # A-49 heartbeats feed the live progress view and the concurrency timeline
    Clause("A-49.1", "the progress view's task counts are the heartbeats' progress"),
    Clause("A-49.2", "the progress view's per-step concurrency is the heartbeats' samples"),
    # A-54 a record's status
    Clause("A-54.1", "a record's status reads back success or error as sent"),
    Clause("A-54.2", "an error record keeps its errorCode"),
    # A-55 error records keep what they measured
    Clause("A-55.1", "an error record keeps its data"),
    Clause("A-55.2", "an error record keeps the steps measured before the error"),
    # A-69 closing carries attemptId; errors only on fail
    Clause("A-69.1", "complete, fail and release without attemptId are refused"),
    Clause("A-69.2", "errorCode and errorMessage are kept on fail; a completed worker carries none"),
    # A-71 release
    Clause("A-71.1", "a released worker reads pending"),
    Clause("A-71.2", "a released worker is claimed again, as a new attempt"),
    # A-73 the summary body
    Clause("A-73.1", "the stored summary keeps the run metadata"),
    Clause("A-73.2", "the stored summary keeps results[]"),
    Clause("A-73.3", "the stored summary keeps the echo of the scoring spec"),
    # how the client builds and sends the summary
    Clause("A-74.1", "results[].dimensions is config.dimensions merged with {groupByKey: value}", checkable=False,
           reason="the client builds each row's dimensions; the platform stores the rows it is sent (A-73.2)"),
    Clause("A-76.1", "the summary is submitted once, after all tasks finish", checkable=False,
           reason="when to submit is the client's; the platform takes a summary at any time (P-summary-merge)"),
    # A-82 PATCH of a benchmark
    Clause("A-82.1", "PATCH of a benchmark updates its name"),
    Clause("A-82.2", "PATCH of a benchmark updates its status"),
    Clause("A-82.3", "PATCH of a benchmark updates its config"),
    # A-83 the cross-benchmark run list
    Clause("A-83.1", "GET /benchmarks/runs lists the runs of every benchmark of the organisation"),
    Clause("A-83.2", "it includes the runs of subscribed feeds"),
    Clause("A-83.3", "benchmarkSlug narrows it to that benchmark's runs"),
    # A-84 PATCH of a run
    Clause("A-84.1", "PATCH of a run updates its status"),
    Clause("A-84.2", "PATCH of a run updates its config"),
    # A-85 progress
    Clause("A-85.1", "progress reports each participant's task counts"),
    Clause("A-85.2", "progress reports worker freshness (running and stale workers)"),
    Clause("A-85.3", "progress reports a `ready` flag per step"),
    # A-90 an artifact lookup
    Clause("A-90.1", "the lookup returns the artifact's metadata and an absolute presigned downloadUrl"),
    Clause("A-90.2", "the body fetched from downloadUrl is the uploaded body, gzip as uploaded"),
    Clause("A-90.3", "the client gunzips a gzip body", checkable=False, reason=CLIENT),
    # A-93 since and until
    Clause("A-93.1", "a YYYY-MM-DD since/until is the whole day in UTC by default"),
    Clause("A-93.2", "a YYYY-MM-DD since/until is the whole day in timeZone when given"),
    Clause("A-93.3", "an ISO timestamp since/until is taken literally and inclusively"),
    # A-94 the run listing's filters
    Clause("A-94.1", "the run listing narrows by participant"),
    Clause("A-94.2", "the run listing takes no steps filter"),
    # A-95 run list bounds
    Clause("A-95.1", "an unfiltered run list is unbounded"),
    Clause("A-95.2", "a filtered run list defaults to limit=100"),
    # A-96 run results
    Clause("A-96.1", "the overall latency summary is nearest-rank over the records' latencyMs"),
    Clause("A-96.2", "each participant's latency summary is its own records'"),
    Clause("A-96.3", "each step's latency summary is that step's records'"),
    Clause("A-96.4", "success rates: successCount / taskCount, overall and per participant"),
    # A-98 results/tasks
    Clause("A-98.1", "bucketSize task indices per bucket, each counting its tasks, successes and errors"),
    Clause("A-98.2", "each bucket's latency p50/p95/max is nearest-rank over its records"),
    Clause("A-98.3", "the failure points: every error record counted (failureCount)"),
    Clause("A-98.4", "failureLimit bounds the failure points listed"),
    # A-99 results/timeline
    Clause("A-99.1", "event-rate buckets are bucketMs wide"),
    Clause("A-99.2", "each bucket counts the records completed in it, succeeded and failed apart"),
    Clause("A-99.3", "concurrency points: one per sample of every accepted heartbeat"),
    # A-101 iterations
    Clause("A-101.1", "type=tasks gives task rows and type=steps step rows"),
    Clause("A-101.2", "participant narrows the rows"),
    Clause("A-101.3", "steps narrows step rows to the named steps"),
]  # fmt: skip
