"""Balance and top-ups (§10), on the ledger."""

from __future__ import annotations

import csv
import io

import pytest

from mock_server.app import create_app
from mock_server.benchwright.fixtures import DEFAULT_USER_ID
from mock_server.benchwright.model import ledger
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.resources.billing import complete_checkout, mark_topup_paid, seed_billing
from tests.benchwright.conftest import SpecCheckedClient

DAY = 86_400


@pytest.fixture
def api(api):
    seed_billing(api.mock.store)
    return api


def _session_id(url: str) -> str:
    return url.rsplit("/", 1)[1]


def _debit(api, cents: int, kind: str = "trace_debit") -> None:
    ledger.post(api.mock.store, DEFAULT_USER_ID, kind, -cents, reference_type="run")


# -- §10.1 -----------------------------------------------------------------------


def test_balance_10_1_reads_the_ledger_with_top_level_payer(api):
    body = api.get("/v1/billing/balance").json()
    store = api.mock.store
    assert body["object"] == "balance"
    assert body["balance"] == {"amount_cents": ledger.balance_cents(store, DEFAULT_USER_ID), "currency": "USD"}
    assert body["payer"]["user_id"] == DEFAULT_USER_ID
    assert "meta" not in body
    assert "amount_usd" not in body["balance"]
    before = body["month_spent"]["amount_cents"]
    _debit(api, 250)
    after = api.get("/v1/billing/balance").json()
    assert after["month_spent"]["amount_cents"] == before + 250
    assert after["balance"]["amount_cents"] == body["balance"]["amount_cents"] - 250


def test_balance_10_1_month_spent_counts_only_this_calendar_month(api):
    api.advance(40 * DAY)  # 2026-04-23 -> 2026-06-02
    assert api.get("/v1/billing/balance").json()["month_spent"]["amount_cents"] == 0
    _debit(api, 99)
    assert api.get("/v1/billing/balance").json()["month_spent"]["amount_cents"] == 99


def test_balance_3_6_expand_folds_blocks_and_refuses_unknown_keys(api):
    body = api.get("/v1/billing/balance?expand=topups,usage_trend,counters,tiers,subscription").json()
    assert body["topups"] == []
    assert body["usage_trend"]["months"][-1]["current"] is True
    assert body["counters"]["transactions"] >= 3
    assert [t["tier"] for t in body["tiers"] if t["current"]] == ["growth"]
    assert body["subscription"]["tier"] == "growth"
    bad = api.get("/v1/billing/balance?expand=topups,invoices")
    assert bad.status_code == 400
    assert bad.json()["code"] == "unknown_filter_field"
    assert "invoices" in bad.json()["detail"]


def test_balance_3_6_expand_ignores_the_spec_blanks_only(api):
    """The spec's pattern names its blanks (space, tab, CR, LF, FF, VT); an ASCII separator such as
    \x1d is not one in the engines a client validates with, so it is an unknown key, not a blank."""
    spaced = api.get("/v1/billing/balance?expand=%20topups%09,%20,counters%0B")
    assert spaced.status_code == 200
    assert "topups" in spaced.json() and "counters" in spaced.json()
    separator = api.get("/v1/billing/balance?expand=%1D")
    assert separator.status_code == 400
    assert separator.json()["code"] == "unknown_filter_field"


# -- §10.2 / §10.3 -----------------------------------------------------------------


@pytest.mark.parametrize("cents", [499, 5_000_001])
def test_topup_10_2_amount_range_is_refused_with_a_legacy_body(api, cents):
    response = api.post("/v1/billing/topups", json={"amount_cents": cents})
    assert response.status_code == 400
    assert set(response.json()) == {"error"}


def test_topup_10_2_10_3_pending_is_404_until_paid_then_credits_once(api):
    balance = api.get("/v1/billing/balance").json()["balance"]["amount_cents"]
    response = api.post("/v1/billing/topups", json={"amount_cents": 5000})
    assert response.status_code == 200
    url = response.json()["url"]
    assert url.startswith("https://checkout.stripe.com/c/pay/cs_")
    pending = next(t for t in api.mock.store.topups.values() if t.status == "pending")
    assert pending.amount_cents == 5000
    missing = api.get(f"/v1/billing/topups/top_{pending.id}")
    assert missing.status_code == 404
    assert set(missing.json()) == {"error"}
    assert api.get("/v1/billing/balance").json()["balance"]["amount_cents"] == balance

    paid = mark_topup_paid(api.mock, _session_id(url))
    assert paid["id"] == f"top_{pending.id}"
    assert mark_topup_paid(api.mock, paid["id"]) == paid  # a second landing credits nothing
    for handle in (paid["id"], pending.id):
        got = api.get(f"/v1/billing/topups/{handle}").json()
        assert got["status"] == "succeeded"
        assert got["amount"] == {"amount_cents": 5000, "currency": "USD"}
        assert got["stripe_payment_intent_id"].startswith("pi_")
    assert api.get("/v1/billing/balance").json()["balance"]["amount_cents"] == balance + 5000
    rows = api.get("/v1/billing/transactions?kind=stripe_topup").json()["data"]
    assert [(r["delta"]["amount_cents"], r["reference_id"]) for r in rows] == [(5000, pending.id)]
    assert api.get("/v1/billing/balance?expand=topups").json()["topups"] == [paid]


def test_topup_10_3_another_accounts_topup_is_404(api):
    url = api.post("/v1/billing/topups", json={"amount_cents": 1000}).json()["url"]
    paid = mark_topup_paid(api.mock, _session_id(url))
    stranger = api.as_token(["full"], user_id=api.user()["id"])
    assert stranger.get(f"/v1/billing/topups/{paid['id']}").status_code == 404


# -- §10.4 ------------------------------------------------------------------------


def test_transactions_10_4_unfiltered_rows_carry_kinds_outside_the_allowlist(api):
    page = api.get("/v1/billing/transactions").json()
    kinds = {row["kind"] for row in page["data"]}
    assert {"inference_usage", "operator_usage", "trace_debit", "support_credit"} <= kinds
    assert api.get("/v1/billing/transactions?kind=all").json()["total_estimate"] == page["total_estimate"]
    refused = api.get("/v1/billing/transactions?kind=inference_usage")
    assert refused.status_code == 400
    assert refused.json()["code"] == "invalid_argument"


def test_transactions_10_4_filter_order_and_offset_pagination(api):
    _debit(api, 1)
    _debit(api, 2)
    debits = api.get("/v1/billing/transactions?kind=trace_debit&limit=2").json()
    assert {row["kind"] for row in debits["data"]} == {"trace_debit"}
    assert [row["delta"]["amount_cents"] for row in debits["data"]] == [-2, -1]  # newest first
    assert debits["limit"] == 2 and debits["offset"] == 0
    total = debits["total_estimate"]
    everything = api.get("/v1/billing/transactions?kind=trace_debit&limit=500").json()["data"]
    assert len(everything) == total
    second = api.get("/v1/billing/transactions?kind=trace_debit&limit=2&offset=2").json()["data"]
    assert [r["id"] for r in second] == [r["id"] for r in everything[2:4]]
    assert api.get("/v1/billing/transactions?limit=1000").json()["limit"] == 500


# -- §10.5 -----------------------------------------------------------------------


def test_controls_10_5_owner_changes_only_what_is_sent(api):
    body = api.patch(
        "/v1/billing/controls",
        json={"monthly_cap_cents": 10000, "auto_refill": {"enabled": True}, "alert": {"at_cap_pct": 90}},
    ).json()
    assert body["monthly_cap"] == {"amount_cents": 10000, "currency": "USD"}
    assert body["auto_refill"]["enabled"] is True
    assert body["auto_refill"]["amount"]["amount_cents"] == 2500
    assert body["alert"] == {"enabled": True, "at_cap_pct": 90}
    read = api.get("/v1/billing/balance").json()
    assert read["monthly_cap"]["amount_cents"] == 10000 and read["alert"]["at_cap_pct"] == 90
    cleared = api.patch("/v1/billing/controls", json={"monthly_cap_cents": None}).json()
    assert cleared["monthly_cap"] is None
    assert cleared["alert"]["at_cap_pct"] == 90


def test_controls_2_5_team_member_gets_forbidden_team_member(api):
    member = api.user(team_owner_id=DEFAULT_USER_ID)
    client = api.as_token(["full"], user_id=member["id"])
    response = client.patch("/v1/billing/controls", json={"monthly_cap_cents": 1})
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden_team_member"
    balance = client.get("/v1/billing/balance").json()
    assert balance["payer"]["user_id"] == DEFAULT_USER_ID
    assert balance["monthly_cap"] is None


# -- §10.6 ------------------------------------------------------------------------


def test_usage_trend_10_6_six_buckets_agree_with_month_spent(api):
    trend = api.get("/v1/billing/usage-trend").json()
    assert [m["month"] for m in trend["months"]] == ["2025-11", "2025-12", "2026-01", "2026-02", "2026-03", "2026-04"]
    assert trend["months"][-1]["label"] == "Apr"
    assert [m.get("current", False) for m in trend["months"]] == [False] * 5 + [True]
    spent = api.get("/v1/billing/balance").json()["month_spent"]["amount_cents"]
    assert trend["current_month_cents"] == spent == trend["months"][-1]["cents"] > 0
    api.advance(10 * DAY)  # into May
    _debit(api, 30)
    later = api.get("/v1/billing/usage-trend").json()
    assert later["months"][-1]["month"] == "2026-05"
    assert later["current_month_cents"] == 30
    assert later["previous_month_cents"] == spent


# -- §10.7 ------------------------------------------------------------------------


def test_export_10_7_transactions_csv_is_rfc4180_with_a_filename(api):
    response = api.get("/v1/billing/export")
    assert response.headers["content-type"].startswith("text/csv")
    assert response.headers["content-disposition"] == 'attachment; filename="benchwright-transactions-2026-04-23.csv"'
    assert "\r\n" in response.text
    assert '"Cloud inference, 41k tokens"' in response.text  # a comma forces quoting
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0] == [
        "id",
        "created_at",
        "kind",
        "delta_cents",
        "balance_after_cents",
        "currency",
        "reference_type",
        "reference_id",
        "note",
    ]
    store = api.mock.store
    assert len(rows) - 1 == sum(1 for r in ledger.rows(store).values() if r.account_id == DEFAULT_USER_ID)
    assert int(rows[-1][4]) == ledger.balance_cents(store, DEFAULT_USER_ID)


def test_export_10_7_runs_has_one_row_per_billed_run(api):
    response = api.get("/v1/billing/export?type=runs")
    assert "benchwright-runs-" in response.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(response.text)))

    mine = {r.id: r for r in pipeline.runs(api.mock.store).values() if r.user_id == DEFAULT_USER_ID}
    assert {row["run_id"] for row in rows} == set(mine)
    for row in rows:
        assert int(row["billed_cents"]) == pipeline.cents_up(pipeline.billed_usd(mine[row["run_id"]]))


# -- §10.8 ------------------------------------------------------------------------


def test_statement_10_8_is_html_with_the_canonical_layout(api):
    response = api.get("/v1/billing/statement?month=2026-04")
    assert response.headers["content-type"].startswith("text/html")
    page = response.text
    for part in ("<header>", 'class="period"', "2026-04-01", "2026-04-30", "<tfoot>", "Closing balance", "<footer>"):
        assert part in page
    assert "operator_usage" in page and "$1.20" in page
    closing = ledger.balance_cents(api.mock.store, DEFAULT_USER_ID)
    assert f'Closing balance: <span class="num">${closing // 100:,}.{closing % 100:02d}' in page
    assert "No transactions this period." in api.get("/v1/billing/statement?month=2026-03").text


def test_statement_10_8_bad_month_is_400(api):
    response = api.get("/v1/billing/statement?month=2026-13")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_argument"


# -- §10.9 / §10.10 -----------------------------------------------------------------


def test_subscription_10_9_free_is_an_idempotent_ack_and_ends_at_period_end(api):
    for _ in range(2):
        response = api.post("/v1/billing/subscription", json={"tier": "free"})
        assert response.status_code == 200 and response.json() == {"ok": True}
    sub = api.get("/v1/billing/balance?expand=subscription").json()["subscription"]
    assert sub["cancel_at_period_end"] is True and sub["tier"] == "growth"
    api.advance(8 * DAY)  # past 2026-05-01
    assert api.get("/v1/billing/balance?expand=subscription").json()["subscription"] is None
    assert api.mock.store.users[DEFAULT_USER_ID].tier == "free"
    assert api.post("/v1/billing/subscription", json={"tier": "free"}).json() == {"ok": True}


def test_subscription_10_9_paid_tier_answers_checkout_and_reads_the_interval(api):
    store = api.mock.store
    intervals = {}
    for given in ("year", "yearly", "annual", "monthly", None):
        body = {"tier": "scale", **({"interval": given} if given else {})}
        url = api.post("/v1/billing/subscription", json=body).json()["url"]
        intervals[given] = store.checkout_sessions[_session_id(url)].interval
    assert intervals == {"year": "year", "yearly": "year", "annual": "year", "monthly": "month", None: "month"}
    bad = api.post("/v1/billing/subscription", json={"tier": "platinum"})
    assert bad.status_code == 400 and set(bad.json()) == {"error"}


def test_verify_subscription_10_10_pending_then_applied_idempotently(api):
    url = api.post("/v1/billing/subscription", json={"tier": "scale", "interval": "annual"}).json()["url"]
    session = _session_id(url)
    assert api.post("/v1/billing/verify-subscription", json={"session_id": session}).json() == {
        "ok": False,
        "reason": "pending",
    }
    complete_checkout(api.mock, session)
    for _ in range(2):
        assert api.post("/v1/billing/verify-subscription", json={"session_id": session}).json() == {
            "ok": True,
            "tier": "scale",
        }
    assert api.mock.store.users[DEFAULT_USER_ID].tier == "scale"
    sub = api.get("/v1/billing/balance?expand=subscription").json()["subscription"]
    assert sub["interval"] == "year" and sub["current_period_end"].startswith("2027-04-01")


def test_verify_subscription_10_10_another_users_session_is_403(api):
    url = api.post("/v1/billing/subscription", json={"tier": "entry"}).json()["url"]
    stranger = api.as_token(["full"], user_id=api.user()["id"])
    response = stranger.post("/v1/billing/verify-subscription", json={"session_id": _session_id(url)})
    assert response.status_code == 403
    assert set(response.json()) == {"error"}
    unknown = api.post("/v1/billing/verify-subscription", json={"session_id": "cs_test_nope"})
    assert unknown.status_code == 400


def test_billing_2_2_scopes(api):
    reader = api.as_token(["billing:read"])
    assert reader.get("/v1/billing/balance").status_code == 200
    refused = reader.post("/v1/billing/topups", json={"amount_cents": 500})
    assert refused.status_code == 403


def test_10_8_a_statement_month_outside_the_calendar_is_a_400(api):
    """§10.8 / §14: bad values come back as 400 invalid_argument, never a 500 (found by the contract suite)."""
    for month in ("0000-01", "9999-12"):
        response = api.get(f"/v1/billing/statement?month={month}")
        assert response.status_code == 400 and response.json()["code"] == "invalid_argument"


# -- §10.4 the ledger's order ---------------------------------------------------------


LAUNCH = {"request": "Run MMLU Abstract Algebra via OpenRouter", "model": {"model": "qwen/qwen3-32b"}}


def _ledger_after(step_seconds: float) -> list[tuple[str, str, int, int]]:
    """Two runs launched a moment apart spend at interleaved moments; the clock then moves 15 minutes on in
    steps of `step_seconds` (each a request, so due steps apply at each one)."""
    api = SpecCheckedClient(create_app()).as_token(["full"])
    launched = []
    for _ in range(2):
        response = api.post("/v1/runs", json=LAUNCH)
        assert response.status_code == 202, response.text
        launched.append(response.json()["id"])
        api.advance(0.7)
    moved = 0.0
    while moved < 900:
        api.advance(step_seconds)
        moved += step_seconds
    names = {run_id: f"run {index}" for index, run_id in enumerate(launched)}
    rows = api.get("/v1/billing/transactions?limit=100").json()["data"]
    return [
        (row["kind"], names.get(row["reference_id"], "other"), row["delta"]["amount_cents"],
         row["balance_after"]["amount_cents"])
        for row in rows
    ]  # fmt: skip


def test_ledger_10_4_runs_debit_in_the_order_their_moments_came():
    """§10.4 / §3.9: what runs spend is debited in the order it was spent, across runs, however often requests
    arrived while they ran: one jump of the clock past every step and many small steps read the same ledger,
    the same running balance (a mock that applied one run's due steps before the next run's posted run 0's
    later debits before run 1's earlier ones)."""
    jump = _ledger_after(900)
    assert {name for _, name, _, _ in jump} >= {"run 0", "run 1"}
    assert jump == _ledger_after(3)
