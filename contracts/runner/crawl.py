"""The crawl: read the target's existing data the way a client does, and check every answer.

Fuzzing mostly meets random ids (404) and fresh rows; the rows a client actually reads
(a finished run's tasks, an HTML artifact, a seeded benchmark's results) go unchecked.
The crawl starts from the spec's list operations (GETs without path parameters) and the
API's seeded or given ids, and walks list -> detail -> children -> content: every id
found in a body fills the path parameters of the GET operations below the path it came
from, matched by name (`id`, `run_id`, `{slug}`, `workerId`, ...), and every `links`
URL found in a body that names a GET operation is followed too.

It only sends GETs (SSE streams are left to each API's stream checks), never more than
its request budget (`Crawl.budget`, and the session's `policy`), and validates each
answer with the runner's `ResponseValidator` (status, headers, content type, schema:
the `spec.*` claims) and the API's own per-response checks (`CrawlHooks.check`:
conventions, non-disclosure, derived fields). Each finding names its claim.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import orjson

from .claims import Claim, Drift, register
from .safety import BudgetExceeded
from .validation import ResponseValidator

# (crawl, operation, path, status, headers, content, parsed body) -> [(claim id, message)]; `crawl.bodies`
# holds what was read before (a derived field can be checked against its source)
ResponseCheck = Callable[..., list[tuple[str, str]]]


@dataclass
class CrawlHooks:
    """What an API adds to the generic crawl (its package's `CRAWL`, optional)."""

    check: ResponseCheck | None = None  # the API's conventions and semantic checks of one answer
    seeds: Mapping[str, Iterable[str]] = field(default_factory=dict)  # path parameter name -> known ids
    headers: Callable[[Mapping[str, Any], Mapping[str, str]], dict[str, str]] | None = None  # op, env -> credentials
    skip: tuple[str, ...] = ()  # operationIds the crawl leaves alone (costly or control-only)
    claims: tuple[str, ...] = ()  # the reference claims `check` verifies (claim coverage)
    # operationId -> query strings also read on each path of that operation (filters, sorts a check judges)
    queries: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    anonymous: bool = False  # also read, without credentials, what the spec lets anyone read (`security: [{}]`)
    secrets: Callable[[Mapping[str, str]], Iterable[str]] | None = None  # values no answer may contain
    # before the walk: credentials the crawl reads with (e.g. minted on a mock's control surface), by variable
    prepare: Callable[[str, Mapping[str, str]], Mapping[str, str]] | None = None  # base_url, env -> env


@dataclass
class Visit:
    operation: str
    path: str
    status: int
    anonymous: bool = False


def hooks_of(api_module: str) -> CrawlHooks:
    try:
        module = importlib.import_module(api_module)
    except ImportError:  # pragma: no cover
        return CrawlHooks()
    return getattr(module, "CRAWL", None) or CrawlHooks()


def _template_regex(segments: list[str]) -> re.Pattern[str]:
    parts = ["[^/]+" if _param(s) else re.escape(s) for s in segments]
    return re.compile("^" + "/".join(parts) + "$")


def _param(segment: str) -> str | None:
    match = re.fullmatch(r"\{([^}]+)\}(.*)", segment)
    return match.group(1) if match else None


def _stem(name: str) -> str:
    """`run_id` -> `run`, `workerId` -> `worker`, `art_id` -> `art`, `participantSlug` -> `participant`."""
    for suffix in ("_id", "Id", "_slug", "Slug"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)].lower()
    return ""


def _items(body: Any) -> list[dict[str, Any]]:
    """The objects a body lists (or is): page rows, envelope objects, nested arrays of objects."""
    out: list[dict[str, Any]] = []
    if isinstance(body, list):
        out += [row for row in body if isinstance(row, dict)]
    elif isinstance(body, dict):
        out.append(body)
        for value in body.values():
            if isinstance(value, list):
                out += [row for row in value if isinstance(row, dict)]
            elif isinstance(value, dict):
                out.append(value)
                for inner in value.values():
                    if isinstance(inner, list):
                        out += [row for row in inner if isinstance(row, dict)]
    return out


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | str) and str(value) and len(str(value)) < 200:
        return str(value)
    return None


def _values_named(body: Any, name: str, out: list[str], depth: int = 0) -> None:
    if depth > 6:
        return
    if isinstance(body, dict):
        for key, value in body.items():
            if key == name and _scalar(value) is not None:
                out.append(_scalar(value))  # type: ignore[arg-type]
            else:
                _values_named(value, name, out, depth + 1)
    elif isinstance(body, list):
        for value in body[:50]:
            _values_named(value, name, out, depth + 1)


def identifiers(body: Any, name: str) -> list[str]:
    """The values in `body` that can fill the path parameter `name` of a child path."""
    keys = [name]
    if name == "id" or name.endswith(("_id", "Id")):
        keys.append("id")
    if name.lower().endswith("slug"):
        keys.append("slug")
    if name in ("index", "name"):
        keys.append(name)
    out: list[str] = []
    for row in _diverse(_items(body)):
        for key in keys:
            value = _scalar(row.get(key))
            if value is not None:
                out.append(value)
                break
    return list(dict.fromkeys(out))


KINDS = ("type", "mime", "kind", "status", "object")


def _diverse(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of different kinds first (one per `type`/`mime`/`status`, round-robin), so a capped walk
    still meets each kind of row a client reads (the HTML report among the JSON artifacts)."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        key = tuple(str(row.get(k)) for k in KINDS)
        groups.setdefault(key, []).append(row)
    out: list[dict[str, Any]] = []
    queues = list(groups.values())
    while queues:
        out += [q.pop(0) for q in queues]
        queues = [q for q in queues if q]
    return out


def links_in(body: Any, depth: int = 0) -> list[str]:
    """Relative or absolute URLs under a `links` (or `*_url`) key anywhere in a body."""
    found: list[str] = []
    if depth > 6:
        return found
    if isinstance(body, dict):
        for key, value in body.items():
            if key == "links" and isinstance(value, dict):
                found += [v for v in value.values() if isinstance(v, str)]
                found += [v["href"] for v in value.values() if isinstance(v, dict) and isinstance(v.get("href"), str)]
            elif isinstance(value, dict | list):
                found += links_in(value, depth + 1)
    elif isinstance(body, list):
        for value in body[:50]:
            found += links_in(value, depth + 1)
    return found


class Crawl:
    """One crawl of one target. `run()` returns the drifts found (empty: everything agreed)."""

    def __init__(
        self,
        bundle: dict[str, Any],
        base_url: str,
        env: Mapping[str, str],
        credentials: Mapping[str, str],
        hooks: CrawlHooks | None = None,
        budget: int = 400,
        per_template: int = 8,
        charge: Callable[[], None] | None = None,
        permits: Callable[[str, dict[str, Any]], tuple[bool, str]] | None = None,
        client: httpx.Client | None = None,
    ) -> None:
        self.bundle = bundle
        self.base_url = base_url.rstrip("/")
        self.hooks = hooks or CrawlHooks()
        self.env = dict(env)
        if self.hooks.prepare is not None:
            self.env.update(self.hooks.prepare(base_url.rstrip("/"), env))
        self.credentials = credentials
        self.budget = budget
        self.per_template = per_template
        self.charge = charge
        self.permits = permits
        self.client = client or httpx.Client(timeout=30.0)
        self.validator = ResponseValidator(bundle)
        self.schemes = (bundle.get("components") or {}).get("securitySchemes") or {}
        self.templates: list[tuple[str, list[str], dict[str, Any]]] = []
        for path, item in (bundle.get("paths") or {}).items():
            op = item.get("get")
            if op is None or op.get("operationId") in self.hooks.skip or _streams(op):
                continue
            self.templates.append((path, path.split("/"), op))
        self.bodies: dict[str, Any] = {}  # concrete path -> parsed body (JSON answers with a 2xx)
        self.visits: list[Visit] = []
        self.drifts: list[Drift] = []
        self.secrets = [
            s for s in (self.hooks.secrets(self.env) if self.hooks.secrets else self.env.values()) if len(s) >= 8
        ]
        self.anonymous = False  # the answer being judged was read without credentials
        self.stopped = ""  # why the walk ended early (the run's request budget), if it did
        self._seen: set[str] = set()
        self._count: dict[str, int] = {}

    # -- credentials ---------------------------------------------------------------------
    def headers(self, op: dict[str, Any]) -> dict[str, str]:
        if self.hooks.headers is not None:
            return self.hooks.headers(op, self.env)
        for alternative in op.get("security", self.bundle.get("security")) or []:
            headers: dict[str, str] = {}
            for scheme_name in alternative:
                variable = self.credentials.get(scheme_name)
                value = self.env.get(variable) if variable else None
                scheme = self.schemes.get(scheme_name) or {}
                if value is None:
                    break
                if scheme.get("type") == "http":
                    prefix = "Basic" if scheme.get("scheme", "").lower() == "basic" else "Bearer"
                    headers["Authorization"] = f"{prefix} {value}"
                elif scheme.get("type") == "apiKey" and scheme.get("in") == "header":
                    headers[scheme["name"]] = value
                else:
                    break
            else:
                return headers
        return {}

    # -- the walk ------------------------------------------------------------------------
    def expand(self, segments: list[str]) -> list[str]:
        """Concrete paths for a template, its parameters filled from what was read so far."""
        partial = [[]]  # type: list[list[str]]
        for segment in segments:
            name = _param(segment)
            if name is None:
                partial = [[*p, segment] for p in partial]
                continue
            rest = segment[len(name) + 2 :]
            grown = []
            for p in partial:
                for value in self.candidates(name, "/".join(p), p)[: self.per_template]:
                    grown.append([*p, quote(value, safe="") + rest])
            partial = grown[: self.per_template * 4]
            if not partial:
                return []
        return ["/".join(p) for p in partial]

    def candidates(self, name: str, prefix: str, filled: list[str]) -> list[str]:
        out: list[str] = []
        if prefix in self.bodies:  # the list (or object) at the path right above
            out += identifiers(self.bodies[prefix], name)
        stem = _stem(name)
        scope = prefix.rsplit("/", 1)[0] + "/"
        for path, body in self.bodies.items():
            if not path.startswith(scope) and path != prefix:
                continue
            if name != "id":  # a specific name (`run_id`, `workerId`, `slug`) found anywhere below the scope
                named: list[str] = []
                _values_named(body, name, named)
                out += named
            if stem and path.rsplit("/", 1)[-1].lower().startswith(stem):
                out += identifiers(body, name)
        out += [str(v) for v in self.hooks.seeds.get(name, ())]
        return list(dict.fromkeys(out))

    def run(self) -> list[Drift]:
        starts = [(p, s, op) for p, s, op in self.templates if not any(_param(x) for x in s)]
        for path, _, op in starts:
            self.visit(path, op)
        for _ in range(8):  # list -> detail -> children -> content (-> links): a few levels deep
            before = len(self._seen)
            for _, segments, op in self.templates:
                if not any(_param(x) for x in segments):
                    continue
                for path in self.expand(segments):
                    if self._count.get(op["operationId"], 0) >= self.per_template:
                        break
                    self.visit(path, op)
            for link in [link for body in list(self.bodies.values()) for link in links_in(body)]:
                self.follow(link)
            if len(self._seen) == before or len(self.visits) >= self.budget:
                break
        return self.drifts

    def follow(self, link: str) -> None:
        parts = urlsplit(link)
        if parts.scheme and f"{parts.scheme}://{parts.netloc}" != self.base_url:
            return
        path = parts.path
        for _, segments, op in self.templates:
            if _template_regex(segments).match(path):
                if self._count.get(op["operationId"], 0) < self.per_template * 2:
                    self.visit(path + (f"?{parts.query}" if parts.query else ""), op)
                return

    def visit(self, path: str, op: dict[str, Any], anonymous: bool = False) -> None:
        key = f"anonymous {path}" if anonymous else path
        if key in self._seen or len(self.visits) >= self.budget:
            return
        if self.permits is not None and not self.permits("GET", op)[0]:
            return
        self._seen.add(key)
        name = op["operationId"]
        self._count[name] = self._count.get(name, 0) + (0 if anonymous else 1)
        if self.charge is not None:
            try:
                self.charge()
            except BudgetExceeded as exc:  # the run's budget is spent: stop reading, keep what was found
                self.stopped = str(exc)
                self.budget = len(self.visits)
                return
        headers = {} if anonymous else self.headers(op)
        try:
            response = self.client.get(self.base_url + path, headers=headers)
        except httpx.HTTPError as exc:
            self.drifts.append(Drift("spec.server_error", f"GET {path}", f"{type(exc).__name__}: {exc}"))
            return
        self.visits.append(Visit(name, path, response.status_code, anonymous))
        self.anonymous = anonymous
        try:
            self.judge(op, path, response)
        finally:
            self.anonymous = False
        if not anonymous and self.hooks.anonymous and headers and _open(op):
            self.visit(path, op, anonymous=True)
        if not anonymous and "?" not in path and 200 <= response.status_code < 300:
            for query in self.hooks.queries.get(name, ()):
                self.visit(f"{path}?{query}", op)

    def judge(self, op: dict[str, Any], path: str, response: httpx.Response) -> None:
        label = f"GET {path.split('?')[0]} ({op['operationId']}{', anonymous' if self.anonymous else ''})"
        curl = _curl(self.base_url + path, {} if self.anonymous else self.headers(op))
        status = response.status_code
        headers = dict(response.headers)
        content = response.content
        if status >= 500:
            self.drifts.append(Drift("spec.server_error", label, f"{status}: {content[:200]!r}", curl))
            return
        for finding in self.validator.check("GET", path.split("?")[0], status, headers, content):
            self.drifts.append(Drift(_spec_claim(finding.problem), label, f"{status}: {finding.problem}", curl))
        body: Any = None
        media = headers.get("content-type", "")
        if content and ("json" in media or content[:1] in (b"{", b"[")):  # a JSON body under another type too
            try:
                body = orjson.loads(content)
            except orjson.JSONDecodeError:
                body = None
        if self.hooks.check is not None:
            for claim, message in self.hooks.check(self, op, path, status, headers, content, body):
                self.drifts.append(Drift(claim, label, f"{status}: {message}", curl))
        text = content.decode("utf-8", "replace")
        for secret in self.secrets:
            if secret in text:
                self.drifts.append(
                    Drift(NON_DISCLOSURE, label, f"{status}: the answer contains a credential value", curl)
                )
                break
        if 200 <= status < 300 and body is not None and not self.anonymous:
            self.bodies[path] = body  # a filtered read under its query: it is not the unfiltered list


NON_DISCLOSURE = "crawl.non_disclosure"
register([Claim(NON_DISCLOSURE, "spec", "no answer a client can read carries a credential value of the caller")])


def covered(crawl: Crawl) -> tuple[list[str], list[str]]:
    """What a finished crawl covered: the claims its checks assert, and the claims of the operations it
    read and validated against the spec (`x-reference` sections, `x-claims` ids: exercised)."""
    from .coverage import operation_claims

    sections = []
    for visit in crawl.visits:
        if 200 <= visit.status < 400:
            op = next((op for _, _, op in crawl.templates if op["operationId"] == visit.operation), {})
            sections += operation_claims(op)
    return list(dict.fromkeys(crawl.hooks.claims)), list(dict.fromkeys(sections))


def _open(op: dict[str, Any]) -> bool:
    """The spec lets anyone call it: an empty security alternative."""
    return any(alternative == {} for alternative in op.get("security") or [])


def _streams(op: dict[str, Any]) -> bool:
    return any("text/event-stream" in (r.get("content") or {}) for r in (op.get("responses") or {}).values())


def _spec_claim(problem: str) -> str:
    if problem.startswith("status "):
        return "spec.status"
    if problem.startswith("required header"):
        return "spec.headers"
    if problem.startswith("content type") or problem.startswith("a body was sent"):
        return "spec.content_type"
    return "spec.schema"


def _curl(url: str, headers: Mapping[str, str]) -> str:
    parts = ["curl", "-sS"]
    for name in headers:
        parts += ["-H", f"'{name}: [redacted]'"]
    return " ".join([*parts, f"'{url}'"])


def for_session(api: str, session: Any, budget: int | None = None) -> Crawl:
    """The crawl of `api`'s target as the runner's session sees it (credentials, budget, safety)."""
    from contracts.apis import CONTRACT_APIS, contract
    from mock_server.apis import bundle

    from . import differential  # differential mode: each read also to the oracle
    from .safety import Policy

    spec = contract(api)
    p = session.policy
    policy = Policy(
        live=p.live, allow_spend=p.allow_spend, allow_destructive=p.allow_destructive, allow_writes=p.allow_writes
    )
    hooks = hooks_of(CONTRACT_APIS.get(api, api.partition(":")[0]))
    return Crawl(
        bundle(spec.mock or spec.name),
        session.base_url,
        session.env,
        spec.credentials,
        hooks=hooks,
        budget=budget or crawl_budget(session.live),
        charge=p.charge,
        permits=policy.permits,
        client=httpx.Client(timeout=30.0, transport=differential.wrap(session, httpx.HTTPTransport())),
    )


def crawl_budget(live: bool) -> int:
    """Quick: a few hundred reads; full (nightly): more; live targets: a fifth of the run's default budget."""
    import os

    full = (os.environ.get("HARNESS_CONTRACT_PROFILE") or "quick") == "full"
    if live:
        return 400
    return 3000 if full else 800
