"""What Benchwright adds to the generic crawl (`contracts.runner.crawl`): the conventions of every
answer (`conventions.response_findings`) and the semantic claims of the rows a client reads.

- §6.3 active content (HTML, SVG, XML, JavaScript) is served as `text/plain` with `nosniff`;
- §7.1 task rows: `error_class` derived and never null, one of the buckets; `timestamp` epoch ms;
  `passed` is `score >= 1.0`;
- §4.1.1 `display_status` folds `halted` / `halt_reason` as tabulated;
- §9.1 / §2.4 non-disclosure: no secret value and no token value in anything a client reads.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from contracts.runner.crawl import CrawlHooks

from .conventions import response_findings

ACTIVE = ("text/html", "image/svg+xml", "application/xml", "text/xml", "application/javascript", "text/javascript")
BUCKETS = {
    "ok", "truncation", "disk_full", "rate_limited", "timeout", "code_error", "sandbox_died",
    "missing_result_file", "task_no_result", "spawn_failed", "cancelled", "cancelled_pre_launch",
    "inference_rejected", "other",
}  # fmt: skip
TOKEN_VALUE = re.compile(r"bw_live_pat_[0-9a-f]{16,}")
SEEDED_PUBLIC_RUN = "608721fe-54f1-43e3-ab9b-7e0269783f70"


def expected_display_status(run: dict[str, Any]) -> str | None:
    """§4.1.1's table."""
    reason = run.get("halt_reason") or ""
    if not isinstance(reason, str):
        return None
    if reason.startswith("operator_kill"):
        return "killed"
    if run.get("halted"):
        if reason.startswith("operator_pause"):
            return "paused"
        if reason.startswith("agent_review"):
            return "waiting"
        return "halted"
    return run.get("status")


def _runs(body: Any) -> list[dict[str, Any]]:
    if isinstance(body, dict) and body.get("object") == "run":
        return [body]
    if isinstance(body, dict) and isinstance(body.get("data"), list):
        return [row for row in body["data"] if isinstance(row, dict) and row.get("object") == "run"]
    return []


UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
HASHED = re.compile(r"^(sub|imp)_.+:[0-9a-f]{12}$")


def _objects(node: Any):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from _objects(value)


def identifier_findings(operation_id: str, body: Any) -> list[tuple[str, str]]:
    """§3.1: runs are UUIDs, ledger rows `txn_` + UUID, subsets and impls end in 12 hex of their hash."""
    out = []
    if operation_id == "listTransactions" and isinstance(body, dict):
        for row in body.get("data") or []:
            ident = row.get("id") if isinstance(row, dict) else None
            if not (isinstance(ident, str) and ident.startswith("txn_") and UUID.match(ident[4:])):
                out.append(("§3.1#2", f"transaction id {ident!r} is not txn_ + UUID"))
    for node in _objects(body):
        ident, kind = node.get("id"), node.get("object")
        if not isinstance(ident, str):
            continue
        if kind == "run" and not UUID.match(ident):
            out.append(("ids.shape", f"run id {ident!r} is not a UUID"))
        elif ident.startswith(("sub_", "imp_")) and not HASHED.match(ident):
            out.append(("§3.1#3", f"{ident!r} does not end in ':' and 12 hex characters of its hash"))
    return out


def pagination_findings(body: Any) -> list[tuple[str, str]]:
    """§3.4: a cursor page never reports a total; has_more comes with a token to follow, and only then."""
    page = body.get("pagination") if isinstance(body, dict) else None
    if not isinstance(page, dict) or "has_more" not in page:
        return []
    out = []
    if "total" in page:
        out.append(("§3.4#4", "a cursor-paginated list reports a total"))
    token = page.get("next_page_token")
    if page["has_more"] is True and not (isinstance(token, str) and token):
        out.append(("§3.4#5", f"has_more without a next_page_token ({token!r})"))
    if page["has_more"] is False and token:
        out.append(("§3.4#5", "a last page still offers a next_page_token"))
    return out


FILTERS = {  # operationId -> (query parameter, row field) pairs the crawl reads filtered (§3.5, §4.5, §6.1, §7.1)
    "listRuns": (("status", "status", "runs.filter"), ("visibility", "visibility", "§4.5#2")),
    "listRunArtifacts": (("type", "type", "artifacts.filter"),),
    "listRunTasks": (("passed", "passed", "tasks.filter"),),
}


def filter_findings(operation_id: str, path: str, body: Any) -> list[tuple[str, str]]:
    """Every row of a filtered list matches the filter: exact values and `in:` sets (§3.5)."""
    from urllib.parse import parse_qsl, urlsplit

    query = dict(parse_qsl(urlsplit(path).query))
    out = []
    for name, row_field, claim in FILTERS.get(operation_id, ()):
        if name not in query or not isinstance(body, dict):
            continue
        wanted = query[name].removeprefix("in:").split(",") if query[name].startswith("in:") else [query[name]]
        for row in body.get("data") or []:
            value = row.get(row_field) if isinstance(row, dict) else None
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            if shown not in wanted:
                out.append((claim, f"?{name}={query[name]} served a row with {row_field} {value!r}"))
                break
    return out


def semantic_findings(
    operation_id: str, status: int, headers: dict[str, str], content: bytes, body: Any, meta: Any = None
):
    out: list[tuple[str, str]] = []
    lower = {k.lower(): v for k, v in headers.items()}
    media = lower.get("content-type", "").split(";")[0].strip().lower()
    if operation_id == "getRunArtifactContent" and 200 <= status < 300 and isinstance(meta, dict):
        mime = str(meta.get("mime") or "").lower()
        if mime.startswith(ACTIVE) or "javascript" in mime or mime.endswith(("xml", "+xml")):
            if media != "text/plain":
                out.append(("artifacts.active_content", f"a {mime} artifact is served as {media!r}, not text/plain"))
            if lower.get("x-content-type-options", "").lower() != "nosniff":
                out.append(("artifacts.active_content", f"a {mime} artifact is served without nosniff"))
    if operation_id == "getRunArtifactContent" and 200 <= status < 300:
        if media in ACTIVE:
            out.append(("artifacts.active_content", f"active content served as {media!r}, not text/plain"))
        if lower.get("x-content-type-options", "").lower() != "nosniff" and (media == "text/plain" or media in ACTIVE):
            out.append(("artifacts.active_content", "artifact content without X-Content-Type-Options: nosniff"))
    if operation_id == "listRunTasks" and isinstance(body, dict):
        for index, row in enumerate(body.get("data") or []):
            if not isinstance(row, dict):
                continue
            if row.get("error_class") not in BUCKETS:
                out.append(("tasks.error_class", f"data[{index}].error_class = {row.get('error_class')!r}"))
            stamp = row.get("timestamp")
            if "timestamp" in row and (isinstance(stamp, bool) or not isinstance(stamp, int)):
                out.append(("tasks.timestamp", f"data[{index}].timestamp = {stamp!r} is not epoch milliseconds"))
            score = row.get("score")
            passed = row.get("passed")
            if isinstance(score, int | float) and isinstance(passed, bool) and passed != (score >= 1.0):
                out.append(("tasks.passed", f"data[{index}]: passed {row['passed']} with score {score}"))
    if operation_id == "listRunEvents" and isinstance(body, dict):
        seqs = [row.get("seq") for row in body.get("data") or [] if isinstance(row, dict)]
        if any(not isinstance(x, int) for x in seqs) or seqs != sorted(set(seqs)):
            out.append(("sse.dedupe", f"event seqs are not unique and ascending: {seqs[:12]}"))
    out += identifier_findings(operation_id, body) + pagination_findings(body)
    for run in _runs(body):
        expected = expected_display_status(run)
        if expected is not None and "display_status" in run and run["display_status"] != expected:
            out.append(
                (
                    "lifecycle.display_status",
                    f"run {run.get('id')}: display_status {run['display_status']!r}, expected {expected!r}"
                    f" (status {run.get('status')!r}, halted {run.get('halted')!r},"
                    f" halt_reason {run.get('halt_reason')!r})",
                )
            )
    if operation_id == "listSecrets" and isinstance(body, dict):
        for index, row in enumerate(body.get("data") or []):
            if isinstance(row, dict) and isinstance(row.get("value"), str):
                out.append(("secrets.no_value", f"data[{index}] carries the secret's value"))
    text = content.decode("utf-8", "replace") if content else ""
    if TOKEN_VALUE.search(text):
        out.append(("tokens.no_value", "the answer carries a token value"))
    return out


def check(crawl, operation, path, status, headers, content, body):
    authenticated = not crawl.anonymous and bool(crawl.headers(operation)) and status != 401
    findings = response_findings(operation, status, dict(headers), content, authenticated)
    if 200 <= status < 300:
        findings += filter_findings(operation["operationId"], path, body)
    if "no_such_filter" in path and status >= 400:
        findings.append(("filters.unknown", f"an unknown filter key was rejected ({status})"))
    meta = crawl.bodies.get(path.split("?")[0].removesuffix("/content"))  # the artifact's row (§6.2), when read
    findings += semantic_findings(operation["operationId"], status, dict(headers), content, body, meta)
    if crawl.anonymous:
        findings += anonymous_findings(crawl, path.split("?")[0], status)
    return findings


def anonymous_findings(crawl, path: str, status: int) -> list[tuple[str, str]]:
    """§2.2: registry reads serve anyone; a run's read surface serves anyone only when the run is public or
    unlisted, and a private run's is never served without credentials."""
    if path.startswith("/v1/registry/") and status in (401, 403):
        return [("visibility.anonymous", f"a registry read refused an anonymous caller ({status})")]
    found = re.match(r"^/v1/runs/([^/]+)", path)
    run = crawl.bodies.get(found.group(0)) if found else None
    if not isinstance(run, dict) or run.get("object") != "run":
        return []
    visibility = run.get("visibility")
    if visibility == "private" and 200 <= status < 400:
        return [("§2.2#4", f"a private run's {path} was served to an anonymous caller ({status})")]
    if visibility in ("public", "unlisted") and status in (401, 403, 404):
        refused = [("§2.2#3", f"a {visibility} run's {path} refused an anonymous caller ({status})")]
        if path.endswith("/report"):  # §6.5: gated by run visibility only, no artifact scope
            refused.append(("§6.5#2", f"a {visibility} run's report refused an anonymous caller ({status})"))
        return refused
    return []


def headers(operation: dict[str, Any], env: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {env['BW_PAT']}"} if env.get("BW_PAT") else {}


def prepare(base_url: str, env: dict[str, str]) -> dict[str, str]:
    """On a mock (its control surface answers), read as the seeded default user, whose fixtures hold the
    rows a client reads (finished runs with tasks and artifacts); on a live target, as `BW_PAT`."""
    from contracts.runner.target import has_control_surface

    if not has_control_surface(base_url):
        return {}
    response = httpx.post(f"{base_url}/__mock/tokens", json={"scopes": ["full"], "label": "crawl"}, timeout=10)
    return {"BW_PAT": response.json()["token"]} if response.status_code in (200, 201) else {}


CRAWL = CrawlHooks(
    prepare=prepare,
    anonymous=True,
    queries={
        "listRuns": ("status=ok", "status=in:error,running", "visibility=public", "no_such_filter=1"),
        "listRunArtifacts": ("type=report", "type=in:atomize,fetch"),
        "listRunTasks": ("passed=true", "passed=false"),
    },
    claims=(
        "runs.filter",
        "§4.5#2",
        "artifacts.filter",
        "tasks.filter",
        "filters.unknown",
        "visibility.anonymous",
        "§2.2#3",
        "§2.2#4",
        "§6.5#2",
        "ids.shape",
        "§3.1#2",
        "§3.1#3",
        "pagination.traversal",
        "§3.4#4",
        "§3.4#5",
        "headers.request_id",
        "headers.api_version",
        "timestamps.rfc3339",
        "timestamps.duration_ms",
        "money.shape",
        "money.currency",
        "money.rounding",
        "etag.weak",
        "errors.problem",
        "errors.status_member",
        "errors.problem_fields",
        "errors.code_documented",
        "ratelimit.headers",
        "ratelimit.values",
        "ratelimit.anonymous",
        "artifacts.active_content",
        "tasks.error_class",
        "tasks.timestamp",
        "tasks.passed",
        "lifecycle.display_status",
        "sse.dedupe",
        "secrets.no_value",
        "tokens.no_value",
    ),
    check=check,
    headers=headers,
    seeds={"id": [SEEDED_PUBLIC_RUN]},
    # narration spends (§4.9); the billing export and the OpenAPI document are large and carry no rows
    skip=("narrateRun", "exportBilling", "getOpenApi"),
)
