"""Token rules of the domain model: hashing at rest, scopes, and the revocation window."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mock_server.benchgen.model.rows import Token
from mock_server.benchgen.model.state import Store
from mock_server.benchgen.model.tokens import is_live, missing_scopes, new_secret, secret_sha256

T0 = datetime(2026, 4, 23, 14, 0, tzinfo=UTC)


def _store_with_token(secret: str = "bgn_x") -> tuple[Store, Token]:
    store = Store()
    user = store.add_user(credits=0)
    return store, store.add_token(user.id, ("benchmark:read",), secret, T0)


def test_only_the_hash_is_kept():
    """B-46: only the secret's hash is stored; the secret itself is on no row."""
    store, token = _store_with_token("bgn_secret_value")
    assert token.secret_sha256 == secret_sha256("bgn_secret_value")
    assert "bgn_secret_value" not in repr(store)
    assert store.token_for_secret("bgn_secret_value") is token
    assert store.token_for_secret("bgn_secret_valuf") is None


def test_new_secrets_carry_the_prefix_and_differ():
    """B-04: tokens start with bgn_."""
    a, b = new_secret("bgn_"), new_secret("bgn_")
    assert a.startswith("bgn_") and len(a) == 44
    assert a != b


def test_revoked_token_lives_until_the_window_ends_then_never_again():
    """B-48: accepted while now < revoked_at + 60 s, refused from revoked_at + 60 s on."""
    store, token = _store_with_token()
    assert is_live(token, T0 + timedelta(days=30), 60)
    store.revoke_token(token.id, T0)
    assert is_live(token, T0, 60)
    assert is_live(token, T0 + timedelta(seconds=59.999), 60)
    assert not is_live(token, T0 + timedelta(seconds=60), 60)
    assert not is_live(token, T0 + timedelta(days=1), 60)


def test_a_second_revocation_does_not_restart_the_window():
    """B-48: the window runs from the first revocation."""
    store, token = _store_with_token()
    store.revoke_token(token.id, T0)
    store.revoke_token(token.id, T0 + timedelta(seconds=50))
    assert token.revoked_at == T0
    assert not is_live(token, T0 + timedelta(seconds=60), 60)


def test_scopes_do_not_imply_each_other():
    """B-43, B-44: a token carries exactly its scopes; run does not imply read."""
    assert missing_scopes(("benchmark:run",), ("benchmark:read",)) == ["benchmark:read"]
    assert missing_scopes(("benchmark:read", "benchmark:run"), ("benchmark:run",)) == []
    assert missing_scopes((), ()) == []


def test_the_same_secret_cannot_back_two_tokens():
    """B-46: lookup is by hash, so one hash must name one token."""
    store, token = _store_with_token("bgn_dup")
    try:
        store.add_token(token.user_id, ("benchmark:run",), "bgn_dup", T0)
    except Exception as exc:  # DomainError
        assert getattr(exc, "code", None) == "invalid"
    else:
        raise AssertionError("a duplicate secret was accepted")
