"""The reference's curl walkthrough ("API reference": 1 Find, 2 Join, 3 Launch, 4 Follow), run as printed.

The commands are parsed out of the vendored `docs/reference/benchgen-api.md`, not copied
here: each becomes a request with its method, path and query, headers and `-d` body,
with only the base URL, the token and the ids substituted. If the reference's examples
stop working against the mock, this fails.
"""

from __future__ import annotations

import json

import pytest

from contracts.benchgen import walkthrough
from mock_server.benchgen import fixtures


@pytest.fixture(scope="module")
def steps() -> walkthrough.Walkthrough:
    return walkthrough.load()


def _send(bench, request: walkthrough.Request):
    return bench.client.request(
        request.method, request.path, headers=request.headers, content=request.body, follow_redirects=False
    )


def test_the_walkthrough_has_the_documented_commands(steps):
    """Reference "API reference": find, join, launch, poll, item results, in that order, one token variable."""
    assert [c.method for c in steps.commands] == ["GET", "POST", "POST", "GET", "GET"]
    assert [c.path.split("?")[0] for c in steps.commands] == [
        "/api/competitions/public/",
        "/api/competitions/{id}/register/",
        "/models/api/queue_benchmark_run",
        "/api/submissions/{submission_id}/run_status/",
        "/api/submissions/{submission_id}/item_results/",
    ]
    assert steps.token_env == "BENCHGEN_TOKEN"
    assert steps.external_body["model_source"] == "external"
    # the reference's own example ids are the seed's, so the printed body runs unchanged
    assert json.loads(steps.commands[2].data) == {"competition_id": fixtures.GSM8K_ID, "model_id": fixtures.GPT_MINI_ID}


def test_the_walkthrough_runs_as_printed(bench, steps):
    """B-05…B-41 as the reference's curl examples exercise them, on a platform model and an external endpoint."""
    find, join, launch, poll, results = steps.commands
    token = fixtures.DEMO_TOKEN

    def request(curl, ids, data=None):
        return walkthrough.to_request(curl, token=token, token_env=steps.token_env, ids=ids, data=data)

    found = _send(bench, request(find, {}))
    assert found.status_code == 200
    cid = found.json()["results"][0]["id"]  # "Each result has an id; you need it in the next two calls."
    assert found.json()["results"][0]["slug"] == "gsm8k" and len(found.json()["results"]) <= 5

    joined = _send(bench, request(join, {"id": cid}))
    assert joined.status_code == 201 and joined.json()["participant_status"] in ("approved", "pending")
    assert joined.json()["participant_status"] == "approved"
    again = _send(bench, request(join, {"id": cid}))  # "safe to repeat"
    assert again.status_code == 400 and "already applied" in again.json()["detail"]

    ids = {"competition_id": cid, "model_id": fixtures.GPT_MINI_ID}
    platform = _send(bench, request(launch, ids))
    assert platform.status_code == 201, platform.text
    external = _send(bench, request(launch, ids, data=json.dumps(steps.external_body)))
    assert external.status_code == 201, external.text

    for queued in (platform.json(), external.json()):
        sid = queued["submission_id"]
        while True:
            status = _send(bench, request(poll, {"submission_id": sid}))
            assert status.status_code == 200, status.text
            body = status.json()
            if body["done"]:
                break
            bench.advance(body["check_again_seconds"])  # "Poll no more often than check_again_seconds says"
        assert body["score"] is not None and body["run_path"].startswith("/")
        items = _send(bench, request(results, {"submission_id": sid}))
        assert items.status_code == 200
        assert items.json()["results"] and all(
            {"expected_answer", "model_answer", "correct"} <= set(item) for item in items.json()["results"]
        )
    # the printed provider key is a placeholder, but it is still a key: it must not come back
    key = steps.external_body["model_token"]
    assert key not in bench.client.get("/__mock/requests").text
    assert key not in external.text


def test_a_changed_reference_breaks_the_parse():
    """The parse is strict: an unknown curl option or a missing token export fails loudly."""
    text = walkthrough.REFERENCE.read_text(encoding="utf-8")
    with pytest.raises(ValueError):
        walkthrough.parse(text.replace("curl -X POST", "curl --compressed -X POST"))
    with pytest.raises(ValueError):
        walkthrough.parse(text.replace('export BENCHGEN_TOKEN="bgn_..."', ""))
