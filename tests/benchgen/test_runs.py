"""API reference 3 — Launch a run, 4 — Follow it and read the results; What you can run.

Handler tests through the app: the run body's model sources, credits, progress in
simulated time, polling pace, item results and the model list (B-18…B-41).
"""

from __future__ import annotations

import pytest

from mock_server.benchgen import fixtures

GSM = fixtures.GSM8K_ID


def _joined(bench):
    assert bench.join(GSM).status_code == 201
    return bench


def test_queue_on_a_platform_model_spends_credits_and_answers_201(bench):
    """B-19, B-26, B-29: model_id from the model list; 201 with submission_id; the cost is spent."""
    _joined(bench)
    response = bench.queue({"competition_id": GSM, "model_id": fixtures.GPT_MINI_ID})
    assert response.status_code == 201
    body = response.json()
    cost = bench.store.competitions[GSM].run_cost_credits
    assert body["status"] == "queued" and body["competition_id"] == GSM
    assert body["credits_charged"] == cost and body["credits_remaining"] == fixtures.DEMO_CREDITS - cost
    assert bench.store.users[fixtures.DEMO_USER_ID].credits == fixtures.DEMO_CREDITS - cost
    assert body["run_path"] == f"/competitions/{GSM}/runs/{body['submission_id']}"


@pytest.mark.parametrize(
    "source",
    [
        {"model": "gpt-4o-mini"},
        {"model": "meta-llama/Llama-3.1-8B-Instruct"},
        {"model_id": fixtures.AGENT_ID},
        {"model_id": fixtures.LLAMA_ID, "model_source": "platform"},
        {"model_source": "external", "model_url": "https://llm.example.com/v1/chat/completions", "model_name": "m"},
        {"model_source": "external", "model_url": "http://127.0.0.1:8000/v1/chat/completions", "model_name": "m"},
        {"model_source": "huggingface", "model_name": "Qwen/Qwen2.5-0.5B-Instruct"},
    ],
)
def test_every_model_source_runs_through_the_same_call(bench, source):
    """B-20…B-25: by name or catalogue id, a connected agent, an endpoint, a Hugging Face model."""
    _joined(bench)
    response = bench.queue({"competition_id": GSM, **source})
    assert response.status_code == 201, response.text
    assert bench.poll_until_done(response.json()["submission_id"])["status"] == "completed"


@pytest.mark.parametrize(
    "body",
    [
        {"model_id": fixtures.GPT_MINI_ID},  # no competition
        {"competition_id": GSM},  # no model source
        {"competition_id": GSM, "model_id": fixtures.GPT_MINI_ID, "model": "gpt-4o-mini"},  # two sources
        {"competition_id": GSM, "model_source": "external", "model_name": "m"},  # no url
        {"competition_id": GSM, "model_source": "external", "model_url": "https://x.example/v1"},  # no name
        {"competition_id": GSM, "model_source": "external", "model_url": "http://x.example/v1", "model_name": "m"},
        {"competition_id": GSM, "model_source": "huggingface"},
        {"competition_id": GSM, "model_source": "huggingface", "model_name": "a/b", "model_id": 456},
        {"competition_id": "123", "model_id": fixtures.GPT_MINI_ID},
        {"competition_id": 2**64, "model_id": fixtures.GPT_MINI_ID},
        [],
    ],
)
def test_malformed_bodies_are_400_invalid_and_charge_nothing(bench, body):
    """PROPOSAL B.3-11: one competition, exactly one model source, each with its fields; https only off loopback."""
    _joined(bench)
    response = bench.queue(body)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "invalid"
    assert bench.store.users[fixtures.DEMO_USER_ID].credits == fixtures.DEMO_CREDITS
    assert len(bench.store.submissions) == 1  # the seeded run only


def test_unknown_competition_or_model_is_400_does_not_exist(bench):
    """B-09, B-19: ids must exist (and the model be the caller's); the field is named."""
    _joined(bench)
    cases = [
        ({"competition_id": 4242, "model_id": fixtures.GPT_MINI_ID}, "competition_id"),
        ({"competition_id": fixtures.DRAFT_ID, "model_id": fixtures.GPT_MINI_ID}, "competition_id"),
        ({"competition_id": GSM, "model_id": 4242}, "model_id"),
        ({"competition_id": GSM, "model": "gpt-5-imaginary"}, "model"),
    ]
    for body, field in cases:
        response = bench.queue(body)
        assert response.status_code == 400
        assert response.json()["code"] == "does_not_exist" and response.json()["field"] == field


def test_a_run_without_joining_is_400_not_participant(bench):
    """B-49: join first."""
    response = bench.queue({"competition_id": GSM, "model_id": fixtures.GPT_MINI_ID})
    assert response.status_code == 400 and response.json()["code"] == "not_participant"


def test_402_when_credits_run_out_with_nothing_queued(bench):
    """B-27: 402 not enough credits; nothing is charged or created; the exact cost still runs."""
    user = bench.user(credits=10)
    _, token = bench.token(user_id=user)
    assert bench.join(GSM, token).status_code == 201
    run = {"competition_id": GSM, "model_id": fixtures.GPT_MINI_ID}
    assert bench.queue(run, token).status_code == 201  # exactly the cost
    before = len(bench.store.submissions)
    refused = bench.queue(run, token)
    assert refused.status_code == 402
    assert refused.json() == {
        "detail": "Not enough credits.",
        "code": "insufficient_credits",
        "credits_required": 10,
        "credits_available": 0,
    }
    assert len(bench.store.submissions) == before and bench.store.users[user].credits == 0


def test_run_status_progresses_in_simulated_time_only(bench):
    """B-33, B-34, B-36, B-37, B-38: queued, running, then done with the score; nothing moves without the clock."""
    _joined(bench)
    sid = bench.queue({"competition_id": GSM, "model_id": fixtures.GPT_MINI_ID}).json()["submission_id"]
    first = bench.status(sid).json()
    assert first == {
        "submission_id": sid,
        "competition_id": GSM,
        "done": False,
        "status": "queued",
        "score": None,
        "error": None,
        "run_path": f"/competitions/{GSM}/runs/{sid}",
        "check_again_seconds": 5,
    }
    bench.advance(5)
    running = bench.status(sid).json()
    assert running["status"] == "running" and running["done"] is False and running["check_again_seconds"] >= 1
    bench.advance(running["check_again_seconds"])
    done = bench.poll_until_done(sid)
    assert done["status"] == "completed" and done["check_again_seconds"] is None
    assert isinstance(done["score"], float) and 0 <= done["score"] <= 1 and done["error"] is None
    bench.advance(86400)
    assert bench.status(sid).json() == done  # done is terminal
    entry = [e for e in bench.store.leaderboards[GSM] if e.submission_id == sid]
    assert entry and entry[0].score == done["score"]  # B-30: on the leaderboard


def test_polling_sooner_than_check_again_seconds_is_429(bench):
    """B-37: an early poll is 429 throttled with Retry-After and does not count; an on-time one answers."""
    _joined(bench)
    sid = bench.queue({"competition_id": GSM, "model_id": fixtures.GPT_MINI_ID}).json()["submission_id"]
    wait = bench.status(sid).json()["check_again_seconds"]
    bench.advance(wait - 2)
    early = bench.status(sid)
    assert early.status_code == 429
    assert early.headers["retry-after"] == "2"
    assert early.json() == {
        "detail": "Request was throttled. Expected available in 2 seconds.",
        "code": "throttled",
        "wait": 2,
    }
    bench.advance(2)
    assert bench.status(sid).status_code == 200


def test_a_failed_run_says_why(bench):
    """B-35: done with error, no score, and the questions answered before it failed."""
    _joined(bench)
    sid = bench.queue({"competition_id": GSM, "model_id": fixtures.GPT_MINI_ID}).json()["submission_id"]
    bench.advance(5 + 2 * 3)
    finished = bench.client.post(f"/__mock/submissions/{sid}/finish", json={"error": "endpoint timed out"})
    assert finished.status_code == 200
    status = bench.status(sid).json()
    assert (status["done"], status["status"], status["score"], status["error"]) == (
        True,
        "failed",
        None,
        "endpoint timed out",
    )
    assert bench.items(sid).json()["count"] == 3
    assert not [e for e in bench.store.leaderboards[GSM] if e.submission_id == sid]


def test_item_results_of_a_finished_run(bench):
    """B-39…B-41: each question's expected answer, the model's answer and whether it was right; fraction = score."""
    status = bench.status(fixtures.FINISHED_RUN_ID).json()
    body = bench.items(fixtures.FINISHED_RUN_ID).json()
    assert body["count"] == len(fixtures.MMLU_QUESTIONS) == len(body["results"])
    for i, item in enumerate(body["results"]):
        assert item["index"] == i
        assert item["expected_answer"] == fixtures.MMLU_QUESTIONS[i][1]
        assert item["correct"] is (item["model_answer"] == item["expected_answer"])
    right = sum(item["correct"] for item in body["results"])
    assert status["score"] == round(right / body["count"], 4)
    page = bench.items(fixtures.FINISHED_RUN_ID, page_size=4, page=2).json()
    assert [i["index"] for i in page["results"]] == [4, 5]


def test_item_results_before_done_is_400_run_not_finished(bench):
    """B-40: results are for a finished run."""
    _joined(bench)
    sid = bench.queue({"competition_id": GSM, "model_id": fixtures.GPT_MINI_ID}).json()["submission_id"]
    response = bench.items(sid)
    assert response.status_code == 400
    assert response.json() == {"detail": "The run has not finished yet.", "code": "run_not_finished"}


def test_another_users_run_is_404(bench):
    """PROPOSAL B.3-22: a run is visible to its owner only."""
    stranger = bench.user()
    _, token = bench.token(user_id=stranger)
    for response in (bench.status(fixtures.FINISHED_RUN_ID, token), bench.items(fixtures.FINISHED_RUN_ID, token)):
        assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert bench.status(999999).status_code == 404


def test_user_llm_models_lists_ids_that_work_as_model_id(bench):
    """B-19, B-24: platform models plus the caller's connected agent; each id queues a run."""
    body = bench.client.get("/api/user_llm_models/", headers=bench.auth()).json()
    ids = [m["id"] for m in body["results"]]
    assert ids == [fixtures.GPT_MINI_ID, fixtures.LLAMA_ID, fixtures.AGENT_ID]
    assert {m["kind"] for m in body["results"]} == {"platform", "agent"}
    _joined(bench)
    for model_id in ids:
        assert bench.queue({"competition_id": GSM, "model_id": model_id}).status_code == 201
    stranger = bench.user()
    _, token = bench.token(user_id=stranger)
    theirs = bench.client.get("/api/user_llm_models/", headers=bench.auth(token)).json()
    assert [m["id"] for m in theirs["results"]] == [fixtures.GPT_MINI_ID, fixtures.LLAMA_ID]


def test_queue_path_has_no_trailing_slash(bench):
    """The documented path exactly (PROPOSAL B.3-23): `/models/api/queue_benchmark_run`, no slash, no redirect."""
    response = bench.client.post(
        "/models/api/queue_benchmark_run/",
        json={"competition_id": GSM, "model_id": fixtures.GPT_MINI_ID},
        headers=bench.auth(),
        follow_redirects=False,
    )
    assert response.status_code == 404


def test_queue_body_media_types(bench):
    """API reference 3: the printed curl sends JSON; curl's form default is read as JSON too; XML is 415."""
    _joined(bench)
    raw = b'{"competition_id": 123, "model_id": 456}'
    as_form = bench.client.post(
        "/models/api/queue_benchmark_run",
        content=raw,
        headers={**bench.auth(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert as_form.status_code == 201, as_form.text
    xml = bench.client.post(
        "/models/api/queue_benchmark_run", content=b"<run/>", headers={**bench.auth(), "Content-Type": "text/xml"}
    )
    assert xml.status_code == 415 and xml.json()["code"] == "unsupported_media_type"
    broken = bench.client.post(
        "/models/api/queue_benchmark_run", content=b"{", headers={**bench.auth(), "Content-Type": "application/json"}
    )
    assert broken.status_code == 400 and broken.json()["code"] == "invalid"
