"""The APIs the proxy knows: per API, where its contract package lives (claims, credential
formats), its per-response conventions check and, if it opts in, how a recording seeds it.

Everything is named by string and imported only when that API is proxied, so the proxy (generic
code) imports no API package. Adding an API is one `ProxyApi(...)` line; an API without a
conventions check still gets every generic check.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .checks import Exchange

Conventions = Callable[[Exchange, Iterable[str]], list[tuple[str, str]]]


def _attr(target: str) -> Any:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def _authenticated(exchange: Exchange) -> bool | None:
    headers = exchange.request_headers
    if "authorization" not in headers and "bw_session=" not in headers.get("cookie", ""):
        return False
    return None if exchange.status == 401 else True


def benchwright(exchange: Exchange, secrets: Iterable[str]) -> list[tuple[str, str]]:
    check = _attr("contracts.benchwright.conventions:response_findings")
    assert exchange.operation is not None
    body = b"" if exchange.stream else exchange.response_body
    return check(exchange.operation.raw, exchange.status, exchange.response_headers, body, _authenticated(exchange))


def benchsdk(exchange: Exchange, secrets: Iterable[str]) -> list[tuple[str, str]]:
    check = _attr("contracts.benchsdk.conventions:check")
    assert exchange.operation is not None
    found = check(exchange.operation.raw, exchange.status, exchange.response_headers, exchange.json_response())
    return [(v.claim, v.message) for v in found]


def benchgen(exchange: Exchange, secrets: Iterable[str]) -> list[tuple[str, str]]:
    check = _attr("contracts.benchgen.conventions:check")
    assert exchange.operation is not None
    text = exchange.response_body.decode("utf-8", "replace")
    found = check(
        exchange.operation.raw,
        exchange.status,
        exchange.response_headers,
        exchange.json_response(),
        tuple(secrets),
        text,
    )
    return [(v.claim, v.message) for v in found]


@dataclass(frozen=True)
class ProxyApi:
    name: str
    contract: str | None = None  # module holding the API's `ContractApi` as CONTRACT
    conventions: Conventions | None = None
    seeder: str | None = None  # "module:function" of its `seed_from_recording`

    def contract_api(self) -> Any:
        if self.contract is None:
            return None
        try:
            return importlib.import_module(self.contract).CONTRACT
        except (ImportError, AttributeError):
            return None

    def claims(self) -> list[Any]:
        contract = self.contract_api()
        return contract.claim_list() if contract is not None and hasattr(contract, "claim_list") else []

    def redactions(self) -> tuple[tuple[str, str], ...]:
        contract = self.contract_api()
        return tuple(getattr(contract, "redactions", ()) or ())


PROXY_APIS: dict[str, ProxyApi] = {
    "benchwright": ProxyApi("benchwright", "contracts.benchwright", benchwright),
    "benchsdk": ProxyApi("benchsdk", "contracts.benchsdk", benchsdk),
    "benchgen": ProxyApi("benchgen", "contracts.benchgen", benchgen, seeder="contracts.proxy.seed:seed_benchgen"),
    "bench": ProxyApi("bench", "contracts.bench"),
}


def proxy_api(name: str) -> ProxyApi:
    return PROXY_APIS.get(name) or ProxyApi(name)


def seeder(name: str) -> Callable[..., Any]:
    chosen = proxy_api(name)
    if chosen.seeder is None:
        raise ValueError(f"the {name} mock cannot be seeded from a recording (no seeder registered)")
    return _attr(chosen.seeder)
