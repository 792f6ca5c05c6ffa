"""Credentials never reach a drift log or a recording.

Three layers, applied to every string the proxy writes down:

1. the values of the credential headers (`Authorization`, `Cookie`, `Set-Cookie`,
   `X-Api-Key`, and any the spec's `securitySchemes` name as an `apiKey` header);
2. every credential the proxy has seen in this session, wherever it turns up again (a
   token minted by a response and later sent, a secret echoed in a body): each
   distinct value becomes a stable placeholder `[credential #n]`, so a recording can
   still say *which* credential a request carried (replay maps it to a fresh one) without
   carrying it;
3. the runner's redaction patterns (`contracts.runner.report.REDACTIONS`) plus the
   API's own credential formats (its `ContractApi.redactions`), for strings that look
   like credentials though the proxy never saw them used.

JSON bodies also lose the values of secret-named fields (a password, secret, API key,
credential or token; not counts such as `input_tokens`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from contracts.runner.report import REDACTIONS

from .checks import dicts_in

CREDENTIAL_HEADERS = frozenset({"authorization", "cookie", "set-cookie", "x-api-key", "proxy-authorization"})
SECRET_KEY = re.compile(r"(^|_|-)(password|secret|api_?key|apikey|credential|token|cookie)s?$", re.I)
NOT_SECRET = re.compile(
    r"(^|_)(input|output|total|max|num|prompt|completion)_tokens?$|_count$|tokens_used$|page_token$|cursor$", re.I
)
PLACEHOLDER = re.compile(r"\[credential #(\d+)\]")
SCHEMES = re.compile(r"^(Bearer|Token|Basic)\s+", re.I)


class Redactor:
    """Remembers the credentials of one proxy session and scrubs them from text."""

    def __init__(self, patterns: Iterable[tuple[str, str]] = (), headers: Iterable[str] = ()) -> None:
        self.patterns = [(re.compile(p, re.I), r) for p, r in [*REDACTIONS, *patterns]]
        self.headers = CREDENTIAL_HEADERS | {h.lower() for h in headers}
        self.secrets: dict[str, int] = {}

    def learn(self, value: str | None) -> str:
        """Remember a credential; its placeholder."""
        if not value:
            return ""
        value = SCHEMES.sub("", value.strip())
        if len(value) < 6 or PLACEHOLDER.fullmatch(value):
            return value
        number = self.secrets.setdefault(value, len(self.secrets) + 1)
        return f"[credential #{number}]"

    def learn_header(self, name: str, value: str) -> None:
        name = name.lower()
        if name in ("cookie", "set-cookie"):
            for part in value.split(";"):
                _, _, cookie = part.strip().partition("=")
                if cookie and part.strip().split("=", 1)[0].lower() not in ("path", "domain", "expires", "max-age"):
                    self.learn(cookie)
        elif name in self.headers:
            self.learn(value)

    def learn_body(self, data: Any) -> None:
        """Credentials a JSON body carries under secret-named keys (a minted token, a submitted key)."""
        for key, value in _items(data):
            if isinstance(value, str) and _secret_key(key):
                self.learn(value)
        for node in dicts_in(data):
            if _named_secret(node):
                self.learn(node["value"])

    def text(self, text: str) -> str:
        for secret in sorted(self.secrets, key=len, reverse=True):
            if secret in text:
                text = text.replace(secret, f"[credential #{self.secrets[secret]}]")
        for pattern, replacement in self.patterns:
            text = pattern.sub(replacement, text)
        return text

    def header(self, name: str, value: str) -> str:
        if name.lower() in self.headers:
            if name.lower() in ("cookie", "set-cookie"):
                return self.text(value)
            scheme = SCHEMES.match(value.strip())
            placeholder = self.learn(value)
            return f"{scheme.group(0) if scheme else ''}{placeholder}"
        return self.text(value)

    def headers_of(self, headers: dict[str, str]) -> dict[str, str]:
        return {name: self.header(name, value) for name, value in headers.items()}

    def json(self, data: Any) -> Any:
        if isinstance(data, dict):
            named = _named_secret(data)
            return {
                key: (
                    self.learn(value)
                    if isinstance(value, str) and (_secret_key(key) or (named and key == "value"))
                    else self.json(value)
                )
                for key, value in data.items()
            }
        if isinstance(data, list):
            return [self.json(value) for value in data]
        if isinstance(data, str):
            return self.text(data)
        return data


def _secret_key(key: str) -> bool:
    return bool(SECRET_KEY.search(key)) and not NOT_SECRET.search(key) and key.lower() != "value_type"


def _named_secret(node: dict[str, Any]) -> bool:
    """`{"name": "OPENROUTER_API_KEY", "value": "..."}`: a secret stored under its name."""
    name = node.get("name")
    return isinstance(name, str) and isinstance(node.get("value"), str) and _secret_key(name)


def _items(data: Any):
    if isinstance(data, dict):
        for key, value in data.items():
            yield key, value
            yield from _items(value)
    elif isinstance(data, list):
        for value in data:
            yield from _items(value)
