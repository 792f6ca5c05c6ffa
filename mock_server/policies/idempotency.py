"""Header-key idempotency: replay a finished response, refuse a different one.

The policy an API declares in its profile (`HeaderIdempotency`): the header's
name, the time-to-live in simulated seconds, the header marking a replay and the
response headers a replay carries again. Keys are scoped by the caller
(`Principal.cache_key`). Benchwright's instance (§3.7): `Idempotency-Key`,
24 hours, keyed by (token, key), or (user, key) for browser sessions, so
rotating a PAT orphans its keys. A retry
with the same method, path and body gets the cached status and body back with
`Idempotent-Replayed: true`; a different path or body is `409
idempotency_conflict`, and so is a retry while the first is still in flight.

What is cached: every response the handler produced (2xx and the handler's own
4xx). Requests refused before the handler ran (authentication, scopes, rate
limits, validation) executed nothing and are not cached. `POST /v1/runs`' 202
is cached like any other, even when the run later errors (the launch caveat).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import orjson

from mock_server.policies.problems import Problem


@dataclass(frozen=True)
class HeaderIdempotency:
    header: str = "Idempotency-Key"
    ttl_seconds: float = 24 * 3600
    replay_marker: str = "Idempotent-Replayed"
    replayed_headers: frozenset[str] = frozenset()


@dataclass(slots=True)
class Entry:
    fingerprint: str
    created: float
    done: bool = False
    status: int = 0
    body: bytes = b""
    media_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


def compact(body: bytes) -> bytes:
    """A copy of `body` in a buffer of its own size, for bytes that are kept: orjson writes
    into a buffer of at least 4 KiB and hands it over as is, so a 300-byte response kept
    for 24 hours would hold 4 KiB."""
    return bytes(memoryview(body))


def fingerprint(method: str, path: str, body: bytes) -> str:
    try:
        canonical = orjson.dumps(orjson.loads(body), option=orjson.OPT_SORT_KEYS) if body.strip() else b""
    except orjson.JSONDecodeError:
        canonical = body
    return hashlib.sha256(method.encode() + b" " + path.encode() + b"\n" + canonical).hexdigest()


class IdempotencyCache:
    def __init__(self, ttl_seconds: float = 24 * 3600) -> None:
        self.ttl_seconds = ttl_seconds
        self.entries: dict[tuple[str, str], Entry] = {}

    def begin(self, scope: str, key: str, fp: str, now: float) -> Entry | None:
        """The finished entry to replay, None to go ahead (the key is now in flight)."""
        self._expire(now)
        entry = self.entries.get((scope, key))
        if entry is None:
            self.entries[(scope, key)] = Entry(fp, now)
            return None
        if entry.fingerprint != fp:
            raise Problem(
                409,
                "idempotency_conflict",
                "This Idempotency-Key was already used with a different request path or body.",
            )
        if not entry.done:
            raise Problem(
                409,
                "idempotency_conflict",
                "A request with this Idempotency-Key is still in flight; retry when it has finished.",
            )
        return entry

    def _expire(self, now: float) -> None:
        """Drop entries past their time-to-live. Entries are kept in creation order (a key
        is re-inserted when it starts again), so the expired ones are at the front."""
        while self.entries:
            first = next(iter(self.entries))
            if now - self.entries[first].created < self.ttl_seconds:
                return
            del self.entries[first]

    def finish(self, scope: str, key: str, status: int, body: bytes, media_type: str, headers: dict[str, str]) -> None:
        entry = self.entries.get((scope, key))
        if entry is None:
            return
        if status >= 500:
            del self.entries[(scope, key)]
            return
        entry.done = True
        entry.status = status
        entry.body = compact(body)
        entry.media_type = media_type
        entry.headers = headers

    def abandon(self, scope: str, key: str) -> None:
        self.entries.pop((scope, key), None)
