"""Random identifiers, made quickly: a launch mints several, and `uuid.uuid4()` plus its
string form cost more than the rest of the run's record.

Every id, token and request id a mock mints comes from here, so a run can be made
reproducible: `reproducible(seed)` draws them from a seeded generator instead of the
operating system (the contract runner does so for the embedded mock it serves, so a
hypothesis seed's run sends and reads the same data however often it is repeated;
`docs/testing.md`). A served mock and a real deployment keep random ids.
"""

from __future__ import annotations

import base64
import os
import random
from collections.abc import Callable

_random_bytes: Callable[[int], bytes] = os.urandom


def reproducible(seed: int | None) -> None:
    """Draw every later id from a generator seeded with `seed` (None: from the operating system again)."""
    global _random_bytes
    _random_bytes = os.urandom if seed is None else random.Random(f"harness-ids-{seed}").randbytes


def random_bytes(count: int) -> bytes:
    """`count` bytes from the current source (the operating system, unless `reproducible` was called)."""
    return _random_bytes(count)


def uuid4() -> str:
    """A random (version 4, RFC 9562) UUID in its canonical text form."""
    raw = bytearray(_random_bytes(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # the RFC variant
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def hex_token(length: int) -> str:
    """`length` random lowercase hex digits."""
    return _random_bytes((length + 1) // 2).hex()[:length]


def urlsafe_token(count: int) -> str:
    """`count` random bytes in URL-safe base64 without padding (what `secrets.token_urlsafe` makes)."""
    return base64.urlsafe_b64encode(_random_bytes(count)).rstrip(b"=").decode("ascii")
