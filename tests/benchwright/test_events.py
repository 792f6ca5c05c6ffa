"""§5.1 polling a run's events, §5.3 event identity, and the §15 secret-field note."""

from __future__ import annotations

import base64
from datetime import datetime

import pytest

from mock_server.benchwright.fixtures import OTHER_USER_ID, RUN_IDS
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.resources.events import public_data, secret_named

PUBLIC = RUN_IDS["ok_public"]
PRIVATE = RUN_IDS["error"]


def _events(api, run_id: str, query: str = "") -> dict:
    response = api.get(f"/v1/runs/{run_id}/events{query}")
    assert response.status_code == 200, response.text
    return response.json()


def _padded(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _pad_run(api, run_id: str, count: int) -> None:
    run = pipeline.get_run(api.mock.store, run_id)
    for n in range(count):
        pipeline.emit(api.mock.store, run, "ExecutionProgress", {"message": f"step {n}"})


def test_5_1_rows_in_seq_order_with_opaque_natural_key_ids(api):
    """§5.1/§3.1: seq-ascending rows; `id` is unpadded base64url of `<run_id>:<seq>`."""
    rows = _events(api, PUBLIC)["data"]
    seqs = [row["seq"] for row in rows]
    assert seqs == sorted(seqs) and seqs[0] == 0
    for row in rows:
        assert "=" not in row["id"]
        assert _padded(row["id"]).decode() == f"{PUBLIC}:{row['seq']}"
        datetime.fromisoformat(row["created_at"])
    assert len({row["id"] for row in rows}) == len(rows)


def test_15_note_secret_named_fields_never_appear_in_polling(api):
    """§15: the old `ModelProxyCredentials` keeps `ui_url`/`ui_username`, never the password."""
    response = api.get(f"/v1/runs/{PUBLIC}/events")
    assert "hunter2" not in response.text and "ui_password" not in response.text
    credentials = next(r for r in response.json()["data"] if r["type"] == "ModelProxyCredentials")
    assert credentials["data"] == {"ui_url": "https://proxy.internal/ui", "ui_username": "admin"}
    llm = next(r for r in response.json()["data"] if r["type"] == "LlmCallEvent")
    assert llm["data"]["input_tokens"] > 0 and "output_tokens" in llm["data"]


@pytest.mark.parametrize(
    "key",
    ["ui_password", "password", "client_secret", "openai_api_key", "apiKey", "access_token", "token", "Authorization"],
)
def test_15_note_secret_names_are_dropped(key):
    """§15: any field whose name says it holds a secret is dropped, at any depth."""
    assert secret_named(key)
    assert public_data({"nested": [{key: "x", "keep": 1}]}) == {"nested": [{"keep": 1}]}


@pytest.mark.parametrize("key", ["input_tokens", "output_tokens", "ui_username", "secret_id", "ui_url", "max_tokens"])
def test_15_note_counts_and_names_are_not_secrets(key):
    """§15: `input_tokens` counts tokens, `secret_id` names a secret: both stay."""
    assert not secret_named(key)
    assert public_data({key: 1}) == {key: 1}


def test_5_1_after_and_before_seq_read_an_exclusive_window(api):
    rows = _events(api, PUBLIC, "?after_seq=10&before_seq=15")["data"]
    assert [row["seq"] for row in rows] == [11, 12, 13, 14]


def test_5_1_order_desc_is_newest_first(api):
    asc = [row["seq"] for row in _events(api, PUBLIC)["data"]]
    desc = [row["seq"] for row in _events(api, PUBLIC, "?order=desc")["data"]]
    assert desc == list(reversed(asc))
    window = [row["seq"] for row in _events(api, PUBLIC, "?order=desc&after_seq=50&limit=3")["data"]]
    assert window == [asc[-1], asc[-2], asc[-3]]


def test_5_1_types_keeps_only_those_types(api):
    rows = _events(api, PUBLIC, "?types=PhaseStarted,ReportFile,NoSuchType")["data"]
    assert {row["type"] for row in rows} == {"PhaseStarted", "ReportFile"}


def test_5_1_exclude_types_wins_over_types(api):
    """§5.1: sending both is not an intersection; `types` is discarded."""
    both = _events(api, PUBLIC, "?types=PhaseStarted&exclude_types=LlmCallEvent")["data"]
    alone = _events(api, PUBLIC, "?exclude_types=LlmCallEvent")["data"]
    assert both == alone
    assert "LlmCallEvent" not in {row["type"] for row in both}
    assert {"PhaseStarted", "PhaseCompleted"} <= {row["type"] for row in both}


def test_5_1_limit_defaults_to_500_and_clamps_at_1000(api):
    _pad_run(api, PUBLIC, 1100)
    assert len(_events(api, PUBLIC)["data"]) == 500
    assert len(_events(api, PUBLIC, "?limit=5000")["data"]) == 1000
    assert len(_events(api, PUBLIC, "?limit=7")["data"]) == 7


def test_5_1_page_tokens_walk_the_whole_log_once(api):
    expected = [row["seq"] for row in _events(api, PUBLIC)["data"]]
    for order, want in (("asc", expected), ("desc", list(reversed(expected)))):
        seen, token = [], None
        while True:
            query = f"?limit=7&order={order}" + (f"&page_token={token}" if token else "")
            body = _events(api, PUBLIC, query)
            seen += [row["seq"] for row in body["data"]]
            token = body["pagination"].get("next_page_token")
            if not body["pagination"]["has_more"]:
                break
        assert seen == want


def test_5_1_has_more_means_only_this_page_came_back_full(api):
    """§5.1: a finished run whose last page filled exactly says `has_more: true`."""
    count = len(_events(api, PUBLIC)["data"])
    full = _events(api, PUBLIC, f"?limit={count}")
    assert full["pagination"]["has_more"] is True
    after = _events(api, PUBLIC, f"?limit={count}&page_token={full['pagination']['next_page_token']}")
    assert after == {"data": [], "pagination": {"has_more": False}}


def test_5_1_has_more_is_false_on_a_running_run_with_nothing_new(api):
    """§5.1: a live run that happens to have no further events answers `false`."""
    paused = RUN_IDS["paused"]
    last = _events(api, paused)["data"][-1]["seq"]
    body = _events(api, paused, f"?after_seq={last}")
    assert body == {"data": [], "pagination": {"has_more": False}}


def test_5_1_a_cursor_of_another_list_is_refused(api):
    token = _events(api, PUBLIC, "?limit=2&order=desc")["pagination"]["next_page_token"]
    response = api.get(f"/v1/runs/{PUBLIC}/events?page_token={token}")
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"


def test_5_1_bad_parameters_are_400(api):
    for query in ("?after_seq=abc", "?order=sideways", "?limit=0", "?before_seq=-1"):
        response = api.get(f"/v1/runs/{PUBLIC}/events{query}")
        assert response.status_code == 400, query
        assert response.json()["code"] == "invalid_argument"
    assert api.get("/v1/runs/not-a-uuid/events").status_code == 400


def test_2_2_anonymous_reads_events_of_public_and_unlisted_runs_only(anon):
    assert anon.get(f"/v1/runs/{PUBLIC}/events").status_code == 200
    assert anon.get(f"/v1/runs/{RUN_IDS['ok_unlisted']}/events").status_code == 200
    hidden = anon.get(f"/v1/runs/{PRIVATE}/events")
    assert hidden.status_code == 404 and hidden.json()["code"] == "not_found"


def test_5_1_private_runs_of_others_are_404_and_scope_is_runs_read(api):
    assert api.get(f"/v1/runs/{RUN_IDS['other_private']}/events").status_code == 404
    other = api.as_token(["full"], user_id=OTHER_USER_ID)
    assert other.get(f"/v1/runs/{PRIVATE}/events").status_code == 404
    narrow = api.as_token(["artifacts:read"])
    denied = narrow.get(f"/v1/runs/{PUBLIC}/events")
    assert denied.status_code == 403 and denied.json()["required_scope"] == "runs:read"
