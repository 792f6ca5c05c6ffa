"""Local egress (§9a): registered machines, serving sessions, and where a run's
traffic went.

Registration (§9a.1). "You choose the fingerprint, the server does not mint
it": `id` matches `^eg_[a-z2-7]{10}$` (the spec refuses anything else with
`400`). The registration is signed, "so knowing a fingerprint is not enough to
claim the machine it names":

- `public_key` is the base64 (standard alphabet, padded) of the machine's
  Ed25519 public key: its raw 32 bytes (a DER SubjectPublicKeyInfo, as in the
  spec's example, is accepted too and means the same key);
- `nonce` is any non-empty string the client picks (the mock does not refuse a
  reused nonce);
- `signature` is the base64 of the 64-byte Ed25519 signature over the UTF-8
  bytes of `id + "\\n" + public_key + "\\n" + nonce`, with `public_key` exactly
  as sent. In Python, with `cryptography`:

      key = Ed25519PrivateKey.generate()
      public_key = base64.b64encode(key.public_key().public_bytes_raw()).decode()
      signature = base64.b64encode(key.sign(f"{id}\\n{public_key}\\n{nonce}".encode())).decode()

A signature that does not verify (or a key or signature that does not decode)
is `400 invalid_argument`. A fingerprint already held by a different key, or
by another account, is refused `409 fingerprint_taken` rather than re-pointed
(the reference documents the status without a code).

"Registering is also the heartbeat, and a heartbeat cannot change policy": a
request without `mode` keeps the stored `mode` and `allow_hosts`; a request
that states `mode` declares the whole policy (`allow_hosts` absent means `[]`).
A new endpoint starts at `hosts`. The optional `instance_id` names the agent
process: a different `instance_id` claiming the fingerprint while the holder is
online is allowed ("the usual cause is a restart") and recorded in
`contended_at` / `contended_detail`. `online` means a registration was seen
within `ONLINE_WINDOW` (60 s) of simulated time.

Sessions (§9a.3), `store.egress_sessions`: id ("les_" + 12 hex) ->
`EgressSession`. A launch with
`metadata.local_egress` or `metadata.egress_endpoint` opens one per run
(`open_session`) and holds the run until a machine attaches. The session freezes
the policy in force at launch ("a run freezes whichever was in force at
launch"): the pinned machine's, or for a bare `local_egress` the most recently
seen of the owner's online machines; if none is known yet, the one bound at
attach. A session whose run has finished reads `ended`.

Routes (§9a.4) are derived from the run's own events for a run whose session
attached: every `url` its events fetched and the model provider's API host for
each task's model call, one row per host, `tunnel` when the frozen policy routes
the host through the machine (`hosts`: it matches an `allow_hosts` pattern,
`except`: it matches none, `all`: always), `direct` otherwise. A run that never
used local egress made no routing decisions and lists none.
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.model.lifecycle import Run
from mock_server.benchwright.model.present import present, schema
from mock_server.benchwright.model.rows import EgressEndpoint, EgressSession
from mock_server.benchwright.model.runs import readable_run
from mock_server.benchwright.resources import handler
from mock_server.benchwright.resources.host_policy import normalize_host, record_blocked
from mock_server.benchwright.store import Store
from mock_server.engine import Ctx, Reply
from mock_server.policies.problems import Problem, invalid, not_found
from mock_server.state.clock import rfc3339
from mock_server.state.ids import hex_token

ONLINE_WINDOW = timedelta(seconds=60)
DEFAULT_MODE = "hosts"
ATTACH_TIMEOUT_SEC = 120
PROVIDER_HOSTS = {"openrouter": "openrouter.ai", "together": "api.together.xyz"}


# -- registration (§9a.1) --------------------------------------------------------------


def _endpoints(store: Store) -> dict[str, EgressEndpoint]:
    return store.egress_endpoints


def _online(endpoint: EgressEndpoint, now: datetime) -> bool:
    seen = endpoint.last_seen_at
    return seen is not None and now - seen <= ONLINE_WINDOW


def endpoint_online(ctx: Ctx, endpoint_id: str) -> bool:
    """§9a.2's launch-time check: the caller's machine `endpoint_id` is serving now."""
    endpoint = _endpoints(ctx.store).get(endpoint_id)
    return endpoint is not None and endpoint.user_id == ctx.user.id and _online(endpoint, ctx.store.clock.now())


def _b64(text: str, field: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise invalid(f"{field}: not valid base64", field=field) from None


def _public_key(text: str) -> Ed25519PublicKey:
    raw = _b64(text, "public_key")
    if len(raw) == 32:
        return Ed25519PublicKey.from_public_bytes(raw)
    try:
        key = serialization.load_der_public_key(raw)
    except (ValueError, UnsupportedAlgorithm):
        key = None
    if not isinstance(key, Ed25519PublicKey):
        raise invalid("public_key: expected an Ed25519 public key (raw 32 bytes, base64)", field="public_key")
    return key


def signed_message(endpoint_id: str, public_key: str, nonce: str) -> bytes:
    return f"{endpoint_id}\n{public_key}\n{nonce}".encode()


def _verified_key(body: dict[str, Any]) -> str:
    """The registration's key (raw, base64) once its signature checks out."""
    key = _public_key(body["public_key"])
    signature = _b64(body["signature"], "signature")
    try:
        key.verify(signature, signed_message(body["id"], body["public_key"], body["nonce"]))
    except InvalidSignature:
        raise invalid(
            "signature: does not verify over id, public_key and nonce with that key", field="signature"
        ) from None
    return base64.b64encode(key.public_bytes_raw()).decode()


def _endpoint_json(ctx: Ctx, endpoint: EgressEndpoint, now: datetime) -> dict[str, Any]:
    return {**present(endpoint, schema(ctx.api.spec, "EgressEndpoint")), "online": _online(endpoint, now)}


def _claim(endpoint: EgressEndpoint, instance_id: str | None, now: datetime) -> None:
    """§9a.1: a different agent process may take over a live fingerprint; it is recorded."""
    holder = endpoint.instance_id
    if instance_id is None or instance_id == holder:
        return
    if holder is not None and _online(endpoint, now):
        endpoint.contended_at = now
        endpoint.contended_detail = {
            "previous_instance_id": holder,
            "instance_id": instance_id,
            "previous_last_seen_at": rfc3339(endpoint.last_seen_at),
        }
    endpoint.instance_id = instance_id
    endpoint.claimed_at = now


@handler("registerEgressEndpoint")
async def register_egress_endpoint(ctx: Ctx) -> Reply:
    """§9a.1: register, or heartbeat; the reply echoes the policy now in force."""
    body = ctx.body
    key = _verified_key(body)
    now = ctx.store.clock.now()
    endpoint = _endpoints(ctx.store).get(body["id"])
    if endpoint is not None and (endpoint.public_key != key or endpoint.user_id != ctx.user.id):
        raise Problem(409, "fingerprint_taken", f"{body['id']} is already registered to a different key.")
    if endpoint is None:
        endpoint = EgressEndpoint(
            id=body["id"],
            user_id=ctx.user.id,
            public_key=key,
            label=body.get("label"),
            mode=body.get("mode") or DEFAULT_MODE,
            allow_hosts=list(body.get("allow_hosts") or []),
            created_at=now,
            last_seen_at=None,
            instance_id=body.get("instance_id"),
            claimed_at=now,
        )
        _endpoints(ctx.store)[endpoint.id] = endpoint
    else:
        _claim(endpoint, body.get("instance_id"), now)
        if "mode" in body:
            endpoint.mode = body["mode"]
            endpoint.allow_hosts = list(body.get("allow_hosts") or [])
        if "label" in body:
            endpoint.label = body["label"]
    endpoint.last_seen_at = now
    return Reply(_endpoint_json(ctx, endpoint, now))


@handler("listEgressEndpoints")
async def list_egress_endpoints(ctx: Ctx) -> Reply:
    now = ctx.store.clock.now()
    mine = [e for e in _endpoints(ctx.store).values() if e.user_id == ctx.user.id]
    mine.sort(key=lambda e: (e.created_at, e.id))
    return Reply({"data": [_endpoint_json(ctx, e, now) for e in mine]})


@handler("deleteEgressEndpoint")
async def delete_egress_endpoint(ctx: Ctx) -> Reply:
    """§9a.1: "Forget one. Runs that named it will no longer find it." """
    endpoint = _endpoints(ctx.store).get(ctx.path["id"])
    if endpoint is None or endpoint.user_id != ctx.user.id:
        raise not_found("Egress endpoint")
    del _endpoints(ctx.store)[endpoint.id]
    return Reply(status=204)


# -- sessions (§9a.2, §9a.3) ---------------------------------------------------------


def _sessions(store: Store) -> dict[str, EgressSession]:
    return store.egress_sessions


def session_of(store: Store, run_id: str) -> EgressSession | None:
    return next((s for s in _sessions(store).values() if s.run_id == run_id), None)


def _serving_endpoint(store: Store, session: EgressSession) -> EgressEndpoint | None:
    """The pinned machine, or for a bare `local_egress` the owner's most recently seen online one."""
    endpoints = [e for e in _endpoints(store).values() if e.user_id == session.user_id]
    if session.endpoint_id:
        return next((e for e in endpoints if e.id == session.endpoint_id), None)
    now = store.clock.now()
    online = [e for e in endpoints if _online(e, now)]
    return max(online, key=lambda e: (e.last_seen_at, e.id), default=None)


def _bind(store: Store, session: EgressSession) -> None:
    """Freeze the serving machine's policy onto the session, once."""
    if session.mode is not None:
        return
    endpoint = _serving_endpoint(store, session)
    if endpoint is not None:
        session.endpoint_id, session.mode, session.allow_hosts = endpoint.id, endpoint.mode, list(endpoint.allow_hosts)


def open_session(store: Store, run: Run, metadata: dict[str, Any]) -> EgressSession | None:
    """Called by the launch (§9a.2): a run asking for local egress waits for a machine
    to attach (§9a.3). One session per run; calling again returns it."""
    if not metadata.get("egress_endpoint") and not metadata.get("local_egress"):
        return None
    existing = session_of(store, run.id)
    if existing is not None:
        return existing
    session = EgressSession(
        id="les_" + hex_token(12),
        run_id=run.id,
        user_id=run.user_id,
        endpoint_id=metadata.get("egress_endpoint"),
        token="tun_" + hex_token(10),
        created_at=store.clock.now(),
    )
    _bind(store, session)
    _sessions(store)[session.id] = session
    run.held = True
    return session


def _status(store: Store, session: EgressSession) -> str:
    run = pipeline.get_run(store, session.run_id)
    if session.status != "failed" and (run is None or run.terminal):
        return "ended"
    return session.status


def _owned_session(ctx: Ctx) -> EgressSession:
    """The session id "scopes the report to that run, so a stray call cannot land on someone else's"."""
    session = _sessions(ctx.store).get(ctx.path["id"])
    if session is None or session.user_id != ctx.user.id:
        raise not_found("Local-egress session")
    return session


def _open_run(ctx: Ctx, session: EgressSession) -> Run:
    status = _status(ctx.store, session)
    if status in ("failed", "ended"):
        raise Problem(404, "not_found", f"Local-egress session {session.id} has {status}; nothing to serve.")
    return pipeline.get_run(ctx.store, session.run_id)


@handler("getPendingLocalEgress")
async def get_pending_local_egress(ctx: Ctx) -> Reply:
    """§9a.3: the machine polls for work ("nothing can call it"); `204` when none waits."""
    waiting = [
        s for s in _sessions(ctx.store).values() if s.user_id == ctx.user.id and _status(ctx.store, s) == "pending"
    ]
    if not waiting:
        return Reply(status=204)
    session = min(waiting, key=lambda s: (s.created_at, s.id))
    body = {
        "id": session.id,
        "run_id": session.run_id,
        "endpoint_id": session.endpoint_id,
        "connection": {"url": f"wss://tunnel.benchwright.ai/s/{session.id}", "token": session.token},
        "created_at": rfc3339(session.created_at),
    }
    if session.mode is not None:
        body.update(mode=session.mode, allow_hosts=list(session.allow_hosts))
    return Reply(body)


@handler("getLocalEgressSession")
async def get_local_egress_session(ctx: Ctx) -> Reply:
    """§9a.3: "status only and returns no connection details"."""
    session = _owned_session(ctx)
    return Reply({**present(session, schema(ctx.api.spec, "LocalEgressStatus")), "status": _status(ctx.store, session)})


def _egress_ip(session_id: str) -> str:
    return f"203.0.113.{1 + int(pipeline.stable_fraction(session_id) * 254)}"


@handler("attachLocalEgress")
async def attach_local_egress(ctx: Ctx) -> Reply:
    """§9a.3: "connected, the run may proceed". Attaching again is a no-op."""
    session = _owned_session(ctx)
    run = _open_run(ctx, session)
    if session.status == "attached":
        return Reply({"ok": True})
    now = ctx.store.clock.now()
    _bind(ctx.store, session)
    session.status, session.attached_at = "attached", now
    if run.held and not run.halted:
        run.held = False
        pipeline.retime(run, now)
        after = next((i + 1 for i, step in enumerate(run.plan) if step.type == "SandboxCreated"), 0)
        at = run.plan[after - 1].at if after else now
        data = {"egress_ip": _egress_ip(session.id), "attach_timeout_sec": ATTACH_TIMEOUT_SEC}
        run.plan.insert(after, pipeline.Step(at, "LocalEgressAttached", data))
        run.updated_at = max(run.updated_at, now)
        ctx.store.clock.notify()
    return Reply({"ok": True})


@handler("failLocalEgress")
async def fail_local_egress(ctx: Ctx) -> Reply:
    """§9a.3: "could not connect, fail the run"."""
    session = _owned_session(ctx)
    if session.status == "failed":
        return Reply({"ok": True})
    run = _open_run(ctx, session)
    reason = " ".join(str((ctx.body or {}).get("reason") or "").split())[:200] or None
    session.status, session.failed_at, session.reason = "failed", ctx.store.clock.now(), reason
    detail = "local egress machine could not connect" + (f": {reason}" if reason else "")
    pipeline.stop(ctx.api, run, "local_egress_failed" + (f": {reason}" if reason else ""), error=detail)
    return Reply({"ok": True})


@handler("reportLocalEgressDenials")
async def report_local_egress_denials(ctx: Ctx) -> Reply:
    """§9a.3: hosts your machine refused "land on the run's blocked-hosts card (§9.7)
    tagged `source=home`"."""
    session = _owned_session(ctx)
    run = pipeline.get_run(ctx.store, session.run_id)
    if run is None:
        raise not_found("Run")
    now = ctx.store.clock.now()
    for denial in ctx.body["denials"]:
        record_blocked(ctx.store, run, normalize_host(denial["host"], "denials.host"), denial["count"], "home", now)
    return Reply({"ok": True})


# -- routes (§9a.4) ----------------------------------------------------------------


def _tunnelled(host: str, mode: str, patterns: list[str]) -> bool:
    matched = any(fnmatch.fnmatchcase(host, pattern.lower()) for pattern in patterns)
    return mode == "all" or (matched if mode == "hosts" else not matched)


def _hosts_reached(run: Run) -> list[tuple[str, datetime]]:
    provider_host = PROVIDER_HOSTS.get(run.model.get("source"), PROVIDER_HOSTS["openrouter"])
    reached = []
    for event in run.events:
        url = event["data"].get("url")
        if isinstance(url, str) and url.startswith(("http://", "https://")) and urlsplit(url).hostname:
            reached.append((urlsplit(url).hostname.lower(), event["created_at"]))
        if event["type"] == "MaterializeTaskResult":
            reached.append((provider_host, event["created_at"]))
    return reached


@handler("listRunEgressRoutes")
async def list_run_egress_routes(ctx: Ctx) -> Reply:
    """§9a.4: "one row per host the run reached", as the run decided each route."""
    run = readable_run(ctx.store, ctx.user, ctx.path["id"])
    session = session_of(ctx.store, run.id)
    if session is None or session.attached_at is None or session.mode is None:
        return Reply({"data": []})
    rows: dict[str, dict[str, Any]] = {}
    for host, at in _hosts_reached(run):
        row = rows.get(host)
        if row is None:
            route = "tunnel" if _tunnelled(host, session.mode, session.allow_hosts) else "direct"
            rows[host] = {"host": host, "route": route, "seen_count": 1, "first_seen": at, "last_seen": at}
        else:
            row["seen_count"] += 1
            row["last_seen"] = max(row["last_seen"], at)
    ordered = sorted(rows.values(), key=lambda row: (row["first_seen"], row["host"]))
    for row in ordered:
        row.update(first_seen=rfc3339(row["first_seen"]), last_seen=rfc3339(row["last_seen"]))
    return Reply({"data": ordered})
