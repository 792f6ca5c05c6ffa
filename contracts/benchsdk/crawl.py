"""What benchsdk adds to the generic crawl (`contracts.runner.crawl`): the conventions check of every
answer (`conventions.check`: envelopes, errors, timestamps, taskRange, score ranges) and derived fields of
the rows a client reads: a run's participants' task counts add up to a participant-sized run (A-30),
progress counts agree with the participants listed (A-85), result buckets' successes and errors add up
to their task count (A-98.1), imports' batch states add up to the batches (A-100), and the API key
appears in no answer."""

from __future__ import annotations

from typing import Any

from contracts.runner.crawl import CrawlHooks

from . import conventions


def derived_findings(operation_id: str, body: Any) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if not isinstance(body, dict):
        return out
    run = body.get("run") if isinstance(body.get("run"), dict) else None
    if operation_id == "getRun" and run is not None:
        if not isinstance(run.get("status"), str) or "totalTasks" not in run:
            out.append(("A-20", f"run {run.get('id')!r} lacks status or totalTasks"))
        participants = run.get("participants")
        total = run.get("totalTasks")
        if isinstance(participants, list) and participants and isinstance(total, int):
            counts = [p.get("totalTasks") for p in participants if isinstance(p, dict)]
            if all(isinstance(c, int) for c in counts) and sum(counts) > total:
                out.append(("A-30", f"participants declare {sum(counts)} tasks, more than the run's {total}"))
    workers = [body["worker"]] if isinstance(body.get("worker"), dict) else []
    if operation_id == "listParticipantWorkers":
        workers = [w for w in body.get("items") or [] if isinstance(w, dict)]
    for worker in workers:
        start, end, total = worker.get("taskIndexStart"), worker.get("taskIndexEnd"), worker.get("progressTotal")
        if all(isinstance(x, int) for x in (start, end, total)) and total != end - start + 1:
            out.append(("A-23", f"worker {worker.get('id')}: tasks {start}..{end} but progressTotal {total}"))
    if operation_id == "getRunProgress" and isinstance(body.get("participants"), list):
        parts = [p for p in body["participants"] if isinstance(p, dict)]
        summary = (body.get("summary") or {}).get("participants") or {}
        if isinstance(summary.get("total"), int) and summary["total"] != len(parts):
            out.append(("A-85.1", f"summary.participants.total {summary['total']}, {len(parts)} listed"))
        counted = [p.get("totalTasks") for p in parts]
        size = (body.get("run") or {}).get("totalTasks")
        if isinstance(size, int) and counted and all(isinstance(c, int) for c in counted) and sum(counted) > size:
            out.append(("A-85.1", f"participants' totalTasks add up to {sum(counted)}, more than the run's {size}"))
    if operation_id == "getRunTaskResults":
        for bucket in body.get("buckets") or []:
            if not isinstance(bucket, dict):
                continue
            tasks, ok, bad = bucket.get("taskCount"), bucket.get("successCount"), bucket.get("errorCount")
            if all(isinstance(x, int) for x in (tasks, ok, bad)) and ok + bad != tasks:
                out.append(("A-98.1", f"a bucket counts {tasks} tasks but {ok} successes and {bad} errors"))
    if operation_id == "getRunImports" and isinstance(body.get("summary"), dict):
        summary = body["summary"]
        parts = [summary.get(k) for k in ("persisted", "queued", "failed")]
        batches = summary.get("eventBatches")
        if isinstance(batches, int) and all(isinstance(x, int) for x in parts) and sum(parts) != batches:
            out.append(("A-100", f"persisted+queued+failed = {sum(parts)}, not eventBatches {batches}"))
    return out


def paging_findings(crawl, operation_id: str, path: str, body: Any) -> list[tuple[str, str]]:
    """A-81: limit/offset pages are windows of the unpaged list (no overlap, no gap); A-87: `maxLines` bounds
    the logs; A-89: every worker's artifact is in its run's artifact list."""
    from urllib.parse import parse_qsl, urlsplit

    parts = urlsplit(path)
    query = dict(parse_qsl(parts.query))
    out: list[tuple[str, str]] = []
    if not isinstance(body, dict):
        return out
    if operation_id == "listBenchmarks" and "limit" in query:
        whole = crawl.bodies.get(parts.path)
        if isinstance(whole, dict) and isinstance(whole.get("items"), list):
            start, size = int(query.get("offset", 0)), int(query["limit"])
            expected = [b.get("slug") for b in whole["items"][start : start + size]]
            served = [b.get("slug") for b in body.get("items") or []]
            if served != expected:
                out.append(("A-81", f"?{parts.query} served {served}, the unpaged list has {expected} there"))
    if operation_id == "getParticipantLogs" and len(body.get("items") or []) > int(query.get("maxLines", 10**9)):
        out.append(("A-87", f"?{parts.query} served {len(body['items'])} lines"))
    if operation_id == "listWorkerArtifacts":  # against the run's list, when it was crawled first
        listed = crawl.bodies.get(parts.path.rsplit("/workers/", 1)[0] + "/artifacts")
        out += _unlisted_artifacts(listed, [body])
    if operation_id == "listRunArtifacts":  # against the worker lists crawled before it
        prefix = parts.path.removesuffix("/artifacts") + "/workers/"
        workers = [b for p, b in crawl.bodies.items() if p.startswith(prefix) and p.count("/", len(prefix)) == 1]
        out += _unlisted_artifacts(body, [b for b in workers if isinstance(b, dict)])
    return out


def _unlisted_artifacts(listed: Any, worker_lists: list[dict]) -> list[tuple[str, str]]:
    """A-89: the worker artifacts that the run's artifact list lacks (whichever of the two the crawl
    met first)."""
    if not isinstance(listed, dict) or not isinstance(listed.get("items"), list):
        return []
    known = {a.get("id") for a in listed["items"] if isinstance(a, dict)}
    missing = [
        a.get("id")
        for worker in worker_lists
        for a in worker.get("items") or []
        if isinstance(a, dict) and a.get("id") not in known
    ]
    return [("A-89", f"worker artifacts {missing[:3]} are missing from the run's artifact list")] if missing else []


def check(crawl, operation, path, status, headers, content, body):
    lower = {k.lower(): v for k, v in headers.items()}
    found = [(v.claim, v.message) for v in conventions.check(operation, status, lower, body)]
    found += derived_findings(operation["operationId"], body)
    if 200 <= status < 300:
        found += paging_findings(crawl, operation["operationId"], path, body)
    return found


CRAWL = CrawlHooks(
    check=check,
    queries={
        "listBenchmarks": ("limit=1", "limit=1&offset=1", "limit=2&offset=1"),
        "getParticipantLogs": ("maxLines=1",),
    },
    claims=(
        "A-81",
        "A-87",
        "A-89",
        "A-05",
        "A-17",
        "A-20",
        "A-23",
        "A-30",
        "A-43",
        "A-61",
        "A-75",
        "A-85.1",
        "A-90.1",
        "A-96.4",
        "A-98.1",
        "A-100",
    ),
)
