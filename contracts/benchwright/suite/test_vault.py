"""Secrets, rules and host policy (§9.2–§9.6) and local-egress registration (§9a.1):
validation, the host-policy entries rules add and withdraw, and the default mode.
(Non-disclosure of secret values is checked elsewhere.)

Every check here writes to the vault or the host policy, so it runs on the mock or on a
live target only with --allow-writes; what it creates it deletes, and a default mode it
flips it flips back.
"""

from __future__ import annotations

import re

from contracts.benchwright import section_claims  # noqa: F401  (registers the claims)
from contracts.benchwright.suite._support import body_of, code_of, expect
from contracts.benchwright.suite.conftest import require
from contracts.runner import unique

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

# §9.6: the hosts the starter pack adds
STARTER_PACK = {"github.com", "raw.githubusercontent.com", "pypi.org", "files.pythonhosted.org", "huggingface.co"}


def _name() -> str:
    return f"CONTRACT_{unique.hex(8).upper()}"


def _policy(client) -> tuple[dict[str, dict], str, object]:
    response = client.get("/v1/host-policy")
    body = body_of(response) or {}
    return {row["host_pattern"]: row for row in body.get("data") or []}, body.get("default_mode"), response


def _secret(client, secret_id: str) -> dict | None:
    rows = client.get("/v1/secrets").json()["data"]
    return next((row for row in rows if row["id"] == secret_id), None)


def test_inline_rules_validate_and_allow_their_hosts(client, policy):
    """§9.2: an unknown `inject_kind` is 400; an inline rule with a blank field is skipped
    while the secret is created; each kept rule allows its host (`auto_from_secret`);
    `injections` needs an identifier name; §9.1: the listed secret's rule ids are bare UUIDs (§9.1#2) and
    its `injections` the flat array of surfaces sent (§9.1#3); a second secret of the same name is
    `409 name_conflict`."""
    require(policy, "createSecret")
    require(policy, "deleteSecret")
    host = f"{unique.hex(8)}.contract.example"
    bad = client.post(
        "/v1/secrets",
        json={"name": _name(), "value": "x", "rules": [{"host_pattern": host, "inject_kind": "cookie",
                                                         "inject_target": "X"}]},
    )  # fmt: skip
    expect(
        bad.status_code == 400 and code_of(bad) == "invalid_argument",
        "secrets.rules",
        "POST /v1/secrets",
        f"inject_kind=cookie answered {bad.status_code} {code_of(bad)}",
        bad,
    )
    misnamed = client.post("/v1/secrets", json={"name": "not-an-identifier", "value": "x", "injections": ["operator"]})
    expect(
        misnamed.status_code == 400,
        "secrets.rules",
        "POST /v1/secrets",
        f"injections under a non-identifier name answered {misnamed.status_code}",
        misnamed,
    )
    name = _name()
    rules = [
        {"host_pattern": host, "inject_kind": "bearer", "inject_target": "Authorization"},
        {"host_pattern": "", "inject_kind": "bearer", "inject_target": "Authorization"},
    ]
    created = client.post(
        "/v1/secrets", json={"name": name, "value": "x", "rules": rules, "injections": ["product_sandbox"]}
    )
    expect(created.status_code == 201, "secrets.rules", "POST /v1/secrets", f"answered {created.status_code}", created)
    secret_id = created.json()["id"]
    try:
        row = _secret(client, secret_id) or {}
        patterns = [rule.get("host_pattern") for rule in row.get("rules") or []]
        expect(
            patterns == [host],
            "§9.2#2",
            "GET /v1/secrets",
            f"one complete and one blank rule were sent; the secret holds {patterns}",
            created,
        )
        rule_ids = [str(rule.get("id")) for rule in row.get("rules") or []]
        expect(
            all(UUID.fullmatch(rule_id) for rule_id in rule_ids),
            "§9.1#2",
            "GET /v1/secrets",
            f"rule ids {rule_ids} are not bare UUIDs",
            created,
        )
        expect(
            row.get("injections") == ["product_sandbox"],
            "§9.1#3",
            "GET /v1/secrets",
            f"injections [product_sandbox] were sent; the secret reads {row.get('injections')!r}",
            created,
        )
        entries, _, response = _policy(client)
        entry = entries.get(host) or {}
        expect(
            entry.get("mode") == "allow" and entry.get("source") == "auto_from_secret",
            "§9.2#3",
            "GET /v1/host-policy",
            f"the rule's host reads {entry or 'absent'}",
            response,
        )
        twin = client.post("/v1/secrets", json={"name": name, "value": "y"})
        expect(
            twin.status_code == 409 and code_of(twin) == "name_conflict",
            "§9.2#4",
            "POST /v1/secrets",
            f"a second {name} answered {twin.status_code} {code_of(twin)}",
            twin,
        )
    finally:
        client.delete(f"/v1/secrets/{secret_id}")


def test_rotation_and_relabel(client, policy):
    """§9.3: PATCH answers `200 {id}`; without `value` it changes the description only."""
    require(policy, "createSecret")
    require(policy, "patchSecret")
    require(policy, "deleteSecret")
    created = client.post("/v1/secrets", json={"name": _name(), "value": "first"})
    secret_id = created.json()["id"]
    try:
        relabel = client.patch(f"/v1/secrets/{secret_id}", json={"description": "relabelled"})
        expect(
            relabel.status_code == 200 and body_of(relabel) == {"id": secret_id},
            "secrets.rotation",
            "PATCH /v1/secrets/{id}",
            f"answered {relabel.status_code} {body_of(relabel)}",
            relabel,
        )
        row = _secret(client, secret_id) or {}
        expect(
            row.get("description") == "relabelled",
            "§9.3#2",
            "GET /v1/secrets",
            f"the description reads {row.get('description')!r} after the relabel",
            relabel,
        )
        rotate = client.patch(f"/v1/secrets/{secret_id}", json={"value": "second"})
        expect(
            rotate.status_code == 200 and body_of(rotate) == {"id": secret_id},
            "secrets.rotation",
            "PATCH /v1/secrets/{id}",
            f"a rotation answered {rotate.status_code} {body_of(rotate)}",
            rotate,
        )
    finally:
        client.delete(f"/v1/secrets/{secret_id}")


def test_rule_routes_and_delete_withdraw_entries(client, policy):
    """§9.5: a rule POST answers `201` with a one-element array and allows its host; a rule
    DELETE is 204 and drops it from the secret. §9.4: deleting the secret is 204 and it leaves the
    list (§9.4#1), the `auto_from_secret` entries its rules added are withdrawn (§9.4#2), while a
    `user` entry for a host a rule also names survives (§9.4#3, `secrets.delete`)."""
    require(policy, "createSecret")
    require(policy, "createSecretRule")
    require(policy, "addHostPolicyEntry")
    require(policy, "deleteSecret")
    require(policy, "deleteSecretRule")
    require(policy, "deleteHostPolicyEntry")
    own = f"{unique.hex(8)}.user.contract.example"
    auto = f"{unique.hex(8)}.auto.contract.example"
    extra = f"{unique.hex(8)}.extra.contract.example"
    client.post("/v1/host-policy", json={"host_pattern": own, "mode": "allow"}).raise_for_status()
    rules = [{"host_pattern": host, "inject_kind": "header", "inject_target": "X-Key"} for host in (own, auto)]
    secret_id = client.post("/v1/secrets", json={"name": _name(), "value": "x", "rules": rules}).json()["id"]
    added = client.post(
        f"/v1/secrets/{secret_id}/rules", json={"host_pattern": extra, "inject_kind": "query", "inject_target": "key"}
    )
    body = body_of(added)
    expect(
        added.status_code == 201 and isinstance(body, list) and len(body) == 1 and body[0].get("host_pattern") == extra,
        "secrets.rule_routes",
        "POST /v1/secrets/{id}/rules",
        f"answered {added.status_code} {body}",
        added,
    )
    entries, _, response = _policy(client)
    expect(
        (entries.get(extra) or {}).get("source") == "auto_from_secret",
        "§9.5#2",
        "GET /v1/host-policy",
        f"the rule route's host reads {entries.get(extra) or 'absent'}",
        response,
    )
    removed = client.delete(f"/v1/secrets/{secret_id}/rules/{body[0]['id']}")
    left = [rule.get("host_pattern") for rule in (_secret(client, secret_id) or {}).get("rules") or []]
    expect(
        removed.status_code == 204 and extra not in left,
        "§9.5#3",
        "DELETE /v1/secrets/{id}/rules/{rule_id}",
        f"answered {removed.status_code}; the secret's rules are {left}",
        removed,
    )
    deleted = client.delete(f"/v1/secrets/{secret_id}")
    expect(
        deleted.status_code == 204 and _secret(client, secret_id) is None,
        "§9.4#1",
        "DELETE /v1/secrets/{id}",
        f"answered {deleted.status_code}; the secret is {'gone' if _secret(client, secret_id) is None else 'listed'}",
        deleted,
    )
    entries, _, response = _policy(client)
    expect(
        auto not in entries,
        "§9.4#2",
        "GET /v1/host-policy",
        f"the entry the deleted secret's rule added survives: {entries.get(auto)}",
        response,
    )
    expect(
        (entries.get(own) or {}).get("source") == "user",
        "secrets.delete",
        "GET /v1/host-policy",
        f"the user's own entry for {own} reads {entries.get(own) or 'absent'} after the delete",
        response,
    )
    if own in entries:
        client.delete(f"/v1/host-policy/{entries[own]['id']}")


def test_host_policy_sources_and_default(client, policy):
    """§9.6: POST answers `201 {ok: true}` and lists the entry as `source: user`; the starter
    pack leaves the five documented hosts allowed, adds only those (as `starter_pack`) and
    counts them in `added` (they are removed again); `default_mode` is what the last
    `PATCH /host-policy/default` set (flipped back afterwards)."""
    require(policy, "addHostPolicyEntry")
    require(policy, "deleteHostPolicyEntry")
    host = f"{unique.hex(8)}.block.contract.example"
    added = client.post("/v1/host-policy", json={"host_pattern": host, "mode": "block"})
    expect(
        added.status_code == 201 and body_of(added) == {"ok": True},
        "host_policy.rules",
        "POST /v1/host-policy",
        f"answered {added.status_code} {body_of(added)}",
        added,
    )
    entries, default, response = _policy(client)
    entry = entries.get(host) or {}
    expect(
        entry.get("mode") == "block" and entry.get("source") == "user",
        "host_policy.rules",
        "GET /v1/host-policy",
        f"the entry reads {entry or 'absent'}",
        response,
    )
    client.delete(f"/v1/host-policy/{entry.get('id')}")
    require(policy, "applyHostPolicyStarterPack")
    had = set(_policy(client)[0])
    pack = client.post("/v1/host-policy:starter-pack")
    entries, _, response = _policy(client)
    new = set(entries) - had
    for pattern in new:  # leave the account's policy as it was
        client.delete(f"/v1/host-policy/{entries[pattern]['id']}")
    expect(
        pack.status_code == 200
        and set(entries) >= STARTER_PACK
        and new <= STARTER_PACK
        and all(entries[pattern].get("source") == "starter_pack" for pattern in new),
        "§9.6#3",
        "POST /v1/host-policy:starter-pack",
        f"answered {pack.status_code}; it added {sorted(new)} as "
        f"{sorted({entries[p].get('source') for p in new})}; the five hosts are {sorted(STARTER_PACK)}",
        response,
    )
    expect(
        (body_of(pack) or {}).get("added") == len(new),
        "§9.6#3",
        "POST /v1/host-policy:starter-pack",
        f"answered added={(body_of(pack) or {}).get('added')}; {len(new)} entries appeared",
        pack,
    )
    require(policy, "setHostPolicyDefault")
    flipped = "block" if default == "allow" else "allow"
    try:
        client.patch("/v1/host-policy/default", json={"mode": flipped}).raise_for_status()
        _, now, response = _policy(client)
        expect(
            now == flipped,
            "host_policy.default",
            "GET /v1/host-policy",
            f"default_mode reads {now!r} after PATCH to {flipped!r}",
            response,
        )
    finally:
        client.patch("/v1/host-policy/default", json={"mode": default or "allow"})


def test_fresh_account_defaults_to_allow(client, target, mock_only):
    """§9.6: `default_mode` is `allow` on an account that never flipped it."""
    user = target.control_post("/users", {}).json()
    token = target.mint(["full"], user_id=user["id"])
    response = client.with_token(token).get("/v1/host-policy")
    expect(
        (body_of(response) or {}).get("default_mode") == "allow",
        "host_policy.default",
        "GET /v1/host-policy",
        f"a fresh account reads default_mode {(body_of(response) or {}).get('default_mode')!r}",
        response,
    )


def test_egress_fingerprint_shape(client, policy):
    """§9a.1: an `id` outside `^eg_[a-z2-7]{10}$` is refused 400 before any signature is read."""
    require(policy, "registerEgressEndpoint")
    for bad in ("eg_ABCDEFGHIJ", "eg_0123456789", "eg_abc", "xx_abcdefghij"):
        response = client.post(
            "/v1/egress/endpoints", json={"id": bad, "public_key": "AAAA", "nonce": "n", "signature": "AAAA"}
        )
        expect(
            response.status_code == 400,
            "egress.registration",
            "POST /v1/egress/endpoints",
            f"id {bad!r} answered {response.status_code}",
            response,
        )
