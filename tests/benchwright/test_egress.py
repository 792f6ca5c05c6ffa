"""Local egress (§9a): signed registration and heartbeats, launch-time liveness,
serving sessions, denials on the blocked-hosts card, and the run's routes."""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from mock_server.benchwright.fixtures import RUN_IDS
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.resources import egress

EG = "eg_abcdefgh23"
MODEL = {"model": "qwen/qwen3-32b", "provider": "openrouter"}


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


class Machine:
    """An agent's keypair, signing registrations as the module docstring specifies."""

    def __init__(self, endpoint_id: str = EG) -> None:
        self.id = endpoint_id
        self.key = Ed25519PrivateKey.generate()
        self.public_key = b64(self.key.public_key().public_bytes_raw())

    def body(self, nonce: str = "n-1", **extra):
        message = f"{self.id}\n{self.public_key}\n{nonce}".encode()
        signature = b64(self.key.sign(message))
        return {"id": self.id, "public_key": self.public_key, "nonce": nonce, "signature": signature, **extra}

    def register(self, api, **extra):
        response = api.post("/v1/egress/endpoints", json=self.body(**extra))
        assert response.status_code == 200, response.text
        return response.json()


def endpoints(api):
    return {e["id"]: e for e in api.get("/v1/egress/endpoints").json()["data"]}


def launch(api, metadata):
    response = api.post("/v1/runs", json={"request": "Run MMLU via OpenRouter", "model": MODEL, "metadata": metadata})
    assert response.status_code == 202, response.text
    run_id = response.json()["id"]
    store = api.mock.store
    egress.open_session(store, pipeline.get_run(store, run_id), metadata)  # returns the launch's own once wired
    return run_id


def pending(api):
    response = api.get("/v1/local-egress/pending")
    assert response.status_code in (200, 204), response.text
    return response.json() if response.status_code == 200 else None


# -- §9a.1 registration --------------------------------------------------------------------


def test_9a_1_register_echoes_the_id_and_defaults_to_hosts(api):
    body = Machine().register(api, label="laptop")
    assert body["id"] == EG and body["label"] == "laptop"
    assert (body["mode"], body["allow_hosts"]) == ("hosts", [])
    listed = endpoints(api)[EG]
    assert listed["online"] is True and listed["contended_at"] is None
    assert listed["last_seen_at"] == listed["created_at"]


def test_9a_1_fingerprint_shape_is_checked(api):
    machine = Machine("eg_ABCDEFGH23")
    response = api.post("/v1/egress/endpoints", json=machine.body())
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"
    for bad in ("eg_abcdefgh1", "eg_short", "xx_abcdefgh23"):
        assert api.post("/v1/egress/endpoints", json=Machine(bad).body()).status_code == 400, bad


def test_9a_1_a_bad_signature_is_invalid_argument(api):
    machine = Machine()
    forged = machine.body()
    forged["nonce"] = "n-2"  # signed over n-1
    response = api.post("/v1/egress/endpoints", json=forged)
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"
    other_key = Machine()
    stolen = {**machine.body(), "public_key": other_key.public_key}
    assert api.post("/v1/egress/endpoints", json=stolen).status_code == 400
    garbage = {**machine.body(), "signature": "not base64!"}
    assert api.post("/v1/egress/endpoints", json=garbage).status_code == 400
    assert endpoints(api) == {}


def test_9a_1_the_signature_covers_the_fingerprint(api):
    machine = Machine()
    replayed = {**machine.body(), "id": "eg_zzzzzzzzzz"}
    assert api.post("/v1/egress/endpoints", json=replayed).status_code == 400


def test_9a_1_der_encoded_public_key_is_the_same_key(api):
    machine = Machine()
    machine.register(api)
    der = b64(
        machine.key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    machine.public_key = der
    assert machine.register(api)["id"] == EG


def test_9a_1_a_fingerprint_held_by_a_different_key_is_409(api):
    Machine().register(api, mode="all")
    response = api.post("/v1/egress/endpoints", json=Machine().body(mode="hosts", allow_hosts=["x.com"]))
    assert response.status_code == 409 and response.json()["code"] == "fingerprint_taken"
    assert endpoints(api)[EG]["mode"] == "all"


def test_9a_1_another_account_cannot_take_or_see_a_fingerprint(api):
    machine = Machine()
    machine.register(api)
    other = api.as_token(["full"], user_id=api.user()["id"])
    assert other.post("/v1/egress/endpoints", json=machine.body()).status_code == 409
    assert other.get("/v1/egress/endpoints").json()["data"] == []
    assert other.delete(f"/v1/egress/endpoints/{EG}").status_code == 404


def test_9a_1_heartbeat_without_mode_keeps_the_policy(api):
    machine = Machine()
    machine.register(api, mode="except", allow_hosts=["bank.example"])
    api.advance(30)
    beat = machine.register(api, nonce="n-2", allow_hosts=["ignored.example"])
    assert (beat["mode"], beat["allow_hosts"]) == ("except", ["bank.example"])
    assert beat["last_seen_at"] > beat["created_at"]
    changed = machine.register(api, nonce="n-3", mode="hosts", allow_hosts=["example.com"])
    assert (changed["mode"], changed["allow_hosts"]) == ("hosts", ["example.com"])
    assert (endpoints(api)[EG]["mode"], endpoints(api)[EG]["allow_hosts"]) == ("hosts", ["example.com"])


def test_9a_1_online_is_last_seen_within_60_seconds(api):
    machine = Machine()
    machine.register(api)
    api.advance(60)
    assert endpoints(api)[EG]["online"] is True
    api.advance(1)
    assert endpoints(api)[EG]["online"] is False
    machine.register(api, nonce="n-2")
    assert endpoints(api)[EG]["online"] is True


def test_9a_1_a_second_instance_claiming_a_live_fingerprint_is_recorded(api):
    machine = Machine()
    machine.register(api, instance_id="proc-a")
    api.advance(10)
    machine.register(api, nonce="n-2", instance_id="proc-a")
    assert endpoints(api)[EG]["contended_at"] is None
    api.advance(10)
    machine.register(api, nonce="n-3", instance_id="proc-b")
    listed = endpoints(api)[EG]
    assert listed["instance_id"] == "proc-b" and listed["claimed_at"] == listed["last_seen_at"]
    assert listed["contended_at"] == listed["last_seen_at"]
    assert listed["contended_detail"]["previous_instance_id"] == "proc-a"
    assert listed["contended_detail"]["instance_id"] == "proc-b"


def test_9a_1_a_takeover_after_the_holder_went_offline_is_not_contention(api):
    machine = Machine()
    machine.register(api, instance_id="proc-a")
    api.advance(120)
    machine.register(api, nonce="n-2", instance_id="proc-b")
    listed = endpoints(api)[EG]
    assert listed["instance_id"] == "proc-b" and listed["contended_at"] is None


def test_9a_1_delete_forgets_it(api):
    Machine().register(api)
    assert api.delete(f"/v1/egress/endpoints/{EG}").status_code == 204
    assert endpoints(api) == {}
    assert api.delete(f"/v1/egress/endpoints/{EG}").status_code == 404


def test_9a_1_scopes_are_runs(api):
    reader = api.as_token(["runs:read"])
    assert reader.get("/v1/egress/endpoints").status_code == 200
    response = reader.post("/v1/egress/endpoints", json=Machine().body())
    assert response.status_code == 403 and response.json()["required_scope"] == "runs:write"


# -- §9a.2 launch ----------------------------------------------------------------------------------


def test_9a_2_a_pinned_machine_must_be_serving_at_launch(api):
    body = {"request": "Run MMLU", "model": MODEL, "metadata": {"egress_endpoint": EG}}
    unknown = api.post("/v1/runs", json=body)
    assert unknown.status_code == 412 and unknown.json()["code"] == "egress_endpoint_unavailable"
    machine = Machine()
    machine.register(api)
    assert api.post("/v1/runs", json=body).status_code == 202
    api.advance(61)
    stale = api.post("/v1/runs", json=body)
    assert stale.status_code == 412 and stale.json()["code"] == "egress_endpoint_unavailable"


def test_9a_2_wait_for_egress_and_bare_local_egress_skip_the_check(api):
    waiting = {"egress_endpoint": EG, "wait_for_egress": True}
    assert api.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL, "metadata": waiting}).status_code == 202
    bare = {"local_egress": True, "wait_for_egress": True}
    assert api.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL, "metadata": bare}).status_code == 202
    assert (
        api.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL, "metadata": {"local_egress": True}})
    ).status_code == 202


def test_9a_2_someone_elses_machine_is_not_serving_for_you(api):
    Machine().register(api)
    other_user = api.user()
    other = api.as_token(["full"], user_id=other_user["id"])
    assert other.post("/v1/secrets", json={"name": "OPENROUTER_API_KEY", "value": "sk-or"}).status_code == 201
    response = other.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL, "metadata": {"egress_endpoint": EG}})
    assert response.status_code == 412 and response.json()["code"] == "egress_endpoint_unavailable"


def test_9a_2_the_launch_opens_a_session(api):
    response = api.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL, "metadata": {"local_egress": True}})
    assert pending(api)["run_id"] == response.json()["id"]


# -- §9a.3 serving ----------------------------------------------------------------------------------


def test_9a_3_no_session_is_204(api):
    assert pending(api) is None


def test_9a_3_the_run_waits_for_attach(api):
    machine = Machine()
    machine.register(api, mode="hosts", allow_hosts=["*.huggingface.co", "huggingface.co"])
    run_id = launch(api, {"egress_endpoint": EG})
    work = pending(api)
    assert work["run_id"] == run_id and work["endpoint_id"] == EG
    assert (work["mode"], work["allow_hosts"]) == ("hosts", ["*.huggingface.co", "huggingface.co"])
    assert work["connection"]["url"].endswith(work["id"]) and work["connection"]["token"]
    api.advance(30)
    assert api.get(f"/v1/runs/{run_id}/events").json()["data"] == []
    status = api.get(f"/v1/local-egress/{work['id']}").json()
    assert status == {"id": work["id"], "run_id": run_id, "endpoint_id": EG, "status": "pending"}

    assert api.post(f"/v1/local-egress/{work['id']}/attach").json() == {"ok": True}
    assert api.post(f"/v1/local-egress/{work['id']}/attach").json() == {"ok": True}
    assert api.get(f"/v1/local-egress/{work['id']}").json()["status"] == "attached"
    assert pending(api) is None
    api.advance(600)
    run = api.get(f"/v1/runs/{run_id}").json()
    assert run["status"] == "ok"
    events = api.get(f"/v1/runs/{run_id}/events?limit=10").json()["data"]
    types = [e["type"] for e in events]
    assert types[0] == "RunLaunched"
    assert types.index("LocalEgressAttached") == types.index("SandboxCreated") + 1
    attached = events[types.index("LocalEgressAttached")]["data"]
    assert attached["egress_ip"].startswith("203.0.113.") and attached["attach_timeout_sec"] > 0
    assert api.get(f"/v1/local-egress/{work['id']}").json()["status"] == "ended"


def test_9a_3_fail_fails_the_run(api):
    run_id = launch(api, {"local_egress": True})
    work = pending(api)
    assert work["endpoint_id"] is None and "mode" not in work
    response = api.post(f"/v1/local-egress/{work['id']}/fail", json={"reason": "tunnel handshake timed out"})
    assert response.status_code == 200 and response.json() == {"ok": True}
    run = api.get(f"/v1/runs/{run_id}").json()
    assert run["status"] == "error" and run["halt_reason"].startswith("local_egress_failed")
    assert "tunnel handshake timed out" in run["error"]
    assert api.get(f"/v1/local-egress/{work['id']}").json()["status"] == "failed"
    assert api.post(f"/v1/local-egress/{work['id']}/attach").status_code == 404
    assert pending(api) is None


def test_9a_3_sessions_are_scoped_to_their_owner(api):
    launch(api, {"local_egress": True})
    work = pending(api)
    other = api.as_token(["full"], user_id=api.user()["id"])
    assert other.get("/v1/local-egress/pending").status_code == 204
    for response in (
        other.get(f"/v1/local-egress/{work['id']}"),
        other.post(f"/v1/local-egress/{work['id']}/attach"),
        other.post(f"/v1/local-egress/{work['id']}/fail"),
        other.post(f"/v1/local-egress/{work['id']}/denials", json={"denials": [{"host": "x.com", "count": 1}]}),
    ):
        assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert api.get("/v1/local-egress/les_unknown").status_code == 404


def test_9a_3_denials_land_on_the_blocked_hosts_card_as_home(api):
    run_id = launch(api, {"local_egress": True})
    work = pending(api)
    denials = {"denials": [{"host": "Image.TMDB.org", "count": 8}, {"host": "ads.example", "count": 1}]}
    assert api.post(f"/v1/local-egress/{work['id']}/denials", json=denials).json() == {"ok": True}
    api.advance(5)
    api.post(f"/v1/local-egress/{work['id']}/denials", json={"denials": [{"host": "image.tmdb.org", "count": 2}]})
    rows = {r["host"]: r for r in api.get(f"/v1/runs/{run_id}/blocked-hosts").json()["data"]}
    assert (rows["image.tmdb.org"]["seen_count"], rows["image.tmdb.org"]["source"]) == (10, "home")
    assert rows["image.tmdb.org"]["first_seen"] < rows["image.tmdb.org"]["last_seen"]
    assert rows["ads.example"]["seen_count"] == 1
    bad = api.post(f"/v1/local-egress/{work['id']}/denials", json={"denials": [{"host": "x.com", "count": 0}]})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_argument"


# -- §9a.4 routes --------------------------------------------------------------------------------------


def test_9a_4_routes_follow_the_policy_frozen_at_launch(api):
    machine = Machine()
    machine.register(api, mode="hosts", allow_hosts=["huggingface.co"])
    run_id = launch(api, {"egress_endpoint": EG})
    machine.register(api, nonce="n-2", mode="all")  # after launch: the run keeps its frozen policy
    work = pending(api)
    api.post(f"/v1/local-egress/{work['id']}/attach")
    api.advance(600)
    rows = {r["host"]: r for r in api.get(f"/v1/runs/{run_id}/egress-routes").json()["data"]}
    assert set(rows) == {"huggingface.co", "openrouter.ai"}
    assert (rows["huggingface.co"]["route"], rows["huggingface.co"]["seen_count"]) == ("tunnel", 1)
    assert rows["openrouter.ai"]["route"] == "direct" and rows["openrouter.ai"]["seen_count"] > 1
    assert rows["openrouter.ai"]["first_seen"] < rows["openrouter.ai"]["last_seen"]


def test_9a_4_except_and_all_modes(api):
    machine = Machine()
    machine.register(api, mode="except", allow_hosts=["*.ai"])
    first = launch(api, {"egress_endpoint": EG})
    api.post(f"/v1/local-egress/{pending(api)['id']}/attach")
    machine.register(api, nonce="n-2", mode="all")
    second = launch(api, {"local_egress": True})
    api.post(f"/v1/local-egress/{pending(api)['id']}/attach")
    api.advance(600)
    routes = {
        run_id: {r["host"]: r["route"] for r in api.get(f"/v1/runs/{run_id}/egress-routes").json()["data"]}
        for run_id in (first, second)
    }
    assert routes[first] == {"huggingface.co": "tunnel", "openrouter.ai": "direct"}
    assert routes[second] == {"huggingface.co": "tunnel", "openrouter.ai": "tunnel"}


def test_9a_4_a_run_without_local_egress_lists_no_routes(api):
    response = api.as_token(["runs:read"]).get(f"/v1/runs/{RUN_IDS['ok_public']}/egress-routes")
    assert response.status_code == 200 and response.json() == {"data": []}
    assert api.get(f"/v1/runs/{RUN_IDS['other_private']}/egress-routes").status_code == 404
