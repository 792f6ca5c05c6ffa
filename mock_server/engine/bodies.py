"""Request bodies: read within a byte budget, parsed by media type, validated.

- The body is read as a stream and refused with `413 payload_too_large` once it
  passes the API's limit (a declared `Content-Length` over it is refused before
  anything is read), so a 100 MB body is never held whole.
- A JSON operation reads its body as JSON when it arrives as `application/json`,
  a `+json` type, with no `Content-Type` at all, or with curl's form default
  (`application/x-www-form-urlencoded`, what `curl -d` sends): the references'
  own curl examples are written that way. Any other declared type is
  `415 unsupported_media_type`. Invalid JSON is `400 invalid_argument`.
- Integral floats (`1197.0`) are read as the integers JSON Schema says they are,
  where they fit 64 bits; bounds are the schema's (`format: int64`), not ours.
- A `multipart/form-data` operation gets its text fields typed by the schema
  (`"true"` -> True for a boolean field) and validated; its files land in
  `Ctx.files`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import orjson
from starlette.datastructures import UploadFile
from starlette.requests import Request

from ..policies.problems import Problem, invalid
from .compile import Operation, validate_body
from .context import Upload

JSON_ALIASES = ("", "application/x-www-form-urlencoded")


@dataclass(slots=True)
class Body:
    raw: bytes = b""
    json: Any = None
    form: dict[str, str] = field(default_factory=dict)
    files: dict[str, list[Upload]] = field(default_factory=dict)


EMPTY = Body()


def _too_large(limit: int) -> Problem:
    return Problem(413, "payload_too_large", f"The request body is larger than this API accepts ({limit} bytes).")


async def read_limited(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    # The ASGI messages read directly (what `request.stream()` does, without an async generator
    # per request); the request then holds the bytes as if `request.body()` had read them.
    if hasattr(request, "_body"):  # already read: the same bytes, within the same limit
        if len(request._body) > limit:
            raise _too_large(limit)
        return request._body
    receive = request.receive
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # `http.disconnect`
            request._is_disconnected = True
            raise invalid("body: the client went away before sending it all", field="body")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    raw = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    request._stream_consumed = True
    request._body = raw  # later readers (a handler's request.body(), form parsing) see the same bytes
    return raw


_FLOAT_TEXT = re.compile(rb"[0-9][.eE]")


def _integral(node: Any) -> Any:
    """Whole floats as ints (`1.0` is an integer to JSON Schema), so integer fields accept them."""
    if isinstance(node, float):
        return int(node) if node.is_integer() and -(2**63) <= node < 2**63 else node
    if isinstance(node, dict):
        return {key: _integral(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_integral(value) for value in node]
    return node


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";", 1)[0].strip().lower()


def parse_json(op: Operation, raw: bytes, media_type: str) -> Any:
    """The JSON body, validated. Only a zero-length body is an absent one: whitespace alone is
    not a JSON text (RFC 8259), so it is refused as malformed, not read as "no body"."""
    if not raw:
        if op.body_required:
            raise invalid("body: a JSON body is required", field="body")
        return None
    if not (media_type in JSON_ALIASES or media_type == "application/json" or media_type.endswith("+json")):
        raise Problem(415, "unsupported_media_type", f"This operation takes a JSON body, not {media_type}.")
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise invalid("body: not valid JSON", field="body") from None
    if _FLOAT_TEXT.search(raw):  # only a fraction or an exponent parses as a float
        body = _integral(body)
    validate_body(op, body)
    return body


def _typed(kind: str, value: str) -> Any:
    if kind == "boolean":
        return {"true": True, "1": True, "false": False, "0": False}.get(value.lower(), value)
    if kind in ("integer", "number"):
        try:
            number = float(value) if kind == "number" else int(value)
        except ValueError:
            return value
        return number
    if kind in ("object", "array"):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


async def parse_multipart(request: Request, op: Operation, raw: bytes, limit: int) -> Body:
    assert op.form is not None
    media_type = _media_type(request)
    if not raw:
        if op.body_required:
            raise invalid("body: a multipart/form-data body is required", field="body")
        return Body(raw)
    if media_type != "multipart/form-data":
        raise Problem(415, "unsupported_media_type", f"This operation takes multipart/form-data, not {media_type}.")
    try:
        form = await request.form(max_files=100, max_fields=1000, max_part_size=limit)
    except Exception as error:  # python-multipart raises several types for a malformed body
        raise invalid(f"body: not a valid multipart/form-data body ({error})", field="body") from None
    fields: dict[str, str] = {}
    files: dict[str, list[Upload]] = {}
    for name, value in form.multi_items():
        if isinstance(value, UploadFile):
            data = await value.read()
            upload = Upload(value.filename or "", value.content_type or "application/octet-stream", data)
            files.setdefault(name, []).append(upload)
        else:
            fields[name] = value
    typed = {name: _typed(op.form.types.get(name, "string"), value) for name, value in fields.items()}
    if not op.form.validator.is_valid(typed):
        error = next(iter(op.form.validator.iter_errors(typed)))
        where = ".".join(str(p) for p in error.instance_path)
        name = f"body.{where}" if where else "body"
        raise invalid(f"{name}: {error.message}", field=name)
    missing = [name for name in op.form.required_files if name not in files]
    if missing:
        raise invalid(f"body.{missing[0]}: a file is required", field=f"body.{missing[0]}")
    return Body(raw, typed, fields, files)


async def read_body(request: Request, op: Operation, limit: int) -> Body:
    if op.body_media is None and not op.mutating:
        return EMPTY
    raw = await read_limited(request, limit)
    if op.body_media == "json":
        return Body(raw, parse_json(op, raw, _media_type(request)))
    if op.body_media == "multipart":
        return await parse_multipart(request, op, raw, limit)
    return Body(raw)
