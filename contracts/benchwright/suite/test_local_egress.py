"""Local egress end to end (§9a.1–§9a.4) and the blocked-host log it feeds (§9.7): a signed
registration, a heartbeat that cannot change policy, a pinned launch refused while the machine
is down, the serving loop (pending → attach → denials), where the traffic went, and the
run's blocked-hosts card.

Launches spend and the offline case needs the mock's clock, so these run on the mock only.
"""

from __future__ import annotations

import base64
import fnmatch
from datetime import datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from contracts.benchwright import section_claims  # noqa: F401  (registers the claims)
from contracts.benchwright.suite._support import LAUNCH, advance, body_of, code_of, expect, launch_run
from contracts.benchwright.suite.conftest import require
from contracts.runner import unique

BASE32 = "abcdefghijklmnopqrstuvwxyz234567"
ONLINE_WINDOW = 60  # seconds: a machine not seen for longer is not serving


def _fingerprint() -> str:
    return "eg_" + unique.choice(BASE32, 10)


def _new_key() -> Ed25519PrivateKey:
    """A fresh endpoint key (`contracts.runner.unique`: reproducible against the embedded mock)."""
    return Ed25519PrivateKey.from_private_bytes(unique.token_bytes(32))


def _register(client, endpoint_id: str, key: Ed25519PrivateKey, **policy: Any):
    """§9a.1's signed registration: the signature covers `id`, `public_key` and `nonce`."""
    public_key = base64.b64encode(key.public_key().public_bytes_raw()).decode()
    nonce = unique.hex(16)
    signature = base64.b64encode(key.sign(f"{endpoint_id}\n{public_key}\n{nonce}".encode())).decode()
    body = {"id": endpoint_id, "public_key": public_key, "nonce": nonce, "signature": signature, **policy}
    return client.post("/v1/egress/endpoints", json=body)


def _listed(client, endpoint_id: str) -> dict[str, Any]:
    rows = client.get("/v1/egress/endpoints").json()["data"]
    return next((row for row in rows if row.get("id") == endpoint_id), {})


def _own_account(client, target):
    """A client for a fresh account of the mock (with a provider key): `GET
    /local-egress/pending` answers the account's next waiting run, so nothing else may wait."""
    user = target.control_post("/users", {"tier": "scale", "balance_cents": 100_000}).json()
    own = client.with_token(target.mint(["full"], user_id=user["id"]))
    own.post("/v1/secrets", json={"name": "OPENROUTER_API_KEY", "value": "sk-or-contract"})
    return own


def _when(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def test_registration_is_signed_and_heartbeats_keep_policy(client, target, policy, mock_only):
    """§9a.1: the answer echoes the id sent and the policy in force; a heartbeat without `mode`
    keeps the stored `except` policy (not the `hosts` default); another key on the same
    fingerprint is 409; a machine unseen past the online window reads `online: false`."""
    require(policy, "registerEgressEndpoint")
    key, endpoint_id = _new_key(), _fingerprint()
    first = _register(client, endpoint_id, key, label="home", mode="except", allow_hosts=["bank.example"])
    body = body_of(first) or {}
    expect(
        first.status_code in (200, 201)
        and body.get("id") == endpoint_id
        and (body.get("mode"), body.get("allow_hosts")) == ("except", ["bank.example"]),
        "egress.registration",
        "POST /v1/egress/endpoints",
        f"answered {first.status_code} {body}",
        first,
    )
    beat = _register(client, endpoint_id, key)
    expect(
        ((body_of(beat) or {}).get("mode"), (body_of(beat) or {}).get("allow_hosts")) == ("except", ["bank.example"]),
        "§9a.1#2",
        "POST /v1/egress/endpoints",
        f"a heartbeat without mode answered the policy {body_of(beat)}",
        beat,
    )
    listed = _listed(client, endpoint_id)
    expect(
        listed.get("mode") == "except" and listed.get("online") is True,
        "§9a.1#2",
        "GET /v1/egress/endpoints",
        f"after the heartbeat the machine lists as {listed}",
        beat,
    )
    stolen = _register(client, endpoint_id, _new_key())
    expect(
        stolen.status_code == 409,
        "§9a.1#3",
        "POST /v1/egress/endpoints",
        f"the fingerprint under another key answered {stolen.status_code}",
        stolen,
    )
    advance(target, ONLINE_WINDOW * 2)
    expect(
        _listed(client, endpoint_id).get("online") is False,
        "§9a.1#4",
        "GET /v1/egress/endpoints",
        f"a machine unseen for {ONLINE_WINDOW * 2} s still reads online",
        beat,
    )
    require(policy, "deleteEgressEndpoint")
    forgotten = client.delete(f"/v1/egress/endpoints/{endpoint_id}")
    expect(
        forgotten.status_code == 204 and not _listed(client, endpoint_id),
        "egress.registration",
        "DELETE /v1/egress/endpoints/{id}",
        f"answered {forgotten.status_code}; the machine is still listed: {bool(_listed(client, endpoint_id))}",
        forgotten,
    )


def test_pinned_launch_needs_a_serving_machine(client, target, policy, mock_only):
    """§9a.2: pinning a machine that is not serving is `412 egress_endpoint_unavailable`, unless
    `wait_for_egress` holds the run; a bare `local_egress: true` has no launch-time check."""
    require(policy, "launchRun")
    require(policy, "registerEgressEndpoint")
    client = _own_account(client, target)  # the runs it holds wait on no other check
    endpoint_id = _fingerprint()
    _register(client, endpoint_id, _new_key()).raise_for_status()
    advance(target, ONLINE_WINDOW * 2)
    refused = client.post("/v1/runs", json={**LAUNCH, "metadata": {"egress_endpoint": endpoint_id}})
    expect(
        refused.status_code == 412 and code_of(refused) == "egress_endpoint_unavailable",
        "egress.launch",
        "POST /v1/runs",
        f"a launch pinned to a machine that is down answered {refused.status_code} {code_of(refused)}",
        refused,
    )
    held = client.post(
        "/v1/runs", json={**LAUNCH, "metadata": {"egress_endpoint": endpoint_id, "wait_for_egress": True}}
    )
    expect(
        held.status_code == 202,
        "§9a.2#2",
        "POST /v1/runs",
        f"with wait_for_egress the launch answered {held.status_code} {code_of(held)}",
        held,
    )
    bare = client.post("/v1/runs", json={**LAUNCH, "metadata": {"local_egress": True}})
    expect(
        bare.status_code == 202,
        "§9a.2#3",
        "POST /v1/runs",
        f"a bare local_egress launch answered {bare.status_code} {code_of(bare)}",
        bare,
    )


def test_serving_loop_routes_and_blocked_hosts(client, target, policy, mock_only):
    """§9a.3: the run pinned to a serving machine is the machine's pending work, carrying the
    policy frozen at launch; `GET /local-egress/{id}` is status only; attach releases it and
    the run finishes. §9a.4: each host the run reached is `tunnel` exactly when the `hosts`
    policy names it, with `first_seen <= last_seen`. §9.7 / §9a.3: the hosts the machine
    reported refusing land on the run's blocked-hosts card as `source: home` with their
    counts, and clearing a host (`DELETE /v1/blocked-hosts?host=`) drops it from the
    account-wide log."""
    require(policy, "launchRun")
    require(policy, "registerEgressEndpoint")
    client = _own_account(client, target)
    key, endpoint_id = _new_key(), _fingerprint()
    allow = ["huggingface.co"]
    _register(client, endpoint_id, key, mode="hosts", allow_hosts=allow).raise_for_status()
    run_id = launch_run(client, metadata={"egress_endpoint": endpoint_id})
    pending = client.get("/v1/local-egress/pending")
    work = body_of(pending) or {}
    expect(
        pending.status_code == 200
        and work.get("run_id") == run_id
        and work.get("endpoint_id") == endpoint_id
        and (work.get("mode"), work.get("allow_hosts")) == ("hosts", allow),
        "egress.serving",
        "GET /v1/local-egress/pending",
        f"the machine's pending work is {work}",
        pending,
    )
    session = work["id"]
    status = client.get(f"/v1/local-egress/{session}")
    expect(
        status.status_code == 200 and "connection" not in (body_of(status) or {}),
        "§9a.3#2",
        "GET /v1/local-egress/{id}",
        f"the status read carries {sorted(body_of(status) or {})}",
        status,
    )
    require(policy, "attachLocalEgress")
    client.post(f"/v1/local-egress/{session}/attach", json={}).raise_for_status()
    require(policy, "reportLocalEgressDenials")
    refused_host = f"{unique.hex(8)}.ads.example"
    denied = client.post(f"/v1/local-egress/{session}/denials", json={"denials": [{"host": refused_host, "count": 3}]})
    expect(denied.status_code == 200, "egress.serving", "POST /v1/local-egress/{id}/denials",
           f"answered {denied.status_code}", denied)  # fmt: skip
    advance(target, 600)
    run = client.get(f"/v1/runs/{run_id}").json()
    expect(
        run.get("status") == "ok",
        "egress.serving",
        "GET /v1/runs/{id}",
        f"the attached run ended {run.get('status')!r}",
        status,
    )
    routes = client.get(f"/v1/runs/{run_id}/egress-routes")
    rows = (body_of(routes) or {}).get("data") or []
    expect(bool(rows), "egress.routes", "GET /v1/runs/{id}/egress-routes", "the run reached no host", routes)
    for row in rows:
        tunnelled = any(fnmatch.fnmatch(row.get("host", ""), pattern) for pattern in allow)
        expect(
            row.get("route") == ("tunnel" if tunnelled else "direct"),
            "egress.routes",
            "GET /v1/runs/{id}/egress-routes",
            f"{row.get('host')} went {row.get('route')!r} under the hosts policy {allow}",
            routes,
        )
        expect(
            row.get("seen_count", 0) >= 1 and _when(row["first_seen"]) <= _when(row["last_seen"]),
            "§9a.4#2",
            "GET /v1/runs/{id}/egress-routes",
            f"{row.get('host')}: seen_count {row.get('seen_count')}, {row.get('first_seen')}..{row.get('last_seen')}",
            routes,
        )
    card = client.get(f"/v1/runs/{run_id}/blocked-hosts")
    blocked = {row.get("host"): row for row in (body_of(card) or {}).get("data") or []}
    entry = blocked.get(refused_host) or {}
    expect(
        entry.get("source") == "home" and entry.get("seen_count") == 3,
        "blocked_hosts.log",
        "GET /v1/runs/{id}/blocked-hosts",
        f"the machine reported {refused_host} refused 3 times; the card reads {entry or 'nothing'}",
        card,
    )
    for row in blocked.values():
        expect(
            _when(row["first_seen"]) <= _when(row["last_seen"]),
            "blocked_hosts.log",
            "GET /v1/runs/{id}/blocked-hosts",
            f"{row.get('host')} was first seen after it was last seen",
            card,
        )
    account = client.get("/v1/blocked-hosts")
    if refused_host in {row.get("host") for row in (body_of(account) or {}).get("data") or []}:
        require(policy, "clearBlockedHost")
        cleared = client.delete("/v1/blocked-hosts", params={"host": refused_host})
        after = client.get("/v1/blocked-hosts")
        left = {row.get("host") for row in (body_of(after) or {}).get("data") or []}
        expect(
            cleared.status_code == 204 and refused_host not in left,
            "§9.7#2",
            "DELETE /v1/blocked-hosts",
            f"clearing {refused_host} answered {cleared.status_code}; the log still lists it: {refused_host in left}",
            after,
        )
