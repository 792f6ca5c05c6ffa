"""The domain rules of joining, queueing, credits, progress and results, on a bare store.

Each test names the claim (B-nn, `other-apis.md` §B.2) or the reference part it checks.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from mock_server.benchgen.model import simulation
from mock_server.benchgen.model.errors import DomainError
from mock_server.benchgen.model.rows import LlmModel, ModelSource, ParticipantStatus, Question, RunState
from mock_server.benchgen.model.state import RunRequest, Store

T0 = datetime(2026, 4, 23, 14, 0, tzinfo=UTC)
QUESTIONS = tuple(Question(index=i, question=f"What is {i} + {i}?", answer=str(2 * i)) for i in range(8))


def _world(credits: int = 100, cost: int = 10) -> tuple[Store, int, int, int]:
    store = Store()
    user = store.add_user(credits=credits)
    auto = store.add_competition(name="GSM8K mini", slug="gsm8k", questions=QUESTIONS, run_cost_credits=cost)
    manual = store.add_competition(name="Curated", slug="curated", auto_approve=False, questions=QUESTIONS)
    store.models[456] = LlmModel(
        id=456, name="gpt-4o-mini", catalogue_id="openai/gpt-4o-mini", kind="platform", provider="openai", skill=0.7
    )
    return store, user.id, auto.id, manual.id


def _platform(cid: int, model_id: int = 456) -> RunRequest:
    return RunRequest(competition_id=cid, source=ModelSource.PLATFORM, model_id=model_id)


def _code(exc: pytest.ExceptionInfo[DomainError]) -> tuple[int, str]:
    return exc.value.status, exc.value.code


def test_join_auto_approves_or_waits_for_an_organizer():
    """B-11…B-14: auto-approval decides approved vs pending."""
    store, uid, auto, manual = _world()
    assert store.register(auto, uid).status is ParticipantStatus.APPROVED
    assert store.register(manual, uid).status is ParticipantStatus.PENDING


def test_repeat_join_is_400_already_applied_and_changes_nothing():
    """B-15, B-16: a second join answers already applied; the participation is unchanged."""
    store, uid, _, manual = _world()
    store.register(manual, uid)
    before = dict(store.participations)
    with pytest.raises(DomainError) as exc:
        store.register(manual, uid)
    assert _code(exc) == (400, "already_applied")
    assert "already applied" in exc.value.message
    assert store.participations == before
    assert store.participations[(manual, uid)].status is ParticipantStatus.PENDING


def test_unpublished_or_unknown_competitions_are_not_joinable_nor_listed():
    """B-08: only published competitions are listed; joining a hidden one is 404."""
    store, uid, _, _ = _world()
    draft = store.add_competition(name="Draft gsm8k", slug="draft", published=False, questions=QUESTIONS)
    assert draft.id not in [c.id for c in store.public_competitions(None)]
    for cid in (draft.id, 99999):
        with pytest.raises(DomainError) as exc:
            store.register(cid, uid)
        assert _code(exc) == (404, "not_found")


def test_search_is_case_insensitive_on_name_and_slug():
    """B-06: `search` filters the listing."""
    store, _, auto, manual = _world()
    assert [c.id for c in store.public_competitions("GSM8K")] == [auto]
    assert [c.id for c in store.public_competitions("curat")] == [manual]
    assert [c.id for c in store.public_competitions(None)] == [auto, manual]
    assert store.public_competitions("nothing-like-this") == []


def test_queue_requires_an_approved_join():
    """B-49, B-13: no join, or a pending one, refuses the run; approval lets it through."""
    store, uid, auto, manual = _world()
    with pytest.raises(DomainError) as exc:
        store.queue_run(uid, _platform(auto), T0)
    assert _code(exc) == (400, "not_participant")
    store.register(manual, uid)
    with pytest.raises(DomainError) as exc:
        store.queue_run(uid, _platform(manual), T0)
    assert _code(exc) == (400, "participation_pending")
    assert store.users[uid].credits == 100 and not store.submissions
    store.approve(manual, uid)
    assert store.queue_run(uid, _platform(manual), T0).state is RunState.QUEUED


def test_credits_are_spent_down_to_the_exact_cost_then_402():
    """B-27, B-29: each run spends the cost; with less than the cost, 402 and nothing changes."""
    store, uid, auto, _ = _world(credits=20, cost=10)
    store.register(auto, uid)
    store.queue_run(uid, _platform(auto), T0)
    assert store.users[uid].credits == 10
    store.queue_run(uid, _platform(auto), T0)  # exactly the cost left
    assert store.users[uid].credits == 0
    with pytest.raises(DomainError) as exc:
        store.queue_run(uid, _platform(auto), T0)
    assert _code(exc) == (402, "insufficient_credits")
    assert exc.value.fields == {"credits_required": 10, "credits_available": 0}
    assert len(store.submissions) == 2 and store.users[uid].credits == 0


def test_unknown_competition_or_model_is_does_not_exist_naming_the_field():
    """B-19, B-20: the model must be one of the caller's models."""
    store, uid, auto, _ = _world()
    store.register(auto, uid)
    cases = [
        (RunRequest(competition_id=424242, source=ModelSource.PLATFORM, model_id=456), "competition_id"),
        (_platform(auto, model_id=9999), "model_id"),
        (RunRequest(competition_id=auto, source=ModelSource.PLATFORM, model="no-such-model"), "model"),
    ]
    for request, fieldname in cases:
        with pytest.raises(DomainError) as exc:
            store.queue_run(uid, request, T0)
        assert _code(exc) == (400, "does_not_exist")
        assert exc.value.fields == {"field": fieldname}
    assert store.users[uid].credits == 100


def test_model_by_name_or_catalogue_id_and_agents_only_for_their_owner():
    """B-20, B-24: `model` takes a name or catalogue id; a connected agent is its owner's model."""
    store, uid, auto, _ = _world()
    other = store.add_user(credits=100).id
    store.models[458] = LlmModel(
        id=458,
        name="my-openclaw",
        catalogue_id="openclaw/agent-1",
        kind="agent",
        provider="openclaw",
        skill=0.5,
        owner_id=uid,
    )
    store.register(auto, uid)
    store.register(auto, other)
    for name in ("gpt-4o-mini", "openai/gpt-4o-mini"):
        sub = store.queue_run(uid, RunRequest(competition_id=auto, source=ModelSource.PLATFORM, model=name), T0)
        assert sub.model_id == 456
    assert store.queue_run(uid, _platform(auto, 458), T0).model_id == 458
    assert [m.id for m in store.visible_models(other)] == [456]
    with pytest.raises(DomainError) as exc:
        store.queue_run(other, _platform(auto, 458), T0)
    assert exc.value.code == "does_not_exist"


def test_run_progresses_with_simulated_time_only():
    """B-33, B-37, B-38: queued, running, then done for good; check_again_seconds is a hint ≥ 1."""
    store, uid, auto, _ = _world()
    store.register(auto, uid)
    sub = store.queue_run(uid, _platform(auto), T0)
    comp = store.competitions[auto]
    view = store.run_view(sub, T0)
    assert (view.state, view.check_again_seconds) == (RunState.QUEUED, comp.queue_seconds)
    view = store.run_view(sub, T0 + timedelta(seconds=comp.queue_seconds))
    assert view.state is RunState.RUNNING and 1 <= view.check_again_seconds <= comp.poll_interval_seconds
    end = simulation.completes_at(sub, comp)
    assert store.run_view(sub, end - timedelta(seconds=0.5)).check_again_seconds == 1
    view = store.run_view(sub, end)
    assert view.done and view.check_again_seconds is None and sub.state is RunState.COMPLETED
    assert store.run_view(sub, end + timedelta(days=3)).state is RunState.COMPLETED
    assert sub.id not in store.active_submissions


def test_completed_score_is_the_fraction_right_and_lands_on_the_leaderboard():
    """B-30, B-34, B-41: each item has expected and model answers; the score is the fraction right."""
    store, uid, auto, _ = _world()
    store.register(auto, uid)
    sub = store.queue_run(uid, _platform(auto), T0)
    store.advance(T0 + timedelta(hours=1))
    items = store.item_results(sub, T0 + timedelta(hours=1))
    assert len(items) == len(QUESTIONS)
    for item, q in zip(items, QUESTIONS, strict=True):
        assert item.expected_answer == q.answer
        assert item.correct == (item.model_answer == q.answer)
    assert sub.score == round(sum(i.correct for i in items) / len(items), 4)
    assert [e.submission_id for e in store.leaderboards[auto]] == [sub.id]


def test_item_results_refused_before_done():
    """B-40: results are for a finished run."""
    store, uid, auto, _ = _world()
    store.register(auto, uid)
    sub = store.queue_run(uid, _platform(auto), T0)
    with pytest.raises(DomainError) as exc:
        store.item_results(sub, T0 + timedelta(seconds=6))
    assert _code(exc) == (400, "run_not_finished")


def test_answers_are_deterministic_across_stores():
    """Fixed answers on every start (project rule: seeded, no randomness)."""
    scores = []
    for _ in range(2):
        store, uid, auto, _ = _world()
        store.register(auto, uid)
        sub = store.queue_run(uid, _platform(auto), T0)
        store.advance(T0 + timedelta(hours=1))
        scores.append([(i.model_answer, i.correct) for i in sub.items])
    assert scores[0] == scores[1]


def test_forced_finish_with_error_or_score():
    """B-35: a failed run says why, has no score, and stays off the leaderboard; a forced score is kept."""
    store, uid, auto, _ = _world()
    store.register(auto, uid)
    failing = store.queue_run(uid, _platform(auto), T0)
    comp = store.competitions[auto]
    at = T0 + timedelta(seconds=comp.queue_seconds + 3 * comp.seconds_per_question)
    store.finish(failing.id, at, score=None, error="endpoint returned 500")
    assert (failing.state, failing.score, failing.error) == (RunState.FAILED, None, "endpoint returned 500")
    assert len(failing.items) == 3
    assert store.leaderboards[auto] == []
    scored = store.queue_run(uid, _platform(auto), at)
    store.finish(scored.id, at, score=0.5, error=None)
    assert scored.score == 0.5 and sum(i.correct for i in scored.items) == 4
    with pytest.raises(DomainError) as exc:
        store.finish(scored.id, at, score=None, error="late")
    assert exc.value.status == 409


def test_early_poll_is_throttled_and_not_counted():
    """B-37: polling sooner than check_again_seconds is 429 with the wait; on time, it answers."""
    store, uid, auto, _ = _world()
    store.register(auto, uid)
    sub = store.queue_run(uid, _platform(auto), T0)
    first = store.poll(7, sub, T0)
    with pytest.raises(DomainError) as exc:
        store.poll(7, sub, T0 + timedelta(seconds=first.check_again_seconds - 1))
    assert _code(exc) == (429, "throttled") and exc.value.fields == {"wait": 1}
    store.poll(8, sub, T0 + timedelta(seconds=1))  # another token keeps its own pace
    second = store.poll(7, sub, T0 + timedelta(seconds=first.check_again_seconds))
    assert second.state is RunState.RUNNING


def test_external_credential_is_fingerprinted_for_its_run_only():
    """B-31: the endpoint key is used for that run only: never kept on a row, dropped when the run ends."""
    store, uid, auto, _ = _world()
    store.register(auto, uid)
    with_key = RunRequest(
        competition_id=auto, source=ModelSource.EXTERNAL, model_name="my-model", model_token="sk-very-secret"
    )
    first = store.queue_run(uid, with_key, T0)
    second = store.queue_run(
        uid, RunRequest(competition_id=auto, source=ModelSource.EXTERNAL, model_name="my-model"), T0
    )
    assert first.id in store.run_credentials and second.id not in store.run_credentials
    assert "sk-very-secret" not in repr(store)
    store.advance(T0 + timedelta(hours=1))
    assert store.run_credentials == {}
    assert first.state is RunState.COMPLETED


def test_another_users_run_is_not_found():
    """PROPOSAL B.3-22: another user's submission is 404, not 403."""
    store, uid, auto, _ = _world()
    store.register(auto, uid)
    sub = store.queue_run(uid, _platform(auto), T0)
    other = store.add_user(credits=0).id
    with pytest.raises(DomainError) as exc:
        store.submission_for(other, sub.id)
    assert _code(exc) == (404, "not_found")
    assert store.submission_for(uid, sub.id) is sub
