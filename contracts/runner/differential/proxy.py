"""The validating proxy's oracle (`make proxy ... ORACLE=1`, `--oracle`): every exchange the proxy
relayed (buffered ones; streams pass unobserved) is replayed on an oracle mock of the same API and
compared; each difference becomes a violation of the operation's claim (its `x-reference` section or
`x-claims` id, else `differential`) in the drift log, named `behavioural drift`.

Every call of the proxied client passes through the proxy (control calls too), so credentials the
client sends reach the oracle as sent, mapped only where the API's credential variables are set
(the target's value onto the oracle's ready credential of the same variable).

Exchanges are compared in the order they complete. For exchanges of one client session that did not
overlap, that is the order they were sent in. Two that overlapped (a client sending its next request
before the answer to the last) are both replayed, so the oracle's state follows, but not compared: the
order the target served them in is known to nobody, not even by the order they were sent in, and
replaying in send order would hold back each answer until every earlier one of its session came back
(a slow request would delay all that follow it). The contract run's engine treats overlaps the same way."""

from __future__ import annotations

import os
import threading
from typing import Any

import anyio
import httpx

from .engine import CREDENTIAL_HEADERS, Engine, InFlight


def _session(headers: dict[str, str]) -> str:
    """A client session, as the proxy can tell one: the credentials its requests carry."""
    return "|".join(headers.get(name, "") for name in CREDENTIAL_HEADERS)


class ProxyOracle:
    def __init__(self, api: str, upstream: str) -> None:
        from contracts.apis import CONTRACT_APIS, contract

        credentials: dict[str, str] = {}
        account = None
        if api in CONTRACT_APIS:
            credentials = {k: os.environ[k] for k in contract(api).credential_envs if os.environ.get(k)}
            account = contract(api).differential_account
        from .oracle import clock_of

        scale, now = clock_of(upstream)
        self.upstream = upstream.rstrip("/")
        self.engine = Engine(api, self.upstream, credentials, mock=api, clock_scale=scale, adopt_credentials=False)
        self.lock = threading.Lock()
        self.in_flight: dict[str, list[InFlight]] = {}  # client session -> its exchanges in flight
        self.engine.meet(self.upstream, scale, now, credentials, account)

    def begin(self, exchange: Any) -> InFlight:
        """An exchange on its way upstream: it overlaps every other one of the same client session (the same
        credentials) in flight, and they it."""
        key = _session(exchange.request_headers)
        mine = InFlight()
        with self.lock:
            flying = self.in_flight.setdefault(key, [])
            if flying:
                mine.overlapped = True
                for other in flying:
                    other.overlapped = True
            flying.append(mine)
        exchange.oracle_ticket = (key, mine)
        return mine

    def end(self, exchange: Any) -> bool:
        """The exchange answered (or failed): whether it overlapped another of its session. Idempotent."""
        ticket = getattr(exchange, "oracle_ticket", None)
        if ticket is None:
            return bool(getattr(exchange, "oracle_overlapped", False))
        key, mine = ticket
        exchange.oracle_ticket = None
        with self.lock:
            flying = self.in_flight.get(key, [])
            if mine in flying:
                flying.remove(mine)
        exchange.oracle_overlapped = mine.overlapped
        return mine.overlapped

    async def differences(self, exchange: Any) -> list[tuple[str, str]]:
        """(claim, message) for each difference the oracle's answer to this exchange shows. An exchange that
        overlapped another of the same client session is replayed (the oracle's state follows) but not
        compared: the order the target served the two in is unknown."""
        concurrent = self.end(exchange)
        if exchange.stream is not None or exchange.error is not None:
            return []
        url = self.upstream + exchange.path + (f"?{exchange.query}" if exchange.query else "")
        request = httpx.Request(exchange.method, url, headers=exchange.request_headers, content=exchange.request_body)
        response = httpx.Response(exchange.status, headers=exchange.response_headers, content=exchange.response_body)
        found = await anyio.to_thread.run_sync(lambda: self.engine.observe(request, response, concurrent))
        return [(d.claim, f"behavioural drift ({d.aspect}): {d.detail}") for d in found]

    def close(self) -> None:
        """The oracles stopped (lifecycle verdicts need a session's end: the contract run reports them)."""
        self.engine.finish()
