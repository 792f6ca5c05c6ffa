"""Issue item 2: the hostile-input catalogue, per API.

Malformed and truncated JSON, wrong types, duplicate keys, 10,000-deep nesting, a
100 MB body declared by `Content-Length` and sent slowly (and one sent chunked with
no length), invalid UTF-8 and NUL bytes, oversized headers and query strings,
hostile path values, and multipart edge cases for the upload operations. Each must
get a 4xx in the API's error format (docs/interpretations.md, "Every API": bodies bounded at 16 MiB
and refused on their declared length before anything is read; "Bad input gets the
API's documented 4xx in its own error format, never a 500 or a hang", DESIGN.md),
the process must stay up, and its RSS bounded.

A request head past the mock's bound (`mock_server/server.py`, 64 KiB) is refused by
the server before the app sees it, with 431 (headers) or 414 (request target) in the
API's own format. Requests uvicorn itself refuses before that (a malformed request
line) are answered in plain text; they are recorded as `transport` and pass on a 4xx
or a closed connection, since no mock code runs for them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import orjson

from .process import MockProcess
from .rawhttp import RawResponse, exchange, request_head
from .targets import TARGETS, Target

MB = 1024 * 1024
RSS_BOUND_KB = 64 * 1024  # the catalogue may grow the process by at most this (one 16 MiB body, twice over)


@dataclass
class Outcome:
    api: str
    case: str
    status: int
    ok: bool
    note: str = ""
    elapsed: float = 0.0
    body: bytes = b""


@dataclass(frozen=True)
class Case:
    name: str
    send: Callable[[MockProcess, Target], RawResponse]
    accept: frozenset[int]  # statuses that pass
    transport: bool = False  # may be refused by the HTTP server (plain text, or the connection closed)


def _json_request(mock: MockProcess, target: Target, raw: bytes, **extra: str) -> RawResponse:
    method, path, _ = target.write
    headers = {**target.headers, "Content-Type": "application/json", "Content-Length": str(len(raw)), **extra}
    return exchange(mock.port, request_head(method, path, headers) + raw)


def _body(target: Target) -> bytes:
    return orjson.dumps(target.write[2])


def _wrong_types(target: Target) -> bytes:
    body = target.write[2]
    flipped = {key: ([value] if not isinstance(value, list) else {"x": value}) for key, value in body.items()}
    return orjson.dumps(flipped)


def _duplicate_keys(target: Target) -> bytes:
    body = target.write[2]
    key = next(iter(body))
    inner = json.dumps(body)[1:-1]
    return ("{" + inner + ", " + json.dumps(key) + ': [1, {"dup": true}]}').encode()


def _slow_100mb(mock: MockProcess, target: Target) -> RawResponse:
    """100 MB declared, sent 64 KiB at a time: the answer must come before the end (issue item 2)."""
    method, path, _ = target.write
    head = request_head(
        method, path, {**target.headers, "Content-Type": "application/json", "Content-Length": str(100 * MB)}
    )
    chunks = (b" " * 65536 for _ in range(100 * MB // 65536))
    return exchange(mock.port, head, chunks, timeout=20, pause=0.002)


def _short_body(mock: MockProcess, target: Target) -> RawResponse:
    """A body shorter than its `Content-Length`: HTTP says the server waits for the rest, so the
    property is that this one stalled request delays no one else (a hot read still answers)."""
    import socket
    import threading

    method, path, _ = target.write
    head = request_head(method, path, {**target.headers, "Content-Type": "application/json", "Content-Length": "5000"})
    stalled = socket.create_connection(("127.0.0.1", mock.port))
    stalled.sendall(head + b'{"a": 1}')
    answer: list[RawResponse] = []
    worker = threading.Thread(target=lambda: answer.append(_get(mock, target, target.hot_read.encode())))
    worker.start()
    worker.join(5)
    stalled.close()
    return answer[0] if answer else RawResponse(timed_out=True)


def _chunked(size: int) -> Iterator[bytes]:
    piece = b" " * MB
    for _ in range(size // MB):
        yield b"%x\r\n" % len(piece) + piece + b"\r\n"
    yield b"0\r\n\r\n"


def _chunked_100mb(mock: MockProcess, target: Target) -> RawResponse:
    """100 MB with no declared length: refused once 16 MiB have arrived, never held whole."""
    method, path, _ = target.write
    head = request_head(
        method, path, {**target.headers, "Content-Type": "application/json", "Transfer-Encoding": "chunked"}
    )
    return exchange(mock.port, head, _chunked(100 * MB), timeout=30)


def _get(mock: MockProcess, target: Target, raw_target: bytes, headers: dict[str, str] | None = None) -> RawResponse:
    return exchange(mock.port, request_head("GET", raw_target, {**target.headers, **(headers or {})}))


def _path(target: Target, value: str) -> bytes:
    return target.path_param.replace("{}", value).encode("latin-1", "replace")


HOSTILE_PATHS = {
    "traversal": "..%2F..%2F..%2Fetc%2Fpasswd",
    "dot segments": "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "encoded slash": "a%2Fb",
    "encoded NUL": "abc%00def",
    "invalid UTF-8 (percent-encoded)": "%ff%fe%fd",
    "fullwidth look-alike": "%EF%BD%92%EF%BD%95%EF%BD%8E",  # ｒｕｎ
    "division-slash look-alike": "a%E2%88%95b",  # a∕b
    "right-to-left override": "%E2%80%AEabc",
    "10,000-character id": "a" * 10_000,
    "SQL and template": "1'%20OR%20'1'%3D'1%7B%7B7*7%7D%7D",
}


def _multipart(boundary: str, parts: list[tuple[str, str | None, bytes]], *, close: bool = True) -> bytes:
    out = b""
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename is not None else "")
        out += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + data + b"\r\n"
    return out + (f"--{boundary}--\r\n".encode() if close else b"")


def _upload(mock: MockProcess, target: Target, path: str, raw: bytes, content_type: str) -> RawResponse:
    headers = {**target.headers, "Content-Type": content_type, "Content-Length": str(len(raw))}
    return exchange(mock.port, request_head("POST", path, headers) + raw)


def _multipart_cases(target: Target) -> list[Case]:
    cases: list[Case] = []
    b = "stressboundary"
    variants: dict[str, tuple[bytes, str]] = {
        "no boundary parameter": (_multipart(b, [("file", "a.csv", b"q,a\n1,2\n")]), "multipart/form-data"),
        "wrong boundary": (_multipart(b, [("file", "a.csv", b"q,a\n")]), "multipart/form-data; boundary=other"),
        "truncated (no closing boundary)": (
            _multipart(b, [("file", "a.csv", b"q,a\n1,2\n")], close=False)[:-4],
            f"multipart/form-data; boundary={b}",
        ),
        "part without a name": (
            f"--{b}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--{b}--\r\n".encode(),
            f"multipart/form-data; boundary={b}",
        ),
        "2,000 fields": (
            _multipart(b, [(f"f{i}", None, b"x") for i in range(2000)]),
            f"multipart/form-data; boundary={b}",
        ),
        "200 files": (
            _multipart(b, [("file", f"{i}.csv", b"q\n") for i in range(200)]),
            f"multipart/form-data; boundary={b}",
        ),
        "traversal filename and NUL": (
            _multipart(b, [("file", "../../etc/passwd\x00.csv", b"q,a\n1,2\n")]),
            f"multipart/form-data; boundary={b}",
        ),
        "invalid UTF-8 field": (
            _multipart(b, [("name", None, b"\xff\xfe\xfd"), ("file", "a.csv", b"q\n")]),
            f"multipart/form-data; boundary={b}",
        ),
        "JSON sent as multipart": (b'{"name": "x"}', f"multipart/form-data; boundary={b}"),
        "multipart sent to it as text/plain": (_multipart(b, [("file", "a.csv", b"q\n")]), "text/plain"),
    }
    for path in target.uploads:
        for label, (raw, content_type) in variants.items():
            cases.append(
                Case(
                    f"multipart {path.rsplit('/', 1)[-1]}: {label}",
                    lambda m, t, p=path, r=raw, c=content_type: _upload(m, t, p, r, c),
                    frozenset({400, 413, 415, 422}),
                )
            )
    return cases


def _huge_headers(mock: MockProcess, target: Target) -> RawResponse:
    """64 MiB of headers: refused with 431 once past the bound, and not held; `judge` checks the RSS."""
    before = mock.rss_kb()
    head = request_head("GET", target.hot_read, {**target.headers, **{f"X-H{i}": "y" * 8000 for i in range(64 * 128)}})
    response = exchange(mock.port, head, timeout=30)
    grown = mock.rss_kb() - before
    if grown > 16 * 1024:
        response.body += f" [rss grew by {grown // 1024} MiB]".encode()
        response.status = response.status or 0
        response.headers["x-stress-unbounded"] = str(grown)
    return response


def _presigned_100mb(mock: MockProcess, target: Target) -> RawResponse:
    """benchsdk's presigned object upload (two-step upload, step 2): 100 MB declared."""
    head = request_head(
        "PUT",
        "/__uploads/stress/object.bin?exp=1&sig=bad",
        {"Content-Type": "application/octet-stream", "Content-Length": str(100 * MB)},
    )
    chunks = (b"\0" * 65536 for _ in range(100 * MB // 65536))
    return exchange(mock.port, head, chunks, timeout=20, pause=0.0005)


def catalogue(target: Target) -> list[Case]:
    c4 = frozenset({400, 413, 415, 422})
    cases = [
        Case("malformed JSON", lambda m, t: _json_request(m, t, b'{"a": [1, 2,, }'), c4),
        Case("truncated JSON", lambda m, t: _json_request(m, t, _body(t)[: len(_body(t)) // 2]), c4),
        Case("wrong types", lambda m, t: _json_request(m, t, _wrong_types(t)), c4),
        Case("JSON array instead of object", lambda m, t: _json_request(m, t, b"[1, 2, 3]"), c4),
        Case(
            "duplicate keys",
            lambda m, t: _json_request(m, t, _duplicate_keys(t)),
            frozenset({*c4, 200, 201, 202, 409}),
        ),
        Case("10,000-deep nesting (arrays)", lambda m, t: _json_request(m, t, b"[" * 10_000 + b"]" * 10_000), c4),
        Case(
            "10,000-deep nesting (objects)",
            lambda m, t: _json_request(m, t, b'{"a":' * 10_000 + b"1" + b"}" * 10_000),
            c4,
        ),
        Case("invalid UTF-8 in the body", lambda m, t: _json_request(m, t, b'{"request": "\xff\xfe\xc3("}'), c4),
        Case("raw NUL bytes in the body", lambda m, t: _json_request(m, t, b'{"request": "a\x00b"}'), c4),
        Case(
            "escaped NUL in strings",
            lambda m, t: _json_request(m, t, orjson.dumps({k: "a\u0000b" for k in t.write[2]})),
            frozenset({*c4, 409}),
        ),
        Case("huge number", lambda m, t: _json_request(m, t, json.dumps({k: 10**30 for k in t.write[2]}).encode()), c4),
        Case("100 MB body declared by Content-Length, sent slowly", _slow_100mb, frozenset({413})),
        Case("100 MB body, chunked, no length", _chunked_100mb, frozenset({413})),
        Case("Content-Length larger than the body sent", _short_body, frozenset({200})),
        Case(
            "invalid UTF-8 in the request line",
            lambda m, t: _get(m, t, t.path_param.replace("{}", "").encode() + b"\xff\xfe"),
            frozenset({400, 404}),
            transport=True,
        ),
        Case(
            "invalid UTF-8 in a header",
            lambda m, t: exchange(
                m.port,
                request_head(
                    "GET",
                    t.hot_read,
                    [(b"Authorization", t.headers["Authorization"].encode()), (b"X-Stress", b"\xff\xfe\xc3(")],
                ),
            ),
            frozenset({200, 400}),
            transport=True,
        ),
        Case(
            "NUL byte in a header",
            lambda m, t: exchange(m.port, request_head("GET", t.hot_read, [(b"Authorization", b"Bearer \x00abc")])),
            frozenset({400, 401, 403}),
            transport=True,
        ),
        Case(
            "garbage Authorization",
            lambda m, t: exchange(
                m.port, request_head("GET", t.hot_read, {"Authorization": "Bearer " + "\u00e9" * 3 + "x" * 5000})
            ),
            frozenset({401, 403}),
        ),
        Case(
            "64 KiB header",
            lambda m, t: _get(m, t, t.hot_read.encode(), {"X-Big": "x" * 65536}),
            frozenset({431}),
        ),
        Case(
            "1 MiB of headers",
            lambda m, t: _get(m, t, t.hot_read.encode(), {f"X-H{i}": "y" * 1000 for i in range(1024)}),
            frozenset({431}),
        ),
        Case(
            "1 MiB query string",
            lambda m, t: _get(m, t, (t.hot_read + "?q=" + "z" * MB).encode()),
            frozenset({414}),
        ),
        Case(
            "10,000 query parameters",
            lambda m, t: _get(m, t, (t.hot_read + "?" + "&".join(f"p{i}=1" for i in range(10_000))).encode()),
            frozenset({414}),
        ),
        Case("64 MiB of headers", _huge_headers, frozenset({431})),
        Case(
            "query: invalid UTF-8 and NUL",
            lambda m, t: _get(m, t, (t.hot_read + "?limit=%ff%00&cursor=%00%c3%28").encode()),
            frozenset({200, 400}),
        ),
    ]
    for label, value in HOSTILE_PATHS.items():
        cases.append(Case(f"path: {label}", lambda m, t, v=value: _get(m, t, _path(t, v)), frozenset({400, 404})))
    cases.extend(_multipart_cases(target))
    if target.name == "benchsdk":
        cases.append(Case("presigned upload: 100 MB declared", _presigned_100mb, frozenset({403, 404, 413})))
    return cases


def judge(target: Target, case: Case, response: RawResponse, alive: bool) -> Outcome:
    notes = []
    ok = True
    if not alive:
        ok, notes = False, ["the process died"]
    if response.timed_out or (response.status == 0 and not case.transport):
        ok = False
        notes.append("no answer (hang or closed)")
    elif response.status >= 500:
        ok = False
        notes.append(f"server error {response.status}")
    elif response.status and response.status not in case.accept:
        ok = False
        notes.append(f"status {response.status} not in {sorted(case.accept)}")
    if response.status >= 400:
        import httpx

        in_format = target.error_ok(httpx.Response(response.status, content=response.body))
        if not in_format and not case.transport:
            ok = False
            notes.append("not in the API's error format")
        elif not in_format:
            notes.append("transport-level refusal")
    if "x-stress-unbounded" in response.headers:
        ok = False
        notes.append(f"RSS grew by {int(response.headers['x-stress-unbounded']) // 1024} MiB")
    if case.name.startswith(("100 MB", "presigned")) and response.sent >= 100 * MB:
        ok = False
        notes.append("the whole body was read before the answer")
    if response.sent:
        notes.append(f"answered after {response.sent / MB:.1f} MiB sent")
    return Outcome(target.name, case.name, response.status, ok, "; ".join(notes), response.elapsed, response.body[:300])


def run(
    mock: MockProcess, target: Target, skip: set[str] | frozenset[str] = frozenset()
) -> tuple[list[Outcome], dict[str, int]]:
    """Every case (but those named in `skip`) against the running mock; RSS before, at its peak and after."""
    mock.reset()
    if target.setup:
        import httpx

        with httpx.Client(base_url=mock.url) as client:
            target.setup(client, target.headers)
    before = mock.rss_kb()
    peak = before
    outcomes = []
    for case in catalogue(target):
        if case.name in skip:
            continue
        try:
            response = case.send(mock, target)
        except OSError as error:
            response = RawResponse(timed_out=False)
            response.body = str(error).encode()
        peak = max(peak, mock.rss_kb())
        outcomes.append(judge(target, case, response, mock.alive()))
    after = mock.rss_kb()
    return outcomes, {"rss_before_kb": before, "rss_peak_kb": peak, "rss_after_kb": after}


def main() -> None:  # a quick look: python -m mock_server.stress.hostile
    import sys

    for name in sys.argv[1:] or list(TARGETS):
        with MockProcess(name) as mock:
            outcomes, memory = run(mock, TARGETS[name])
            for o in outcomes:
                print(
                    f"{name:12} {o.status:4} {'ok ' if o.ok else 'BAD'} {o.case:55} {o.elapsed:6.2f}s {o.note} {o.body[:120] if not o.ok else ''}"  # noqa: E501
                )
            print(memory)


if __name__ == "__main__":
    main()
