"""The registry's catalog model (§8), shared by the read routes (§8.1–§8.3), the
authoring routes (§8.5–§8.9) and pinned launch (§4.2.2).

"Two id spaces coexist" (§8). Rows projected from finished runs carry the ids
the pipeline stamped at finalization (`bm_<slug>`, `sub_bm_<slug>:<12 hex>`,
`imp_bm_<slug>:<12 hex>`); a projected benchmark is also reachable by its name
(`MMLU`) and its subsets and impls by `<name>:<12 hex>`. Rows authored through
§8.5–§8.7 live in the `benchmarks`, `subsets` and `impls` tables (`bm_<uuid>`,
`sub_<bm_id>:<12 hex>`, `imp_<bm_id>:<12 hex>`). "Both shapes are accepted on
the read routes."

Who sees what (§8 Access): "an unauthenticated request returns every
benchmark/subset/impl that has at least one public run. A browser (JWT) session
additionally folds in the caller's own private runs, each row carrying a
`visibility` field." Only sessions fold them in: a PAT sees the public catalog,
like an anonymous caller. The caller's own authored rows count as their private
rows. Only runs that finished `ok` are projected: "a leaderboard row needs a
score" (§8.4). A row's visibility is derived from its runs: "a benchmark is
public when it has at least one public run" (§8.4).

Tasks are identified by canonical position within their benchmark ("coverage is
by task content", §8.3). A run's event index `i` is the `i`-th position of the
index spec it materialized; an authored subset stores the positions its task
contents were given in the benchmark's canonical list.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.model.indices import expand_indices
from mock_server.benchwright.model.lifecycle import Run
from mock_server.benchwright.model.rows import AuthoredBenchmark, AuthoredImpl, AuthoredSubset
from mock_server.benchwright.store import Store, User
from mock_server.policies.problems import Problem, invalid

# -- the model ------------------------------------------------------------------


@dataclass
class CatalogRun:
    run: Run
    ran: set[int]
    scores: dict[int, float]
    outputs: dict[int, Any]

    @property
    def id(self) -> str:
        return self.run.id

    @property
    def model(self) -> str:
        return self.run.model["identifier"]

    def rescore(self, positions: Iterable[int]) -> tuple[float | None, int]:
        """Score on just these positions (§8.3): mean over those it has a score for."""
        got = [self.scores[p] for p in positions if p in self.scores]
        return (round(sum(got) / len(got), 4) if got else None), len(got)

    def covers(self, positions: Iterable[int]) -> bool:
        wanted = set(positions)
        return bool(wanted) and wanted <= self.ran


@dataclass
class CatalogSubset:
    id: str
    benchmark_id: str
    slug: str
    name: str
    positions: list[int] = field(default_factory=list)
    description: str | None = None
    rolling: bool = False
    row: AuthoredSubset | None = None
    runs: list[CatalogRun] = field(default_factory=list)

    @property
    def authored(self) -> bool:
        return self.row is not None


@dataclass
class CatalogImpl:
    id: str
    benchmark_id: str
    subset_id: str | None
    label: str | None = None
    description: str | None = None
    official: bool = False
    impl_fingerprint: str | None = None
    created_at: datetime | None = None
    row: AuthoredImpl | None = None
    runs: list[CatalogRun] = field(default_factory=list)

    @property
    def fingerprint(self) -> str:
        return self.id.rsplit(":", 1)[-1]


@dataclass
class CatalogBenchmark:
    id: str
    name: str
    description: str | None = None
    category: str | None = None
    tags: list[str] = field(default_factory=list)
    row: AuthoredBenchmark | None = None
    subsets: dict[str, CatalogSubset] = field(default_factory=dict)
    impls: dict[str, CatalogImpl] = field(default_factory=dict)
    runs: list[CatalogRun] = field(default_factory=list)

    @property
    def universe(self) -> list[int]:
        """Every canonical position the caller can see a task at."""
        known = {p for s in self.subsets.values() for p in s.positions}
        if self.row is not None:
            known.update(range(len(self.row.tasks)))
        return sorted(known)

    def task(self, position: int) -> dict[str, Any]:
        if self.row is not None and position < len(self.row.tasks):
            return self.row.tasks[position]
        return canonical_task(self.name, position)


def canonical_task(benchmark_name: str, position: int) -> dict[str, Any]:
    """The canonical task a projected benchmark holds at a position. Runs carry
    no task content, so the mock derives it, stably, from the position."""
    letter = "ABCD"[int(pipeline.stable_fraction(benchmark_name, position) * 4)]
    return {
        "task_id": f"{benchmark_name}_{position}",
        "input": {"question": f"{benchmark_name} item {position}", "choices": ["A", "B", "C", "D"]},
        "expected": letter,
    }


def visibility(runs: Iterable[CatalogRun]) -> str:
    """Derived from the runs: public when at least one is (§8.4)."""
    return "public" if any(r.run.visibility == "public" for r in runs) else "private"


def spans(positions: Iterable[int]) -> list[dict[str, int]]:
    out: list[dict[str, int]] = []
    for p in sorted(set(positions)):
        if out and out[-1]["end"] == p - 1:
            out[-1]["end"] = p
        else:
            out.append({"start": p, "end": p})
    return out


def best_per_model(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per model, its best score; best first."""
    best: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["score"] is None:
            continue
        held = best.get(row["model"])
        if held is None or row["score"] > held["score"]:
            best[row["model"]] = row
    return sorted(best.values(), key=lambda r: (-r["score"], r["model"]))


# -- building a view ------------------------------------------------------------


@dataclass
class Catalog:
    benchmarks: dict[str, CatalogBenchmark] = field(default_factory=dict)

    def benchmark(self, handle: str) -> CatalogBenchmark | None:
        """By id, by id without (or with) `bm_`, or by exact name (§8, §4.2.2)."""
        for key in (handle, "bm_" + handle, handle.removeprefix("bm_")):
            if key in self.benchmarks:
                return self.benchmarks[key]
        for name in (handle, handle.removeprefix("bm_")):
            named = sorted((b for b in self.benchmarks.values() if b.name == name), key=lambda b: b.id)
            if named:
                return named[0]
        return None

    def subset(self, handle: str) -> CatalogSubset | None:
        return self._composite(handle, "sub_", lambda b: b.subsets)

    def impl(self, handle: str) -> CatalogImpl | None:
        return self._composite(handle, "imp_", lambda b: b.impls)

    def _composite(self, handle: str, prefix: str, rows) -> Any:
        """`<prefix><bm id>:<12 hex>`, or the catalog form `<benchmark>:<12 hex>`."""
        head, sep, tail = handle.rpartition(":")
        if not sep:
            return None
        bench = self.benchmark(head.removeprefix(prefix))
        if bench is None:
            return None
        return rows(bench).get(f"{prefix}{bench.id}:{tail}")

    def runs(self) -> list[CatalogRun]:
        return [r for b in self.benchmarks.values() for r in b.runs]


def _listed(run: Run, viewer: User | None, own: bool, hide_private: bool, hide_public: bool) -> bool:
    if run.status != "ok" or not (run.benchmark_id and run.subset_id and run.impl_id):
        return False
    public = run.visibility == "public"
    if (hide_private and not public) or (hide_public and public):
        return False
    return public or (own and viewer is not None and run.user_id == viewer.id)


def _positions(run: Run, subset_row: AuthoredSubset | None) -> list[int]:
    if subset_row is not None:
        return list(subset_row.positions)
    spec = run.canonical_indices or run.materialize_indices
    if spec:
        try:
            return list(dict.fromkeys(expand_indices(spec)))
        except Problem:
            pass
    return list(range(run.task_count))


def _results(run: Run, positions: list[int]) -> tuple[set[int], dict[int, float], dict[int, Any]]:
    """Per canonical position: ran at all, score (aggregated over trials when the
    run folded them, errored attempts left out, §7.1), and the model's output."""
    ran: set[int] = set()
    scores: dict[int, float] = {}
    outputs: dict[int, Any] = {}
    aggregated: dict[int, float] = {}
    for event in run.events:
        data = event["data"]
        index = data.get("index")
        if not isinstance(index, int) or index >= len(positions):
            continue
        position = positions[index]
        if event["type"] == "MaterializeTaskAggregated":
            aggregated[position] = data["score"]
        elif event["type"] == "MaterializeTaskResult":
            ran.add(position)
            if data.get("error_class") == "ok" and data["score"] >= scores.get(position, -1.0):
                scores[position] = data["score"]
                outputs[position] = data.get("output_preview")
    scores.update(aggregated)
    return ran, scores, outputs


class _Builder:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.catalog = Catalog()
        self.authored_benchmarks = store.benchmarks
        self.authored_subsets = store.subsets
        self.authored_impls = store.impls

    def benchmark(self, benchmark_id: str, name: str) -> CatalogBenchmark:
        found = self.catalog.benchmarks.get(benchmark_id)
        if found is None:
            row = self.authored_benchmarks.get(benchmark_id)
            found = CatalogBenchmark(id=benchmark_id, name=name, row=row)
            if row is not None:
                found.name = row.name
                found.description = row.description
                found.category = row.category
                found.tags = list(row.tags)
            self.catalog.benchmarks[benchmark_id] = found
        return found

    def subset(self, bench: CatalogBenchmark, subset_id: str) -> CatalogSubset:
        found = bench.subsets.get(subset_id)
        if found is None:
            row = self.authored_subsets.get(subset_id)
            tail = subset_id.rsplit(":", 1)[-1]
            found = CatalogSubset(
                id=subset_id, benchmark_id=bench.id, slug=f"subset-{tail}", name=f"{bench.name} {tail}", row=row
            )
            if row is not None:
                found.slug, found.name = row.slug, row.name
                found.description, found.rolling = row.description, row.rolling
                found.positions = list(row.positions)
            bench.subsets[subset_id] = found
        return found

    def impl(self, bench: CatalogBenchmark, impl_id: str, subset_id: str | None) -> CatalogImpl:
        found = bench.impls.get(impl_id)
        if found is None:
            row = self.authored_impls.get(impl_id)
            found = CatalogImpl(id=impl_id, benchmark_id=bench.id, subset_id=subset_id, row=row)
            if row is not None:
                found.subset_id = row.subset_id
                found.label, found.description, found.official = row.label, row.description, row.official
                found.impl_fingerprint, found.created_at = row.impl_fingerprint, row.created_at
            bench.impls[impl_id] = found
        return found

    def add_run(self, run: Run) -> None:
        assert run.benchmark_id and run.subset_id and run.impl_id
        bench = self.benchmark(run.benchmark_id, run.benchmark_name)
        subset = self.subset(bench, run.subset_id)
        impl = self.impl(bench, run.impl_id, run.subset_id)
        positions = _positions(run, subset.row)
        entry = CatalogRun(run, *_results(run, positions))
        if subset.row is None:
            subset.positions = sorted(set(subset.positions) | entry.ran)
        if impl.row is None and impl.impl_fingerprint is None:
            impl.impl_fingerprint = _projected_code_hash(run, impl.fingerprint)
            impl.created_at = run.finished_at
        for rows in (bench.runs, subset.runs, impl.runs):
            rows.append(entry)

    def add_owned(self, owner: User) -> None:
        for row in self.authored_benchmarks.values():
            if row.owner_id == owner.id:
                self.benchmark(row.id, row.name)
        for row in self.authored_subsets.values():
            if row.owner_id == owner.id:
                self.subset(self.benchmark(row.benchmark_id, ""), row.id)
        for row in self.authored_impls.values():
            if row.owner_id == owner.id:
                self.impl(self.benchmark(row.benchmark_id, ""), row.id, row.subset_id)


def _projected_code_hash(run: Run, fingerprint: str) -> str | None:
    """The full hash behind a projected impl id, when the run's code is at hand (§3.1)."""
    code = next((e["data"]["content"] for e in run.events if e["type"] == "AtomizeArtifact"), run.id)
    digest = hashlib.sha256(code.encode()).hexdigest()
    return digest if digest.startswith(fingerprint) else None


def build(
    store: Store, viewer: User | None, *, own: bool, hide_private: bool = False, hide_public: bool = False
) -> Catalog:
    """The catalog as `viewer` sees it; `own` folds in their private rows."""
    builder = _Builder(store)
    ordered = sorted(pipeline.runs(store).values(), key=lambda r: (r.finished_at or r.created_at, r.id))
    for run in ordered:
        if _listed(run, viewer, own, hide_private, hide_public):
            builder.add_run(run)
    if own and viewer is not None and not hide_private:
        builder.add_owned(viewer)
    return builder.catalog


# -- authored subsets -------------------------------------------------------------


def runnable(row: AuthoredSubset) -> bool:
    """Runnable = a grader (recipe) is stored (§8.6)."""
    return row.recipe["type"] is not None or bool(row.recipe["config"])


def live_subset(store: Store, benchmark_id: str) -> AuthoredSubset | None:
    """A benchmark's live subset (§8.9): its most recently changed, unretired one."""
    live = [s for s in store.subsets.values() if s.benchmark_id == benchmark_id and not s.retired_by]
    return max(live, key=lambda s: (s.updated_at, s.created_at, s.id)) if live else None


# -- pinned launch (§4.2.2, §4.2.5) ----------------------------------------------


@dataclass
class Pin:
    name: str
    benchmark_id: str
    subset_id: str | None
    authored: bool


def resolve_pin(store: Store, user: User, benchmark: str, subset: str | None) -> Pin:
    """The catalog row a pinned launch names: "Catalog id (with or without
    `bm_`) or exact name". A launch may pin the caller's own private rows, so the
    caller's view folds them in whatever the credential. An authored benchmark
    pinned without a subset runs its live subset."""
    catalog = build(store, user, own=True)
    bench = catalog.benchmark(benchmark)
    if bench is None:
        raise Problem(404, "benchmark_not_found", f"No catalog benchmark '{benchmark}'.")
    subset_id = None
    if subset:
        found = catalog.subset(subset)
        if found is None:
            raise Problem(404, "subset_not_found", f"No subset '{subset}'.")
        if found.benchmark_id != bench.id:
            raise invalid(
                f"subset '{subset}' belongs to {found.benchmark_id}, not {bench.id} ({bench.name}).", field="subset"
            )
        subset_id = found.id
    elif bench.row is not None:
        live = live_subset(store, bench.id)
        subset_id = live.id if live else None
    return Pin(bench.name, bench.id, subset_id, bench.row is not None)
