"""schemathesis' own requests through the oracle: its `case.call` sends with `requests`, so in
differential mode the generic conformance (the stateless cases and the links state machine) is given a
`requests.Session` whose adapter sends through the session's `DifferentialTransport`. Every case the
run's policy lets reach the target is then also replayed on the oracle and compared, in the same
engine (one pairing, one oracle state) as the suite's own clients."""

from __future__ import annotations

import io

import httpx
import requests
from requests.adapters import HTTPAdapter
from urllib3 import HTTPResponse
from urllib3._collections import HTTPHeaderDict

DEFAULT_TIMEOUT = 30.0
DECODED = frozenset({"content-encoding", "content-length"})


class TransportAdapter(HTTPAdapter):
    """A `requests` adapter over an httpx transport: the prepared request as sent, the answer as received
    (headers repeated as they came, cookies extracted by `requests` as usual)."""

    def __init__(self, transport: httpx.BaseTransport) -> None:
        super().__init__()
        self.transport = transport

    def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
        body = request.body
        if isinstance(body, str):
            body = body.encode("utf-8")
        elif body is not None and not isinstance(body, bytes):
            body = b"".join(body)
        headers = list(request.headers.items())
        outgoing = httpx.Request(request.method, request.url, headers=headers, content=body or b"")
        seconds = timeout if isinstance(timeout, int | float) else DEFAULT_TIMEOUT
        outgoing.extensions["timeout"] = httpx.Timeout(seconds).as_dict()
        try:
            answer = self.transport.handle_request(outgoing)
            content = answer.read()
        except httpx.TimeoutException as error:
            raise requests.exceptions.Timeout(str(error), request=request) from error
        except httpx.HTTPError as error:
            raise requests.exceptions.ConnectionError(str(error), request=request) from error
        # the content is decoded already: its encoding and length are the decoded body's
        headers = HTTPHeaderDict([(k, v) for k, v in answer.headers.multi_items() if k.lower() not in DECODED])
        if "content-length" in answer.headers:
            headers["content-length"] = str(len(content))
        raw = HTTPResponse(
            body=io.BytesIO(content),
            headers=headers,
            status=answer.status_code,
            reason=answer.reason_phrase,
            version=11,
            preload_content=False,
            decode_content=False,
        )
        return self.build_response(request, raw)

    def close(self) -> None:
        self.transport.close()
        super().close()


def requests_session(transport: httpx.BaseTransport) -> requests.Session:
    """A `requests.Session` sending every request through `transport`."""
    session = requests.Session()
    # the transport chooses the route: requests' own lookups in the environment (proxies, .netrc, a CA bundle),
    # made on every request, do not apply to it (about 5 s of a Benchwright differential run)
    session.trust_env = False
    adapter = TransportAdapter(transport)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session
