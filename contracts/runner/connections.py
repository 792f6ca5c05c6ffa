"""The suite's connections to a target over HTTP: one TLS context for all of them.

httpx builds a TLS context for every transport it makes, loading the whole CA bundle each time (about 35 ms),
even for a plain `http://` target. A run makes a transport per session and per control call (hundreds in a
Benchwright profile: about 10 s of a differential run went there), so every transport the suite makes shares
one context, built once, honouring `SSL_CERT_FILE` / `SSL_CERT_DIR` as httpx does.
"""

from __future__ import annotations

import ssl
from functools import cache
from typing import Any

import httpx


@cache
def tls_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()


def http_transport(**options: Any) -> httpx.HTTPTransport:
    """An `httpx.HTTPTransport` on the shared TLS context."""
    return httpx.HTTPTransport(verify=tls_context(), **options)
