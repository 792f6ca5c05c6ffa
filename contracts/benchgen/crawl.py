"""What BenchGen adds to the generic crawl (`contracts.runner.crawl`): the conventions check of every
answer (`conventions.check`: DRF pages, `{detail, code}` errors, run status folds B-33…B-37, item results
B-41), the score rollup (a finished run's score is the share of items answered right), and
non-disclosure (B-46.1: the token's secret is in no answer). Submissions have no list operation, so the
crawl starts from the ids given in `BENCHGEN_SUBMISSION_IDS` (comma-separated) and, on the embedded
mock, its seeded finished run."""

from __future__ import annotations

import os

from contracts.runner.crawl import CrawlHooks

from . import conventions

SEEDED_SUBMISSION = "789"  # the mock's finished run (`mock_server.benchgen.fixtures.FINISHED_RUN_ID`)


def check(crawl, operation, path, status, headers, content, body):
    lower = {k.lower(): v for k, v in headers.items()}
    text = content.decode("utf-8", "replace")
    found = conventions.check(operation, status, lower, body, secrets=crawl.secrets, text=text)
    out = [("B-46.1" if v.claim == "B-31.1" else v.claim, v.message) for v in found]  # the crawl's secrets are tokens
    if operation["operationId"] == "getItemResults" and isinstance(body, dict) and 200 <= status < 300:
        run = crawl.bodies.get(path.split("?")[0].replace("/item_results/", "/run_status/"))
        out += score_rollup(run, body)
    return out


def score_rollup(run, page) -> list[tuple[str, str]]:
    """B-41, B-34: a finished run's score is the share of its items answered right (when the page holds them all)."""
    items = [i for i in page.get("results") or [] if isinstance(i, dict)]
    if not isinstance(run, dict) or not run.get("done") or not isinstance(run.get("score"), int | float):
        return []
    if page.get("count") != len(items) or not items or page.get("next") is not None:
        return []
    share = sum(1 for i in items if i.get("correct") is True) / len(items)
    if abs(share - run["score"]) > 1e-6:
        return [("B-34", f"score {run['score']} but {share:.4f} of the {len(items)} items were answered right")]
    return []


def _seeds() -> dict[str, list[str]]:
    given = [s.strip() for s in os.environ.get("BENCHGEN_SUBMISSION_IDS", "").split(",") if s.strip()]
    return {"submission_id": [*given, SEEDED_SUBMISSION]}


CRAWL = CrawlHooks(
    check=check,
    seeds=_seeds(),
    claims=(
        *("B-09.1", "B-33", "B-34", "B-35.1", "B-35.2", "B-36.1", "B-37.1"),
        *("B-41.1", "B-41.2", "B-41.3", "B-46.1", "B-50"),
    ),
)
