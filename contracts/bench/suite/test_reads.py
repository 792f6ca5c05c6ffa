"""The read path, against whatever the target holds (read-only, so safe against a live account): ids from the
list operations resolve (C-25), named path identifiers too (C-11); a finished
evaluation's summary is the fold of its artifacts' case results, and its evidence is the context snapshot it
started at (C-50, C-46); pages traverse exactly once and stay within the spec's page budget (C-12, C-58); the
allowance is readable and reading spends nothing (C-47, C-06); every link handed out is HTTPS (C-60)."""

from __future__ import annotations

from urllib.parse import urlsplit

from mock_server.apis import bundle

from .test_conventions import check

PAGE = bundle("bench")["x-page"]
LOOPBACK = ("localhost", "127.0.0.1", "::1")


def curl(bench, op_id: str, path: dict | None = None, query: str = "") -> str:
    return bench.curl(op_id, path, query)


def get(bench, op_id: str, path: dict | None = None, query: dict | None = None):
    r = bench.call(op_id, path=path, query=query)
    check(op_id, r)
    return r


def check_listed_ids_resolve(bench) -> None:
    systems = get(bench, "list_systems").json()["items"]
    for listed in systems[:5]:
        as_number = get(bench, "get_system", {"id": listed["id"]})
        if as_number.status_code != 200 or as_number.json()["system"]["id"] != listed["id"]:
            raise bench.drift(
                "C-25",
                "GET /api/ai-systems/{id}",
                f"listed system {listed['id']} answered {as_number.status_code}",
                curl(bench, "get_system", {"id": listed["id"]}),
            )
        for dataset in get(bench, "list_datasets", {"id": listed["id"]}).json()["items"][:3]:
            path = {"id": listed["id"], "datasetID": dataset["id"]}
            r = get(bench, "get_dataset", path)
            if r.status_code != 200 or r.json()["dataset"]["id"] != dataset["id"]:
                raise bench.drift(
                    "C-11",
                    "GET /api/ai-systems/{id}/datasets/{datasetID}",
                    f"listed dataset {dataset['id']} answered {r.status_code}",
                    curl(bench, "get_dataset", path),
                )
    for run in get(bench, "list_evaluations").json()["items"][:5]:
        r = get(bench, "get_evaluation", {"id": run["id"]})
        if r.status_code != 200 or r.json()["run"]["id"] != run["id"] or r.json()["run"]["status"] != run["status"]:
            raise bench.drift(
                "C-25",
                "GET /api/evaluation-runs/{id}",
                f"listed run {run['id']} ({run['status']}) answered {r.status_code} {r.text[:200]}",
                curl(bench, "get_evaluation", {"id": run["id"]}),
            )


def check_finished_evaluations_agree_with_their_artifacts(bench) -> int:
    """The summary a run reports is the fold of its artifacts' case results; its evidence is the context it
    started at. Returns how many runs were compared."""
    compared = 0
    for run in get(bench, "list_evaluations").json()["items"][:5]:
        if run["status"] != "completed":
            continue
        path = {"id": run["id"]}
        r = get(bench, "get_evaluation_artifacts", path)
        if r.status_code != 200:
            raise bench.drift(
                "C-50.3", "GET evaluation-runs/{id}/artifacts", f"a finished run answered {r.status_code}"
            )
        art = r.json()["artifacts"]
        cases = art["cases"]
        passed = sum(1 for c in cases if c["status"] == "passed")
        fold = {
            "passed": passed,
            "failed": len(cases) - passed,
            "total": len(cases),
            "score": round(100 * passed / len(cases), 2) if cases else 0.0,
        }
        summary = {k: run["summary"][k] for k in fold} if run.get("summary") else None
        if summary != fold or art["summary"] != run["summary"]:
            raise bench.drift(
                "C-50.3",
                "GET evaluation-runs/{id}",
                f"run {run['id']} reports {run.get('summary')}; its artifacts fold to {fold}",
                curl(bench, "get_evaluation_artifacts", path),
            )
        if art["context_version"] != run["context_version"]:
            raise bench.drift("C-46.1", "GET evaluation-runs/{id}/artifacts", "the artifacts name another version")
        if run.get("ai_system_id") is not None and run["context_version"] is not None:
            snap = get(bench, "get_system_context", {"id": run["ai_system_id"]}, {"version": run["context_version"]})
            if snap.status_code == 200:
                at = {s["id"]: s["text"] for s in snap.json()["context"]["sources"]}
                evidence = {e["id"]: e["text"] for e in art["evidence"]}
                enabled = {s["id"] for s in snap.json()["context"]["sources"] if s.get("enabled", True)}
                if any(at.get(i) != t for i, t in evidence.items()) or (
                    not art.get("evidence_truncated")
                    and not snap.json()["context"].get("sources_truncated")
                    and enabled - set(evidence)
                ):
                    raise bench.drift(
                        "C-46.1",
                        "GET evaluation-runs/{id}/artifacts",
                        f"run {run['id']}'s evidence is not the context at version {run['context_version']}",
                        curl(bench, "get_evaluation_artifacts", path),
                    )
        compared += 1
    return compared


def pages(bench, op_id: str, path: dict, limit: int) -> tuple[list[dict], set[int]]:
    items: list[dict] = []
    totals: set[int] = set()
    offset: int | None = 0
    seen: set[int] = set()
    while offset is not None:
        if offset in seen or len(seen) > 1000:
            raise bench.drift("C-12.1", op_id, f"next_offset {offset} does not advance")
        seen.add(offset)
        r = get(bench, op_id, path, {"offset": offset, "limit": limit})
        body = r.json()
        if len(body["items"]) > min(limit, PAGE["max_limit"]):
            raise bench.drift(
                "C-58.2",
                op_id,
                f"limit={limit} answered {len(body['items'])} items (page budget {PAGE['max_limit']})",
                curl(bench, op_id, path, f"?offset={offset}&limit={limit}"),
            )
        items += body["items"]
        totals.add(body["total"])
        offset = body.get("next_offset")
    return items, totals


def check_pages_traverse_exactly_once(bench) -> None:
    systems = get(bench, "list_systems").json()["items"]
    if not systems:
        return
    path = {"id": systems[0]["id"]}
    whole, totals = pages(bench, "list_context_sources", path, PAGE["max_limit"])
    # small pages, but never more than about twenty requests per traversal against a large account
    smallest = max(1, -(-len(whole) // 20))
    for limit in sorted({smallest, smallest + 1}):
        got, t = pages(bench, "list_context_sources", path, limit)
        ids = [s["id"] for s in got]
        if ids != [s["id"] for s in whole] or len(set(ids)) != len(ids):
            raise bench.drift(
                "C-12.1",
                "GET /api/ai-systems/{id}/context/sources",
                f"limit={limit} pages list {ids}; one page lists {[s['id'] for s in whole]}",
                curl(bench, "list_context_sources", path, f"?offset=0&limit={limit}"),
            )
        totals |= t
    if totals != {len(whole)}:
        raise bench.drift("C-12.2", "GET /api/ai-systems/{id}/context/sources", f"total {totals}, listed {len(whole)}")
    big = get(bench, "list_context_sources", path, {"limit": PAGE["max_limit"] * 10})
    if big.status_code == 200 and len(big.json()["items"]) > PAGE["max_limit"]:
        raise bench.drift("C-58.2", "GET /api/ai-systems/{id}/context/sources", "a page passed max_limit")


def check_allowance_is_readable_and_reading_spends_nothing(bench) -> None:
    first = get(bench, "evaluation_allowance")
    if first.status_code != 200:
        raise bench.drift("C-47.1", "GET /api/evaluation-allowance", f"answered {first.status_code}")
    a = first.json()["allowance"]
    if a["limit"] is not None and a["remaining"] != max(0, a["limit"] - a["used"]):
        raise bench.drift(
            "C-47.2",
            "GET /api/evaluation-allowance",
            f"remaining {a['remaining']} is not limit {a['limit']} - used {a['used']}",
            curl(bench, "evaluation_allowance"),
        )
    runs = get(bench, "list_evaluations", query={"include_active": True}).json()["items"]
    for op_id in ("capabilities", "list_systems", "list_evaluations", "evaluation_allowance"):
        get(bench, op_id)
    for run in runs[:3]:
        get(bench, "get_evaluation", {"id": run["id"]})
        get(bench, "get_evaluation_artifacts", {"id": run["id"]})
    again = get(bench, "evaluation_allowance").json()["allowance"]
    after = get(bench, "list_evaluations", query={"include_active": True}).json()["items"]
    if again["used"] != a["used"] or again["remaining"] != a["remaining"]:
        raise bench.drift("C-06.1", "GET /api/evaluation-allowance", f"reads moved the allowance: {a} -> {again}")
    if [r["id"] for r in after] != [r["id"] for r in runs]:
        raise bench.drift("C-06.2", "GET /api/evaluation-runs", "reading started an evaluation")


def links(body, out: list[tuple[str, str]], key: str = "") -> list[tuple[str, str]]:
    if isinstance(body, dict):
        for k, v in body.items():
            links(v, out, k)
    elif isinstance(body, list):
        for v in body:
            links(v, out, key)
    elif isinstance(body, str) and key.endswith("_url") and "://" in body:
        out.append((key, body))
    return out


def check_links_are_https(bench) -> None:
    found = links(get(bench, "capabilities").json(), [])
    found += links(get(bench, "list_plans").json(), [])
    for key, url in found:
        parts = urlsplit(url)
        if parts.scheme != "https" and not (parts.scheme == "http" and parts.hostname in LOOPBACK):
            raise bench.drift("C-60", "GET /api/headless/capabilities", f"{key} is {url}: not HTTPS")


def test_listed_ids_resolve(bench):
    """C-25, C-11: every listed system, dataset and evaluation reads back by the id it was listed with."""
    check_listed_ids_resolve(bench)


def test_finished_evaluations_agree_with_their_artifacts(bench):
    """C-50.3, C-46.1: a finished run's summary folds its case results; its evidence is its context version."""
    check_finished_evaluations_agree_with_their_artifacts(bench)


def test_pages_traverse_exactly_once(bench):
    """C-12.1, C-12.2, C-58.2: offset/limit pages list every item once, agree on total, and keep to the spec's
    max_limit."""
    check_pages_traverse_exactly_once(bench)


def test_allowance_readable_reads_spend_nothing(bench):
    """C-47.1, C-47.2, C-06.1, C-06.2: the allowance is readable before spending and reads start and spend nothing."""
    check_allowance_is_readable_and_reading_spends_nothing(bench)


def test_links_are_https(bench):
    """C-60: the links the API hands out are HTTPS (loopback HTTP only for a local target)."""
    check_links_are_https(bench)
