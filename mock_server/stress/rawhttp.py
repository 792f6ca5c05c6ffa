"""HTTP/1.1 over a raw socket, for the bytes an HTTP client refuses to send.

Oversized headers, invalid UTF-8 in the request line, NUL bytes and a 100 MB body
declared by `Content-Length` and streamed slowly (issue item 2: "the server must
answer 413 before you finish sending") need a socket, not httpx.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class RawResponse:
    status: int = 0  # 0: no answer (closed or timed out)
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    elapsed: float = 0.0
    sent: int = 0  # body bytes sent before the answer came
    timed_out: bool = False


def _parse(buffer: bytes) -> tuple[RawResponse, int] | None:
    head, sep, rest = buffer.partition(b"\r\n\r\n")  # noqa: RUF059
    if not sep:
        return None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    response = RawResponse(status=int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0)
    for line in lines[1:]:
        name, _, value = line.partition(":")
        response.headers[name.strip().lower()] = value.strip()
    return response, len(head) + 4


def exchange(
    port: int,
    head: bytes,
    body: Iterable[bytes] = (),
    *,
    timeout: float = 10.0,
    pause: float = 0.0,
) -> RawResponse:
    """Send `head` then each chunk of `body` (pausing between), stopping as soon as an answer
    arrives; read the answer's head and `Content-Length` body."""
    started = time.monotonic()
    deadline = started + timeout
    buffer = b""
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        with contextlib.suppress(OSError):  # refused mid-head (a server with a header limit closes): read the answer
            sock.sendall(head)
        parsed = None
        for chunk in body:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break
            try:
                sock.sendall(chunk)
            except OSError:  # the server closed while we were still sending
                break
            sent += len(chunk)
            if pause:
                time.sleep(pause)
            if time.monotonic() > deadline:
                break
        while time.monotonic() < deadline:
            readable, _, _ = select.select([sock], [], [], max(0.0, deadline - time.monotonic()))
            if not readable:
                break
            try:
                data = sock.recv(65536)
            except OSError:
                break
            if not data:
                break
            buffer += data
            parsed = _parse(buffer)
            if parsed is not None:
                response, offset = parsed
                length = int(response.headers.get("content-length", "0") or 0)
                if len(buffer) - offset >= length:
                    break
        parsed = _parse(buffer)
    elapsed = time.monotonic() - started
    if parsed is None:
        return RawResponse(elapsed=elapsed, sent=sent, timed_out=elapsed >= timeout)
    response, offset = parsed
    response.body = buffer[offset:]
    response.elapsed = elapsed
    response.sent = sent
    return response


def request_head(method: str, target: bytes | str, headers: dict[str, str] | list[tuple[bytes, bytes]]) -> bytes:
    target = target.encode() if isinstance(target, str) else target
    lines = [method.encode() + b" " + target + b" HTTP/1.1", b"Host: 127.0.0.1"]
    items = headers.items() if isinstance(headers, dict) else headers
    for name, value in items:
        name = name.encode() if isinstance(name, str) else name
        value = value.encode() if isinstance(value, str) else value
        lines.append(name + b": " + value)
    return b"\r\n".join(lines) + b"\r\n\r\n"
