"""Random identifiers, made quickly: a launch mints several, and `uuid.uuid4()` plus its
string form cost more than the rest of the run's record."""

from __future__ import annotations

import os


def uuid4() -> str:
    """A random (version 4, RFC 9562) UUID in its canonical text form."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # the RFC variant
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def hex_token(length: int) -> str:
    """`length` random lowercase hex digits."""
    return os.urandom((length + 1) // 2).hex()[:length]
