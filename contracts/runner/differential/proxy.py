"""The validating proxy's oracle (`make proxy ... ORACLE=1`, `--oracle`): every exchange the proxy
relayed (buffered ones; streams pass unobserved) is replayed on an oracle mock of the same API and
compared; each difference becomes a violation of the operation's claim (its `x-reference` section or
`x-claims` id, else `differential`) in the drift log, named `behavioural drift`.

Every call of the proxied client passes through the proxy (control calls too), so credentials the
client sends reach the oracle as sent, mapped only where the API's credential variables are set
(the target's value onto the oracle's ready credential of the same variable)."""

from __future__ import annotations

import os
from typing import Any

import anyio
import httpx

from .engine import Engine


class ProxyOracle:
    def __init__(self, api: str, upstream: str) -> None:
        from contracts.apis import CONTRACT_APIS, contract

        credentials: dict[str, str] = {}
        if api in CONTRACT_APIS:
            credentials = {k: os.environ[k] for k in contract(api).credential_envs if os.environ.get(k)}
        from .oracle import clock_of

        scale, now = clock_of(upstream)
        self.upstream = upstream.rstrip("/")
        self.engine = Engine(api, self.upstream, credentials, mock=api, clock_scale=scale, adopt_credentials=False)
        for side in self.engine.sides:
            if now is not None and scale:  # a mock upstream whose clock runs: level with it, or just ahead
                side.oracle.follow(self.upstream)
            else:
                side.oracle.catch_up(now)

    async def differences(self, exchange: Any) -> list[tuple[str, str]]:
        """(claim, message) for each difference the oracle's answer to this exchange shows."""
        if exchange.stream is not None or exchange.error is not None:
            return []
        url = self.upstream + exchange.path + (f"?{exchange.query}" if exchange.query else "")
        request = httpx.Request(exchange.method, url, headers=exchange.request_headers, content=exchange.request_body)
        response = httpx.Response(exchange.status, headers=exchange.response_headers, content=exchange.response_body)
        found = await anyio.to_thread.run_sync(self.engine.observe, request, response)
        return [(d.claim, f"behavioural drift ({d.aspect}): {d.detail}") for d in found]

    def close(self) -> None:
        """The oracles stopped (lifecycle verdicts need a session's end: the contract run reports them)."""
        self.engine.finish()
