"""§9.1 / §2.4 non-disclosure on every surface a client can read after the fact.

The suite creates a secret with a value only it knows (§9.2) and, on the mock, a
token (§2.4, through the browser session), then reads every GET operation of the
spec it can address: those without path parameters, and those under the created
resources' own paths with the ids it was given. No answer (the create responses
aside, for the token: "returned exactly once, in the `token` field of the create
response") may carry either value.
"""

from __future__ import annotations

import re

from contracts.benchwright.suite._support import body_of, cookie_header, expect
from contracts.benchwright.suite.conftest import OPERATIONS, require
from contracts.runner import unique

# streams are read by the SSE checks; the spec document carries no account data
UNREAD = ("text/event-stream",)


def _readable() -> list[tuple[str, str]]:
    out = []
    for name, (method, path, operation) in sorted(OPERATIONS.items()):
        content = (operation.get("responses", {}).get("200") or {}).get("content") or {}
        if method == "GET" and operation.get("x-body-conventions", True) and not set(content) & set(UNREAD):
            out.append((name, path))
    return out


READABLE = _readable()


def _urls(ids: dict[str, str]) -> list[tuple[str, str]]:
    """(operation, url) of every readable operation: unparametrized ones, and those under a
    created resource's collection path with its id."""
    out = []
    for name, path in READABLE:
        params = re.findall(r"\{([^}]+)\}", path)
        if not params:
            out.append((name, path))
            continue
        collection = path.split("/{", 1)[0]
        if len(params) == 1 and collection in ids:
            out.append((name, path.replace("{" + params[0] + "}", ids[collection])))
    return out


def test_no_answer_discloses_a_secret_or_token_value(client, target, policy, session_cookie):
    """§9.1: secret values are never returned; §2.4: a token's value is shown once, at creation."""
    require(policy, "createSecret")
    value = f"sk-contract-{unique.hex()}"
    name = f"CONTRACT_DISCLOSURE_{unique.hex(8).upper()}"
    _, secrets_path, _ = OPERATIONS["createSecret"]
    created = client.post(secrets_path, json={"name": name, "value": value, "description": "non-disclosure check"})
    expect(
        created.status_code in (200, 201),
        "spec.status",
        "POST /v1/secrets",
        f"creating a secret answered {created.status_code}",
        created,
    )
    expect(
        value not in created.text,
        "secrets.no_value",
        "POST /v1/secrets",
        "the create response echoes the secret's value",
        created,
    )
    ids = {secrets_path: (body_of(created) or {}).get("id", "")}
    watched = {value: "secrets.no_value"}
    if session_cookie is not None:
        _, tokens_path, _ = OPERATIONS["createToken"]
        minted = client.with_token(None).post(
            tokens_path,
            json={"label": "contract disclosure", "scopes": ["runs:read"]},
            headers=cookie_header(session_cookie),
        )
        token = (body_of(minted) or {}).get("token")
        if isinstance(token, str):
            watched[token] = "tokens.no_value"
            ids[tokens_path] = (body_of(minted) or {}).get("id", "")
    watched[target.credential] = "tokens.no_value"
    read = 0
    try:
        for operation_id, url in _urls(ids):
            response = client.get(url)
            if response.status_code >= 500:
                continue
            read += 1
            for secret, claim in watched.items():
                expect(
                    secret not in response.text,
                    claim,
                    f"GET {OPERATIONS[operation_id][1]}",
                    "the answer carries a " + ("secret's value" if claim == "secrets.no_value" else "token's value"),
                    response,
                )
    finally:  # the secret is the suite's own; a live account keeps it unless deletes are allowed
        method, _, delete = OPERATIONS["deleteSecret"]
        if ids[secrets_path] and policy.permits(method, delete)[0]:
            client.delete(f"{secrets_path}/{ids[secrets_path]}")
    # every read answering 5xx is the target failing, not a reason to skip
    expect(read > 0, "spec.server_error", "GET", "every readable operation answered 5xx")
