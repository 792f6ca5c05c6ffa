"""What the proxy checks, on one exchange and on the sequence of exchanges it has seen.

Per exchange (the spec alone decides):
- the request: parameters and JSON body against the operation's schemas (`client.request`;
  a missing or form-default `Content-Type` on a JSON operation is read as JSON, as the
  mocks do);
- the response: documented status, content type, required headers and body schema
  (`contracts.runner.validation.ResponseValidator`: `spec.status`, `spec.content_type`,
  `spec.headers`, `spec.schema`); a 4xx carries a code the operation documents
  (`x-errors` / `x-error-codes`, read with `contracts.runner.conformance.error_code`:
  `spec.errors`); an `ETag` is an RFC 9110 entity-tag (`etag.shape`);
- the API's own conventions (`registry.py`).

Across exchanges (what a sequence allows):
- `etag.moves`: a successful write to a resource moves its ETag; a stale `If-Match` the
  proxy saw superseded is not accepted on an enforced route (`etag.if_match`);
- `idempotency.replay`: a retry with the same idempotency key, path and body answers the
  first answer's status and body, carrying the replay marker the spec's headers name;
- `ratelimit.remaining`: within one window (same `Limit` and `Reset`) of one credential,
  `Remaining` strictly decreases (each counted request spends one) until it is 0;
- `sse.dedupe`, `sse.resume`: numeric SSE ids strictly increase within a stream, and a
  resume (`Last-Event-ID`, `?last_event_id=`) continues strictly after the id it names;
- `ndjson.lines`, `ndjson.terminal`: every NDJSON line parses; a terminal error event is
  the last line and carries a code the operation lists (`x-stream-errors`);
- `fencing.superseded` (spec `x-fence`): a mutation carrying an attempt id the proxy saw
  superseded by a later attempt of the same worker is refused;
- `context.version` (a body `expected_version`): a write is accepted only when it names the
  last version seen, and an accepted write moves the version forward.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

import orjson

from contracts.runner.claims import Claim
from contracts.runner.conformance import error_code
from contracts.runner.validation import ResponseValidator
from mock_server.engine.compile import Operation, resolve

from .streams import NdjsonReader, SseReader

PROXY_CLAIMS = [
    Claim("client.request", "spec", "requests the client sends match the operation's parameters and body schema"),
    Claim("etag.shape", "RFC 9110 §8.8.3", 'an ETag is an entity-tag: `"opaque"` or `W/"opaque"`'),
    Claim("etag.moves", "spec", "a successful write to a resource moves its ETag"),
    Claim("etag.if_match", "spec", "an If-Match naming a superseded ETag is refused where If-Match is enforced"),
    Claim(
        "idempotency.replay",
        "spec",
        "a retry with the same idempotency key and body replays the first answer with the replay marker",
    ),
    Claim("ratelimit.remaining", "spec", "X-RateLimit-Remaining decreases within a window"),
    Claim("sse.dedupe", "spec", "SSE ids strictly increase within a stream"),
    Claim("sse.resume", "spec", "a resumed SSE stream continues strictly after Last-Event-ID"),
    Claim("ndjson.lines", "spec", "every line of an NDJSON stream is one JSON document"),
    Claim("ndjson.terminal", "spec", "a terminal error event is the last line and carries a documented code"),
    Claim("fencing.superseded", "spec (x-fence)", "a mutation with a superseded attempt id is refused"),
    Claim("context.version", "spec (expected_version)", "a versioned write is accepted only at the last version"),
]

ENTITY_TAG = re.compile(r'^(W/)?"[\x21\x23-\x7e\x80-\xff]*"$')
JSON_MEDIA = ("application/json", "application/x-www-form-urlencoded", "")
STREAM_TEXT_LIMIT = 1 << 20


@dataclass
class Violation:
    claim: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"claim": self.claim, "message": self.message}


@dataclass
class Exchange:
    """One request and its answer, as the proxy saw them (credentials still in)."""

    seq: int
    method: str
    path: str
    query: str
    request_headers: dict[str, str]  # lower-case names
    request_body: bytes
    status: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: bytes = b""
    operation: Operation | None = None
    params: dict[str, str] = field(default_factory=dict)
    stream: str | None = None  # "sse" | "ndjson" | None
    sse: SseReader | None = None
    ndjson: NdjsonReader | None = None
    violations: list[Violation] = field(default_factory=list)
    error: str | None = None  # the upstream could not be reached

    @property
    def label(self) -> str:
        return f"{self.method} {self.operation.template}" if self.operation else f"{self.method} {self.path}"

    def json_request(self) -> Any:
        return _json(self.request_body)

    def json_response(self) -> Any:
        media = self.response_headers.get("content-type", "")
        return _json(self.response_body) if "json" in media and self.stream is None else None

    def credential(self) -> str:
        """A fingerprint of the caller's credential (kept in memory only, never written)."""
        raw = "|".join(self.request_headers.get(h, "") for h in ("authorization", "x-api-key", "cookie"))
        return hashlib.sha256(raw.encode()).hexdigest()[:16] if raw.strip("|") else ""


def _json(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def _canonical(data: Any) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


def _claim_of_finding(problem: str) -> str:
    if problem.startswith("status "):
        return "spec.status"
    if problem.startswith("required header"):
        return "spec.headers"
    if problem.startswith("content type"):
        return "spec.content_type"
    return "spec.schema"


class Checker:
    """The proxy's judgement: built once from the bundle, holding what the sequence has shown."""

    def __init__(self, doc: dict[str, Any], conventions: Any = None, secrets: Any = None) -> None:
        self.doc = doc
        self.validator = ResponseValidator(doc)
        self.router = self.validator.router
        self.conventions = conventions
        self.secrets = secrets  # callable: the credentials seen so far (a response must not echo one)
        self._ops = {op.operation_id: op for op in self.router.by_id.values()}
        self._idempotency_header = {op.operation_id: _idempotency_header(doc, op) for op in self._ops.values()}
        self._replay_marker = {op.operation_id: _replay_marker(doc, op) for op in self._ops.values()}
        # sequence state
        self.etags: dict[str, str] = {}  # resource path -> last ETag seen
        self.superseded_etags: dict[str, set[str]] = {}
        self.pending_write: dict[str, str] = {}  # resource path -> its ETag before a successful write
        self.replays: dict[tuple[str, str, str], tuple[str, bytes, int, Any]] = {}
        self.windows: dict[tuple[str, str, str, str], int] = {}
        self.attempts: dict[str, tuple[int, str]] = {}  # worker id -> (attempt number, attempt id)
        self.superseded_attempts: set[str] = set()
        self.versions: dict[str, int] = {}  # versioned resource path -> last version seen
        self._versioned = any(
            b"expected_version" in orjson.dumps(op.raw.get("requestBody")) for op in self._ops.values()
        )

    # -- routing -----------------------------------------------------------
    def route(self, exchange: Exchange) -> None:
        op, params, _ = self.router.match(exchange.method, exchange.path)
        exchange.operation, exchange.params = op, params
        if op is not None and op.sse:
            exchange.stream = "sse"
        elif op is not None and op.raw.get("x-streaming"):
            exchange.stream = "ndjson"

    # -- the request ---------------------------------------------------------
    def request(self, exchange: Exchange) -> list[Violation]:
        op = exchange.operation
        if op is None:
            return []
        out: list[Violation] = []
        query = dict(parse_qsl(exchange.query, keep_blank_values=True))
        for param in op.params:
            source = {"path": exchange.params, "query": query, "header": exchange.request_headers}.get(param.location)
            if source is None:
                continue
            key = param.name.lower() if param.location == "header" else param.name
            if key not in source:
                if param.required:
                    out.append(Violation("client.request", f"{param.location} parameter {param.name!r} is missing"))
                continue
            value = param.coerce(source[key])
            if not param.validator.is_valid(value):
                error = next(iter(param.validator.iter_errors(value)))
                out.append(Violation("client.request", f"{param.location} parameter {param.name!r}: {error.message}"))
        media = exchange.request_headers.get("content-type", "").split(";")[0].strip().lower()
        if op.body_media == "json" and (media in JSON_MEDIA or media.endswith("+json")):
            if not exchange.request_body.strip():
                if op.body_required:
                    out.append(Violation("client.request", "the request body is required"))
            else:
                body = _json(exchange.request_body)
                if body is None and exchange.request_body.strip() != b"null":
                    out.append(Violation("client.request", "the request body is not JSON"))
                elif op.body_validator is not None:
                    for error in list(op.body_validator.iter_errors(body))[:3]:
                        where = "/".join(str(p) for p in error.instance_path) or "(root)"
                        out.append(Violation("client.request", f"body {where}: {error.message}"))
        return out

    # -- the response head (before any body: what a stream's header can carry) ---
    def head(self, exchange: Exchange) -> list[Violation]:
        op = exchange.operation
        if op is None:
            return []
        out = [
            Violation(_claim_of_finding(f.problem), f.problem)
            for f in self.validator.check(
                exchange.method, exchange.path, exchange.status, exchange.response_headers, b""
            )
            if not f.problem.startswith("body") and "a body was sent" not in f.problem
        ]
        etag = exchange.response_headers.get("etag")
        if etag is not None and not ENTITY_TAG.match(etag):
            out.append(Violation("etag.shape", f"ETag {etag!r} is not an RFC 9110 entity-tag"))
        out += self._ratelimit(exchange)
        return out

    # -- the whole exchange ------------------------------------------------------
    def body(self, exchange: Exchange) -> list[Violation]:
        op = exchange.operation
        if op is None:
            return []
        out: list[Violation] = []
        if exchange.stream is None or not 200 <= exchange.status < 300:
            out += [
                Violation(_claim_of_finding(f.problem), f.problem)
                for f in self.validator.check(
                    exchange.method, exchange.path, exchange.status, exchange.response_headers, exchange.response_body
                )
                if f.problem.startswith("body") or "a body was sent" in f.problem
            ]
            out += self._error_code(exchange)
        if self.conventions is not None:
            out += [Violation(c, m) for c, m in self.conventions(exchange, self.secrets() if self.secrets else ())]
        if exchange.stream == "sse" and exchange.sse is not None:
            out += self._sse(exchange)
        if exchange.stream == "ndjson" and exchange.ndjson is not None:
            out += self._ndjson(exchange)
        out += self._etag(exchange)
        out += self._replay(exchange)
        out += self._fencing(exchange)
        out += self._versions(exchange)
        return out

    def _error_code(self, exchange: Exchange) -> list[Violation]:
        op = exchange.operation
        status = exchange.status
        if op is None or not 400 <= status < 500 or status == 405 or not op.error_codes:
            return []
        codes = op.error_codes.get(str(status))
        code = error_code(exchange.response_body)
        if codes is None or code not in codes:
            return [Violation("spec.errors", f"{status} code {code!r} is not documented (documented: {codes})")]
        return []

    # -- ETags -----------------------------------------------------------------
    def _etag(self, exchange: Exchange) -> list[Violation]:
        op = exchange.operation
        assert op is not None
        out: list[Violation] = []
        path = exchange.path
        etag = exchange.response_headers.get("etag")
        ok = 200 <= exchange.status < 300
        if op.mutating and ok:
            before = self.etags.get(path)
            sent = exchange.request_headers.get("if-match")
            if (
                op.if_match == "enforced"
                and sent
                and sent != "*"
                and _opaque(sent) in {_opaque(t) for t in self.superseded_etags.get(path, ())}
            ):
                out.append(Violation("etag.if_match", f"If-Match {sent} names a superseded ETag and was accepted"))
            if before is not None:
                self.pending_write[path] = before
        if etag is None or not ok:
            return out
        before_write = self.pending_write.pop(path, None)
        if before_write is not None and _opaque(before_write) == _opaque(etag) and exchange.method != "DELETE":
            out.append(Violation("etag.moves", f"the ETag stayed {etag} across a successful write"))
        previous = self.etags.get(path)
        if previous is not None and _opaque(previous) != _opaque(etag):
            self.superseded_etags.setdefault(path, set()).add(previous)
        self.etags[path] = etag
        return out

    # -- idempotent replays ------------------------------------------------------
    def _replay(self, exchange: Exchange) -> list[Violation]:
        op = exchange.operation
        assert op is not None
        header = self._idempotency_header.get(op.operation_id)
        key = exchange.request_headers.get(header.lower()) if header else None
        if not key:
            return []
        marker = self._replay_marker.get(op.operation_id)
        slot = (exchange.credential(), key, op.operation_id)
        request = hashlib.sha256(exchange.path.encode() + b"\0" + _canonical(exchange.json_request())).hexdigest()
        seen = self.replays.get(slot)
        replayed = marker is not None and exchange.response_headers.get(marker.lower(), "").lower() == "true"
        if seen is None:
            if 200 <= exchange.status < 300:
                self.replays[slot] = (request, exchange.path.encode(), exchange.status, exchange.json_response())
                if replayed:
                    return [Violation("idempotency.replay", f"a first request carries {marker}: true")]
            return []
        first_request, _, status, body = seen
        if first_request != request or exchange.status == 429:
            return []
        out: list[Violation] = []
        if exchange.status != status:
            out.append(Violation("idempotency.replay", f"the replay answered {exchange.status}, the first {status}"))
        elif exchange.json_response() != body:
            out.append(Violation("idempotency.replay", "the replay's body differs from the first answer's"))
        if marker is not None and not replayed:
            out.append(Violation("idempotency.replay", f"the replay lacks {marker}: true"))
        return out

    # -- rate limits -----------------------------------------------------------------
    def _ratelimit(self, exchange: Exchange) -> list[Violation]:
        headers = exchange.response_headers
        remaining, limit, reset = (headers.get(f"x-ratelimit-{n}") for n in ("remaining", "limit", "reset"))
        if remaining is None or limit is None or not remaining.isdigit():
            return []
        kind = "read" if exchange.method in ("GET", "HEAD") else "write"
        window = (exchange.credential(), kind, limit, reset or "")
        previous = self.windows.get(window)
        self.windows[window] = int(remaining)
        if previous is not None and int(remaining) >= previous and previous > 0:
            return [
                Violation(
                    "ratelimit.remaining",
                    f"X-RateLimit-Remaining went {previous} -> {remaining} within one window (Reset {reset})",
                )
            ]
        return []

    # -- streams ----------------------------------------------------------------------
    def _sse(self, exchange: Exchange) -> list[Violation]:
        assert exchange.sse is not None
        out: list[Violation] = []
        ids = [e.id for e in exchange.sse.events if e.id is not None and not e.comment]
        numeric = [int(i) for i in ids if i.isdigit()]
        if len(numeric) == len(ids):
            for before, after in itertools.pairwise(numeric):
                if after <= before:
                    out.append(Violation("sse.dedupe", f"id {after} follows id {before}"))
                    break
            query = dict(parse_qsl(exchange.query))
            resume = exchange.request_headers.get("last-event-id") or query.get("last_event_id")
            if resume and resume.isdigit() and numeric and numeric[0] <= int(resume):
                out.append(Violation("sse.resume", f"resumed after {resume} but the first id is {numeric[0]}"))
        elif len(set(ids)) != len(ids):
            out.append(Violation("sse.dedupe", "an id repeats within the stream"))
        return out

    def _ndjson(self, exchange: Exchange) -> list[Violation]:
        reader = exchange.ndjson
        assert reader is not None and exchange.operation is not None
        out = [Violation("ndjson.lines", f"line {n} is not JSON: {text!r}") for n, text in reader.bad[:3]]
        documented = exchange.operation.raw.get("x-stream-errors")
        for index, line in enumerate(reader.lines):
            if not (isinstance(line, dict) and line.get("type") == "error"):
                continue
            if index != len(reader.lines) - 1:
                out.append(Violation("ndjson.terminal", f"an error event is line {index + 1} of {len(reader.lines)}"))
            if documented is not None and line.get("code") not in documented:
                out.append(Violation("ndjson.terminal", f"stream error code {line.get('code')!r} not in {documented}"))
        return out

    # -- attempt fencing (x-fence) -------------------------------------------------------
    def _fencing(self, exchange: Exchange) -> list[Violation]:
        op = exchange.operation
        assert op is not None
        out: list[Violation] = []
        field_name = op.raw.get("x-fence")
        body = exchange.json_request()
        if field_name and isinstance(body, dict) and 200 <= exchange.status < 300:
            attempt = body.get(field_name)
            if isinstance(attempt, str) and attempt in self.superseded_attempts:
                out.append(
                    Violation("fencing.superseded", f"{op.operation_id} accepted {field_name} {attempt}, superseded")
                )
        data = exchange.json_response()
        for node in dicts_in(data):
            worker, attempt, number = node.get("workerId"), node.get("attemptId"), node.get("attemptNumber")
            if isinstance(worker, str) and isinstance(attempt, str) and isinstance(number, int):
                self._attempt(worker, number, attempt)
            elif isinstance(node.get("worker"), dict) and isinstance(node.get("attempt"), dict):
                w, a = node["worker"], node["attempt"]
                if isinstance(w.get("id"), str) and isinstance(a.get("id"), str) and isinstance(a.get("number"), int):
                    self._attempt(w["id"], a["number"], a["id"])
        return out

    def _attempt(self, worker: str, number: int, attempt: str) -> None:
        known = self.attempts.get(worker)
        if known is None or number > known[0]:
            if known is not None and known[1] != attempt:
                self.superseded_attempts.add(known[1])
            self.attempts[worker] = (number, attempt)

    # -- versioned writes (expected_version) ------------------------------------------------
    def _versions(self, exchange: Exchange) -> list[Violation]:
        op = exchange.operation
        assert op is not None
        resource = _versioned_resource(exchange) if self._versioned else None
        if resource is None:
            return []
        out: list[Violation] = []
        data = exchange.json_response()
        body = exchange.json_request()
        expected = body.get("expected_version") if isinstance(body, dict) else None
        last = self.versions.get(resource)
        ok = 200 <= exchange.status < 300
        if op.mutating and isinstance(expected, int) and last is not None and ok and expected != last:
            out.append(Violation("context.version", f"expected_version {expected} accepted; the last seen is {last}"))
        version = _version_of(data)
        if ok and version is not None:
            if op.mutating and last is not None and isinstance(expected, int) and version <= last:
                out.append(Violation("context.version", f"an accepted write left the version at {version}"))
            if last is None or version >= last or op.mutating:
                self.versions[resource] = version
        return out


def _opaque(tag: str) -> str:
    return tag.strip().removeprefix("W/")


def dicts_in(data: Any):
    """Every JSON object in `data`, at any depth (the object itself first)."""
    if isinstance(data, dict):
        yield data
        for value in data.values():
            yield from dicts_in(value)
    elif isinstance(data, list):
        for value in data:
            yield from dicts_in(value)


def _versioned_resource(exchange: Exchange) -> str | None:
    """The resource whose version a body `expected_version` guards: the path up to `/context`."""
    marker = "/context"
    if marker not in exchange.path:
        return None
    return exchange.path[: exchange.path.index(marker) + len(marker)]


def _version_of(data: Any) -> int | None:
    if not isinstance(data, dict):
        return None
    context = data.get("context") if isinstance(data.get("context"), dict) else data
    for key in ("current_version", "version"):
        value = context.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _idempotency_header(doc: dict[str, Any], op: Operation) -> str | None:
    for param in op.params:
        if param.location == "header" and "idempotency" in param.name.lower():
            return param.name
    extension = op.raw.get("x-idempotency-key")
    if isinstance(extension, dict) and isinstance(extension.get("header"), str):
        return extension["header"]
    return None


def _replay_marker(doc: dict[str, Any], op: Operation) -> str | None:
    for response in (op.raw.get("responses") or {}).values():
        for name in resolve(doc, response).get("headers") or {}:
            if "replayed" in name.lower():
                return name
    return None
