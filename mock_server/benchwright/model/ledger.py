"""The billing ledger (§10.4): one row per balance movement, per account.

Balances are the sum of the account's rows, kept as a running total per account
by `post` (the only writer of rows), so a long ledger costs nothing per read. Run spend is debited in whole
cents as it accrues (`trace_debit`), so the ledger and `cost.billed` agree to
the cent; the launch floor and the mid-run halt read the same balance (§3.9,
§4.2.5).
"""

from __future__ import annotations

from typing import Any

from mock_server.benchwright.model.rows import LedgerRow
from mock_server.benchwright.store import Store
from mock_server.state.clock import rfc3339
from mock_server.state.ids import uuid4

LAUNCH_FLOOR_CENTS = 100


def rows(store: Store) -> dict[str, LedgerRow]:
    return store.ledger


def balance_cents(store: Store, account_id: str) -> int:
    return store.balances.get(account_id, 0)


def post(
    store: Store,
    account_id: str,
    kind: str,
    delta_cents: int,
    *,
    reference_id: str | None = None,
    reference_type: str | None = None,
    note: str | None = None,
) -> LedgerRow:
    balance_after = balance_cents(store, account_id) + delta_cents
    row = LedgerRow(
        id="txn_" + uuid4(),
        account_id=account_id,
        kind=kind,
        delta_cents=delta_cents,
        balance_after_cents=balance_after,
        reference_id=reference_id,
        reference_type=reference_type,
        note=note,
        created_at=store.clock.now(),
    )
    rows(store)[row.id] = row
    store.balances[account_id] = balance_after
    return row


def transaction_json(row: LedgerRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "kind": row.kind,
        "delta": {"amount_cents": row.delta_cents, "currency": "USD"},
        "balance_after": {"amount_cents": row.balance_after_cents, "currency": "USD"},
        "reference_id": row.reference_id,
        "reference_type": row.reference_type,
        "note": row.note,
        "created_at": rfc3339(row.created_at),
    }
