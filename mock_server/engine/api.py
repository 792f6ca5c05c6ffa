"""`Api`: one running mock, its compiled spec, its clock and its state.

Everything is built once here, at start-up: the bundled spec, the compiled
operation index and router, the error formats, the rate limiter, the handler
registry and the seeded store. The state lives on this object (not in
Starlette's lifespan), so any number of test clients can share one app.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..policies.errors import ErrorFormat
from ..policies.idempotency import IdempotencyCache
from ..state.clock import SimClock
from .compile import Operation, compile_operations
from .faults import Faults
from .journal import Journal
from .pipeline import Pipeline
from .profile import ErrorSource, MockConfig, Profile
from .routing import Router
from .spec import load_bundle


def _format(source: ErrorSource, spec: dict[str, Any]) -> ErrorFormat:
    return source if hasattr(source, "render") else source(spec)  # type: ignore[operator,return-value]


class Api:
    def __init__(self, profile: Profile, config: MockConfig) -> None:
        self.profile = profile
        self.name = profile.name
        self.config = config
        self.spec = load_bundle(config.spec_dir or profile.spec_dir, profile.expand)
        self.spec_json = orjson.dumps(self.spec)
        self.operations = compile_operations(self.spec)
        self.router = Router(self.operations)
        self.errors = _format(profile.errors, self.spec)
        self.error_formats = {name: _format(source, self.spec) for name, source in profile.error_formats.items()}
        self.clock = SimClock(scale=config.clock_scale)
        self.journal = Journal(profile.secret_headers)
        self.faults = Faults()
        ttl = profile.idempotency.ttl_seconds if profile.idempotency else 0.0
        self.idempotency = IdempotencyCache(ttl)
        self.rate_limit = profile.rate_limit(self) if profile.rate_limit else None
        self.max_body_bytes = config.max_body_bytes
        self.engine = Pipeline(self)
        self.store: Any = profile.new_store(self)

    def error_format(self, op: Operation | None) -> ErrorFormat:
        if op is not None and op.error_format is not None:
            return self.error_formats.get(op.error_format, self.errors)
        return self.errors

    def reset(self) -> None:
        """`POST /__mock/reset`: the clock back to its start, then fixtures back (stamped with the same
        instants as at start-up, whatever earlier callers did to the clock), caches, counters and faults
        cleared."""
        self.clock.restart()
        self.idempotency.entries.clear()
        if self.rate_limit is not None:
            self.rate_limit.reset()
        self.faults.clear()
        self.store = self.profile.new_store(self)
        self.clock.notify()

    def sync(self) -> None:
        """Bring simulated processes up to the clock."""
        if self.profile.on_request is not None:
            self.profile.on_request(self)
