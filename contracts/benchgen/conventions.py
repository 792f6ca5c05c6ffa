"""The conventions check for one BenchGen response: what any answer of an operation must look like.

`check(operation, status, headers, body, secrets=())` returns the violations, each
naming the claim it breaks (B-nn, or a P-… proposal of `claims.PROPOSALS`). It needs
only the spec operation (its `operationId`, `x-errors` and responses) and the exchange,
so it judges the mock and a live target alike. `secrets` are strings that must appear
in no response: a platform token (`bgn_…`, B-04) is B-46.1, any other secret (an external endpoint's
key) B-31.1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

SCOPES = ("benchmark:read", "benchmark:run")
PAGED = {"listPublicCompetitions", "getItemResults", "listUserLlmModels"}


@dataclass(frozen=True)
class Violation:
    claim: str
    message: str

    def __str__(self) -> str:
        return f"[{self.claim}] {self.message}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _error(op: Mapping[str, Any], status: int, headers: Mapping[str, str], body: Any) -> list[Violation]:
    out: list[Violation] = []
    if not isinstance(body, dict) or not isinstance(body.get("detail"), str) or not isinstance(body.get("code"), str):
        return [Violation("P-errors", f"{status} body is not {{detail, code}}: {str(body)[:200]}")]
    documented = (op.get("x-errors") or {}).get(str(status))
    if documented is None:
        out.append(Violation("P-errors", f"status {status} is not documented for {op['operationId']}"))
    elif body["code"] not in documented:
        out.append(Violation("P-errors", f"{status} code {body['code']!r} is not one of {documented}"))
    if status == 401 and not str(headers.get("www-authenticate", "")).startswith("Bearer"):
        out.append(Violation("B-03", "401 without WWW-Authenticate: Bearer"))
    if status == 403:
        scopes = body.get("required_scopes")
        if not isinstance(scopes, list) or not scopes or not set(scopes) <= set(SCOPES):
            out.append(Violation("B-44", f"403 does not name the missing scope: {scopes!r}"))
    if status == 402 and not ({"credits_required", "credits_available"} <= set(body)):
        out.append(Violation("B-27", "402 does not say how many credits were needed and available"))
    if status == 429:
        retry = str(headers.get("retry-after", ""))
        if not retry.isdigit() or int(retry) < 1 or body.get("wait") != int(retry):
            out.append(Violation("P-throttle", f"429 Retry-After {retry!r} and wait {body.get('wait')!r} disagree"))
    repeat = op["operationId"] == "registerForCompetition" and body["code"] == "already_applied"
    if repeat and "already applied" not in body["detail"]:
        out.append(Violation("B-15", f'a repeat join does not say "already applied": {body["detail"]!r}'))
    return out


def _page(body: Any) -> list[Violation]:
    if not isinstance(body, dict) or not isinstance(body.get("results"), list):
        return [Violation("P-pages", "a list is not a page with results")]
    out = []
    if not _is_int(body.get("count")) or body["count"] < len(body["results"]):
        out.append(Violation("P-pages", f"count {body.get('count')!r} is below the page's length"))
    for link in ("next", "previous"):
        if body.get(link) is not None and not isinstance(body[link], str):
            out.append(Violation("P-pages", f"{link} is neither null nor a URL"))
    return out


def _run_status(body: dict[str, Any]) -> list[Violation]:
    out = []
    done = body.get("done")
    if not isinstance(done, bool):
        return [Violation("B-33", f"done is not a boolean: {done!r}")]
    wait = body.get("check_again_seconds")
    if done:
        has_score, has_error = body.get("score") is not None, body.get("error") is not None
        if has_score == has_error:
            out.append(Violation("B-34", "a finished run must carry exactly one of score and error"))
        if has_score and not (isinstance(body["score"], int | float) and 0 <= body["score"] <= 1):
            out.append(Violation("B-34", f"score is not a number in [0, 1]: {body['score']!r}"))
        if has_error and not (isinstance(body["error"], str) and body["error"]):
            out.append(Violation("B-35.1", "error of a failed run is not a message"))
        if wait is not None:
            out.append(Violation("B-37.1", "a finished run still asks to check again"))
    else:
        if not _is_int(wait) or wait < 1:
            out.append(Violation("B-37.1", f"a run in flight has no check_again_seconds >= 1: {wait!r}"))
        if body.get("score") is not None:
            out.append(Violation("B-50", "a score before done"))
        if body.get("error") is not None:
            out.append(Violation("B-35.2", f"an error before the run is done: {body['error']!r}"))
    if "run_path" in body and not (isinstance(body["run_path"], str) and body["run_path"]):
        out.append(Violation("B-36", f"run_path is not a path: {body['run_path']!r}"))
    return out


def _success(operation_id: str, status: int, body: Any) -> list[Violation]:
    out: list[Violation] = []
    if operation_id in PAGED:
        out += _page(body)
    if operation_id == "listPublicCompetitions" and isinstance(body, dict):
        if any(not _is_int(item.get("id")) for item in body.get("results", []) if isinstance(item, dict)):
            out.append(Violation("B-09.1", "a listed benchmark has no integer id"))
    elif operation_id == "registerForCompetition":
        if status != 201:
            out.append(Violation("B-11", f"a join answered {status}, not 201"))
        if not isinstance(body, dict) or body.get("participant_status") not in ("approved", "pending"):
            out.append(Violation("B-12", f"participant_status is not approved or pending: {body!r}"))
    elif operation_id == "queueBenchmarkRun":
        if status != 201:
            out.append(Violation("B-26", f"a queued run answered {status}, not 201"))
        if not isinstance(body, dict) or not _is_int(body.get("submission_id")):
            out.append(Violation("B-26", "a queued run has no integer submission_id"))
    elif operation_id == "getRunStatus" and isinstance(body, dict):
        out += _run_status(body)
    elif operation_id == "getItemResults" and isinstance(body, dict):
        for item in body.get("results", []):
            if not isinstance(item, dict):
                out.append(Violation("B-41.1", f"an item is not an object: {item!r}"))
                continue
            if "expected_answer" not in item:
                out.append(Violation("B-41.1", f"an item lacks the expected answer: {item!r}"))
            if "model_answer" not in item:
                out.append(Violation("B-41.2", f"an item lacks the model's answer: {item!r}"))
            if not isinstance(item.get("correct"), bool):
                out.append(Violation("B-41.3", f"an item does not say whether it was right: {item.get('correct')!r}"))
    return out


def check(
    operation: Mapping[str, Any],
    status: int,
    headers: Mapping[str, str],
    body: Any,
    secrets: Iterable[str] = (),
    text: str | None = None,
) -> list[Violation]:
    """Every convention the response breaks. `headers` keys are lower-case; `text` is the raw body."""
    out: list[Violation] = []
    raw = text if text is not None else repr(body)
    for secret in secrets:
        if secret and secret in raw:
            what = (
                ("B-46.1", "a token's secret") if secret.startswith("bgn_") else ("B-31.1", "a submitted endpoint key")
            )
            out.append(Violation(what[0], f"a response of {operation['operationId']} carries {what[1]}"))
    if status >= 400:
        out += _error(operation, status, headers, body)
    elif 200 <= status < 300:
        out += _success(operation["operationId"], status, body)
    return out
