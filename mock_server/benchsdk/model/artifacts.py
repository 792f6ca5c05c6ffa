"""Artifacts: the two-step presigned upload, the presigned download, and worker logs
(write call 8, read path). The object store is the mock's own: signed URLs, no bearer token."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import hmac
import zlib
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

from .errors import Refusal
from .rows import Artifact, Participant, Run, Worker
from .store import Store
from .workers import finishing_fence, touch

UPLOAD_PREFIX = "/__uploads/"
DOWNLOAD_PREFIX = "/__downloads/"
GZIP_TYPES = {"application/gzip", "application/x-gzip"}
LOG_KINDS = {"coordinator.log", "worker.log"}


def _media_type(value: str | None) -> str:
    return (value or "").split(";", 1)[0].strip().lower()


def sign(store: Store, method: str, key: str, expires: int) -> str:
    message = f"{method}\n{key}\n{expires}".encode()
    return hmac.new(store.signing_key, message, hashlib.sha256).hexdigest()


def presigned_url(store: Store, base_url: str, method: str, key: str, expires_at: datetime) -> str:
    expires = int(expires_at.timestamp())
    prefix = UPLOAD_PREFIX if method == "PUT" else DOWNLOAD_PREFIX
    return f"{base_url.rstrip('/')}{prefix}{quote(key)}?exp={expires}&sig={sign(store, method, key, expires)}"


def announce(store: Store, *, run: Run, worker: Worker, body: dict[str, Any], now: datetime) -> Artifact:
    """Step 1 of 2 (A-61): fenced by attemptId; the row waits for its body. The worker's own
    closed attempt may still announce: the runtime uploads its log and metrics after closing
    (`finishing_fence`)."""
    attempt = finishing_fence(store, worker, body["attemptId"])
    artifact_id = store.ids.new()
    artifact = Artifact(
        id=artifact_id,
        benchmark_id=run.benchmark_id,
        run_id=run.id,
        worker_id=worker.id,
        participant_id=worker.participant_id,
        attempt_id=attempt.id,
        kind=body["kind"],
        content_type=body.get("contentType"),
        name=body.get("name"),
        metadata=dict(body.get("metadata") or {}),
        object_key=f"artifacts/{run.id}/{worker.id}/{artifact_id}",
        created_at=now,
        upload_expires_at=now + timedelta(seconds=store.timing.upload_url_ttl_seconds),
    )
    store.artifacts[artifact_id] = artifact
    store.artifact_by_key[artifact.object_key] = artifact_id
    touch(attempt, now)
    return artifact


def _check_signature(store: Store, method: str, key: str, exp: str | None, sig: str | None, now: datetime) -> None:
    try:
        expires = int(exp or "")
    except ValueError:
        expires = None
    if expires is None or not sig or not hmac.compare_digest(sign(store, method, key, expires), sig):
        raise Refusal(403, "signature_mismatch", "the URL's signature does not match (it was altered or is incomplete)")
    if now.timestamp() > expires:
        raise Refusal(
            403,
            "url_expired",
            "the presigned URL has expired",
            expiredAt=datetime.fromtimestamp(expires, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        )


def upload(
    store: Store, *, key: str, exp: str | None, sig: str | None, content_type: str | None, data: bytes, now: datetime
) -> Artifact:
    """Step 2 of 2: the PUT to the presigned URL stores exactly these bytes. A bad signature, an
    expired URL or a Content-Type other than the declared one (when one was declared) is refused with 403, like an
    object store; nothing is stored then. Uploads are not fenced (object stores know nothing of
    attempts). An absent metadata.sizeBytes is filled from the body (A-64)."""
    _check_signature(store, "PUT", key, exp, sig, now)
    artifact_id = store.artifact_by_key.get(key)
    if artifact_id is None:
        raise Refusal(404, "object_not_found", "no artifact is waiting at this URL")
    artifact = store.artifacts[artifact_id]
    if artifact.content_type is not None and _media_type(content_type) != _media_type(artifact.content_type):
        raise Refusal(
            403,
            "content_type_mismatch",
            f"Content-Type {content_type!r} differs from the declared {artifact.content_type!r}",
            declared=artifact.content_type,
            sent=content_type,
        )
    artifact.data = bytes(data)
    if artifact.content_type is None:  # none declared (optional in the client's input): the upload's own
        artifact.content_type = content_type
    artifact.status = "uploaded"
    artifact.uploaded_at = now
    if artifact.metadata.get("sizeBytes") is None:
        artifact.metadata["sizeBytes"] = len(data)
    return artifact


def download(store: Store, *, key: str, exp: str | None, sig: str | None, now: datetime) -> Artifact:
    """The presigned GET (A-90): exactly the uploaded bytes; 404 before the upload."""
    _check_signature(store, "GET", key, exp, sig, now)
    artifact_id = store.artifact_by_key.get(key)
    artifact = store.artifacts.get(artifact_id) if artifact_id else None
    if artifact is None or artifact.data is None:
        raise Refusal(404, "object_not_found", "nothing has been uploaded at this key yet")
    return artifact


def require_artifact(store: Store, worker: Worker, artifact_id: str) -> Artifact:
    artifact = store.artifacts.get(artifact_id)
    if artifact is None or artifact.worker_id != worker.id:
        raise Refusal(
            404, "artifact_not_found", f"no artifact {artifact_id!r} on worker {worker.id!r}", artifactId=artifact_id
        )
    return artifact


def decoded_text(artifact: Artifact) -> str:
    data = artifact.data or b""
    if _media_type(artifact.content_type) in GZIP_TYPES or data[:2] == b"\x1f\x8b":
        with contextlib.suppress(OSError, EOFError, zlib.error):
            data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


def is_log(artifact: Artifact) -> bool:
    return artifact.kind in LOG_KINDS or (artifact.name or "").endswith(".log")


def participant_logs(
    store: Store, *, part: Participant, max_lines: int | None
) -> tuple[list[tuple[Artifact, str]], int]:
    """The participant's uploaded worker logs, line by line in upload order (A-87); the last
    `max_lines` of them. Returns (lines, total line count)."""
    logs = [a for a in store.artifacts.values() if a.participant_id == part.id and a.data is not None and is_log(a)]
    logs.sort(key=lambda a: a.uploaded_at)  # stable: ties keep creation order
    lines = [(a, line) for a in logs for line in decoded_text(a).splitlines()]
    total = len(lines)
    if max_lines is not None:
        lines = lines[-max_lines:] if max_lines else []
    return lines, total
