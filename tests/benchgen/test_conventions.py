"""The contract suite's conventions check: silent on the mock's answers, loud on broken ones."""

from __future__ import annotations

from contracts.benchgen import claims, conventions
from mock_server.benchgen import fixtures
from mock_server.engine.profile import SPEC_ROOT
from mock_server.engine.spec import iter_operations, merge_fragments

OPS = {op["operationId"]: op for _, _, _, op in iter_operations(merge_fragments(SPEC_ROOT / "benchgen"))}


def _claims(violations):
    return {v.claim for v in violations}


def test_every_claim_id_is_listed_once_with_text_and_section():
    """B-01…B-53 exist, in order, each with a section and a text."""
    ids = [c.id for c in claims.CLAIMS if c.id.startswith("B-")]
    assert ids == [f"B-{n:02d}" for n in range(1, 54)]
    assert all(c.text and c.section for c in claims.CLAIMS)
    assert sorted(claims.UNCHECKABLE) == ["B-51", "B-52", "B-53"]
    assert set(claims.BASIS) == set(claims.BY_ID)


def test_every_claim_a_check_names_is_listed():
    """A drift filed under an unknown id would land nowhere in the report."""
    import re
    from pathlib import Path

    root = Path(claims.__file__).parent
    named = set()
    for source in root.rglob("*.py"):
        named |= set(re.findall(r'"((?:B-\d\d)|(?:P-[a-z]+))"', source.read_text()))
    assert named, "the scan found nothing"
    assert named <= set(claims.BY_ID), named - set(claims.BY_ID)


def test_broken_answers_are_caught():
    """Each rule can fail: undocumented codes, bad run states, missing ids, a leaked secret."""
    status = OPS["getRunStatus"]
    assert "P-errors" in _claims(conventions.check(status, 418, {}, {"detail": "x", "code": "teapot"}))
    assert "P-errors" in _claims(conventions.check(status, 404, {}, {"error": "x"}))
    assert "B-03" in _claims(conventions.check(status, 401, {}, {"detail": "x", "code": "not_authenticated"}))
    assert "B-44" in _claims(conventions.check(status, 403, {}, {"detail": "x", "code": "permission_denied"}))
    assert "P-throttle" in _claims(
        conventions.check(status, 429, {"retry-after": "3"}, {"detail": "x", "code": "throttled", "wait": 2})
    )
    done_both = {"done": True, "score": 0.5, "error": "x", "check_again_seconds": None, "run_path": "/r"}
    assert "B-34" in _claims(conventions.check(status, 200, {}, done_both))
    early = {"done": False, "score": 0.5, "error": None, "check_again_seconds": 0, "run_path": "/r"}
    assert {"B-37.1", "B-50"} <= _claims(conventions.check(status, 200, {}, early))
    assert "B-33" in _claims(conventions.check(status, 200, {}, {"done": "no"}))
    assert "B-12" in _claims(
        conventions.check(OPS["registerForCompetition"], 201, {}, {"participant_status": "joined"})
    )
    assert "B-15" in _claims(
        conventions.check(OPS["registerForCompetition"], 400, {}, {"detail": "dup", "code": "already_applied"})
    )
    assert "B-26" in _claims(conventions.check(OPS["queueBenchmarkRun"], 201, {}, {"id": 1}))
    listing = {"count": 1, "next": None, "previous": None, "results": [{"name": "x"}]}
    assert "B-09.1" in _claims(conventions.check(OPS["listPublicCompetitions"], 200, {}, listing))
    assert "P-pages" in _claims(conventions.check(OPS["listUserLlmModels"], 200, {}, [{"id": 1}]))
    items = {"count": 1, "next": None, "previous": None, "results": [{"expected_answer": "1", "model_answer": "1"}]}
    assert "B-41.3" in _claims(conventions.check(OPS["getItemResults"], 200, {}, items))
    leak = conventions.check(status, 200, {}, {"done": True}, secrets=["sk-1"], text='{"k":"sk-1"}')
    assert "B-31.1" in _claims(leak)
    token_leak = conventions.check(status, 200, {}, {"done": True}, secrets=["bgn_1"], text='{"k":"bgn_1"}')
    assert "B-46.1" in _claims(token_leak)


def test_the_mocks_answers_keep_the_conventions(bench):
    """Every answer along a lifecycle, errors included, passes the check the live suite applies."""
    seen = []

    def judge(operation_id, response):
        body = response.json()
        seen.append(operation_id)
        found = conventions.check(OPS[operation_id], response.status_code, response.headers, body, text=response.text)
        assert found == [], (operation_id, response.status_code, found)

    judge("listPublicCompetitions", bench.client.get("/api/competitions/public/", params={"search": "gsm8k"}))
    judge("listPublicCompetitions", bench.client.get("/api/competitions/public/", params={"page": 9}))
    judge("registerForCompetition", bench.join(fixtures.GSM8K_ID))
    judge("registerForCompetition", bench.join(fixtures.GSM8K_ID))
    judge("registerForCompetition", bench.client.post("/api/competitions/123/register/"))
    judge("listUserLlmModels", bench.client.get("/api/user_llm_models/", headers=bench.auth()))
    queued = bench.queue({"competition_id": fixtures.GSM8K_ID, "model_id": fixtures.GPT_MINI_ID})
    judge("queueBenchmarkRun", queued)
    judge("queueBenchmarkRun", bench.queue({"competition_id": fixtures.CURATED_ID, "model_id": 456}))
    judge("queueBenchmarkRun", bench.queue({"competition_id": fixtures.GSM8K_ID}))
    sid = queued.json()["submission_id"]
    judge("getRunStatus", bench.status(sid))
    judge("getRunStatus", bench.status(sid))  # 429
    judge("getItemResults", bench.items(sid))  # 400 run_not_finished
    bench.advance(3600)
    judge("getRunStatus", bench.status(sid))
    judge("getItemResults", bench.items(sid))
    _, read_only = bench.token(["benchmark:read"])
    judge("queueBenchmarkRun", bench.queue({"competition_id": fixtures.GSM8K_ID, "model_id": 456}, read_only))
    poor = bench.user(credits=0)
    _, poor_token = bench.token(user_id=poor)
    bench.join(fixtures.GSM8K_ID, poor_token)
    judge("queueBenchmarkRun", bench.queue({"competition_id": fixtures.GSM8K_ID, "model_id": 456}, poor_token))
    assert len(seen) == 16
