"""Deliberate drift behind the proxy: an ASGI wrapper around a mock that rewrites some answers.

`Drifted(app, answer=..., stream_tail=..., request=...)`: `answer(scope, request_body, status,
headers, body)` may return a new `(status, headers, body)` for a buffered (non-stream) response;
`stream_tail` bytes are appended to every stream; `request(scope)` may rewrite the incoming scope.
It rewrites headers too (a stripped replay marker, a frozen
ETag or counter) and covers every API's paths.
"""

from __future__ import annotations

from tests.drifting import Headers, Rewrite

# `Drifted(app, answer=..., stream_tail=..., request=...)`, as described above
Drifted = Rewrite


def set_header(headers: Headers, name: bytes, value: bytes | None) -> Headers:
    kept = [(k, v) for k, v in headers if k.lower() != name]
    return kept if value is None else [*kept, (name, value)]
