"""Operators (§12a): lifecycle, the simulated chat, waiting, streaming, files, pending.

Every error on this surface is a legacy `{"error": "…"}` body (§3.9)."""

from __future__ import annotations

import struct
import threading
import time

import httpx
import orjson
import pytest

from mock_server.benchwright.fixtures import DEFAULT_USER_ID, OTHER_USER_ID
from mock_server.benchwright.model import ledger
from mock_server.benchwright.resources.operators import SEED_IDS, kill_chat, seed_operators

YARA = SEED_IDS["running"]  # running, healthy, shared chart.png
QUINN = SEED_IDS["wedged"]  # running, chat dead mid-reply
OTTO = SEED_IDS["stopped"]
ZED = SEED_IDS["other"]  # another user's
BASE = f"/v1/operators/{YARA}"


@pytest.fixture
def api(api):
    seed_operators(api.mock.store, DEFAULT_USER_ID, OTHER_USER_ID)
    return api


def _legacy(response, status: int) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert isinstance(body["error"], str) and "code" not in body
    return body


def _messages(api, op_id: str = YARA, **params):
    response = api.get(f"/v1/operators/{op_id}/messages", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _send(api, text: str, op_id: str = YARA) -> None:
    response = api.post(f"/v1/operators/{op_id}/message", json={"text": text})
    assert response.status_code == 202 and response.json() == {"ok": True}


def _pending(api, op_id: str = YARA) -> dict:
    return api.get(f"/v1/operators/{op_id}/pending").json()


# -- create / list / start / shutdown -------------------------------------------------------


def test_create_12a_boots_in_the_background_then_runs(api):
    created = api.post("/v1/operators", json={})
    assert created.status_code == 200
    body = created.json()
    assert body["ok"] is True and body["status"] == "booting"
    listed = {op["id"]: op for op in api.get("/v1/operators").json()["data"]}
    assert listed[body["id"]]["status"] == "booting"
    assert listed[body["id"]]["name"] not in {"yara", "quinn", "otto"}  # one is picked
    _legacy(api.get(f"/v1/operators/{body['id']}/messages"), 409)
    api.advance(5)
    listed = {op["id"]: op for op in api.get("/v1/operators").json()["data"]}
    assert listed[body["id"]]["status"] == "running"
    turns = _messages(api, body["id"])["turns"]
    assert [t["role"] for t in turns] == ["note"]


def test_create_12a_name_taken_is_409(api):
    assert "yara" in _legacy(api.post("/v1/operators", json={"name": "yara"}), 409)["error"]
    assert api.post("/v1/operators", json={"name": "rowan"}).status_code == 200


def test_create_12a_402_plan_balance_and_limit(api):
    free = api.as_token(["full"], user_id=api.user(tier="free")["id"])
    assert "plan" in _legacy(free.post("/v1/operators", json={}), 402)["error"]
    broke = api.as_token(["full"], user_id=api.user(balance_cents=0)["id"])
    assert "balance" in _legacy(broke.post("/v1/operators", json={}), 402)["error"]
    # the default account holds three (yara, quinn, otto); the limit is five records
    assert api.post("/v1/operators", json={}).status_code == 200
    assert api.post("/v1/operators", json={}).status_code == 200
    assert "limit" in _legacy(api.post("/v1/operators", json={}), 402)["error"]


def test_list_12a_shows_your_operators_only(api):
    names = {op["name"]: op for op in api.get("/v1/operators").json()["data"]}
    assert set(names) == {"yara", "quinn", "otto"}
    assert names["yara"] == {"id": YARA, "name": "yara", "status": "running", "placement": "pod", "mode": "chat"}
    assert names["otto"]["status"] == "stopped"
    _legacy(api.get(f"/v1/operators/{ZED}/messages"), 404)
    other = api.as_token(["full"], user_id=OTHER_USER_ID)
    assert [op["name"] for op in other.get("/v1/operators").json()["data"]] == ["zed"]
    _legacy(other.post(f"{BASE}/message", json={"text": "hi"}), 404)


def test_shutdown_then_start_12a_boots_a_fresh_machine_keeping_the_record(api):
    before = _messages(api)["total_turns"]
    assert api.get(f"{BASE}/files/chart.png").status_code == 200
    assert api.post(f"{BASE}/shutdown").json() == {"ok": True}
    assert {op["id"]: op["status"] for op in api.get("/v1/operators").json()["data"]}[YARA] == "stopped"
    _legacy(api.get(f"{BASE}/messages"), 409)
    _legacy(api.get(f"{BASE}/files/chart.png"), 409)  # images live on the machine (§12a)
    _legacy(api.post(f"{BASE}/message", json={"text": "hello?"}), 409)
    assert api.post(f"{BASE}/start").json() == {"ok": True, "action": "boot", "status": "booting"}
    api.advance(5)
    page = _messages(api)
    assert page["total_turns"] == before + 2  # the shutdown note and the boot note
    assert page["turns"][-1]["role"] == "note"
    _legacy(api.get(f"{BASE}/files/chart.png"), 404)


def test_start_12a_revives_a_dead_chat_in_place_and_is_safe_when_healthy(api):
    healthy = api.post(f"{BASE}/start").json()
    assert healthy["action"] == "revive" and healthy["death_log"] is None
    stuck = _messages(api, QUINN)
    assert stuck["state"] == "unresponsive" and stuck["turns"][-1]["working"] is True
    revived = api.post(f"/v1/operators/{QUINN}/start").json()
    assert revived["action"] == "revive"
    assert "OOM" in revived["death_log"]
    api.advance(2)  # the reply it was writing resumes where it stopped
    last = _messages(api, QUINN)["turns"][-1]
    assert last["working"] is False and last["t1"] is not None
    assert last["text"] == "Done: Then draft a fork description that fixes them."


def test_start_12a_no_balance_is_402(api):
    user = api.user(balance_cents=500)
    client = api.as_token(["full"], user_id=user["id"])
    op_id = client.post("/v1/operators", json={}).json()["id"]
    client.post(f"/v1/operators/{op_id}/shutdown")
    ledger.post(api.mock.store, user["id"], "operator_usage", -500)
    _legacy(client.post(f"/v1/operators/{op_id}/start"), 402)


# -- messages -------------------------------------------------------------------------------


def test_message_12a_text_is_required_non_blank_and_at_most_64_kib(api):
    _legacy(api.post(f"{BASE}/message", json={"text": "   "}), 400)
    _legacy(api.post(f"{BASE}/message", json={}), 400)
    _legacy(api.post(f"{BASE}/message", json={"text": "é" * 40_000}), 400)  # 80,000 bytes
    _send(api, "x" * 65_536)


def test_message_12a_walks_the_pending_states_into_a_reply(api):
    total = _messages(api)["total_turns"]
    _send(api, "what is the pass rate on the last run?")
    pending = _pending(api)
    assert [(p["state"], p["withdrawable"]) for p in pending["pending"]] == [("on_disk", True)]
    assert _messages(api)["pending"][0]["preview"] == "what is the pass rate on the last run?"
    api.advance(1)
    assert _pending(api)["pending"][0]["state"] == "handed_off_unread"
    api.advance(1)
    page = _messages(api)
    assert page["pending"] == []  # a real `you` turn appeared
    assert page["turns"][-1]["role"] == "you" and page["total_turns"] == total + 1
    assert [(p["state"], p["withdrawable"]) for p in _pending(api)["pending"]] == [("read", False)]
    api.advance(1)
    page = _messages(api)
    assert page["state"] == "working"
    assert page["turns"][-1]["role"] == "operator" and page["turns"][-1]["working"] is True
    assert page["turns"][-1]["t1"] is None
    api.advance(3)
    page = _messages(api)
    reply = page["turns"][-1]
    assert page["state"] == "idle"
    assert reply["working"] is False and reply["t1"] > reply["t0"]
    assert "pass rate 0.83" in reply["text"]
    pending = _pending(api)
    assert pending["pending"] == [] and pending["count"] == pending["outstanding"] == 0
    assert pending["states"]["answered"] == 3


def test_send_then_wait_12a_idle_returns_the_finished_reply(api):
    """§12a "Waiting instead of polling": read the cursor before sending, then wait_for=idle."""
    cursor = _messages(api)["cursor"]["resume_index"]
    _send(api, "ship the v2 subset")
    api.advance(10)
    started = time.monotonic()
    page = _messages(api, since=cursor, wait=45, wait_for="idle")
    assert time.monotonic() - started < 5
    assert [(t["role"], t["working"]) for t in page["turns"]] == [("you", False), ("operator", False)]
    assert page["turns"][1]["text"] == "Done: ship the v2 subset"
    assert page["cursor"]["resume_index"] == f"i:{page['total_turns']}"
    assert "wait_timed_out" not in page


def test_wait_12a_quiet_conversation_is_an_empty_page_without_timeout_fields(api):
    page = _messages(api, wait=0.2)
    assert page["turns"] == []
    assert "wait_timed_out" not in page and "wait_effective_sec" not in page
    assert page["cursor"]["resume_index"] == f"i:{page['total_turns']}"  # anchored to the newest turn


def test_wait_12a_a_frozen_clock_caps_the_real_hold(api):
    """With `scale=0` nothing can arrive by itself, so a long wait ends early, empty (documented in operators.py)."""
    started = time.monotonic()
    page = _messages(api, wait=45)
    assert 0.9 <= time.monotonic() - started < 3
    assert page["turns"] == [] and "wait_timed_out" not in page


def test_wait_12a_a_pod_that_never_answers_says_so(api):
    since = f"i:{_messages(api, QUINN)['total_turns']}"
    page = _messages(api, QUINN, since=since, wait=0.2)
    assert page["turns"] == [] and page["wait_timed_out"] is True
    assert 0.2 <= page["wait_effective_sec"] < 2
    assert page["cursor"]["resume_index"] == since  # your own since, echoed


def test_wait_12a_idle_ignores_a_turn_still_being_written(api):
    cursor = _messages(api)["cursor"]["resume_index"]
    _send(api, "hello")
    api.advance(3)  # the `you` turn and a working reply
    assert len(_messages(api, since=cursor, wait=0.2, wait_for="turn")["turns"]) == 2
    assert _messages(api, since=cursor, wait=0.2, wait_for="idle")["turns"] == []


@pytest.mark.http
def test_wait_12a_is_woken_by_the_reply_over_http(api, live):
    token = api.token(["operators:read", "operators:write"])
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=live.url, headers=headers, timeout=30) as client:
        cursor = client.get(f"{BASE}/messages").json()["cursor"]["resume_index"]
        assert client.post(f"{BASE}/message", json={"text": "report back"}).status_code == 202
        result: dict = {}

        def waiter() -> None:
            started = time.monotonic()
            result["page"] = client.get(
                f"{BASE}/messages", params={"since": cursor, "wait": 30, "wait_for": "idle"}
            ).json()
            result["seconds"] = time.monotonic() - started

        thread = threading.Thread(target=waiter)
        thread.start()
        time.sleep(0.3)
        assert "page" not in result  # held open
        client.post("/__mock/clock", json={"advance_seconds": 10})
        thread.join(10)
    assert result["seconds"] < 10
    assert [t["role"] for t in result["page"]["turns"]] == ["you", "operator"]
    assert result["page"]["turns"][1]["working"] is False


def test_since_12a_tail_index_and_epoch_modes(api):
    page = _messages(api, limit=2)
    assert page["since_mode"] == "tail" and page["since"] is None
    assert [t["index"] for t in page["turns"]] == [3, 4]
    assert page["cursor"]["next_index"] == 5 and page["cursor"]["has_more"] is False
    for since in ("i:1", "index:1", "1"):
        page = _messages(api, since=since, limit=2)
        assert [t["index"] for t in page["turns"]] == [1, 2], since
        assert page["cursor"]["has_more"] is True and page["cursor"]["resume_index"] == "i:3"
    t0 = _messages(api)["turns"][2]["t0"]
    assert t0 >= 1e9
    for since in (str(t0), str(int(t0))):
        assert all(t["t0"] > float(since) for t in _messages(api, since=since)["turns"])
    page = _messages(api, since=str(t0))
    assert page["turns"][0]["index"] == 3 and page["cursor"]["resume_t0"] == page["turns"][-1]["t0"]
    for bad in ("i:x", "yesterday", "-3"):
        _legacy(api.get(f"{BASE}/messages", params={"since": bad}), 400)
    _legacy(api.get(f"{BASE}/messages", params={"wait_for": "soon"}), 400)
    assert _messages(api, limit=1000)["limit"] == 500


def test_messages_12a_long_turns_are_truncated(api):
    _send(api, "y" * 20_000)
    api.advance(2)
    turn = _messages(api)["turns"][-1]
    assert turn["truncated"] is True and len(turn["text"]) < 20_000


# -- stop -----------------------------------------------------------------------------------


def test_stop_12a_interrupts_the_current_turn_only(api):
    assert api.post(f"{BASE}/stop").json() == {"ok": True, "cancelled": False, "forced_clear": False}
    _send(api, "a long job")
    api.advance(3)
    assert api.post(f"{BASE}/stop").json() == {"ok": True, "cancelled": True, "forced_clear": False}
    page = _messages(api)
    assert page["state"] == "idle" and not any(t["working"] for t in page["turns"])
    assert {op["id"]: op["status"] for op in api.get("/v1/operators").json()["data"]}[YARA] == "running"


def test_stop_12a_force_clears_a_stuck_turn_on_a_dead_chat(api):
    assert api.post(f"/v1/operators/{QUINN}/stop").json() == {"ok": True, "cancelled": True, "forced_clear": True}
    assert not any(t["working"] for t in _messages(api, QUINN)["turns"])


# -- files ----------------------------------------------------------------------------------


def test_files_12a_serves_the_shared_png(api):
    response = api.get(f"{BASE}/files/chart.png")
    assert response.headers["content-type"] == "image/png"
    data = response.content
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    assert struct.unpack(">II", data[16:24]) == (48, 32)
    assert "files/chart.png" in _messages(api, since="i:2", limit=1)["turns"][0]["text"]
    _legacy(api.get(f"{BASE}/files/missing.png"), 404)
    _legacy(api.get(f"{BASE}/files/notes.txt"), 400)


def test_files_12a_a_chart_request_shares_a_new_image(api):
    _send(api, "plot it again")
    api.advance(6)
    assert "files/chart-2.png" in _messages(api)["turns"][-1]["text"]
    assert api.get(f"{BASE}/files/chart-2.png").content[:4] == b"\x89PNG"


# -- pending ------------------------------------------------------------------------------------


def test_pending_12a_withdraw_one_by_ts(api):
    _send(api, "first")
    _send(api, "second")
    items = _pending(api)["pending"]
    assert [i["preview"] for i in items] == ["first", "second"] and items[0]["ts"] < items[1]["ts"]
    withdrawn = api.delete(f"{BASE}/pending/{items[1]['ts']}")
    assert withdrawn.json() == {"ok": True, "id": str(items[1]["ts"])}
    assert "gone" in _legacy(api.delete(f"{BASE}/pending/{items[1]['ts']}"), 404)["error"]
    api.advance(2)  # `first` is read now
    refused = _legacy(api.delete(f"{BASE}/pending/{items[0]['ts']}"), 409)
    assert refused["state"] == "read" and "read" in refused["error"]
    _legacy(api.delete(f"{BASE}/pending/soon"), 400)


def test_pending_12a_clear_drops_only_what_is_on_disk(api):
    _send(api, "one")
    api.advance(1)  # `one` is handed off; the bridge takes one at a time
    _send(api, "two")
    _send(api, "three")
    cleared = api.delete(f"{BASE}/pending").json()
    assert cleared["ok"] is True and cleared["deleted"] == 2
    left = _pending(api)
    assert [(p["preview"], p["state"]) for p in left["pending"]] == [("one", "handed_off_unread")]
    assert left["states"] == {"on_disk": 0, "handed_off_unread": 1, "read": 0, "answered": 2}
    assert set(left["state_meanings"]) == {"on_disk", "handed_off_unread", "read", "answered"}
    assert api.delete(f"{BASE}/pending").json() == {"ok": True, "deleted": 0, "ids": []}


def test_operators_2_2_read_and_write_scopes_are_separate(api):
    writer = api.as_token(["operators:write"])
    reader = api.as_token(["operators:read"])
    assert writer.post(f"{BASE}/message", json={"text": "from a writer"}).status_code == 202
    assert writer.get(f"{BASE}/pending").status_code == 403
    assert reader.get(f"{BASE}/pending").json()["count"] == 1
    assert reader.post(f"{BASE}/message", json={"text": "from a reader"}).status_code == 403


# -- streaming ----------------------------------------------------------------------------------


def _events(lines):
    """Yield SSE events as dicts (`comment` for `: …` lines) from an httpx line iterator."""
    event: dict = {}
    for line in lines:
        if line == "":
            if event:
                yield event
            event = {}
        elif line.startswith(":"):
            yield {"comment": line[1:].strip()}
        else:
            field, _, value = line.partition(":")
            event[field] = value.removeprefix(" ")


@pytest.mark.http
def test_events_12a_ready_turns_ping_resume_and_bye(api, live):
    live.mock.config.operator_ping_seconds = 0.3
    token = api.token(["operators:read", "operators:write"])
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=live.url, headers=headers, timeout=10) as client:
        with client.stream("GET", f"{BASE}/events") as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert stream.headers["cache-control"] == "no-cache"
            events = _events(stream.iter_lines())
            ready = next(events)
            assert (ready["event"], ready["id"]) == ("ready", "i:5")
            assert orjson.loads(ready["data"])["cursor"]["resume_index"] == "i:5"
            assert next(events) == {"comment": "ping"}
            client.post(f"{BASE}/message", json={"text": "status?"})
            client.post("/__mock/clock", json={"advance_seconds": 3})
            landed = next(e for e in events if "event" in e)
            assert (landed["event"], landed["id"]) == ("turns", "i:6")  # the cursor holds on the turn being written
            turns = orjson.loads(landed["data"])["turns"]
            assert [(t["role"], t["working"]) for t in turns] == [("you", False), ("operator", True)]
            client.post("/__mock/clock", json={"advance_seconds": 3})
            done = next(e for e in events if e.get("event") == "turns" and e["id"] == "i:7")
            final = orjson.loads(done["data"])["turns"]
            assert final[-1]["role"] == "operator" and final[-1]["working"] is False
            client.post(f"{BASE}/shutdown")
            bye = next(e for e in events if "event" in e)
            assert bye["event"] == "bye" and orjson.loads(bye["data"])["reason"]
        client.post(f"{BASE}/start")
        client.post("/__mock/clock", json={"advance_seconds": 5})
        with client.stream("GET", f"{BASE}/events", headers={"Last-Event-ID": "i:5"}) as stream:
            events = _events(stream.iter_lines())
            assert next(events)["id"] == "i:5"
            replay = orjson.loads(next(e for e in events if e.get("event") == "turns")["data"])
            assert [t["index"] for t in replay["turns"]][:3] == [5, 6, 7]


def test_events_12a_not_running_is_409_before_the_stream(api):
    _legacy(api.get(f"/v1/operators/{OTTO}/events"), 409)
    _legacy(api.get(f"{BASE}/events", params={"since": "i:oops"}), 400)


def test_kill_chat_control_12a_makes_the_pod_unresponsive(api):
    kill_chat(api.mock, YARA, "bridge: exited 1")
    _send(api, "are you there?")
    api.advance(30)
    assert [p["state"] for p in _pending(api)["pending"]] == ["on_disk"]
    assert api.post(f"{BASE}/start").json()["death_log"] == "bridge: exited 1"
    api.advance(6)
    assert _pending(api)["pending"] == []
