"""Account-level flows (§10.2–§10.10 billing flows, §11 settings, §12 bug reports, §12a
operators): the states and shapes a client drives, derived from the reference and from
the other reads of the same account. (Balance and ledger rollups are checked elsewhere.)

Top-ups, subscriptions and operators spend; settings, controls and bug reports write:
each runs where the policy permits it, and what it changes it restores.
"""

from __future__ import annotations

import calendar
import csv
import io
import time
from itertools import pairwise

from contracts.benchwright import section_claims  # noqa: F401  (registers the claims)
from contracts.benchwright.suite._support import advance, body_of, code_of, expect
from contracts.benchwright.suite.conftest import BUNDLE, OPERATIONS, require
from contracts.runner import unique


def _checkout_id(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1]


def _amount_bounds() -> tuple[int, int]:
    """§10.2's bounds, as the spec declares them on the request body."""
    _, _, operation = OPERATIONS["createTopup"]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    if "$ref" in schema:
        schema = BUNDLE["components"]["schemas"][schema["$ref"].split("/")[-1]]
    field = schema["properties"]["amount_cents"]
    return field["minimum"], field["maximum"]


def test_topup_bounds(client, policy):
    """§10.2: an amount below 500 or above 5,000,000 cents is refused (and the spec says so; §10.2#1,
    `billing.topup_bounds`); one within answers the hosted checkout `url` (§10.2#2)."""
    require(policy, "createTopup")
    low, high = _amount_bounds()
    expect((low, high) == (500, 5_000_000), "billing.topup_bounds", "POST /v1/billing/topups",
           f"the spec bounds amount_cents to {low}..{high}")  # fmt: skip
    for amount in (low - 1, high + 1):
        response = client.post("/v1/billing/topups", json={"amount_cents": amount})
        expect(
            response.status_code == 400,
            "billing.topup_bounds",
            "POST /v1/billing/topups",
            f"amount_cents={amount} answered {response.status_code}",
            response,
        )
    within = client.post("/v1/billing/topups", json={"amount_cents": 10000})
    url = str((body_of(within) or {}).get("url") or "")
    expect(
        within.status_code in (200, 201) and url.startswith("https://"),
        "§10.2#2",
        "POST /v1/billing/topups",
        f"amount_cents=10000 answered {within.status_code} {body_of(within)}",
        within,
    )


def test_paid_topup_succeeded(client, target, policy, mock_only):
    """§10.3: once paid (the control surface pays the checkout), the ledger's `stripe_topup`
    row references the top-up, which reads `succeeded` with its `top_` id and the amount asked
    for, under the bare UUID too (§10.3#2); one that never succeeded is 404."""
    require(policy, "createTopup")
    low, _ = _amount_bounds()
    amount = low * 3
    created = client.post("/v1/billing/topups", json={"amount_cents": amount})
    expect(
        created.status_code in (200, 201) and "url" in (body_of(created) or {}),
        "billing.topup",
        "POST /v1/billing/topups",
        f"answered {created.status_code} {body_of(created)}",
        created,
    )
    target.control_post(f"/topups/{_checkout_id(created.json()['url'])}/pay").raise_for_status()
    ledger = client.get("/v1/billing/transactions", params={"kind": "stripe_topup", "limit": 500})
    credits = [
        row
        for row in (body_of(ledger) or {}).get("data") or []
        if row.get("reference_type") == "topup" and (row.get("delta") or {}).get("amount_cents") == amount
    ]
    expect(
        bool(credits) and bool(credits[0].get("reference_id")),
        "billing.topup",
        "GET /v1/billing/transactions",
        f"no stripe_topup row of {amount} references the paid top-up",
        ledger,
    )
    reference = str(credits[0]["reference_id"]).removeprefix("top_")
    for handle in (f"top_{reference}", reference):
        response = client.get(f"/v1/billing/topups/{handle}")
        body = body_of(response) or {}
        expect(
            response.status_code == 200,
            "billing.topup" if handle.startswith("top_") else "§10.3#2",
            "GET /v1/billing/topups/{id}",
            f"{handle}: answered {response.status_code} {code_of(response)}",
            response,
        )
        expect(
            body.get("status") == "succeeded"
            and body.get("id") == f"top_{reference}"
            and (body.get("amount") or {}).get("amount_cents") == amount,
            "billing.topup",
            "GET /v1/billing/topups/{id}",
            f"{handle}: answered {response.status_code} {body}",
            response,
        )
    unknown = client.get(f"/v1/billing/topups/top_{unique.uuid()}")
    expect(
        unknown.status_code == 404,
        "billing.topup",
        "GET /v1/billing/topups/{id}",
        f"a top-up that never succeeded answered {unknown.status_code}",
        unknown,
    )


def _next_month(month: str) -> str:
    year, number = (int(part) for part in month.split("-"))
    return f"{year + number // 12}-{number % 12 + 1:02d}"


def test_usage_trend_shape(client, target):
    """§10.6: six consecutive calendar months, each labelled with its month's short name, the
    last (and only it) `current`; `current_month_cents` and `previous_month_cents` are the last
    two buckets; on the mock the current bucket is the simulated clock's month."""
    response = client.get("/v1/billing/usage-trend")
    body = body_of(response) or {}
    months = body.get("months") or []
    names = [row.get("month") for row in months]
    expect(
        len(months) == 6 and all(_next_month(a) == b for a, b in pairwise(names)),
        "billing.trend",
        "GET /v1/billing/usage-trend",
        f"the buckets are {names}",
        response,
    )
    labels = [row.get("label") for row in months]
    expect(
        labels == [calendar.month_abbr[int(month.split("-")[1])] for month in names],
        "billing.trend",
        "GET /v1/billing/usage-trend",
        f"months {names} are labelled {labels}",
        response,
    )
    expect(
        [bool(row.get("current")) for row in months] == [False] * 5 + [True]
        and body.get("current_month_cents") == months[-1].get("cents")
        and body.get("previous_month_cents") == months[-2].get("cents"),
        "§10.6#3",
        "GET /v1/billing/usage-trend",
        f"current flags {[row.get('current') for row in months]}, current_month_cents "
        f"{body.get('current_month_cents')}, previous_month_cents {body.get('previous_month_cents')}",
        response,
    )
    if target.control:
        now = target.control_post("/clock", {"advance_seconds": 0}).json()["now"]
        expect(
            names[-1] == now[:7],
            "billing.trend",
            "GET /v1/billing/usage-trend",
            f"the current bucket is {names[-1]}; the clock reads {now}",
            response,
        )


def test_export_is_the_ledger(client):
    """§10.7: an RFC 4180 CSV attachment with a filename, one row per ledger entry (ids
    matching §10.4's), and `type=runs` exports per-run rows."""
    ledger = client.get("/v1/billing/transactions", params={"limit": 500}).json()
    response = client.get("/v1/billing/export")
    expect(
        response.headers.get("content-type", "").startswith("text/csv")
        and "filename=" in response.headers.get("content-disposition", ""),
        "billing.export",
        "GET /v1/billing/export",
        f"served as {response.headers.get('content-type')!r}, disposition "
        f"{response.headers.get('content-disposition')!r}",
        response,
    )
    rows = list(csv.DictReader(io.StringIO(response.text)))
    if (ledger.get("total_estimate") or 0) <= len(ledger.get("data") or []):
        exported = sorted(row.get("id", "") for row in rows)
        listed = sorted(row["id"] for row in ledger["data"])
        expect(
            exported == listed,
            "§10.7#2",
            "GET /v1/billing/export",
            f"the export holds {len(exported)} rows, the ledger {len(listed)}",
            response,
        )
    runs = client.get("/v1/billing/export", params={"type": "runs"})
    header = next(csv.reader(io.StringIO(runs.text)), [])
    expect(
        runs.status_code == 200 and any("run" in column for column in header),
        "§10.7#3",
        "GET /v1/billing/export?type=runs",
        f"the runs export's header is {header}",
        runs,
    )


def test_statement_is_html_for_the_month(client):
    """§10.8: `text/html` (§10.8#1, `billing.statement`), naming the month asked for (§10.8#2)."""
    month = time.strftime("%Y-%m", time.gmtime())
    response = client.get("/v1/billing/statement", params={"month": month})
    expect(
        month in response.text,
        "§10.8#2",
        "GET /v1/billing/statement",
        f"the statement for {month} does not name it",
        response,
    )
    expect(
        response.status_code == 200 and response.headers.get("content-type", "").startswith("text/html"),
        "billing.statement",
        "GET /v1/billing/statement",
        f"answered {response.status_code} as {response.headers.get('content-type')!r}",
        response,
    )


def test_subscription_and_verification(client, target, policy, mock_only):
    """§10.9: a failure is a legacy `{"error"}` body, `free` is an idempotent ack and a paid
    tier answers a checkout `url`; §10.10: verifying that checkout before it completes is
    `{ok: false, reason: pending}` (§10.10#1, `billing.verify`), another user's is 403 (§10.10#2), and a
    completed one applies idempotently: verified twice, both answer ok with the tier (§10.10#3)."""
    require(policy, "changeSubscription")
    bad = client.post("/v1/billing/subscription", json={"tier": "platinum"})
    body = body_of(bad) or {}
    expect(
        bad.status_code >= 400 and "error" in body and "code" not in body,
        "billing.subscription",
        "POST /v1/billing/subscription",
        f"an unknown tier answered {bad.status_code} {body}",
        bad,
    )
    for _ in range(2):
        free = client.post("/v1/billing/subscription", json={"tier": "free"})
        expect(free.status_code == 200, "§10.9#2", "POST /v1/billing/subscription",
               f"tier=free answered {free.status_code}", free)  # fmt: skip
    paid = client.post("/v1/billing/subscription", json={"tier": "entry"})
    url = (body_of(paid) or {}).get("url")
    expect(bool(url), "§10.9#3", "POST /v1/billing/subscription", f"a paid tier answered {body_of(paid)}",
           paid)  # fmt: skip
    require(policy, "verifySubscription")
    verify = client.post("/v1/billing/verify-subscription", json={"session_id": _checkout_id(url)})
    expect(
        body_of(verify) == {"ok": False, "reason": "pending"},
        "billing.verify",
        "POST /v1/billing/verify-subscription",
        f"an incomplete checkout verified as {verify.status_code} {body_of(verify)}",
        verify,
    )
    user = target.control_post("/users", {"tier": "free", "balance_cents": 10_000}).json()
    other = client.with_token(target.mint(["full"], user_id=user["id"]))
    theirs = other.post("/v1/billing/verify-subscription", json={"session_id": _checkout_id(url)})
    expect(
        theirs.status_code == 403,
        "§10.10#2",
        "POST /v1/billing/verify-subscription",
        f"another user's checkout verified as {theirs.status_code} {body_of(theirs)}",
        theirs,
    )
    own = str((body_of(other.post("/v1/billing/subscription", json={"tier": "entry"})) or {}).get("url") or "")
    target.control_post(f"/checkout/{_checkout_id(own)}/complete").raise_for_status()
    answers = [other.post("/v1/billing/verify-subscription", json={"session_id": _checkout_id(own)}) for _ in range(2)]
    expect(
        [body_of(answer) for answer in answers] == [{"ok": True, "tier": "entry"}] * 2,
        "§10.10#3",
        "POST /v1/billing/verify-subscription",
        f"a completed checkout verified twice as {[(a.status_code, body_of(a)) for a in answers]}",
        answers[-1],
    )


def test_controls_are_what_the_balance_reports(client, policy):
    """§10.5: a monthly cap set through the controls is the balance's `monthly_cap` (restored after)."""
    require(policy, "patchBillingControls")
    before = client.get("/v1/billing/balance").json()
    previous = (before.get("monthly_cap") or {}).get("amount_cents")
    cap = (previous or 10_000) + 1_234
    try:
        response = client.patch("/v1/billing/controls", json={"monthly_cap_cents": cap})
        after = client.get("/v1/billing/balance")
        expect(
            response.status_code == 200
            and ((body_of(after) or {}).get("monthly_cap") or {}).get("amount_cents") == cap,
            "billing.controls",
            "PATCH /v1/billing/controls",
            f"set the cap to {cap}; the balance reports {(body_of(after) or {}).get('monthly_cap')}",
            after,
        )
    finally:
        client.patch("/v1/billing/controls", json={"monthly_cap_cents": previous})


def test_settings_keys_and_validation(client, policy):
    """§11: a key outside `/v1/settings:schema` is 400 on PUT and DELETE; a validated key
    refuses a value outside its table; a PUT value is what `GET /v1/settings` returns until
    DELETE removes it."""
    require(policy, "putSetting")
    require(policy, "deleteSetting")
    keys = client.get("/v1/settings:schema").json()["keys"]
    for method in ("PUT", "DELETE"):
        response = client.request(method, "/v1/settings/not_a_setting", json={"value": 1} if method == "PUT" else None)
        expect(
            response.status_code == 400 and code_of(response) == "invalid_argument",
            "settings.keys",
            f"{method} /v1/settings/{{key}}",
            f"a key outside the schema answered {response.status_code} {code_of(response)}",
            response,
        )
    if "score_display_format" not in keys:
        return
    refused = client.put("/v1/settings/score_display_format", json={"value": "ratio"})
    expect(
        refused.status_code == 400,
        "settings.keys",
        "PUT /v1/settings/{key}",
        f"score_display_format=ratio answered {refused.status_code}",
        refused,
    )
    before = (client.get("/v1/settings").json()["data"] or {}).get("score_display_format")
    value = "fraction" if (before or {}).get("value") == "percent" else "percent"
    try:
        client.put("/v1/settings/score_display_format", json={"value": value}).raise_for_status()
        response = client.get("/v1/settings")
        got = ((body_of(response) or {}).get("data") or {}).get("score_display_format") or {}
        expect(
            got.get("value") == value,
            "settings.roundtrip",
            "GET /v1/settings",
            f"PUT {value!r}; GET reads {got}",
            response,
        )
        client.delete("/v1/settings/score_display_format")
        response = client.get("/v1/settings")
        expect(
            "score_display_format" not in ((body_of(response) or {}).get("data") or {}),
            "settings.roundtrip",
            "GET /v1/settings",
            "the key is still listed after DELETE",
            response,
        )
    finally:
        if before is not None:
            client.put("/v1/settings/score_display_format", json={"value": before.get("value")})


def test_bug_report(client, policy):
    """§12: `201 {id, status: open}`; a description over 8000 characters is 400."""
    require(policy, "createBugReport")
    response = client.post("/v1/bug-reports", json={"description": "contract check: ignore"})
    body = body_of(response) or {}
    expect(
        response.status_code == 201 and body.get("status") == "open" and body.get("id"),
        "bug_reports.create",
        "POST /v1/bug-reports",
        f"answered {response.status_code} {body}",
        response,
    )
    long = client.post("/v1/bug-reports", json={"description": "x" * 8001})
    expect(
        long.status_code == 400,
        "§12#2",
        "POST /v1/bug-reports",
        f"8001 characters answered {long.status_code}",
        long,
    )


def test_operator_lifecycle(client, target, policy, mock_only):
    """§12a: create answers `{ok, id, status: booting}` and lists the operator, a second one of
    the same name is 409 (`name_taken`); it runs once
    booted; a message queues a pending item whose counts agree (`count` = `outstanding` =
    len(pending)); a withdrawable item is taken back once (then `404 pending_not_found`, a legacy
    body on this surface); `stop`
    interrupts the turn and leaves the operator running; shutdown keeps the record as
    `stopped`, and a message to it is 409."""
    require(policy, "createOperator")
    name = f"contract-{unique.hex(16)}"
    created = client.post("/v1/operators", json={"name": name})
    body = body_of(created) or {}
    expect(
        created.status_code == 200 and body.get("ok") is True and body.get("status") == "booting" and body.get("id"),
        "operators.lifecycle",
        "POST /v1/operators",
        f"answered {created.status_code} {body}",
        created,
    )
    operator = body["id"]
    twin = client.post("/v1/operators", json={"name": name})
    expect(twin.status_code == 409, "§12a#3", "POST /v1/operators",
           f"a second operator named {name} answered {twin.status_code}", twin)  # fmt: skip

    def status() -> str | None:
        rows = client.get("/v1/operators").json()["data"]
        return next((row.get("status") for row in rows if row.get("id") == operator), None)

    expect(status() is not None, "operators.lifecycle", "GET /v1/operators", "the new operator is not listed",
           created)  # fmt: skip
    advance(target, 30)
    expect(status() == "running", "operators.lifecycle", "GET /v1/operators",
           f"30 s after booting the operator reads {status()!r}", created)  # fmt: skip
    require(policy, "sendOperatorMessage")
    sent = client.post(f"/v1/operators/{operator}/message", json={"text": "contract check"})
    expect(sent.status_code == 202, "operators.lifecycle", "POST /v1/operators/{id}/message",
           f"answered {sent.status_code}", sent)  # fmt: skip
    pending = client.get(f"/v1/operators/{operator}/pending")
    queue = body_of(pending) or {}
    items = queue.get("pending") or []
    expect(
        queue.get("count") == queue.get("outstanding") == len(items) >= 1,
        "operators.pending",
        "GET /v1/operators/{id}/pending",
        f"count={queue.get('count')} outstanding={queue.get('outstanding')} for {len(items)} items",
        pending,
    )
    for item in items:
        expect(
            item.get("withdrawable") == (item.get("state") in ("on_disk", "handed_off_unread")),
            "§12a#6",
            "GET /v1/operators/{id}/pending",
            f"an item in state {item.get('state')!r} reads withdrawable={item.get('withdrawable')}",
            pending,
        )
    require(policy, "withdrawOperatorPending")
    takeable = next((item for item in items if item.get("withdrawable")), None)
    if takeable is not None:
        url = f"/v1/operators/{operator}/pending/{takeable['ts']}"
        taken = client.delete(url)
        again = client.delete(url)
        expect(
            taken.status_code == 200
            and (body_of(taken) or {}).get("ok") is True
            and again.status_code == 404
            and code_of(again) in (None, "pending_not_found"),  # operator errors may be legacy {"error"} bodies
            "§12a#7",
            "DELETE /v1/operators/{id}/pending/{ts}",
            f"withdrawing answered {taken.status_code} {body_of(taken)}; withdrawing it again answered "
            f"{again.status_code} {code_of(again)}",
            again,
        )
        left = body_of(client.get(f"/v1/operators/{operator}/pending")) or {}
        expect(
            takeable["ts"] not in {item.get("ts") for item in left.get("pending") or []},
            "§12a#7",
            "GET /v1/operators/{id}/pending",
            "the withdrawn message is still outstanding",
            taken,
        )
    require(policy, "stopOperatorTurn")
    stopped = client.post(f"/v1/operators/{operator}/stop")
    expect(
        stopped.status_code == 200 and (body_of(stopped) or {}).get("ok") is True and status() == "running",
        "§12a#4",
        "POST /v1/operators/{id}/stop",
        f"interrupting the turn answered {stopped.status_code} {body_of(stopped)}; the operator reads {status()!r}",
        stopped,
    )
    require(policy, "shutdownOperator")
    down = client.post(f"/v1/operators/{operator}/shutdown")
    expect(
        down.status_code == 200 and status() == "stopped",
        "§12a#5",
        "POST /v1/operators/{id}/shutdown",
        f"answered {down.status_code}; the operator reads {status()!r}",
        down,
    )
    late = client.post(f"/v1/operators/{operator}/message", json={"text": "are you there"})
    expect(late.status_code == 409, "§12a#5", "POST /v1/operators/{id}/message",
           f"a message to a stopped operator answered {late.status_code}", late)  # fmt: skip


def test_balance_expansion_is_validated(client):
    """§3.6#2: `?expand=` on the balance adds each named key; §3.6#1: an unknown key is `400
    unknown_filter_field` (expansion exists on two endpoints, and says so). Read-only."""
    wanted = ("topups", "usage_trend")
    expanded = client.get("/v1/billing/balance", params={"expand": ",".join(wanted)})
    body = body_of(expanded) or {}
    expect(
        expanded.status_code == 200 and all(key in body for key in wanted),
        "§3.6#2",
        "GET /v1/billing/balance",
        f"expand={','.join(wanted)} answered {expanded.status_code} with keys {sorted(body)}",
        expanded,
    )
    unknown = client.get("/v1/billing/balance", params={"expand": "no_such_key"})
    expect(
        unknown.status_code == 400 and code_of(unknown) == "unknown_filter_field",
        "§3.6#1",
        "GET /v1/billing/balance",
        f"an unknown expand key answered {unknown.status_code} {code_of(unknown)}",
        unknown,
    )
