"""Claim coverage: which checks cover which claims of the API's reference, and which claims no check covers.

A check declares what it covers with the pytest marker `pytest.mark.claim("§3.7", "idempotency.replay")`
(or the `covers(...)` decorator, the same marker). Beside the markers, the claim ids a check's own
source cites (`Drift("A-12", ...)`, `expect(..., "etag.if_match", ...)`, `claim="B-11"`) count too,
so the hundreds of existing checks need no rewrite to be counted.

The reference's claims: for Benchwright, every `§N.N` heading of its reference
(`docs/reference/benchwright-api.md`); a check covers a section through a `§` marker or any claim
filed under that section (`contracts.benchwright.claims`: `etag.if_match` is `§3.8`). For the other
APIs, the claim ids of their `claims.py` (A-nn, B-nn, ...), less the ones marked uncheckable.

The drift report's "Claim coverage" section states the percentage and lists what is uncovered.
JUnit carries each test's claims twice: in its name (`test_replay (§3.7 idempotency.replay)`: the
reference claims it covers, then the suite's own claim ids it checks; `label`) and, in full, as a
`claims` property.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import pytest

from contracts.runner.claims import Clause, clause_claim
from mock_server.datafiles import REFERENCE_DIR

REFERENCES = {"benchwright": REFERENCE_DIR / "benchwright-api.md"}
SECTION = re.compile(r"^#{2,5}\s+(\d+[a-z]?(?:\.\d+)*)\.?\s+(.*)$")
CITED = re.compile(r"""["'](§[\d.a-z]+(?:#\d+)?|[A-Z]-\d{2,3}(?:\.\d+)?|P-[a-z-]+|[a-z_]+\.[a-z_]+)["']""")
DOC_CITED = re.compile(r"§\d+[a-z]?(?:\.\d+)*(?:#\d+)?|\b[A-Z]-\d{2,3}(?:\.\d+)?\b")


def covers(*claims: str):
    """`@covers("A-12", "A-13")`: the same as `@pytest.mark.claim("A-12", "A-13")`."""
    return pytest.mark.claim(*claims)


@dataclass
class Reference:
    api: str
    claims: dict[str, str]  # claim id (or `§N.N`) -> title
    aliases: dict[str, str] = field(default_factory=dict)  # a check's claim id -> the reference claim it covers
    clauses: dict[str, list[Clause]] = field(default_factory=dict)  # a claim split into clauses -> its clauses
    uncheckable: dict[str, str] = field(default_factory=dict)  # a claim no HTTP exchange can show -> why

    def resolve(self, cited: Iterable[str]) -> set[str]:
        out = set()
        for claim in cited:
            claim = claim.strip()
            parent = clause_claim(claim)
            if parent is not None and parent in self.claims:
                out.add(parent)
            elif claim in self.claims:
                out.add(claim)
            elif claim in self.aliases:
                out.add(self.aliases[claim])
            elif claim.startswith("§"):  # a finer section than the headings: its parent
                parts = claim.partition("#")[0].split(".")
                while len(parts) > 1 and ".".join(parts) not in self.claims:
                    parts.pop()
                if ".".join(parts) in self.claims:
                    out.add(".".join(parts))
        return out

    def clause_ids(self, cited: Iterable[str]) -> set[str]:
        """The clauses cited ids assert: clause ids, and suite claim ids a clause lists in `via`."""
        via = {v: c.id for clauses in self.clauses.values() for c in clauses for v in c.via}
        known = {c.id for clauses in self.clauses.values() for c in clauses}
        out = set()
        for claim in cited:
            claim = claim.strip()
            if claim in known:
                out.add(claim)
            elif claim in via:
                out.add(via[claim])
        return out


def sections(markdown: str) -> dict[str, str]:
    """The numbered headings of a reference: `§4.1.1` -> its title (leaves and parents alike)."""
    out: dict[str, str] = {}
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        match = SECTION.match(line)
        if match:
            out[f"§{match.group(1)}"] = match.group(2).strip()
    return out


def reference(api: str) -> Reference:
    """The reference claims of `api` and how its checks' claim ids map onto them."""
    from contracts.apis import CONTRACT_APIS, contract

    spec = contract(api)
    if api in REFERENCES:
        claims = sections(REFERENCES[api].read_text(encoding="utf-8"))
        # a parent heading with sub-sections counts through them: only leaves are claims
        leaves = {k: v for k, v in claims.items() if not any(o.startswith(k + ".") for o in claims)}
        aliases = {}
        for claim in spec.claim_list():
            for section in re.findall(r"§[\d.a-z]+", claim.section):
                resolved = Reference(api, leaves).resolve([section])
                if resolved:
                    aliases[claim.id] = next(iter(resolved))
                elif section in claims:  # a parent: its first leaf stands for it
                    aliases[claim.id] = next(k for k in leaves if k.startswith(section + "."))
        return Reference(api, leaves, aliases, _clauses(api, leaves))
    module = importlib.import_module(CONTRACT_APIS.get(api, api.partition(":")[0]) + ".claims")
    declared = getattr(module, "UNCHECKABLE", ())
    reasons = dict(declared) if isinstance(declared, dict) else {}
    uncheckable = set(declared)
    by_id = getattr(module, "BY_ID", {})
    uncheckable |= {cid for cid, c in by_id.items() if getattr(c, "checkable", True) is False}
    listed = {c.id: c.text for c in spec.claim_list() if re.fullmatch(r"[A-Z]-\d+", c.id)}
    claims = {cid: text for cid, text in listed.items() if cid not in uncheckable}
    unchecked = {cid: reasons.get(cid) or "" for cid in listed if cid in uncheckable}
    return Reference(api, claims, clauses=_clauses(api, {**claims, **unchecked}), uncheckable=unchecked)


def _clauses(api: str, claims: dict[str, str]) -> dict[str, list[Clause]]:
    """The API's `clauses.py` (`CLAUSES`), by claim; a clause of a claim the reference lacks is an error."""
    from contracts.apis import CONTRACT_APIS

    try:
        module = importlib.import_module(CONTRACT_APIS.get(api, api.partition(":")[0]) + ".clauses")
    except ModuleNotFoundError:
        return {}
    out: dict[str, list[Clause]] = {}
    for clause in module.CLAUSES:
        if clause.claim not in claims:
            raise ValueError(f"{api}: clause {clause.id} names no claim of the reference")
        out.setdefault(clause.claim, []).append(clause)
    return out


def operation_claims(op: dict) -> list[str]:
    """The claims a spec operation embodies: the `§` sections of its `x-reference`, its `x-claims` ids."""
    sections = re.findall(r"§\d+[a-z]?(?:\.\d+)*", str(op.get("x-reference", "")))
    claims = op.get("x-claims") or []
    return [*sections, *(c for c in claims if isinstance(c, str))]


def _key(item: pytest.Item) -> str:
    """A test's own name: schemathesis' per-operation items share one node id."""
    return item.nodeid if item.name in item.nodeid else f"{item.nodeid}::{item.name}"


def _operation_references(api: str) -> dict[str, list[str]]:
    """`GET /v1/runs` -> the claims its spec operation names (`operation_claims`): a check run per
    operation (schemathesis' conformance) covers the claims of the operation it exercised."""
    try:
        from contracts.apis import contract
        from mock_server.apis import bundle

        spec = contract(api)
        doc = bundle(spec.mock or spec.name)
    except (ImportError, KeyError, SystemExit, OSError):
        return {}
    out = {}
    for path, item in (doc.get("paths") or {}).items():
        for method, op in item.items():
            if isinstance(op, dict) and "operationId" in op:
                out[f"{method.upper()} {path}"] = operation_claims(op)
    return out


def item_claims(item: pytest.Item) -> list[str]:
    """The claims a collected test names: its `claim` markers, then the ids its source cites."""
    cited: list[str] = []
    for marker in item.iter_markers("claim"):
        cited += [str(a) for a in marker.args]
    function = getattr(item, "function", None)
    if function is not None:
        try:
            source = inspect.getsource(function)
        except (OSError, TypeError):
            source = ""
        cited += CITED.findall(source)
        # a check that runs a state machine asserts what the machine's rules and invariants cite
        for name in re.findall(r"run_state_machine_as_test\(\s*(\w+)", source):
            machine = getattr(function, "__globals__", {}).get(name)
            if inspect.isclass(machine):
                with contextlib.suppress(OSError, TypeError):
                    cited += CITED.findall(inspect.getsource(machine))
        cited += DOC_CITED.findall(inspect.getdoc(function) or "")
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        cited += re.findall(r"§\d+[a-z]?(?:\.\d+)*|\b[A-Z]-\d{2,3}\b", callspec.id)
    return list(dict.fromkeys(cited))


class Coverage:
    """A pytest plugin part: records every collected check's claims; renders the coverage section."""

    def __init__(self, api: str) -> None:
        self.api = api
        try:
            self.reference: Reference | None = reference(api)
        except (ImportError, OSError, SystemExit):
            self.reference = None
        self.by_test: dict[str, set[str]] = {}  # claims a check asserts (markers, cited ids, declared claims)
        self.exercised_by: dict[str, set[str]] = {}  # claims of the operations a check only exercised
        self.clauses_by_test: dict[str, set[str]] = {}  # clause ids a check asserts
        self.operations = _operation_references(api)
        self.labels: dict[str, str] = {}  # a check -> the claims its JUnit name carries

    LABEL_CLAIMS = 8  # claims spelled out in a name; the rest are counted ("+3")

    def label(self, item: pytest.Item) -> str:
        return self.labels.get(_key(item), "")

    def _label(self, cited: list[str], exercised: list[str]) -> str:
        """The reference claims a check covers, those of the operation it exercises, then the
        suite's own claim ids it checks (`spec.schema`, `idempotency.replay`)."""
        from contracts.runner.claims import CLAIMS

        resolve = self.reference.resolve if self.reference is not None else (lambda ids: set())
        covered = sorted(resolve(cited))
        touched = sorted(resolve(exercised) - set(covered))
        own = [c for c in cited if c in CLAIMS and c not in covered]
        names = list(dict.fromkeys([*covered, *touched, *own]))
        extra = len(names) - self.LABEL_CLAIMS
        return " ".join(names[: self.LABEL_CLAIMS]) + (f" +{extra}" if extra > 0 else "")

    def collected(self, items: list[pytest.Item]) -> None:
        for item in items:
            cited = item_claims(item)
            # a check parametrized per operation (`test_conformance[GET /v1/runs]`) covers that operation's section
            label = getattr(item, "operation_label", None)
            found = re.search(r"\[(GET|PUT|POST|PATCH|DELETE) ([^\]\s]+)", item.name)
            if label is None and found:
                label = f"{found.group(1)} {found.group(2)}"
            exercised = self.operations.get(label, []) if label else []
            item.user_properties.append(("claims", " ".join(cited)))
            self.labels[_key(item)] = self._label(cited, exercised)
            if exercised:
                item.user_properties.append(("exercises", " ".join(exercised)))
            if self.reference is not None:
                self.by_test[_key(item)] = self.reference.resolve(cited)
                self.exercised_by[_key(item)] = self.reference.resolve(exercised)
                self.clauses_by_test[_key(item)] = self.reference.clause_ids(cited)

    def ran(self, item: pytest.Item) -> None:
        """Claims a check found it covered while running (`record_property("covers", "§6.3 A-12 ...")`)."""
        if self.reference is None:
            return
        for name, value in item.user_properties:
            if name == "covers":
                self.by_test.setdefault(_key(item), set()).update(self.reference.resolve(str(value).split()))
                self.clauses_by_test.setdefault(_key(item), set()).update(self.reference.clause_ids(str(value).split()))
            if name == "exercises":
                self.exercised_by.setdefault(_key(item), set()).update(self.reference.resolve(str(value).split()))

    def covered(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for test, claims in self.by_test.items():
            for claim in claims:
                out.setdefault(claim, []).append(test)
        return out

    def render(self) -> list[str]:
        if self.reference is None or not self.reference.claims:
            return []
        covered = self.covered()
        exercised = {c for claims in self.exercised_by.values() for c in claims} - set(covered)
        total = len(self.reference.claims)
        hit = [c for c in self.reference.claims if c in covered]
        missing = [c for c in self.reference.claims if c not in covered]
        share = 100.0 * len(hit) / total
        what = "reference sections" if self.api in REFERENCES else "checkable reference claims"
        lines = [
            "## Claim coverage",
            "",
            f"**{len(hit)} of {total} {what} covered ({share:.0f}%)** by {len(self.by_test)} checks.",
            "",
            "A claim is covered when a check asserts it (a `claim` marker, a claim id the check cites, or the"
            " claims its crawl hooks declare). A claim only *exercised* is one of an operation that a"
            " per-operation check (spec conformance, the crawl) sent and validated against the spec.",
            "",
        ]
        if missing:
            lines += [f"Not covered by any check ({len(missing)}; *exercised* ones marked):", ""]
            lines += [
                f"- `{c}` {self.reference.claims[c]}" + (" (*exercised*)" if c in exercised else "") for c in missing
            ]
            lines.append("")
        lines += ["<details><summary>Checks per claim</summary>", "", "| claim | checks |", "|---|---:|"]
        lines += [f"| `{c}` | {len(covered[c])} |" for c in hit]
        lines += ["", "</details>", ""]
        return lines + render_clauses(self.clause_coverage(), share)

    def _claims(self):
        from contracts.apis import contract

        try:
            return contract(self.api).claim_list()
        except (ImportError, SystemExit):
            return []

    def clause_coverage(self) -> ClauseCoverage:
        """Every clause of every claim, asserted / exercised / untouched (see `ClauseCoverage`)."""
        assert self.reference is not None
        covered = self.covered()
        touched = set(covered) | {c for claims in self.exercised_by.values() for c in claims}
        asserted_ids = {c for ids in self.clauses_by_test.values() for c in ids}
        out = ClauseCoverage(self.api)
        texts = {c.id: c.text for c in self._claims()}
        for claim in [*self.reference.claims, *self.reference.uncheckable]:
            text = self.reference.claims.get(claim) or texts.get(claim, claim)
            clauses = self.reference.clauses.get(claim)
            if claim in self.reference.uncheckable:
                reason = self.reference.uncheckable[claim] or "the claim is marked not checkable over HTTP"
                for clause in clauses or [Clause(f"{claim}.1", text)]:
                    out.rows.append((clause, "untouched", clause.reason or reason, False))
                continue
            if not clauses:  # a claim stated as one clause: asserted when a check asserts the claim
                whole = Clause(claim + ("#1" if claim.startswith("§") else ".1"), text)
                state = "asserted" if claim in covered else "exercised" if claim in touched else "untouched"
                why = {"asserted": "", "exercised": "a check sends its operation; none asserts it"}.get(state)
                out.rows.append((whole, state, why or "no check asserts it", True))
                continue
            for clause in clauses:
                if not clause.checkable:
                    out.rows.append((clause, "untouched", clause.reason, False))
                elif clause.id in asserted_ids:
                    out.rows.append((clause, "asserted", "", True))
                else:
                    state = "exercised" if claim in touched else "untouched"
                    why = "a check touches the claim but asserts other clauses" if state == "exercised" else ""
                    out.rows.append((clause, state, why or "no check asserts it", True))
        return out

    def percentage(self) -> float:
        if self.reference is None or not self.reference.claims:
            return 0.0
        return 100.0 * len([c for c in self.reference.claims if c in self.covered()]) / len(self.reference.claims)


@dataclass
class ClauseCoverage:
    """The clauses of an API's claims and what the suite does with each: *asserted* (a check
    cites the clause, or asserts a claim stated as one clause), *exercised* (a check touches its
    claim but asserts other clauses, or only sends its operation), *untouched*."""

    api: str
    rows: list[tuple[Clause, str, str, bool]] = field(default_factory=list)  # clause, state, reason, checkable

    def count(self, state: str, checkable: bool | None = True) -> int:
        return sum(1 for _, s, _, c in self.rows if s == state and (checkable is None or c == checkable))

    @property
    def checkable(self) -> int:
        return sum(1 for *_, c in self.rows if c)

    def percentage(self) -> float:
        return 100.0 * self.count("asserted") / self.checkable if self.checkable else 0.0


class ClausePlan:
    """A pytest plugin for `harness-contract --clauses`: the clauses the collected checks assert,
    read from their markers and citations alone (nothing is sent, so what a check only finds it
    covers while running, a crawl hook's `covers`, is not counted)."""

    def __init__(self, api: str) -> None:
        self.coverage = Coverage(api)

    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", "claim(*ids): the reference claims a check covers (coverage report)")

    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list) -> None:
        self.coverage.collected(items)

    def render(self) -> list[str]:
        if self.coverage.reference is None:
            return [f"{self.coverage.api}: no reference claims"]
        return render_clauses(self.coverage.clause_coverage(), self.coverage.percentage())

    def json(self) -> str:
        """Every clause with its state, for tools (the drift catalogue's clause index reads it)."""
        import json

        rows = [
            {"id": c.id, "claim": c.claim, "state": state, "reason": reason, "checkable": checkable, "text": c.text}
            for c, state, reason, checkable in self.coverage.clause_coverage().rows
        ]
        return json.dumps({"api": self.coverage.api, "clauses": rows}, indent=1)


def render_clauses(coverage: ClauseCoverage, claim_share: float) -> list[str]:
    """The clause table beside the claim figure, then every clause not asserted with its reason."""
    c = coverage
    lines = [
        "## Clause coverage",
        "",
        "| API | claims covered | clauses | checkable | asserted | exercised | untouched | asserted of checkable |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        f"| {c.api} | {claim_share:.0f}% | {len(c.rows)} | {c.checkable} | {c.count('asserted')} |"
        f" {c.count('exercised')} | {c.count('untouched', None)} | {c.percentage():.0f}% |",
        "",
        "A clause is one statement of a claim a server could break alone (`contracts/<api>/clauses.py`;"
        " a claim not split there is one clause). *Asserted*: a check cites the clause id (or asserts a"
        " one-clause claim). *Exercised*: a check touches its claim but asserts other clauses.",
        "",
    ]
    rest = [(clause, state, reason) for clause, state, reason, _ in c.rows if state != "asserted"]
    if rest:
        lines += [f"Clauses not asserted ({len(rest)}):", "", "| clause | state | reason | text |", "|---|---|---|---|"]
        lines += [f"| `{cl.id}` | {state} | {reason} | {cl.text} |" for cl, state, reason in rest]
        lines.append("")
    return lines
