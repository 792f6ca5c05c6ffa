"""The names, keys and nonces a suite makes up (a benchmark's slug, an idempotency key, a
secret's name): unique against a deployment, reproducible against the embedded mock.

Against a deployment they come from the operating system, so a run never meets the rows an
earlier run left. The embedded mock is new on every run, so there the runner calls
`reproducible(seed)` with the run's hypothesis seed (0 when derandomized): a seed's run then
sends the same requests every time it is repeated, whatever ran before it
(`contracts.runner.fingerprint` proves it; docs/testing.md).
"""

from __future__ import annotations

import random
import uuid as _uuid

_source: random.Random = random.SystemRandom()


def reproducible(seed: int | None) -> None:
    """Make every later name from a generator seeded with `seed` (None: from the operating system)."""
    global _source
    _source = random.SystemRandom() if seed is None else random.Random(f"harness-names-{seed}")


def hex(length: int = 32) -> str:
    """`length` lowercase hex digits."""
    return f"{_source.getrandbits(4 * length):0{length}x}"


def token_bytes(count: int) -> bytes:
    """`count` bytes (a private key's seed, say)."""
    return _source.getrandbits(8 * count).to_bytes(count, "big")


def choice(alphabet: str, length: int) -> str:
    """`length` characters drawn from `alphabet`."""
    return "".join(_source.choice(alphabet) for _ in range(length))


def uuid() -> str:
    """A version-4 UUID in its canonical text form."""
    return str(_uuid.UUID(int=_source.getrandbits(128), version=4))
