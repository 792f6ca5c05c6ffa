"""Derived fields agree with what they are derived from. All of these only read.

- §10.4 / §10.1: ledger rows chain (each `balance_after` is the previous row's plus its
  `delta`), and the newest row's `balance_after` is the balance;
- §10.6 / §10.1: `month_spent`, the usage trend's `current_month_cents` and the calendar
  month's debits in the ledger are the same rows ("agree by construction");
- §2.4: a token's `spent_cents_period` in the list is what `GET /v1/tokens/{id}/spending`
  answers for its period ("the same number");
- §4.1 (§3.3): `cost.incurred` = driver + model + sandbox and `cost.billed` = driver +
  sandbox (+ narration), compared on the exact `amount_usd`;
- §7.1: the task summary: `passed + failed = total`, `pass_rate = passed / total`, and on a
  complete page, the rows themselves.

On the mock a run is launched and finished first, so the ledger holds its debits.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from contracts.benchwright.suite._support import body_of, expect, finished_run
from contracts.benchwright.suite.conftest import clamp_of

USD_TOLERANCE = 1e-6


@pytest.fixture(scope="module")
def spent_run(client, target) -> str | None:
    return finished_run(client, target)


def _ledger(client) -> tuple[list[dict[str, Any]], bool, Any]:
    """The ledger's first page, as large as the clamp allows, and whether it is the whole ledger."""
    response = client.get("/v1/billing/transactions", params={"limit": clamp_of("listTransactions")["max"]})
    body = body_of(response) or {}
    rows = body.get("data") or []
    return rows, len(rows) >= (body.get("total_estimate") or 0), response


def _cents(node: Any) -> int | None:
    return node.get("amount_cents") if isinstance(node, dict) else None


def test_ledger_rows_chain_to_the_balance(client, spent_run):
    """§10.4: balance_after = the previous row's balance_after + delta; §10.1: the newest is the balance."""
    before = _cents((body_of(client.get("/v1/billing/balance")) or {}).get("balance"))
    rows, whole, response = _ledger(client)
    if len(rows) < 2:
        pytest.skip("the ledger holds fewer than two rows")
    pairs = list(pairwise(rows))

    def chains(newer_first: bool) -> bool:
        for a, b in pairs:
            newer, older = (a, b) if newer_first else (b, a)
            if _cents(newer["balance_after"]) != _cents(older["balance_after"]) + _cents(newer["delta"]):
                return False
        return True

    newest_first = chains(True)
    expect(
        newest_first or chains(False),
        "billing.ledger",
        "GET /v1/billing/transactions",
        "the rows' balance_after do not follow from their deltas, in either order",
        response,
    )
    balance = client.get("/v1/billing/balance")
    now = _cents((body_of(balance) or {}).get("balance"))
    newest = rows[0] if newest_first else rows[-1]
    if now == before and (newest_first or whole):  # no debit landed meanwhile, and the newest row is on this page
        expect(
            _cents(newest["balance_after"]) == now,
            "§10.1#1",
            "GET /v1/billing/balance",
            f"the balance is {now} but the newest ledger row leaves {_cents(newest['balance_after'])}",
            balance,
        )


def test_month_spent_is_the_months_debits(client, spent_run):
    """§10.6: current_month_cents and §10.1's month_spent are the same ledger rows."""
    balance = client.get("/v1/billing/balance")
    trend = client.get("/v1/billing/usage-trend")
    month_spent = _cents((body_of(balance) or {}).get("month_spent"))
    current = (body_of(trend) or {}).get("current_month_cents")
    expect(
        isinstance(current, int) and month_spent == current,
        "billing.month_spent",
        "GET /v1/billing/usage-trend",
        f"month_spent is {month_spent}, the trend's current month {current}",
        trend,
    )
    month = next((m.get("month") for m in (body_of(trend) or {}).get("months") or [] if m.get("current")), None)
    rows, whole, response = _ledger(client)
    if month is None or not whole:
        return
    debits = -sum(_cents(r["delta"]) for r in rows if _cents(r["delta"]) < 0 and r["created_at"][:7] == month)
    if _cents((body_of(client.get("/v1/billing/balance")) or {}).get("month_spent")) != month_spent:
        return  # a debit landed meanwhile
    expect(
        debits == month_spent,
        "§10.1#2",
        "GET /v1/billing/transactions",
        f"the ledger's debits of {month} sum to {debits}; month_spent says {month_spent}",
        response,
    )


def test_token_spend_matches_its_rollup(client, spent_run):
    """§2.4: "the same number the list response carries inline as spent_cents_period"."""
    rows = (body_of(client.get("/v1/tokens")) or {}).get("data") or []
    for row in rows[:5]:
        response = client.get(f"/v1/tokens/{row['id']}/spending", params={"period": row["spend_period"]})
        body = body_of(response) or {}
        expect(
            body.get("token_id") == row["id"] and body.get("spent_cents") == row["spent_cents_period"],
            "tokens.spending",
            "GET /v1/tokens/{id}/spending",
            f"token {row['id']}: the list says {row['spent_cents_period']} this {row['spend_period']},"
            f" the rollup {body.get('spent_cents')}",
            response,
        )


def _usd(cost: dict[str, Any], name: str) -> float:
    node = cost.get(name)
    return float(node.get("amount_usd") or 0.0) if isinstance(node, dict) else 0.0


def test_run_costs_add_up(client, spent_run):
    """§4.1: incurred = driver + model + sandbox; billed = driver + sandbox + narration."""
    runs = (body_of(client.get("/v1/runs", params={"limit": 20})) or {}).get("data") or []
    if spent_run is not None and spent_run not in {r["id"] for r in runs}:
        runs.append(body_of(client.get(f"/v1/runs/{spent_run}")) or {})
    checked = 0
    for run in runs:
        cost = run.get("cost")
        if not isinstance(cost, dict) or "incurred" not in cost:
            continue
        checked += 1
        parts = _usd(cost, "driver") + _usd(cost, "model") + _usd(cost, "sandbox")
        billed = _usd(cost, "driver") + _usd(cost, "sandbox") + _usd(cost, "narration")
        expect(
            abs(_usd(cost, "incurred") - parts) <= USD_TOLERANCE + 1e-9 * parts,
            "runs.cost",
            "GET /v1/runs",
            f"run {run.get('id')}: incurred {_usd(cost, 'incurred')} is not driver + model + sandbox ({parts:.6f})",
        )
        expect(
            abs(_usd(cost, "billed") - billed) <= USD_TOLERANCE + 1e-9 * billed,
            "runs.cost",
            "GET /v1/runs",
            f"run {run.get('id')}: billed {_usd(cost, 'billed')} is not driver + sandbox + narration ({billed:.6f})",
        )
    if not checked:
        pytest.skip("no run of this account carries costs")


def test_task_summary_agrees_with_its_rows(client, spent_run):
    """§7.1: passed + failed = total, pass_rate = passed / total, and, for a run without trials, a complete
    page's rows say so (with trials the summary folds each task's trials into one score)."""
    if spent_run is None:
        pytest.skip("no finished run of this account")
    response = client.get(f"/v1/runs/{spent_run}/tasks")
    body = body_of(response) or {}
    summary, rows = body.get("summary") or {}, body.get("data") or []
    total, passed, failed = summary.get("total"), summary.get("passed"), summary.get("failed")
    if not isinstance(total, int) or not total:
        pytest.skip("the run has no tasks")
    op = "GET /v1/runs/{id}/tasks"
    expect(
        passed + failed == total,
        "tasks.summary",
        op,
        f"passed {passed} + failed {failed} != total {total}",
        response,
    )
    expect(
        abs(summary.get("pass_rate", -1) - passed / total) < 0.005,
        "tasks.summary",
        op,
        f"pass_rate {summary.get('pass_rate')} is not passed / total ({passed}/{total})",
        response,
    )
    # §7.1: "summary is computed from a different row set than data": trials fold into one score per task
    # in the summary while data keeps a row per trial, so rows and summary agree only for a run without trials
    if not (body.get("pagination") or {}).get("has_more") and "trials" not in summary:
        counted = sum(1 for row in rows if row.get("passed") is True)
        expect(
            len(rows) == total and counted == passed,
            "tasks.summary",
            op,
            f"the complete page holds {len(rows)} rows, {counted} passed; the summary says {total} and {passed}",
            response,
        )
