"""The benchsdk Benchmarks Platform reference's claims, A-01…A-102, each with its text, the part of the
reference it comes from, and the words of the reference it rests on.

Ids are fixed (tests, checks and drift reports cite them). `basis` is DOC (the reference says it)
or INFERRED (the reference implies it). `checkable=False` marks the claims no HTTP exchange with
the platform can confirm (client-side behaviour). In a quote, "SRC" is what the published client's
source says beside the reference. `PROPOSALS` (P-…) are the mock's readings where the reference is
silent; a drift filed under one is a disagreement with the mock's reading, not with the reference.
"""

from __future__ import annotations

from dataclasses import dataclass

from contracts.runner.claims import Claim as RunnerClaim

TRANSPORT = "Transport & conventions"
LIMITS = "Transport & conventions: Limits"
IDEMPOTENCY = "Transport & conventions: Idempotency; Key terms (attemptId)"
TERMS = "Key terms"
W1 = "Write path §1 Upsert the benchmark"
W2 = "Write path §2 Create (or share) the run"
W3 = "Write path §3 Register participants"
W4_5 = "Write path §4 Plan workers, §5 Claim a worker"
W6 = "Write path §6 Heartbeat"
W7 = "Write path §7 Stream task results"
W8 = "Write path §8 Upload artifacts (two-step)"
W9 = "Write path §9 Close the worker"
W10 = "Write path §10 Submit the run summary; Concepts: dimensions and phases"
READ = "Read path"
SEQUENCE = "Sequence — one bench run end to end"


@dataclass(frozen=True)
class ReferenceClaim:
    id: str
    section: str
    text: str
    quote: str
    basis: str = "DOC"
    checkable: bool = True

    @property
    def title(self) -> str:
        return f"{self.id} ({self.section}) {self.text}"


_ALL = [
    ReferenceClaim(
        "A-01",
        TRANSPORT,
        "The API lives under `/api/v1` of a root URL, and the override is a root",
        '"root URL; `/api/v1` is appended"',
        "DOC",
    ),
    ReferenceClaim(
        "A-02",
        TRANSPORT,
        "Every call authenticates with a bearer token",
        '"`Authorization: Bearer <token>`"',
        "DOC",
    ),
    ReferenceClaim(
        "A-03",
        TRANSPORT,
        "Three credential kinds are accepted: an org-scoped API key, an OAuth token, and a stored login token",
        '"org-scoped `bp_...`", "`BENCHMARKS_PLATFORM_TOKEN` (OAuth)"',
        "DOC",
    ),
    ReferenceClaim(
        "A-04",
        TRANSPORT,
        "An API key implies its org. An OAuth request names its org in one of two headers",
        (
            '"OAuth requests also send `X-Org-Slug` or `X-Organization-Id`." (SRC sends the slug when both are '
            "configured.)"
        ),
        "DOC",
    ),
    ReferenceClaim(
        "A-05",
        TRANSPORT,
        "Request bodies are JSON",
        '"`Content-Type: application/json`"',
        "DOC",
    ),
    ReferenceClaim(
        "A-06",
        TRANSPORT,
        (
            "Path params arrive percent-encoded and must be decoded before lookup, so slugs and ids with "
            "reserved characters round-trip"
        ),
        '"path params are `encodeURIComponent`-encoded"',
        "DOC",
    ),
    ReferenceClaim(
        "A-07",
        TRANSPORT,
        "Every rejection is non-2xx, and the client keeps only the status and the raw body",
        '"Non-2xx → `BenchmarkApiError(status, body)`"',
        "DOC",
    ),
    ReferenceClaim(
        "A-08",
        LIMITS,
        "A task-result batch holds at most 5000 records",
        '"Task-result batches ≤ 5000 records"',
        "DOC",
    ),
    ReferenceClaim(
        "A-09",
        LIMITS,
        "A record holds at most 100 steps",
        '"≤ 100 steps per record"',
        "DOC",
    ),
    ReferenceClaim(
        "A-10",
        LIMITS,
        "A heartbeat holds at most 20 concurrency samples, one per step name",
        (
            '"≤ 20 unique-step concurrency samples per heartbeat". (SRC also rejects a repeated step name on the '
            "client side.)"
        ),
        "DOC",
    ),
    ReferenceClaim(
        "A-11",
        IDEMPOTENCY,
        "`runKey` is scoped per org + benchmark",
        '"`runKey` on run creation (per org + benchmark)"',
        "DOC",
    ),
    ReferenceClaim(
        "A-12",
        IDEMPOTENCY,
        ("The same `runKey` gives the same run (get-or-create), so concurrent sibling processes converge on one run"),
        '"With a shared `runKey`, sibling processes get-or-create the same run"',
        "DOC",
    ),
    ReferenceClaim(
        "A-13",
        IDEMPOTENCY,
        "The same `runKey` under another benchmark or another org gives a different run",
        "INFERRED from A-11",
        "INFERRED",
    ),
    ReferenceClaim(
        "A-14",
        IDEMPOTENCY,
        "Every worker-scoped mutation carries `attemptId`",
        '"Sent on every worker-scoped mutation (heartbeat, events, artifacts, complete/fail/release)"',
        "DOC",
    ),
    ReferenceClaim(
        "A-15",
        IDEMPOTENCY,
        "A mutation carrying a superseded `attemptId` must not change a reclaimed worker",
        '"so stale processes cannot corrupt a reclaimed worker"',
        "DOC",
    ),
    ReferenceClaim(
        "A-16",
        IDEMPOTENCY,
        ("`attemptId` + `sequenceNumber` make event batches idempotent: sending a batch again does not count it twice"),
        (
            'Idempotency row: "`attemptId` + `sequenceNumber` on every worker mutation and event batch". SRC has '
            "a response field `duplicate?: boolean`"
        ),
        "DOC",
    ),
    ReferenceClaim(
        "A-17",
        TERMS,
        "A benchmark is identified by a lowercase slug",
        '"identified by a lowercase `slug` (e.g. `sandbox-tti`)"',
        "DOC",
    ),
    ReferenceClaim(
        "A-18",
        TERMS,
        "Everything hangs off the slug, so nothing exists under an unknown slug",
        '"Everything else hangs off its slug."',
        "DOC",
    ),
    ReferenceClaim(
        "A-19",
        TERMS,
        "The resources form a tree",
        '"benchmark → run → participant → worker → task → step"',
        "DOC",
    ),
    ReferenceClaim(
        "A-20",
        TERMS,
        "A run carries a status, totalTasks and a config snapshot",
        '"Carries status, `totalTasks`, and a snapshot of the resolved run config."',
        "DOC",
    ),
    ReferenceClaim(
        "A-21",
        TERMS,
        "A run exists before any task executes, so worker operations need an existing run",
        '"Created before any task executes."',
        "DOC",
    ),
    ReferenceClaim(
        "A-22",
        TERMS,
        "A participant is registered on the run with its own totalTasks",
        '"registered on the run with its own `totalTasks`"',
        "DOC",
    ),
    ReferenceClaim(
        "A-23",
        TERMS,
        "A worker owns a taskRange and a targetConcurrency",
        '"Owns a `taskRange` and a `targetConcurrency`."',
        "DOC",
    ),
    ReferenceClaim(
        "A-24",
        W1,
        "PUT `/benchmarks/{slug}` creates or updates the benchmark's name and config",
        '"Upserted once per run with its name plus the `scoring` and `display` manifests"',
        "DOC",
    ),
    ReferenceClaim(
        "A-25",
        W1,
        "Repeating the PUT leaves exactly one benchmark, holding the last body",
        'INFERRED from "Upserted" (PUT semantics)',
        "INFERRED",
    ),
    ReferenceClaim(
        "A-26",
        W1,
        "A caller can create runs on a benchmark it did not upsert (a foreign slug)",
        '"Skipped when --benchmark retargets a run at a foreign slug"',
        "DOC",
    ),
    ReferenceClaim(
        "A-27",
        W1,
        "A PUT by a non-owner would rename the owner's benchmark, which is why the client skips it",
        '"that would rename someone else\'s benchmark"',
        "DOC",
    ),
    ReferenceClaim(
        "A-28",
        W2,
        (
            "The request has two shapes: self-contained (totalTasks + participants) and shared (runKey, without "
            "totalTasks or participants)"
        ),
        '"Two shapes."',
        "DOC",
    ),
    ReferenceClaim(
        "A-29",
        W2,
        "Omitting totalTasks gives a participant-sized run",
        '"totalTasks — omit → participant-sized run"',
        "DOC",
    ),
    ReferenceClaim(
        "A-30",
        W2,
        "A participant-sized run's size is the sum of its registered participants' totalTasks",
        (
            '"so participant-sized runs know their extent". SRC: "`totalTasks` is the sum of what its '
            'participants declare"'
        ),
        "DOC",
    ),
    ReferenceClaim(
        "A-31",
        W2,
        "The config snapshot is stored as sent and returned on reads",
        (
            '"config — resolved run snapshot: slug, name, iterations, phases, concurrency, staggerDelayMs, '
            'groupBy, dimensions, scoring, participants, trigger"'
        ),
        "DOC",
    ),
    ReferenceClaim(
        "A-32",
        W2,
        "config.phases and config.iterations are mutually exclusive",
        '"mutually exclusive with iterations". This is a runner rule; whether the server enforces it is unknown',
        "DOC",
        checkable=False,
    ),
    ReferenceClaim(
        "A-33",
        W2,
        "config.groupBy is `participant` or `round`",
        "\"`'participant'` drives real platform workers; `'round'` interleaves participants\"",
        "DOC",
    ),
    ReferenceClaim(
        "A-34",
        W2,
        "The response is `{run, participants, organizationSlug}`",
        '"Returns { run, participants, organizationSlug }"',
        "DOC",
    ),
    ReferenceClaim(
        "A-35",
        W2,
        "`organizationSlug` and the run id are enough to build the dashboard URL",
        '"the runner builds the dashboard URL as {base}/{org}/benchmarks/{slug}/runs/{runId}"',
        "DOC",
        checkable=False,
    ),
    ReferenceClaim(
        "A-36",
        W2,
        "A self-contained run registers its listed participants when it is created",
        'INFERRED from "declared totalTasks + participants list" and the `participants` field of the response',
        "INFERRED",
    ),
    ReferenceClaim(
        "A-37",
        W3,
        (
            "PUT on a participant declares that participant's totalTasks on a shared run, and each sibling "
            "registers only its own participant"
        ),
        '"each sibling process declares just its own provider\'s task count"',
        "DOC",
    ),
    ReferenceClaim(
        "A-38",
        W3,
        "Repeating the PUT for the same participant updates it rather than adding a second one",
        "INFERRED (PUT semantics)",
        "INFERRED",
    ),
    ReferenceClaim(
        "A-39",
        W4_5,
        "planWorkers creates `workerCount` pending workers that the participant's processes can claim",
        '"Creates pending worker rows the participant\'s processes can claim."',
        "DOC",
    ),
    ReferenceClaim(
        "A-40",
        W4_5,
        "The platform reads targetConcurrency as tasks-per-worker",
        '"the platform reads it as tasks-per-worker"',
        "DOC",
    ),
    ReferenceClaim(
        "A-41",
        W4_5,
        "A claim binds one pending worker to the calling process and returns an assignment",
        '"`claim` binds one to this process and returns an `assignment`"',
        "DOC",
    ),
    ReferenceClaim(
        "A-42",
        W4_5,
        "A claim answers null when no worker is pending",
        '"Returns the assignment (or null if nothing is pending)"',
        "DOC",
    ),
    ReferenceClaim(
        "A-43",
        W4_5,
        "The end of a taskRange is inclusive, so count = end − start + 1",
        'INFERRED from the example `{ "start": 0, "end": 5, "count": 6 }`',
        "INFERRED",
    ),
    ReferenceClaim(
        "A-44",
        W4_5,
        "Each taskIndex in the claimed range runs once",
        '"Runs once per `taskIndex` in the worker\'s claimed range."',
        "DOC",
    ),
    ReferenceClaim(
        "A-45",
        W4_5,
        "Reclaiming a worker creates a new attempt, with a new attemptId and a higher attemptNumber",
        'INFERRED from "reclaimed worker" and `attemptNumber: 1`',
        "INFERRED",
    ),
    ReferenceClaim(
        "A-46",
        W4_5,
        "In round mode, one process drives several participants' workers at the same time",
        '"the runner drives one BenchmarkReporter per participant through the same endpoints by hand"',
        "DOC",
        checkable=False,
    ),
    ReferenceClaim(
        "A-47",
        W6,
        (
            "A heartbeat carries progressDone, progressInFlight, progressErrors, progressTotal, currentStep and "
            "concurrency[{step, active, target}]"
        ),
        "the example",
        "DOC",
    ),
    ReferenceClaim(
        "A-48",
        W6,
        (
            "Heartbeats arrive about every 30 s and on every step transition, so the server must accept them at "
            "high frequency"
        ),
        '"~30s cadence plus immediate sends on step transitions"',
        "DOC",
    ),
    ReferenceClaim(
        "A-49",
        W6,
        "Heartbeats feed the live progress view and the concurrency timeline",
        '"feeds the run\'s live progress and concurrency timeline"',
        "DOC",
    ),
    ReferenceClaim(
        "A-50",
        W7,
        "A batch carries type `task_results`, attemptId, sequenceNumber, isFinal and records",
        "the example",
        "DOC",
    ),
    ReferenceClaim(
        "A-51",
        W7,
        "sequenceNumber increases monotonically per attempt, starting at 0",
        '"sequenceNumber — monotonic per attempt"; the example has `"sequenceNumber": 0`',
        "DOC",
    ),
    ReferenceClaim(
        "A-52",
        W7,
        "The last batch of an attempt has isFinal: true",
        '"the last batch is `isFinal: true`"',
        "DOC",
    ),
    ReferenceClaim(
        "A-53",
        W7,
        "An attempt sends many batches, each holding 1 to 5000 records",
        (
            '"Incrementally flushed batches (default every 30s / at 1000 pending records / once at the end with '
            'isFinal: true)"'
        ),
        "DOC",
    ),
    ReferenceClaim(
        "A-54",
        W7,
        'A record\'s status is "success" or "error", and error records carry an errorCode',
        '"status — "success" or "error" + errorCode"',
        "DOC",
    ),
    ReferenceClaim(
        "A-55",
        W7,
        "Error records keep their data and the steps measured before the error",
        '"preserving data and pre-measured steps"',
        "DOC",
    ),
    ReferenceClaim(
        "A-56",
        W7,
        "A task without declared steps arrives with one implicit step named `task`",
        "\"a task with no declared steps becomes one implicit 'task' step.\"",
        "DOC",
    ),
    ReferenceClaim(
        "A-57",
        W7,
        "In a phased run, every record carries record.data.phase, failed records included",
        (
            '"The phase tag is written to record.data.phase before the task runs so failed records still group '
            'correctly."'
        ),
        "DOC",
    ),
    ReferenceClaim(
        "A-58",
        W7,
        (
            "Top-level measure() data goes to record.data and in-step measure() data goes to step.data. Return "
            "values are never recorded"
        ),
        '"record.data — top-level measure() payloads land here; step.data — measure() called inside a step"',
        "DOC",
        checkable=False,
    ),
    ReferenceClaim(
        "A-59",
        W7,
        "Scoring reads its metrics from record.data",
        '"Scoring reads metrics from `record.data`."',
        "DOC",
        checkable=False,
    ),
    ReferenceClaim(
        "A-60",
        W7,
        ("Accepted batches queue for import into the analytics store, and each batch shows up in the imports view"),
        '"Batches queue for import into the analytics store."',
        "DOC",
    ),
    ReferenceClaim(
        "A-61",
        W8,
        (
            "An artifact upload takes two steps: the POST returns uploadUrl + artifactId, then the body is PUT "
            "to uploadUrl with the declared Content-Type"
        ),
        (
            '"Response carries uploadUrl + artifactId; the body is then PUT straight to the presigned URL with '
            'the declared Content-Type."'
        ),
        "DOC",
    ),
    ReferenceClaim(
        "A-62",
        W8,
        "kind is an open set: coordinator.log, system-metrics, or a custom kind",
        '"or a custom kind"',
        "DOC",
    ),
    ReferenceClaim(
        "A-63",
        W8,
        "The contentType values in use are text/plain, application/gzip and application/x-ndjson",
        '"contentType — "text/plain" / "application/gzip" / "application/x-ndjson""',
        "DOC",
    ),
    ReferenceClaim(
        "A-64",
        W8,
        "metadata.sizeBytes equals the body length whenever the client can measure it",
        '"metadata.sizeBytes is auto-filled from the body when measurable"',
        "DOC",
    ),
    ReferenceClaim(
        "A-65",
        W8,
        "An attempt can upload several artifacts, including repeated log uploads during the run",
        '"at finish (and mid-run when log flushing is enabled)"',
        "DOC",
    ),
    ReferenceClaim(
        "A-66",
        W8,
        "Worker logs travel as artifacts (kind coordinator.log, name worker.log), not inside records",
        (
            '"Buffered per worker and uploaded as a `coordinator.log` / `worker.log` artifact — not inline in '
            'task records."'
        ),
        "DOC",
    ),
    ReferenceClaim(
        "A-67",
        W8,
        "System metrics are uploaded as NDJSON (metrics.jsonl, kind system-metrics)",
        '"the metrics.jsonl system-metrics NDJSON"',
        "DOC",
    ),
    ReferenceClaim(
        "A-68",
        W8,
        ('Round mode uploads one shared artifact with metadata.scope = "shared-process" and the full participant list'),
        (
            '"one shared process-scoped metrics artifact with metadata.scope = "shared-process" and the full '
            'participant list"'
        ),
        "DOC",
    ),
    ReferenceClaim(
        "A-69",
        W9,
        "complete, fail and release each carry attemptId. errorCode and errorMessage appear only on fail",
        '"errorCode/errorMessage only on fail"',
        "DOC",
    ),
    ReferenceClaim(
        "A-70",
        W9,
        "A worker completes when every task succeeded and fails otherwise",
        '"complete when every task succeeded, fail otherwise"',
        "DOC",
    ),
    ReferenceClaim(
        "A-71",
        W9,
        "release abandons a claim, and the worker can then be claimed again",
        '"release to abandon a claim" (that it becomes claimable again is INFERRED)',
        "INFERRED",
    ),
    ReferenceClaim(
        "A-72",
        W9,
        "A worker whose final flush failed is closed with fail",
        '"A worker whose final flush failed is failed, not completed."',
        "DOC",
    ),
    ReferenceClaim(
        "A-73",
        W10,
        "The summary body carries run metadata, results[] and an echo of the scoring spec",
        "the example",
        "DOC",
    ),
    ReferenceClaim(
        "A-74",
        W10,
        "results[].dimensions is config.dimensions merged with {groupByKey: value}",
        '"dimensions — config.dimensions + the scoring.groupBy value"',
        "DOC",
    ),
    ReferenceClaim(
        "A-75",
        W10,
        "compositeScore lies in [0, 100]",
        '"compositeScore — Σ per-metric score × weight × successRate, 0–100"',
        "DOC",
    ),
    ReferenceClaim(
        "A-76",
        W10,
        "The summary is submitted once, after all tasks finish",
        '"submitted once after all tasks finish"',
        "DOC",
    ),
    ReferenceClaim(
        "A-77",
        W10,
        "Runs without scoring never receive a summary, and reads must cope with that",
        '"Only sent when the config declares scoring or onScore."',
        "DOC",
    ),
    ReferenceClaim(
        "A-78",
        W10,
        "The platform can recompute the summary from the echoed scoring spec",
        '"the platform can recompute it from the same stored spec"',
        "DOC",
        checkable=False,
    ),
    ReferenceClaim(
        "A-79",
        W10,
        (
            "The scoring.groupBy breakout renders only when the run produced 2–12 distinct values. With a single "
            "value the run is served blended"
        ),
        (
            '"only renders when the run produced 2–12 distinct values for the key — one value means no real '
            'variation (the platform serves the run blended), more than twelve is unreadable"'
        ),
        "DOC",
        checkable=False,
    ),
    ReferenceClaim(
        "A-80",
        W10,
        "scoring.groupBy has nothing to do with the top-level groupBy",
        '"scoring.groupBy is unrelated to the top-level groupBy"',
        "DOC",
        checkable=False,
    ),
    ReferenceClaim(
        "A-81",
        READ,
        "GET `/benchmarks` pages with limit/offset and returns `items`",
        '"Benchmark list (`items`)."',
        "DOC",
    ),
    ReferenceClaim(
        "A-82",
        READ,
        "PATCH `/benchmarks/{slug}` updates the name, status and config",
        '"update name, status, config"',
        "DOC",
    ),
    ReferenceClaim(
        "A-83",
        READ,
        (
            "GET `/benchmarks/runs` lists every visible run across benchmarks, subscribed feeds included, and "
            "`benchmarkSlug` narrows it"
        ),
        '"All visible runs across benchmarks, including subscribed feeds (Daily)."',
        "DOC",
    ),
    ReferenceClaim(
        "A-84",
        READ,
        "PATCH on a run updates its status or config",
        '"Run detail / update status or config."',
        "DOC",
    ),
    ReferenceClaim(
        "A-85",
        READ,
        "progress reports per-participant task counts, worker freshness and per-step ready flags",
        '"Live status: per-participant task counts, worker freshness, per-step `ready` flags"',
        "DOC",
    ),
    ReferenceClaim(
        "A-86",
        READ,
        ("The step `ready` flags are the barrier for `readiness: 'poll'` steps, and workers poll until a flag is set"),
        "\"used by step `readiness: 'poll'` barriers\"",
        "DOC",
    ),
    ReferenceClaim(
        "A-87",
        READ,
        "logs returns the participant's worker logs, at most `maxLines` lines",
        '"Participant worker logs."',
        "DOC",
    ),
    ReferenceClaim(
        "A-88",
        READ,
        "Worker rows carry progress and concurrency samples",
        '"Worker rows with progress and concurrency samples."',
        "DOC",
    ),
    ReferenceClaim(
        "A-89",
        READ,
        "Artifact listings exist per run and per worker",
        '"Artifact listings."',
        "DOC",
    ),
    ReferenceClaim(
        "A-90",
        READ,
        (
            "An artifact lookup returns metadata plus a presigned downloadUrl, and the fetched body is the "
            "uploaded body (the client gunzips it if gzip)"
        ),
        '"the body is then fetched from that URL (auto-gunzipped when the content type is gzip)"',
        "DOC",
    ),
    ReferenceClaim(
        "A-91",
        READ,
        "The benchmark results overview includes the analytics readiness of each run",
        '"Cross-run overview with analytics readiness per run"',
        "DOC",
    ),
    ReferenceClaim(
        "A-92",
        READ,
        "`participant` and `steps` are comma-separated lists",
        '"`participant`/`steps` are comma lists"',
        "DOC",
    ),
    ReferenceClaim(
        "A-93",
        READ,
        "since and until accept YYYY-MM-DD, interpreted in timeZone (UTC by default), or an ISO timestamp",
        '"accept YYYY-MM-DD (zoned by `timeZone`, default UTC) or an ISO timestamp"',
        "DOC",
    ),
    ReferenceClaim(
        "A-94",
        READ,
        "The run listing accepts participant, since, until and timeZone, but not steps",
        '"with the same date/participant filters (no `steps`)"',
        "DOC",
    ),
    ReferenceClaim(
        "A-95",
        READ,
        "Unfiltered run lists are unbounded, and filtered ones default to limit=100",
        '"unfiltered lists stay unbounded, filtered ones default to `limit=100`"',
        "DOC",
    ),
    ReferenceClaim(
        "A-96",
        READ,
        "Run results give overall, per-participant and per-step latency summaries and success rates",
        '"overall + per-participant + per-step latency summaries and success rates"',
        "DOC",
    ),
    ReferenceClaim(
        "A-97",
        READ,
        "`participant` narrows every aggregate to the listed slugs",
        '"`participant` narrows every aggregate to those slugs"',
        "DOC",
    ),
    ReferenceClaim(
        "A-98",
        READ,
        (
            "results/tasks groups task indices into buckets (p50/p95/max) and lists failure points; bucketSize "
            "and failureLimit size them"
        ),
        '"Task-index buckets (p50/p95/max per bucket) plus the failure points"',
        "DOC",
    ),
    ReferenceClaim(
        "A-99",
        READ,
        ("results/timeline buckets the event rate by bucketMs and lists concurrency points derived from heartbeats"),
        '"Event-rate buckets + heartbeat-derived concurrency points over time"',
        "DOC",
    ),
    ReferenceClaim(
        "A-100",
        READ,
        "results/imports reports each event batch as queued, persisted or failed",
        '"queued/persisted/failed per batch"',
        "DOC",
    ),
    ReferenceClaim(
        "A-101",
        READ,
        ("iterations returns raw task rows or step rows according to `type`, filterable by participant and step names"),
        '"Raw per-iteration rows — task records or step records, filterable by participant and step names"',
        "DOC",
    ),
    ReferenceClaim(
        "A-102",
        SEQUENCE,
        "`--dry-run`, `--no-ingest` and `BENCHSDK_NO_INGEST=1` make no platform calls",
        '"none of these calls are made"',
        "DOC",
        checkable=False,
    ),
]

BY_ID: dict[str, ReferenceClaim] = {c.id: c for c in _ALL}

# what the runner files drift under: the reference claims, then the mock's proposals
CLAIMS: list[RunnerClaim] = [RunnerClaim(c.id, c.section, c.text) for c in _ALL]

PROPOSALS: dict[str, str] = {
    "P-envelopes": "responses use the envelopes the published client reads ({benchmark}, {run}, {items}, "
    "{assignment}, {worker, attempt}, {artifact, downloadUrl})",
    "P-errors": "every non-2xx body is {error: {code, message}} with a code documented for the operation",
    "P-status": "201 for a new run, 200 for an existing runKey and every other write; 400 schema/limit; "
    "401 credential; 403 org/owner; 404 unknown resource; 409 attempt/sequence conflicts",
    "P-timestamps": "server-stamped timestamps are ISO-8601 UTC with milliseconds and Z",
    "P-sequence": "a repeated sequenceNumber is duplicate: true; a lower unseen one is 409 sequence_regression; "
    "gaps are allowed; after isFinal a new one is 409 attempt_finalized",
    "P-lease": (
        "a worker unheartbeated for x-timing.leaseSeconds is stale: claimable again; its attempt is refused only "
        "once a reclaim supersedes it, and until then still reports and completes"
    ),
    "P-upload": "a presigned PUT with another Content-Type, an altered signature or after expiry is 403",
    "P-ensure": "planning a participant that has workers returns them; another workerCount is 409",
    "P-summary-merge": "a later summary replaces the rows of the same (provider, dimensions) and keeps the others",
}


CLAIMS += [RunnerClaim(pid, "Proposal (the reference is silent)", text) for pid, text in PROPOSALS.items()]


def claim(claim_id: str) -> ReferenceClaim:
    return BY_ID[claim_id]
