"""Whole lifecycles through the app: token → join → run → poll → results, and the ways it is refused.

Reference "How it works" (01 Token … 04 Score) and §B.4 of the research.
"""

from __future__ import annotations

import json

import pytest

from mock_server.benchgen import fixtures

GSM = fixtures.GSM8K_ID
CANARY = "sk-canary-7f3e9b1d4c2a"


def test_token_join_run_poll_results(bench):
    """B-10…B-41: a fresh user with a fresh token goes from joining to per-question results."""
    user = bench.user(credits=30)
    _, token = bench.token(["benchmark:read", "benchmark:run"], user_id=user)
    listing = bench.client.get("/api/competitions/public/", params={"search": "gsm8k", "page_size": 5}).json()
    cid = listing["results"][0]["id"]
    assert bench.join(cid, token).json()["participant_status"] == "approved"
    models = bench.client.get("/api/user_llm_models/", headers=bench.auth(token)).json()["results"]
    queued = bench.queue({"competition_id": cid, "model_id": models[0]["id"]}, token).json()
    done = bench.poll_until_done(queued["submission_id"], token)
    items = bench.items(queued["submission_id"], token).json()
    right = sum(i["correct"] for i in items["results"])
    assert done["score"] == round(right / items["count"], 4)
    assert bench.store.users[user].credits == 30 - queued["credits_charged"]
    assert [e.submission_id for e in bench.store.leaderboards[cid]] == [queued["submission_id"]]


def test_repeat_join_then_run_still_works(bench):
    """B-15, B-16: the repeat's 400 leaves the approved participation usable."""
    assert bench.join(GSM).status_code == 201
    assert bench.join(GSM).status_code == 400
    assert bench.queue({"competition_id": GSM, "model_id": fixtures.GPT_MINI_ID}).status_code == 201


def test_pending_then_approved_then_run(bench):
    """B-13, B-49: pending refuses the run (400), approval lets the same request through."""
    assert bench.join(fixtures.CURATED_ID).json()["participant_status"] == "pending"
    run = {"competition_id": fixtures.CURATED_ID, "model_id": fixtures.LLAMA_ID}
    assert bench.queue(run).json()["code"] == "participation_pending"
    bench.client.post(f"/__mock/competitions/{fixtures.CURATED_ID}/participants/{fixtures.DEMO_USER_ID}/approve")
    assert bench.join(fixtures.CURATED_ID).json()["code"] == "already_applied"
    assert bench.queue(run).status_code == 201


def test_credits_run_out_after_successive_runs(bench):
    """B-27, B-29: each run takes the cost; the run that would overdraw is 402 and changes nothing."""
    user = bench.user(credits=25)
    _, token = bench.token(user_id=user)
    bench.join(GSM, token)
    run = {"competition_id": GSM, "model_id": fixtures.GPT_MINI_ID}
    remaining = [bench.queue(run, token).json()["credits_remaining"] for _ in range(2)]
    assert remaining == [15, 5]
    assert bench.queue(run, token).status_code == 402
    assert bench.store.users[user].credits == 5


def test_revocation_mid_lifecycle(bench):
    """B-48: a token revoked while its run is in flight can still poll for under 60 s, then 401."""
    token_id, token = bench.token()
    bench.join(GSM, token)
    sid = bench.queue({"competition_id": GSM, "model_id": fixtures.GPT_MINI_ID}, token).json()["submission_id"]
    bench.client.delete(f"/__mock/tokens/{token_id}")
    assert bench.status(sid, token).status_code == 200
    bench.advance(60)
    assert bench.status(sid, token).status_code == 401
    assert bench.queue({"competition_id": GSM, "model_id": fixtures.GPT_MINI_ID}, token).status_code == 401
    assert bench.status(sid).status_code == 200  # the run itself goes on; another token sees it


@pytest.mark.parametrize(("scopes", "join", "queue", "poll"), [
    (["benchmark:read"], 403, 403, 200),
    (["benchmark:run"], 201, 201, 403),
    ([], 403, 403, 403),
])  # fmt: skip
def test_scopes_per_operation(bench, scopes, join, queue, poll):
    """B-17, B-28, B-32, B-44: read-only cannot join or run; run-only cannot poll; none can do neither."""
    _, token = bench.token(scopes)
    assert bench.join(fixtures.CURATED_ID, token).status_code == join
    assert bench.queue({"competition_id": fixtures.MMLU_ID, "model_id": 456}, token).status_code == queue
    assert bench.status(fixtures.FINISHED_RUN_ID, token).status_code == poll


def test_external_credentials_are_never_echoed(bench):
    """B-31: model_token is used for its run only: 0 occurrences in any response body or the journal."""
    bench.join(GSM)
    bodies: list[str] = []

    def keep(response):
        bodies.append(response.text)
        bodies.append(json.dumps(dict(response.headers)))
        return response

    external = {
        "competition_id": GSM,
        "model_source": "external",
        "model_url": "https://llm.example.com/v1/chat/completions",
        "model_name": "canary-model",
        "model_token": CANARY,
    }
    first = keep(bench.queue(external)).json()
    second = keep(bench.queue({k: v for k, v in external.items() if k != "model_token"})).json()
    # the mock fingerprints the key of the run it was given for, and no other
    assert first["submission_id"] in bench.store.run_credentials
    assert second["submission_id"] not in bench.store.run_credentials
    # refused requests carrying the key: every kind of validation failure, and domain refusals
    refusals = [
        {**external, "model_id": 456},  # oneOf: the whole body in the validator's message
        {**external, "model_token": CANARY * 400},  # maxLength on the key itself
        {**external, "model_url": "ftp://" + CANARY},  # pattern on another field
        {**external, "model_source": CANARY},  # enum
        {**external, "competition_id": 4242},  # does_not_exist
        {**external, "competition_id": fixtures.CURATED_ID},  # not a participant
    ]
    for body in refusals:
        assert keep(bench.queue(body)).status_code == 400
    assert keep(bench.queue(external, "bgn_bad")).status_code == 401
    for sid in (first["submission_id"], second["submission_id"]):
        keep(bench.status(sid))
        bench.advance(3600)
        keep(bench.status(sid))
        keep(bench.items(sid))
    keep(bench.client.get("/api/competitions/public/"))
    keep(bench.client.get("/api/user_llm_models/", headers=bench.auth()))
    keep(bench.client.post(f"/__mock/submissions/{first['submission_id']}/finish", json={}))
    journal = keep(bench.client.get("/__mock/requests"))
    assert journal.status_code == 200 and len(journal.json()["data"]) > 10
    assert sum(text.count(CANARY) for text in bodies) == 0
    assert CANARY not in repr(bench.store)
    assert bench.store.run_credentials == {}  # dropped when the runs finished
