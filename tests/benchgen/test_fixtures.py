"""The seed data: fixed, complete enough for the reference's walkthrough, the same on every start."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mock_server.benchgen import fixtures
from mock_server.benchgen.model.rows import RunState
from mock_server.benchgen.model.tokens import secret_sha256

T0 = datetime(2026, 4, 23, 14, 0, tzinfo=UTC)


def test_seed_is_identical_on_every_start():
    """Project rule: fixed seeds; two seeds at the same moment are equal row for row."""
    assert repr(fixtures.seed(T0)) == repr(fixtures.seed(T0))


def test_demo_token_is_hashed_and_scoped_for_the_walkthrough():
    """B-45, B-46: the demo token carries benchmark:read and benchmark:run, stored as a hash."""
    store = fixtures.seed(T0)
    token = store.token_for_secret(fixtures.DEMO_TOKEN)
    assert token is not None and token.id == fixtures.DEMO_TOKEN_ID
    assert token.secret_sha256 == secret_sha256(fixtures.DEMO_TOKEN)
    assert set(token.scopes) == {"benchmark:read", "benchmark:run"}
    assert fixtures.DEMO_TOKEN not in repr(store)
    assert store.users[fixtures.DEMO_USER_ID].credits == fixtures.DEMO_CREDITS


def test_gsm8k_is_found_auto_approving_and_not_yet_joined():
    """B-06, B-08, B-14: search=gsm8k finds the published auto-approving one only; the draft stays hidden."""
    store = fixtures.seed(T0)
    found = store.public_competitions("gsm8k")
    assert [c.id for c in found] == [fixtures.GSM8K_ID]
    assert found[0].auto_approve
    assert (fixtures.GSM8K_ID, fixtures.DEMO_USER_ID) not in store.participations
    assert not store.competitions[fixtures.CURATED_ID].auto_approve


def test_finished_run_has_item_results_and_a_leaderboard_entry():
    """B-34, B-39…B-41: a finished seeded run to read."""
    store = fixtures.seed(T0)
    run = store.submissions[fixtures.FINISHED_RUN_ID]
    assert run.state is RunState.COMPLETED and run.user_id == fixtures.DEMO_USER_ID
    assert len(store.item_results(run, T0)) == len(fixtures.MMLU_QUESTIONS)
    assert [e.submission_id for e in store.leaderboards[fixtures.MMLU_ID]] == [fixtures.FINISHED_RUN_ID]
    assert run.finished_at is not None and run.finished_at <= T0
    assert store.run_view(run, T0 + timedelta(days=1)).done
