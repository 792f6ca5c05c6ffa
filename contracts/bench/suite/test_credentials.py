"""Credential states and the error format, driven with the published client (`bench_sdk.BenchPlatform`):
a credential of the other environment, a made-up one, a revoked one, an AuthKit token used as a bearer and an
expired OAuth credential are each refused, and the `PlatformError` the client raises carries the HTTP status,
the body's code, message and reference (the request id) and the whole error object, and is not retryable
(C-02, C-17, C-21, C-53, C-57). AuthKit tokens are exchanged only with the configured MCP audience (C-20).
A key's secret is shown once and is never readable again (C-67, C-19).

Refusals are read-only; the AuthKit, expiry and key-creation checks need the mock's fixtures and clock, or,
for key creation, `--allow-writes` with an OAuth credential."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from bench_sdk import BenchPlatform, PlatformError

from mock_server.apis import bundle

from .test_conventions import check

SPEC = bundle("bench")
ENVIRONMENT = SPEC["x-environment"]
OAUTH_TTL = SPEC["x-oauth-credential-ttl-seconds"]
LOOPBACK = ("localhost", "127.0.0.1", "::1")


def platform(base_url: str, credential) -> BenchPlatform:
    return BenchPlatform(credential, endpoint=base_url.rstrip("/"))


def usable_endpoint(base_url: str) -> bool:
    parts = urlsplit(base_url)
    return parts.scheme == "https" or parts.hostname in LOOPBACK


def other_environment_credential(key: str) -> str:
    """A made-up credential in the other environment's format (the one the suite's key does not have)."""
    prefixes = [ENVIRONMENT["credential_prefix"], *ENVIRONMENT["other_prefixes"]]
    other = next(p for p in prefixes if not key.startswith(p))
    return f"{other}key_contract_not_a_key"


def refused(bench, base_url: str, op_id: str, credential: str, codes: tuple[str, ...], claim: str, what: str):
    """The raw answer and the client's error for one refused credential must agree (C-53) and match `codes`."""
    raw = bench.call(op_id, token=credential)
    check(op_id, raw)
    label = f"{raw.request.method} {raw.request.url.path}"
    curl = f"curl '$BENCH_API_BASE_URL{raw.request.url.path}' -H 'Authorization: Bearer <{what}>'"
    if raw.status_code != 401 or raw.json()["error"]["code"] not in codes:
        raise bench.drift(claim, label, f"{what} answered {raw.status_code} {raw.text[:200]}", curl)
    try:
        platform(base_url, credential).call(op_id)
    except PlatformError as error:
        body = raw.json()["error"]
        mismatched = [
            name
            for name, got, want in (
                ("status", error.status, raw.status_code),
                ("code", error.code, body["code"]),
                ("message", str(error), body["message"]),
            )
            if got != want
        ]
        # each request has its own reference: the client's is its own response's, kept in details too
        if not error.reference or error.reference != error.details.get("reference"):
            mismatched.append("reference")
        if set(error.details) != set(body):
            mismatched.append("details")
        if mismatched:
            raise bench.drift(
                "C-53.4", label, f"the client's PlatformError differs from the response in {mismatched}"
            ) from None
        if error.retryable:
            raise bench.drift("C-57", label, f"a credential error ({error.status}) reads as retryable") from None
        return error
    raise bench.drift(claim, label, f"the client accepted {what}", curl)


def check_refused_credentials(bench, base_url: str) -> None:
    refused(
        bench, base_url, "list_systems", other_environment_credential(bench.key), ("wrong_environment",), "C-02",
        "a credential of the other environment",
    )  # fmt: skip
    refused(
        bench, base_url, "list_systems", ENVIRONMENT["credential_prefix"] + "key_contract_not_a_key",
        ("invalid_credential",), "C-17.2", "a made-up credential",
    )  # fmt: skip


def check_reference_is_the_request_id(bench) -> None:
    """The error's reference names the request (the `X-Request-Id` it answered with)."""
    r = bench.call("get_system", path={"id": 987654321})
    check("get_system", r)
    error = r.json().get("error", {})
    if r.status_code != 404 or r.headers.get("x-request-id") not in (None, error.get("reference")):
        raise bench.drift(
            "C-53.3",
            "GET /api/ai-systems/{id}",
            f"reference {error.get('reference')!r}, X-Request-Id {r.headers.get('x-request-id')!r}",
        )


def check_fixture_credential_states(bench, http, base_url: str) -> None:
    """Needs the mock's fixtures: the revoked key, an AuthKit token, an OAuth credential that expires."""
    refused(
        bench, base_url, "list_systems", "bench_dev_key_revoked", ("credential_revoked",), "C-57.1", "a revoked key"
    )
    refused(
        bench, base_url, "list_systems", "authkit_growth_mcp", ("invalid_credential",), "C-21",
        "an AuthKit token used as a bearer",
    )  # fmt: skip
    account = http.post("/__mock/accounts", json={"plan": "growth"}).json()
    token = http.post("/__mock/tokens", json={"account_id": account["id"], "kind": "oauth"}).json()["token"]
    if bench.call("list_api_keys", token=token).status_code != 200:
        raise bench.drift("C-18.2", "GET /api/account/api-keys", "a fresh OAuth credential was refused")
    # a key's access is scoped to its workspace: another account's system is not found with it (C-17.3)
    other = bench.call("create_system", body={"name": "another workspace"}, token=token)
    if other.status_code in (200, 201):
        seen = bench.call("get_system", path={"id": other.json()["system"]["id"]})
        check("get_system", seen)
        if seen.status_code != 404:
            raise bench.drift("C-17.3", "GET /api/ai-systems/{id}", f"another workspace's system: {seen.status_code}")
    http.post("/__mock/clock", json={"advance_seconds": OAUTH_TTL + 1})
    refused(bench, base_url, "list_systems", token, ("invalid_credential",), "C-57.2", "an expired OAuth credential")


def _exchange(bench, token: str):
    r = bench.call("exchange_oauth_token", body={"token": token}, token=None)
    check("exchange_oauth_token", r)
    return r


def check_exchange_needs_the_audience(bench) -> None:
    """C-20.1: the configured audience becomes an account credential with account authority; C-20.2 another
    audience is 401 invalid_audience; C-20.3 an expired AuthKit token is 401."""
    good = _exchange(bench, "authkit_growth_mcp")
    if good.status_code not in (200, 201) or not good.json().get("credential"):
        raise bench.drift("C-20.1", "POST /api/auth/mcp-token", f"the MCP audience answered {good.status_code}")
    minted = good.json()["credential"]
    if bench.call("list_api_keys", token=minted).status_code != 200:
        raise bench.drift("C-20.1", "GET /api/account/api-keys", "the exchanged credential has no account authority")
    for token, code, clause in (
        ("authkit_growth_other_audience", "invalid_audience", "C-20.2"),
        ("authkit_growth_expired", None, "C-20.3"),
    ):
        r = _exchange(bench, token)
        if r.status_code != 401 or (code and r.json()["error"]["code"] != code):
            raise bench.drift(clause, "POST /api/auth/mcp-token", f"{token} answered {r.status_code} {r.text[:200]}")


def check_exchange_takes_only_authkit_tokens(bench) -> None:
    """C-20.4: what the exchange accepts is an AuthKit token, nothing else: the API key (C-19.2: a key
    cannot be turned into account authority) and an account OAuth credential are 401, and no credential
    comes back. Public and refused, so safe on every target."""
    for token, clause, what in ((bench.key, "C-19.2", "the API key"), (bench.oauth, "C-20.4", "an OAuth credential")):
        if not token:
            continue
        r = _exchange(bench, token)
        if r.status_code != 401 or (
            r.headers.get("content-type", "").startswith("application/json") and r.json().get("credential")
        ):
            raise bench.drift(clause, "POST /api/auth/mcp-token", f"{what} was exchanged: {r.status_code}")


def check_key_secret_shown_once(bench, http, oauth: str, embedded: bool) -> str:
    """Returns the created key's id (for the caller to revoke)."""
    r = bench.call("create_api_key", body={"name": "contract suite key"}, token=oauth)
    check("create_api_key", r)
    if r.status_code not in (200, 201) or not r.json().get("key"):
        raise bench.drift("C-67.1", "POST /api/account/api-keys", f"answered {r.status_code}: no key shown")
    secret, key_id = r.json()["key"], r.json()["api_key"]["id"]
    if secret in str(r.json()["api_key"]):
        raise bench.drift("C-67.1", "POST /api/account/api-keys", "the key's row carries its secret")
    if bench.call("list_systems", token=secret).status_code != 200:
        raise bench.drift("C-17.1", "GET /api/ai-systems", "the new key gives no data access")
    for op_id, token in (("list_api_keys", oauth), ("capabilities", secret), ("whoami", secret), ("whoami", oauth)):
        seen = bench.call(op_id, token=token)
        check(op_id, seen)
        if secret in seen.text:
            raise bench.drift(
                "C-67.1",
                f"{seen.request.method} {seen.request.url.path}",
                "a key's secret is readable after its creation",
                f"curl '$BENCH_API_BASE_URL{seen.request.url.path}' -H 'Authorization: Bearer $BENCH_OAUTH_TOKEN'",
            )
    minted = bench.call("create_api_key", body={"name": "minted by a key"}, token=secret)
    check("create_api_key", minted)
    if minted.status_code != 403:
        raise bench.drift("C-19.1", "POST /api/account/api-keys", f"a key minted a credential ({minted.status_code})")
    if embedded and secret in http.get("/__mock/requests").text:
        raise bench.drift("C-67.2", "GET /__mock/requests", "the request log holds a token value")
    return key_id


def test_refused_credentials_mirror_in_the_client(target, bench):
    """C-02, C-17.2, C-53.3, C-57: the other environment's and a made-up credential are 401 with their codes, and the
    client's PlatformError carries the same status, code, message, reference and details, not retryable."""
    if not usable_endpoint(target.base_url):
        pytest.skip("the client accepts only HTTPS or loopback endpoints")
    check_refused_credentials(bench, target.base_url)
    check_reference_is_the_request_id(bench)


def test_revoked_authkit_and_expired_credentials(target, embedded, bench):
    """C-21, C-57.1, C-57.2, C-18.2, C-17.3: the revoked key, an AuthKit token as a bearer, an OAuth credential
    past its lifetime; another workspace's system is out of the key's scope."""
    check_fixture_credential_states(bench, embedded, target.base_url)


def test_exchange_needs_the_mcp_audience(embedded, bench):
    """C-20.1, C-20.2, C-20.3: only an AuthKit token with the configured audience becomes an account
    credential; another audience and an expired token are 401."""
    check_exchange_needs_the_audience(bench)


def test_exchange_takes_only_authkit_tokens(bench):
    """C-19.2, C-20.4: an API key or an account credential is not exchanged for one."""
    check_exchange_takes_only_authkit_tokens(bench)


def test_key_secret_is_shown_once(target, http, bench, writes, oauth):
    """C-67.1, C-67.2, C-19.1, C-17.1: a created key's secret is in its creation answer only; no read shows
    it again; a key cannot mint another."""
    key_id = check_key_secret_shown_once(bench, http, oauth, target.embedded)
    if target.embedded or target.policy.allow_destructive:
        bench.call("revoke_api_key", path={"id": key_id}, token="oauth")
