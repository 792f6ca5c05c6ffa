"""Run, token and row ids are RFC 9562 version-4 UUIDs (§4.1 `id`: uuid): the fast
minting in `mock_server.state.ids` keeps the version and variant bits."""

import re
import uuid

from mock_server.state.ids import hex_token, uuid4

CANONICAL = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def test_uuid4_is_a_canonical_version_4_uuid():
    minted = [uuid4() for _ in range(2000)]
    assert len(set(minted)) == len(minted)
    for text in minted:
        assert CANONICAL.match(text), text
        parsed = uuid.UUID(text)
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122 and str(parsed) == text


def test_hex_token_has_the_length_asked_for():
    for length in (1, 11, 12, 32):
        token = hex_token(length)
        assert len(token) == length and re.fullmatch(r"[0-9a-f]+", token)
