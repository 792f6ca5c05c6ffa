"""The Bench domain model without HTTP: context versioning, datasets, evaluations, plans.

Claims cited are C-nn of contracts/bench/claims.py.
"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime, timedelta

import pytest

from mock_server.bench.model import accounts, context, datasets, evaluations
from mock_server.bench.model.config import Config
from mock_server.bench.model.errors import Refusal
from mock_server.bench.model.paging import page
from mock_server.bench.spec_catalog import load_spec
from mock_server.bench.store import AiSystem, Component, Store

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
CFG = Config.from_spec(load_spec())


def system() -> AiSystem:
    s = AiSystem(id=123, tenant="acct_1", name="Support", description=None, created_at=NOW)
    s.components[456] = Component(id=456, name="refund decision", kind="prompt")
    return s


def put(s: AiSystem, source: dict, expected: int | None = None) -> dict:
    body = {"expected_version": s.context.version if expected is None else expected, "source": source}
    return context.put_source(s, body, prefix="manual-", max_text_bytes=60000)


RULE = {
    "id": "manual-refund-policy",
    "kind": "user",
    "category": "rules_constraints",
    "scope": "system",
    "text": "Refund only within 30 days of purchase.",
}


def case(enabled: bool = True, component: int = 456) -> dict:
    return {
        "id": "manual-library-refund",
        "title": "Refund within 30 days",
        "kind": "user",
        "category": "examples_feedback",
        "scope": "case",
        "case_id": "manual-library-refund",
        "text": json.dumps(
            {
                "type": "case",
                "component_id": component,
                "enabled": enabled,
                "input": "Can I refund an order delivered 12 days ago?",
                "expected": {"decision": "approve"},
            }
        ),
    }


def test_a_write_bumps_the_version_and_a_stale_replay_writes_nothing():
    """C-35, C-36: put(v) succeeds, put(v) again is context_changed, nothing written."""
    s = system()
    assert put(s, RULE)["context"]["version"] == 1
    with pytest.raises(Refusal) as err:
        put(s, {**RULE, "text": "changed"}, expected=0)
    assert (err.value.status, err.value.code, err.value.fields["current_version"]) == (409, "context_changed", 1)
    assert s.context.sources["manual-refund-policy"].text == RULE["text"] and s.context.version == 1


def test_ids_must_start_with_manual():
    """Catalog description of put_context_source: other ids belong to connector imports and are refused."""
    with pytest.raises(Refusal) as err:
        put(system(), {**RULE, "id": "langfuse-1"})
    assert err.value.code == "invalid_source_id"


def test_reuse_edits_pause_and_delete():
    """C-37, C-38, C-39: same id edits, enabled:false pauses, delete removes; each bumps the version."""
    s = system()
    put(s, case())
    put(s, case(enabled=False))
    assert list(s.context.sources) == ["manual-library-refund"] and s.context.version == 2
    assert context.library(s, None)[0]["enabled"] is False
    assert context.delete_source(s, "manual-library-refund")["context"]["version"] == 3
    assert not s.context.sources
    assert [x.id for x in context.sources_at(s, 1)] == ["manual-library-refund"]


def test_case_needs_json_and_a_component_of_the_system():
    """C-40, C-43: a case is JSON text with a component id returned by get_system."""
    s = system()
    with pytest.raises(Refusal) as err:
        put(s, {**case(), "text": "not json"})
    assert err.value.code == "invalid_source_text"
    with pytest.raises(Refusal) as err:
        put(s, case(component=999))
    assert (err.value.status, err.value.code) == (404, "component_not_found")
    assert s.context.version == 0


def test_source_text_limit_is_60000_bytes():
    """C-30."""
    s = system()
    put(s, {**RULE, "text": "x" * 60000})
    with pytest.raises(Refusal) as err:
        put(s, {**RULE, "text": "x" * 60001})
    assert err.value.status == 413


def test_historical_runs_keep_their_evidence():
    """C-45, C-46: a run evaluated at version n keeps that text after later edits."""
    store = Store()
    s = system()
    store.systems[s.id] = s
    put(s, case())
    run = evaluations.new_run(
        store,
        tenant="acct_1",
        account_id="acct_1",
        credential_id=None,
        kind="system",
        system=s,
        repo_full_name=None,
        now=NOW,
    )
    put(s, {**RULE, "text": "later"})
    evaluations.advance(store, NOW + timedelta(seconds=60), 5, 55)
    assert run.status == "completed"
    art = evaluations.artifacts(run)
    assert art["context_version"] == 1 and [e["id"] for e in art["evidence"]] == ["manual-library-refund"]
    assert art["cases"][0]["expected"] == {"decision": "approve"}


def test_runs_move_over_simulated_time():
    """C-50: queued -> running -> completed; artifacts only once finished."""
    store = Store()
    s = system()
    store.systems[s.id] = s
    put(s, case())
    run = evaluations.new_run(
        store, tenant="t", account_id="a", credential_id=None, kind="system", system=s, repo_full_name=None, now=NOW
    )
    with pytest.raises(Refusal) as err:
        evaluations.artifacts(run)
    assert err.value.code == "evaluation_not_finished"
    evaluations.advance(store, NOW + timedelta(seconds=6), 5, 55)
    assert run.status == "running"
    evaluations.advance(store, NOW + timedelta(seconds=60), 5, 55)
    assert run.status == "completed" and run.finished_at == NOW + timedelta(seconds=60)


def test_spending_the_allowance_then_the_plan_limit():
    """C-49, C-54: each run uses one; at zero the plan-limit error carries the four fields."""
    store = Store()
    acct = accounts.new_account(store, plan="free", now=NOW)
    user = accounts.user_of(store, acct.id)
    cred = accounts.mint(store, CFG, kind="api_key", account_id=acct.id, user_id=user.id, now=NOW)
    caller = accounts.Caller(cred, acct, user)
    limit = CFG.plan("free")["evaluations_per_month"]
    for _ in range(limit):
        accounts.spend(store, CFG, caller, NOW)
    assert accounts.allowance(CFG, acct, NOW)["remaining"] == 0
    with pytest.raises(Refusal) as err:
        accounts.spend(store, CFG, caller, NOW)
    f = err.value.fields
    assert err.value.status == 402 and err.value.code == "plan_limit"
    assert {"pricing_url", "upgrade_url", "billing_url", "payment_confirmation_required"} <= set(f)
    assert "manage_key_url" not in f


def test_key_cap_carries_manage_key_url_only():
    """C-56: an API-key cap error has manage_key_url instead of the upgrade fields."""
    store = Store()
    acct = accounts.new_account(store, plan="growth", now=NOW)
    user = accounts.user_of(store, acct.id)
    cred = accounts.mint(
        store, CFG, kind="api_key", account_id=acct.id, user_id=user.id, now=NOW, max_evaluations_per_month=1
    )
    caller = accounts.Caller(cred, acct, user)
    accounts.spend(store, CFG, caller, NOW)
    with pytest.raises(Refusal) as err:
        accounts.spend(store, CFG, caller, NOW)
    assert err.value.code == "api_key_cap_reached" and "manage_key_url" in err.value.fields
    assert not {"pricing_url", "upgrade_url", "billing_url"} & set(err.value.fields)
    assert acct.usage[accounts.period_key(NOW)] == 1


def test_model_providers_need_growth():
    """C-66: set_model_providers on free or builder is a plan limit."""
    store = Store()
    for plan, refused in (("free", True), ("builder", True), ("growth", False), ("enterprise", False)):
        acct = accounts.new_account(store, plan=plan, now=NOW)
        if refused:
            with pytest.raises(Refusal) as err:
                accounts.require_plan(CFG, acct, ["growth", "enterprise"], "Choosing providers")
            assert err.value.fields["required_plan"] == "growth"
        else:
            accounts.require_plan(CFG, acct, ["growth", "enterprise"], "Choosing providers")


def _xlsx(rows: list[list[str]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(
            "xl/workbook.xml",
            '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
            '<sheets><sheet name="Cases" sheetId="1" r:id="rId1"/></sheets></workbook>',
        )
        z.writestr(
            "xl/_rels/workbook.xml.rels",
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            'relationships"><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>',
        )
        cells = "".join(
            f'<row r="{i + 1}">'
            + "".join(f'<c r="{chr(65 + j)}{i + 1}" t="inlineStr"><is><t>{v}</t></is></c>' for j, v in enumerate(r))
            + "</row>"
            for i, r in enumerate(rows)
        )
        z.writestr(
            "xl/worksheets/sheet1.xml",
            '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/'
            f'main"><sheetData>{cells}</sheetData></worksheet>',
        )
    return buf.getvalue()


def test_dataset_parsing_and_mapping():
    """C-26, C-28, C-29: CSV and XLSX parse to the same columns; the suggested mapping fits recorded_outputs."""
    csv_cols, csv_rows, _ = datasets.parse("cases.csv", b"question,expected,actual\nq1,a,a\nq2,b,c\n")
    x_cols, x_rows, sheet = datasets.parse("cases.xlsx", _xlsx([["question", "expected", "actual"], ["q1", "a", "a"]]))
    assert csv_cols == x_cols == ["question", "expected", "actual"] and sheet == "Cases"
    assert x_rows == [{"question": "q1", "expected": "a", "actual": "a"}] and len(csv_rows) == 2
    suggested = datasets.suggest(csv_cols)
    assert suggested == {"input": "question", "expected": "expected", "actual": "actual"}
    assert datasets.mapping_error(csv_cols, suggested, "recorded_outputs") is None
    assert "actual" in datasets.mapping_error(
        csv_cols, {"input": "question", "expected": "expected"}, "recorded_outputs"
    )
    assert "nope" in datasets.mapping_error(csv_cols, {"input": "nope"}, "replay")


def test_pages_stop_at_the_byte_budget():
    """C-58: a page stops once its items pass max_bytes, and says where to continue."""
    items = [{"text": "x" * 1000} for _ in range(10)]
    got = page(items, 0, 100, 3500)
    assert len(got["items"]) == 3 and got["next_offset"] == 3 and got["total"] == 10
    assert page(items, 9, 100, 3500)["next_offset"] is None
