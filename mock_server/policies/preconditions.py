"""Weak ETags and `If-Match` (§3.8).

`W/"<id>:<updated_at epoch ms>"`. The reference issues weak tags yet honours
`If-Match`, which RFC 9110 reserves for strong comparison; we follow the
reference and compare the opaque tags for equality (with or without the `W/`
prefix on the request side, since clients that strip it mean the same row).
`*` matches any current row. A mismatch is `412 precondition_failed` carrying
the current `ETag` so the client can re-fetch and retry.
"""

from __future__ import annotations

from datetime import datetime

from mock_server.policies.problems import Problem


def weak_etag(resource_id: str, updated_at: datetime | int) -> str:
    millis = updated_at if isinstance(updated_at, int) else int(updated_at.timestamp() * 1000)
    return f'W/"{resource_id}:{millis}"'


def _opaque(tag: str) -> str:
    tag = tag.strip()
    return tag[2:] if tag.startswith("W/") else tag


def check_if_match(header: str | None, current: str) -> None:
    if header is None:
        return
    candidates = [part.strip() for part in header.split(",") if part.strip()]
    if "*" in candidates:
        return
    if _opaque(current) in {_opaque(c) for c in candidates}:
        return
    raise Problem(
        412,
        "precondition_failed",
        "The resource changed since that ETag was read; re-fetch it and retry.",
        headers={"ETag": current},
    )


def check_expected_version(expected: int, current: int, code: str, message: str, **fields: object) -> None:
    """A version in the body (`expected_version`): the write goes ahead only if the
    client saw the current version; otherwise `409 <code>` and nothing is written."""
    if expected != current:
        raise Problem(409, code, message, current_version=current, **fields)
