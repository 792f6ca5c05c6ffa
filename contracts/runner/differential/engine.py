"""The differential engine: each exchange the target answered is replayed on the oracle (and, while
an operation is still being learned, on a shadow oracle) and the answers are compared.

`Engine.observe(request, response)` takes the request the suite (or a proxied client) sent and the
target's answer, both complete, and returns the differences it found (also kept in `ledger`).
`/__mock` control calls are mirrored onto the oracles (a reset, a clock advance, a minted token)
and never compared. Streams (SSE, NDJSON) pass unobserved and are counted as unpaired.

What is compared (`compare.Comparison` for bodies):
- the status, then the error's code and format through the body (an error body is a body);
- the media type;
- the documented headers of the operation's answer, by meaning: an ETag that moves exactly when
  the body of a read changes, rate-limit counters that count down, `Retry-After` within a second
  or two, `Location` through the pairing, the replay marker and every other documented header by
  value (unless learned volatile);
- the body.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
import orjson

from mock_server.engine.compile import compile_operations, resolve
from mock_server.engine.routing import Router

from .claims import claims_for
from .compare import Comparison, Diff
from .ledger import Difference, Ledger
from .lifecycle import Lifecycles
from .oracle import Oracle
from .pairing import SECRET_NAME, Pairing, path_names, sent
from .volatile import Volatile, moving_states, paired_names, sized_names

STREAMS = ("text/event-stream", "application/x-ndjson")
WRITES = frozenset({"POST", "PUT", "PATCH"})
SHADOW_RUNS = 3  # reads per operation and status also sent to the shadow oracle (volatility learning)
CREDENTIAL_HEADERS = ("authorization", "x-api-key", "api-key", "cookie")
HOP = frozenset({"host", "content-length", "connection", "accept-encoding", "transfer-encoding"})
# what the HTTP layer adds or the media type covers: never compared as headers
TRANSPORT_HEADERS = frozenset(
    {"content-length", "connection", "transfer-encoding", "date", "server", "keep-alive", "content-type",
     "content-encoding", "vary"}
)  # fmt: skip


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    raw: bytes
    body: Any = None  # parsed JSON, or None

    @classmethod
    def of(cls, response: httpx.Response) -> Answer:
        headers = {k.lower(): v for k, v in response.headers.items()}
        body = None
        if "json" in headers.get("content-type", "") and response.content:
            try:
                body = orjson.loads(response.content)
            except orjson.JSONDecodeError:
                body = None
        return cls(response.status_code, headers, response.content, body)

    @property
    def media(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    def excerpt(self, body: Any = None) -> str:
        """Status, media type and body as the report shows them: secret-named fields (`token`, `secret`,
        `key`, ...) redacted; `body` replaces the answer's own (the oracle's, in the target's terms)."""
        body = self.body if body is None else body
        text = orjson.dumps(_redacted(body)).decode() if body is not None else self.raw.decode("utf-8", "replace")
        return f"{self.status} {self.media} {text[:2000]}".strip()


@dataclass(eq=False)
class InFlight:
    overlapped: bool = False


@dataclass
class Side:
    """One oracle and how the target's values map onto it."""

    oracle: Oracle
    pairing: Pairing
    etags: dict[str, tuple[str, str]] = field(default_factory=dict)  # read path -> (etag, body digest)
    counters: dict[tuple[str, str], int] = field(default_factory=dict)  # (credential, header) -> last value


class Engine:
    def __init__(
        self,
        api: str,
        target_base: str,
        credentials: dict[str, str],
        *,
        mock: str | None = None,
        clock_scale: float = 1.0,
        shadow_runs: int = SHADOW_RUNS,
        curl: Any = None,
        redact: Any = None,
        adopt_credentials: bool = True,
        separate: bool = False,
    ) -> None:
        from mock_server.apis import bundle

        self.api = api
        self.target_base = target_base.rstrip("/")
        self.doc = bundle(mock or api)
        self.router = Router(compile_operations(self.doc))
        self.shadow_runs = shadow_runs
        self.curl = curl  # request -> redacted curl line
        self.redact = redact or (lambda text: text)  # the run's credential patterns, over every text it reports
        # a credential the pairing does not hold, which the target accepts and the oracle refuses, is taken for
        # one minted outside the engine's view (a direct control-surface call) and sent again as the oracle's
        # ready credential; off where every call passes through the engine (`Front`, the proxy)
        self.adopt_credentials = adopt_credentials
        self.sides = []
        self.made_up = paired_names(self.doc)
        self.sized = sized_names(self.doc)
        count = 2 if shadow_runs else 1
        if separate:  # their processes start side by side
            oracles = [o.ready() for o in [Oracle(mock or api, clock_scale).launch() for _ in range(count)]]
        else:
            oracles = [Oracle(mock or api, clock_scale).start() for _ in range(count)]
        for oracle in oracles:
            pairing = Pairing(self.target_base, oracle.base_url, made_up=self.made_up)
            pairing.credentials(credentials, oracle.credentials)
            self.sides.append(Side(oracle, pairing))
        self.volatile = Volatile(self.doc)
        self.lifecycles = Lifecycles(moving_states(self.doc))
        self.ledger = Ledger(api)
        self.target_etags: dict[str, tuple[str, str]] = {}
        self.target_counters: dict[tuple[str, str], int] = {}
        self.target_only: set[Any] = set()  # values only the target's existing data holds
        # rate-limit windows (each side's `*-Reset`) some exchange was counted in on one side only: it reached
        # the oracle a moment later, past a window's end the target had not reached
        self.uneven: set[str] = set()
        self.replays: ThreadPoolExecutor | None = None  # replays on the two oracles, side by side
        self.runs: dict[str, int] = defaultdict(int)
        self.lock = threading.RLock()
        self.finished = False
        self.in_flight: list[InFlight] = []
        self.front: Any = None  # the HTTP front serving this engine, if any (`differential.through_front`)
        self.exchange: tuple[frozenset[str], bool] = (frozenset(), False)  # (values the client sent, owned)
        self.since: datetime | None = None  # the oracle's clock as the session began, where it cannot follow the target

    def meet(
        self,
        target_base: str,
        scale: float,
        now: datetime | None,
        credentials: dict[str, str],
        account: Callable[[str, dict[str, str], list[Oracle]], None] | None = None,
    ) -> None:
        """The oracles set up for the target before the session (`clock_of(target_base)` gave `scale`, `now`):
        their clocks level with a mock target's, or, against a deployment whose clock they cannot read, the
        moment the session began on the oracle noted (`since`); and `account` (the API's
        `ContractApi.differential_account`) gives their accounts the target account's configuration."""
        for side in self.sides:
            if now is not None and scale:  # a mock whose clock runs: level with it, or just ahead
                side.oracle.follow(target_base)
            else:
                side.oracle.catch_up(now)
        if now is None:  # a deployment: its clock is its own; the oracle's data before this moment is its fixtures
            self.since = self.oracle.oracle.now()
        if account is not None:
            account(target_base, credentials, [side.oracle for side in self.sides])

    def serve_as(self, public: str) -> None:
        """The target is reached at `public` (an HTTP front): its answers' URLs name that base."""
        for side in self.sides:
            side.pairing.target_base = public.rstrip("/")

    @property
    def oracle(self) -> Side:
        return self.sides[0]

    # -- one exchange -------------------------------------------------------------------
    def begin(self) -> InFlight:
        """An exchange on its way to the target: it and every other one in flight are concurrent."""
        mine = InFlight()
        with self.lock:
            if self.in_flight:
                mine.overlapped = True
                for other in self.in_flight:
                    other.overlapped = True
            self.in_flight.append(mine)
        return mine

    def end(self, exchange: InFlight) -> None:
        with self.lock:
            self.in_flight.remove(exchange)

    def observe(self, request: httpx.Request, response: httpx.Response, concurrent: bool = False) -> list[Difference]:
        with self.lock:
            found = self._observe(request, response, concurrent)
            return found

    def _observe(self, request: httpx.Request, response: httpx.Response, concurrent: bool = False) -> list[Difference]:
        path = request.url.raw_path.decode("ascii").partition("?")[0]  # as sent: segments decode once, below
        query = request.url.query.decode() if isinstance(request.url.query, bytes) else str(request.url.query)
        if request.url.path.startswith("/__mock"):
            self._mirror(request, response, path, query)
            return []
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        op, _, _ = self.router.match(request.method, request.url.path)
        if media in STREAMS or (op is not None and op.sse):
            self.ledger.unpaired["streams (SSE, NDJSON) read, not compared"] += 1
            return []
        label = f"{request.method} {op.template}" if op is not None else f"{request.method} {path}"
        if any(n in self.target_only for n in path_names(path)):
            self.ledger.unpaired["requests on the target's existing data"] += 1
            return []
        target = Answer.of(response)
        learning = f"{label} {target.status}"  # volatility is learned per operation and status
        shadow = self.runs[learning] < self.shadow_runs and len(self.sides) > 1
        self.runs[learning] += 1
        # the shadow oracle learns from the first exchanges of each operation and status, and gets every
        # write besides, so its state stays the oracle's
        replayed = 2 if shadow or request.method not in ("GET", "HEAD") else 1
        self.oracle.pairing.unordered = False
        answers = self._replay_each(self.sides[:replayed], request, path, query)
        adopted = False
        refused = answers[0] is not None and answers[0].status == 401 and target.status != 401
        if refused and self.adopt_credentials and self._unmapped_credential(request):  # minted out of view
            answers = self._replay_each(self.sides[: len(answers)], request, path, query, adopt=True)
            adopted = True
        eligible = (request.method in WRITES and target.status < 300) or self.oracle.pairing.references(path, query)
        # a read by a principal minted in the session pairs its rows by position too (its egress sessions, its
        # pending requests), though its rows are not all the session's to compare for presence (public ones)
        credentials = [request.headers[h] for h in CREDENTIAL_HEADERS if h in request.headers]
        learning_pairs = eligible or (request.method == "GET" and self.oracle.pairing.minted(credentials))
        chosen = sent(path, query, _json(request))
        for side, answer in zip(self.sides, answers, strict=False):
            if answer is None:
                continue
            side.pairing.chosen = chosen
            unpaired = side.pairing.learn(target.body, answer.body, learning_pairs)
            if side is self.oracle:
                self.target_only.update(unpaired)
            side.pairing.learn_location(target.headers.get("location"), answer.headers.get("location"))
            if target.headers.get("etag") and answer.headers.get("etag"):
                side.pairing.pair(target.headers["etag"], answer.headers["etag"], "etag")
        oracle = answers[0]
        if oracle is None:
            self.ledger.unpaired["oracle unreachable"] += 1
            return []
        uneven = self._windows(target, oracle)
        if len(answers) > 1 and answers[1] is not None:  # a first read, or any write: the shadow answered too
            self._learn_volatile(learning, op, oracle, answers[1])
        if concurrent:
            self.ledger.unpaired["exchanges served concurrently with another (their order is unknown)"] += 1
            return []
        if self.oracle.pairing.unordered:
            self.ledger.unpaired["filters bound at a moment the two clocks order otherwise"] += 1
            return []
        self.ledger.compared += 1
        self.exchange = (frozenset(chosen), eligible)
        learned = len(answers) > 1
        return self._compare(request, path, query, label, learning, op, target, oracle, adopted, learned, uneven)

    def _windows(self, target: Answer, oracle: Answer) -> bool:
        """Whether this answer reads a rate-limit window the two sides did not count alike. Each side names
        the window that counted the exchange by its end (`X-RateLimit-Reset`); ends more than two seconds
        apart are two windows (the oracle's clock a little ahead, its replay a little later: an exchange
        made just before a window's end on the target is counted in the next one on the oracle). Where the
        oracle cannot follow the target's clock (a deployment) no window is: each side's windows turn at
        moments of its own clock, so what one window counted spans two on the other side."""
        if self.since is not None:
            return True
        for name in target.headers.keys() & oracle.headers.keys():
            if "reset" not in name or "ratelimit" not in name.replace("-", ""):
                continue
            t, o = target.headers[name], oracle.headers[name]
            if _apart(t, o) > 2:
                self.uneven.update((f"{name}={t}", f"{name}={o}"))
            if f"{name}={t}" in self.uneven or f"{name}={o}" in self.uneven:
                return True
        return False

    def _replay_each(
        self, sides: list[Side], request: httpx.Request, path: str, query: str, adopt: bool = False
    ) -> list[Answer | None]:
        """The request replayed on each of `sides` at once (each oracle is a process of its own, with its own
        pairing and client), the answers in the order of `sides`: the shadow oracle's replay no longer waits
        for the oracle's. Both still follow the target's answer."""
        if len(sides) == 1:
            return [self._replay(sides[0], request, path, query, adopt)]
        if self.replays is None:
            self.replays = ThreadPoolExecutor(max_workers=len(self.sides), thread_name_prefix="oracle-replay")
        return list(self.replays.map(lambda side: self._replay(side, request, path, query, adopt), sides))

    def _replay(self, side: Side, request: httpx.Request, path: str, query: str, adopt: bool = False) -> Answer | None:
        pairing = side.pairing
        headers = [(k, self._header(side, k, v, adopt)) for k, v in request.headers.items() if k.lower() not in HOP]
        content = request.content
        if content and "json" in request.headers.get("content-type", ""):
            content = _rewritten(content, pairing)
        url = side.oracle.base_url + pairing.path_to_oracle(path)
        mapped = pairing.query_to_oracle(query)
        if mapped:
            url += "?" + mapped
        signed = pairing.forward.get(str(request.url))
        if isinstance(signed, str) and signed.startswith(side.oracle.base_url):
            url = signed  # a URL the target handed out (signed upload or download): the oracle's own
        try:
            answer = side.oracle.send(httpx.Request(request.method, url, headers=headers, content=content))
        except httpx.HTTPError:
            return None
        return Answer.of(answer)

    def _header(self, side: Side, name: str, value: str, adopt: bool = False) -> str:
        """A header for the oracle: paired values mapped; with `adopt`, a credential the pairing does not
        hold becomes the oracle's ready credential."""
        mapped = side.pairing.header_to_oracle(value)
        if (
            not adopt
            or side.pairing.holds_header(value)
            or name.lower() not in CREDENTIAL_HEADERS
            or not side.oracle.credentials
        ):
            return mapped
        ready = next(iter(side.oracle.credentials.values()))
        scheme, _, rest = value.partition(" ")
        return f"{scheme} {ready}" if rest else ready

    def _mirror(self, request: httpx.Request, response: httpx.Response, path: str, query: str) -> None:
        """A control call on the target (reset, clock, tokens, users): the same on each oracle."""
        self.ledger.mirrored += 1
        target = Answer.of(response)
        for side, answer in zip(self.sides, self._replay_each(self.sides, request, path, query), strict=True):
            if answer is not None:
                side.pairing.learn(target.body, answer.body, True)
        if path.rstrip("/") == "/__mock/clock" and isinstance(target.body, dict):
            for side in self.sides:  # never behind the target's clock
                side.oracle.catch_up(_moment(target.body.get("now")))
        if path.rstrip("/") == "/__mock/reset":
            for side in self.sides:
                side.etags.clear()
                side.counters.clear()
            self.target_etags.clear()
            self.target_counters.clear()
            self.lifecycles.generation += 1

    # -- comparison ---------------------------------------------------------------------
    def _learn_volatile(self, label: str, op: Any, first: Answer, second: Answer) -> None:
        a = self.sides[0].pairing.to_target(first.body)
        b = self.sides[1].pairing.to_target(second.body)
        diffs = Comparison(self.volatile.checker(label, op), lambda _v: False).run(a, b).diffs
        if first.body is None and first.raw != second.raw:
            diffs.append(Diff(("body",), "value"))
        for name in first.headers.keys() | second.headers.keys():
            one = self.sides[0].pairing.to_target(first.headers.get(name))
            two = self.sides[1].pairing.to_target(second.headers.get(name))
            if one != two:
                diffs.append(Diff(("header", name), "value"))
        self.volatile.learn(label, diffs)

    def _compare(
        self,
        request: httpx.Request,
        path: str,
        query: str,
        label: str,
        learning: str,
        op: Any,
        target: Answer,
        oracle: Answer,
        adopted: bool = False,
        learned: bool = True,
        uneven: bool = False,
    ) -> list[Difference]:
        found: list[tuple[str, str]] = []
        if adopted:  # the oracle answered another principal: nothing to compare
            self.ledger.unpaired["answers to a credential minted outside the engine's view"] += 1
            return []
        if target.status != oracle.status:
            found.append(("status", f"status {target.status}, the oracle answers {oracle.status}"))
        else:
            if target.media != oracle.media:
                found.append(("content-type", f"content type {target.media!r}, the oracle's {oracle.media!r}"))
            found += self._headers(request, path, query, learning, op, target, oracle)
            track = lambda p, ident, t, o: self.lifecycles.observe(label, p, ident, t, o)  # noqa: E731
            body = self._body(request, learning, op, target, oracle, track, uneven)
            if body and not learned and request.method == "GET" and len(self.sides) > 1:
                # before a read's body differences are drift, the shadow oracle reads it too: what the two
                # oracles disagree on is noise (a value the mock derives from an id it made up)
                second = self._replay(self.sides[1], request, path, query)
                if second is not None:
                    self._learn_volatile(learning, op, oracle, second)
                    body = self._body(request, learning, op, target, oracle, lambda *_: None, uneven)
            found += body
        return [
            self._record(request, path, query, label, op, aspect, detail, target, oracle) for aspect, detail in found
        ]

    def _body(
        self, request, learning, op, target: Answer, oracle: Answer, track, uneven: bool = False
    ) -> list[tuple[str, str]]:
        volatile = self.volatile.checker(learning, op, uneven, apart=self.since is not None)
        if uneven and self.volatile.window_counts(learning, op):
            self.ledger.unpaired["counts of a rate-limit window one side counted an exchange in, the other not"] += 1
        pairing = self.oracle.pairing
        if target.body is None and oracle.body is None:
            if target.raw != oracle.raw and not volatile(("body",)):
                return [("body", f"content differs ({len(target.raw)} bytes, the oracle's {len(oracle.raw)})")]
            return []
        chosen, owned = self.exchange
        comparison = Comparison(
            volatile,
            pairing.known,
            chosen=chosen,
            owned=owned and request.method == "GET",
            error=target.status >= 400,
            lifecycle=track,
            made_up=self.made_up,
            sized=self.sized,
            transient=self.lifecycles.moving,
            since=self.since,
        ).run(target.body, _theirs(pairing, oracle))
        self.ledger.unpaired["fields and rows only one side holds"] += comparison.unpaired
        if comparison.moving:
            self.ledger.unpaired["resources read at another point of their course on each side"] += comparison.moving
        return [("body", diff.describe()) for diff in comparison.diffs]

    def _record(self, request, path, query, label, op, aspect, detail, target, oracle) -> Difference:
        claims = claims_for(self.api, op)
        difference = Difference(
            self.api,
            label,
            claims,
            aspect,
            self.redact(detail),
            self.redact(target.excerpt()),
            self.redact(oracle.excerpt(self.oracle.pairing.to_target(oracle.body))),
            self.oracle.pairing.used(path, query),
            self.curl(request) if self.curl else "",
        )
        return self.ledger.add(difference)

    def _unmapped_credential(self, request: httpx.Request) -> bool:
        pairing = self.oracle.pairing
        for name in CREDENTIAL_HEADERS:
            value = request.headers.get(name)
            if value is not None and not pairing.holds_header(value):
                return True
        return False

    def _headers(self, request, path, query, label, op, target: Answer, oracle: Answer) -> list[tuple[str, str]]:
        documented = _documented_headers(self.doc, op, target.status)
        volatile = self.volatile.checker(label, op)
        out: list[tuple[str, str]] = []
        pairing = self.oracle.pairing
        credential = "|".join(request.headers.get(h, "") for h in CREDENTIAL_HEADERS)
        # the documented headers, then any other either side sent (a deprecation notice, a cache policy)
        sent = sorted((target.headers.keys() | oracle.headers.keys()) - set(documented) - TRANSPORT_HEADERS)
        for name in [*documented, *sent]:
            t, o = target.headers.get(name), oracle.headers.get(name)
            if (t is None) != (o is None):
                out.append(
                    (
                        "header",
                        f"{name}: {_presence(t)}, the oracle's {_presence(o)}",
                    )
                )
                continue
            if t is None or o is None or (volatile(("header", name)) and name != "etag"):
                continue  # an ETag's value is each side's own: it compares by meaning, volatile or not
            if name == "etag":
                if t.startswith("W/") != o.startswith("W/"):
                    out.append(("header", f"etag: {'weak' if t.startswith('W/') else 'strong'}, the oracle's "
                                          f"{'weak' if o.startswith('W/') else 'strong'}"))  # fmt: skip
                out += self._etag(request, path, query, target, oracle)
            elif "remaining" in name:
                out += self._countdown(request, credential, name, t, o)
            elif name == "retry-after" or "reset" in name:
                if not _close(t, o):
                    out.append(("header", f"{name}: {t}, the oracle's {o}"))
            elif pairing.to_target(o) != t:
                out.append(("header", f"{name}: {t!r}, the oracle's {pairing.to_target(o)!r}"))
        return out

    def _etag(self, request, path, query, target: Answer, oracle: Answer) -> list[tuple[str, str]]:
        if request.method != "GET":
            return []
        key = f"{path}?{query}"
        moved = []
        for store, answer in ((self.target_etags, target), (self.oracle.etags, oracle)):
            digest = hashlib.sha256(answer.raw).hexdigest()
            before = store.get(key)
            store[key] = (answer.headers["etag"], digest)
            moved.append(None if before is None else (before[0] != answer.headers["etag"], before[1] != digest))
        t, o = moved
        if t is None or o is None or t == o:
            return []
        return [("etag", f"ETag moved {t[0]} while the body changed {t[1]}; the oracle's moved {o[0]} (body {o[1]})")]

    def _countdown(self, request, credential: str, name: str, t: str, o: str) -> list[tuple[str, str]]:
        try:
            now_t, now_o = int(t), int(o)
        except ValueError:
            return [] if t == o else [("counter", f"{name}: {t!r}, the oracle's {o!r}")]
        key = (credential + request.method, name)
        before_t, before_o = self.target_counters.get(key), self.oracle.counters.get(key)
        self.target_counters[key], self.oracle.counters[key] = now_t, now_o
        if before_t is None or before_o is None or now_t > before_t or now_o > before_o:
            return []  # a first reading, or a new window on either side
        if (now_t < before_t) != (now_o < before_o):
            return [("counter", f"{name} went {before_t} → {now_t}; the oracle's {before_o} → {now_o}")]
        return []

    # -- the end of the session -----------------------------------------------------------
    def finish(self) -> list[Difference]:
        """The lifecycle verdicts (once), then the oracles stopped; returns every difference found."""
        with self.lock:
            if not self.finished:
                self.finished = True
                for verdict in self.lifecycles.verdicts():
                    op = next(
                        (o for o in self.router.by_id.values() if f"{o.method} {o.template}" == verdict.label), None
                    )
                    self.ledger.add(
                        Difference(
                            self.api,
                            verdict.label,
                            claims_for(self.api, op),
                            "lifecycle",
                            f"{'/'.join(verdict.path)} of {verdict.resource}: {verdict.detail}",
                            " → ".join(verdict.target),
                            " → ".join(verdict.oracle),
                        )
                    )
                if self.replays is not None:
                    self.replays.shutdown()
                    self.replays = None
                for side in self.sides:
                    side.oracle.close()
                if self.front is not None:
                    self.front.__exit__(None, None, None)
            return self.ledger.items()


def _theirs(pairing: Pairing, oracle: Answer) -> Any:
    """The oracle's body in the target's terms; an error's sentences too (the values they name)."""
    body = pairing.to_target(oracle.body)
    return pairing.text_to_target(body) if oracle.status >= 400 else body


def _documented_headers(doc: dict[str, Any], op: Any, status: int) -> list[str]:
    if op is None:
        return []
    responses = op.raw.get("responses") or {}
    spec = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX") or responses.get("default")
    if spec is None:
        return []
    return [name.lower() for name in (resolve(doc, spec).get("headers") or {})]


def _moment(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _presence(value: str | None) -> str:
    return "absent" if value is None else "present"


def _close(t: str, o: str) -> bool:
    try:
        return abs(float(t) - float(o)) <= max(2.0, 0.05 * abs(float(o)))
    except ValueError:
        return t == o


def _apart(t: str, o: str) -> float:
    """How far apart two numeric header values are (0 when either is not a number)."""
    try:
        return abs(float(t) - float(o))
    except ValueError:
        return 0.0


def _redacted(body: Any) -> Any:
    if isinstance(body, dict):
        return {
            k: "[redacted]" if SECRET_NAME.search(k) and isinstance(v, str) else _redacted(v) for k, v in body.items()
        }
    if isinstance(body, list):
        return [_redacted(v) for v in body]
    return body


def _rewritten(content: bytes, pairing: Pairing) -> bytes:
    """A JSON body for the oracle: the client's own bytes unless a paired value in it is replaced, so the
    oracle reads exactly what the target read (a number's spelling included). A body that is rewritten is
    read with the standard library, whose integers are exact at any size: orjson reads an integer below
    -2**63 as a float, which the mock then takes for a whole float and accepts as an integer (the target
    refused the integer as out of range)."""
    try:
        body = json.loads(content)
    except ValueError:  # not JSON, or not UTF-8: sent as is
        return content
    mapped = pairing.to_oracle(body)
    if mapped == body:
        return content
    return json.dumps(mapped, ensure_ascii=False, separators=(",", ":")).encode()


def _json(request: httpx.Request) -> Any:
    if not request.content or "json" not in request.headers.get("content-type", ""):
        return None
    try:
        return orjson.loads(request.content)
    except orjson.JSONDecodeError:
        return None
