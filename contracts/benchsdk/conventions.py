"""The conventions check for one benchsdk response: what any answer of an operation must look like.

`check(operation, status, headers, body)` returns the violations, each naming the claim (A-nn)
or proposal (P-…, `claims.PROPOSALS`) it breaks. It needs only the spec operation (its
`operationId`, `responses` and `x-errors`) and the exchange, so it judges the mock and a live
target alike.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

ISO_MS_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]*$")
# fields the server stamps (client-sent record timestamps are echoed as sent and not judged)
STAMPED = {
    "createdAt",
    "updatedAt",
    "generatedAt",
    "claimedAt",
    "lastSeenAt",
    "leaseExpiresAt",
    "closedAt",
    "lastHeartbeatAt",
    "uploadUrlExpiresAt",
    "downloadUrlExpiresAt",
    "uploadedAt",
    "persistedAt",
    "importedAt",
    "failedAt",
    "submittedAt",
    "recordedAt",
    "firstRecordedAt",
}
# user data the server stores as sent: not walked
OPAQUE = {"config", "data", "metadata", "scoring", "display", "defaultRunConfig", "dimensions", "query", "steps_data"}
# the envelope key(s) each 2xx answer carries (P-envelopes: what the published client reads)
ENVELOPES = {
    "upsertBenchmark": {"benchmark"},
    "getBenchmark": {"benchmark"},
    "updateBenchmark": {"benchmark"},
    "listBenchmarks": {"items"},
    "listRuns": {"items"},
    "listAllRuns": {"items"},
    "createRun": {"run", "participants", "organizationSlug"},
    "getRun": {"run"},
    "updateRun": {"run"},
    "registerParticipant": {"participant"},
    "planWorkers": {"items"},
    "listParticipantWorkers": {"items"},
    "claimWorker": {"assignment"},
    "getWorker": {"worker"},
    "heartbeatWorker": {"worker", "attempt"},
    "completeWorker": {"worker", "attempt"},
    "failWorker": {"worker", "attempt"},
    "releaseWorker": {"worker", "attempt"},
    "createWorkerArtifact": {"artifactId", "uploadUrl", "artifact"},
    "getWorkerArtifact": {"artifact", "downloadUrl"},
    "listWorkerArtifacts": {"items"},
    "listRunArtifacts": {"items"},
}


ASSIGNMENT = {
    "benchmarkId",
    "benchmarkSlug",
    "runId",
    "participantId",
    "participantSlug",
    "workerId",
    "workerIndex",
    "workerCount",
    "attemptId",
    "attemptNumber",
    "taskRange",
    "targetConcurrency",
}  # the fields @benchsdk/api's `BenchmarkAssignment` does not mark optional


@dataclass(frozen=True)
class Violation:
    claim: str
    message: str

    def __str__(self) -> str:
        return f"[{self.claim}] {self.message}"


def _error(op: Mapping[str, Any], status: int, body: Any) -> list[Violation]:
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict) or not isinstance(err.get("code"), str) or not isinstance(err.get("message"), str):
        return [Violation("P-errors", f"{status} body is not {{error: {{code, message}}}}: {str(body)[:200]}")]
    documented = (op.get("x-errors") or {}).get(str(status))
    if documented is None:
        return [Violation("P-errors", f"status {status} is not documented for {op['operationId']}")]
    if err["code"] not in documented:
        return [Violation("P-errors", f"{op['operationId']} {status} code {err['code']!r} is not among {documented}")]
    return []


def _walk(node: Any, path: str, out: list[Violation]) -> None:
    if isinstance(node, list):
        for i, item in enumerate(node):
            _walk(item, f"{path}[{i}]", out)
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        where = f"{path}.{key}"
        if key in OPAQUE:
            continue
        if key in STAMPED and value is not None and not (isinstance(value, str) and ISO_MS_Z.match(value)):
            out.append(Violation("P-timestamps", f"{where} = {value!r} is not ISO-8601 UTC with ms and Z"))
        if key == "taskRange" and isinstance(value, dict):
            start, end, count = value.get("start"), value.get("end"), value.get("count")
            if not all(isinstance(x, int) for x in (start, end, count)) or count != end - start + 1:
                out.append(Violation("A-43", f"{where} = {value} does not satisfy count = end − start + 1"))
        if key == "compositeScore" and isinstance(value, int | float) and not 0 <= value <= 100:
            out.append(Violation("A-75", f"{where} = {value} is outside [0, 100]"))
        if key in ("successRate", "completionRatio") and isinstance(value, int | float) and not 0 <= value <= 1:
            out.append(Violation("A-96.4", f"{where} = {value} is outside [0, 1]"))
        _walk(value, where, out)


def _benchmark_slugs(body: Any, out: list[Violation]) -> None:
    candidates = []
    if isinstance(body, dict):
        if isinstance(body.get("benchmark"), dict):
            candidates.append(body["benchmark"])
        for item in body.get("items") or []:
            if isinstance(item, dict) and "slug" in item and "config" in item:
                candidates.append(item)
    for bench in candidates:
        slug = bench.get("slug")
        if not isinstance(slug, str) or not SLUG.match(slug):
            out.append(Violation("A-17", f"benchmark slug {slug!r} is not lowercase"))


def _absolute_presigned(url: Any, what: str, out: list[Violation]) -> None:
    """An absolute, out-of-band presigned URL: the upload's (A-61) or the lookup's download (A-90.1)."""
    claim = "A-61" if what == "uploadUrl" else "A-90.1"
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        out.append(Violation(claim, f"{what} {url!r} is not an absolute URL"))
    elif parts.path.startswith("/api/v1/"):
        out.append(Violation(claim, f"{what} {url!r} is under /api/v1 (it is an out-of-band presigned URL)"))


def _events_answer(body: dict[str, Any], out: list[Violation]) -> None:
    """The client's `TaskResultsResponse`: `accepted` is a number (the records this call put on
    record), and a resend, counted once, adds none."""
    duplicate, accepted = body.get("duplicate"), body.get("accepted")
    if not isinstance(duplicate, bool):
        out.append(Violation("A-16.1", "an events answer says whether the batch was a duplicate"))
    if isinstance(accepted, bool) or not isinstance(accepted, int) or accepted < 0:
        out.append(Violation("P-envelopes", f"the events answer's accepted = {accepted!r} is not a record count"))
    elif duplicate is True and accepted != 0:
        out.append(Violation("A-16.2", f"a duplicate batch answered accepted = {accepted}; it is counted once"))


def check(operation: Mapping[str, Any], status: int, headers: Mapping[str, str], body: Any) -> list[Violation]:
    op_id = operation["operationId"]
    out: list[Violation] = []
    responses = operation.get("responses") or {}
    if str(status) not in responses and "default" not in responses:
        out.append(Violation("P-status", f"{op_id} answered {status}, which the spec does not document"))
    if status >= 400:
        return out + _error(operation, status, body)
    if status >= 300:
        out.append(Violation("P-status", f"{op_id} answered a redirect ({status})"))
        return out
    if not isinstance(body, dict):
        return [*out, Violation("P-envelopes", f"{op_id} {status} body is not a JSON object")]
    missing = ENVELOPES.get(op_id, set()) - set(body)
    if missing:
        out.append(Violation("P-envelopes", f"{op_id} {status} lacks {sorted(missing)}: the client reads them"))
    if op_id == "claimWorker" and "assignment" in body and body["assignment"] is not None:
        a = body["assignment"]
        absent = ASSIGNMENT - set(a)
        if absent:
            out.append(Violation("A-41.2", f"the assignment lacks {sorted(absent)}"))
    if op_id == "createWorkerArtifact":
        _absolute_presigned(body.get("uploadUrl"), "uploadUrl", out)
    if op_id == "getWorkerArtifact":
        _absolute_presigned(body.get("downloadUrl"), "downloadUrl", out)
    if op_id == "postWorkerEvents":
        _events_answer(body, out)
    ctype = {k.lower(): v for k, v in headers.items()}.get("content-type", "")
    if not ctype.startswith("application/json"):
        out.append(Violation("A-05", f"{op_id} answered Content-Type {ctype!r}, not JSON"))
    _benchmark_slugs(body, out)
    _walk(body, "$", out)
    return out
