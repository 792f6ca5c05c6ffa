"""The target of this contract run: `current()`, the one target resolver of every API's suite.

The runner (`contracts.runner.cli`) names the API in `HARNESS_CONTRACT_API` and the
options in `HARNESS_CONTRACT_*` (`contracts.runner.safety`). Four target modes:

- **embedded** (the API's URL variable unset): `create_app(api=NAME)` served on a free
  loopback port for the whole run, as `make serve` serves it;
- **served**: the URL of a mock someone served (`make serve`): its `/__mock` control
  surface is found, and the suite makes what it needs through it: the API's `prepare`
  hook mints its own credentials (a given credential is left untouched), else the
  mock's ready credentials (`GET /__mock/credentials`) are used;
- **staging**: a deployment without `/__mock`, with at least one opt-in (writes,
  spend, destructive): its credentials come from the API's variables;
- **production**: the same with no opt-in: the suite sends safe reads and creates
  nothing.

Against a deployment (staging, production) the run is someone's real account:
`RunPolicy` keeps what spends, destroys or changes existing state behind opt-ins and
bounds the request count, and every request goes through `PacedTransport`, which
keeps under the documented rate limits and waits out a `Retry-After`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import httpx

from contracts.runner.connections import http_transport

from . import differential, unique
from .fingerprint import Fingerprint
from .pacing import PacedTransport, Pacer
from .safety import RunPolicy
from .target import LiveServer, has_control_surface

MODES = ("embedded", "served", "staging", "production")


@dataclass
class Session:
    api: str
    base_url: str
    control: bool  # the mock's /__mock control surface is reachable (embedded or served)
    env: dict[str, str]  # credentials, by the variable a client reads them from
    policy: RunPolicy
    pacer: Pacer = field(default_factory=Pacer)
    tokens: dict[str, str] = field(default_factory=dict)  # extra credentials by role ("readonly", ...)
    roles: dict[str, str] = field(default_factory=dict)  # role -> the variable that gives it on a deployment
    server: Any = field(default=None, repr=False)

    @property
    def embedded(self) -> bool:
        """A mock of ours: its control surface exists (the name the suites read)."""
        return self.control

    @property
    def live(self) -> bool:
        """A deployment: someone's account, where the run policy's opt-ins apply."""
        return not self.control

    @property
    def mode(self) -> str:
        if self.server is not None:
            return "embedded"
        if self.control:
            return "served"
        return "staging" if self.policy.opt_ins else "production"

    @property
    def description(self) -> str:
        return f"{self.mode} target at {self.base_url}"

    @property
    def credential(self) -> str:
        """The run's main credential: the first credential variable of the API."""
        return next(iter(self.env.values()), "")

    def client(self, **kwargs: Any) -> httpx.Client:
        """An `httpx.Client` on the target that charges the budget, paces itself under the
        target's rate limits and waits out `Retry-After`."""
        kwargs.setdefault("timeout", 30.0)
        return httpx.Client(base_url=self.base_url, transport=self.transport(), **kwargs)

    def transport(self) -> httpx.BaseTransport:
        """Paced and budgeted; in differential mode also observed by the oracle (`contracts.runner.differential`)."""
        return differential.wrap(self, PacedTransport(self.policy, self.pacer))

    def missing_role(self, role: str) -> str:
        """Why a check needing the credential of `role` cannot run here."""
        variable = self.roles.get(role)
        return f"no {role} credential (set {variable} to widen this check)" if variable else f"no {role} credential"

    # the control surface (mock targets only)
    def control_post(self, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return self._control("POST", path, json=body or {})

    def control_delete(self, path: str) -> httpx.Response:
        return self._control("DELETE", path)

    def control_get(self, path: str) -> httpx.Response:
        return self._control("GET", path)

    def _control(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """A control call, seen by the oracle in differential mode (mirrored there: a clock moved on to wait
        out a throttle moves the oracle's too)."""
        transport = differential.wrap(self, http_transport())
        with httpx.Client(transport=transport, timeout=10) as client:
            return client.request(method, f"{self.base_url}/__mock{path}", **kwargs)

    def advance_clock(self, seconds: float) -> None:
        """Move the mock's clock on by `seconds` (`POST /__mock/clock`)."""
        self.control_post("/clock", {"advance_seconds": seconds}).raise_for_status()

    def mint(self, scopes: list[str] | None = None, **body: Any) -> str:
        """A credential from the mock's `POST /__mock/tokens` (mock targets only)."""
        response = self.control_post("/tokens", {**({"scopes": scopes} if scopes is not None else {}), **body})
        response.raise_for_status()
        return response.json()["token"]

    def close(self) -> None:
        if self.server is not None:
            self.server.__exit__(None, None, None)
            self.server = None


_SESSIONS: dict[str, Session] = {}


def _embedded(api: str) -> tuple[str, dict[str, str], Any]:
    from mock_server.apis import profile as mock_profile
    from mock_server.app import create_app
    from mock_server.state import ids

    # a seed's run is reproducible: the mock's ids and the suite's made-up names follow the seed
    seed = int(os.environ.get("HARNESS_CONTRACT_SEED") or 0)
    ids.reproducible(seed)
    unique.reproducible(seed)
    app = create_app(api=api, **mock_profile(api).serve_options)  # the mock as `make serve` serves it
    server = LiveServer(Fingerprint(app)).__enter__()
    profile = app.state.api.profile
    env = dict(profile.ready_credentials(app.state.api)) if profile.ready_credentials else {}
    return server.url, env, server


def resolve(name: str, environ: dict[str, str] | None = None) -> Session:
    """A new session on API `name`'s target as the environment names it."""
    from contracts.apis import contract

    environ = dict(os.environ if environ is None else environ)
    spec = contract(name)
    url = (environ.get(spec.url_env) or "").rstrip("/")
    # the required credentials, and the optional ones the spec's security schemes read
    variables = dict.fromkeys([*spec.credential_envs, *spec.credentials.values()])
    given = {key: environ[key] for key in variables if environ.get(key)}
    if not url:
        url, env, server = _embedded(spec.mock or name)
        control = True
    else:
        server = None
        control = has_control_surface(url)
        env = given
        if control:
            ready = httpx.get(f"{url}/__mock/credentials", timeout=10)
            env = {**(ready.json() if ready.status_code == 200 else {}), **given}
        missing = [key for key in spec.credential_envs if not env.get(key)]
        if missing and not (control and spec.prepare):
            where = "the mock printed none" if control else "the deployment has no control surface to mint one"
            raise SystemExit(f"{spec.url_env} is set: {', '.join(missing)} must be set too ({where})")
    if spec.differential_front:  # differential mode: every client reaches the target through the oracle's front
        # (the URL itself when the mode is off), so what the suite mints and sends is seen by both sides
        url = differential.through_front(name, url, {k: v for k, v in env.items() if k in spec.credential_envs})
    session = Session(name, url, control, env, RunPolicy.from_env(live=not control, env=environ), server=server)
    session.roles = dict(spec.role_envs)
    if control:  # a wait under the mock's throttles passes on the mock's own clock
        session.pacer.sleep = session.advance_clock
    if control and spec.prepare:
        spec.prepare(session)  # the suite's own fresh account and credentials; a given one is never spent
    elif not control:
        session.tokens.update({role: environ[var] for role, var in spec.role_envs.items() if environ.get(var)})
    return session


def current(api: str | None = None) -> Session:
    """The run's target (resolved once per process and API). `api` names the API when a suite
    runs under plain pytest rather than the runner (which sets `HARNESS_CONTRACT_API`)."""
    name = os.environ.get("HARNESS_CONTRACT_API") or api or ""
    if name not in _SESSIONS:
        _SESSIONS[name] = resolve(name)
    return _SESSIONS[name]


def fingerprint(api: str) -> Fingerprint | None:
    """The digest of what this process's run sent to API `api`'s embedded mock (None: no embedded mock
    served; `contracts.runner.fingerprint`)."""
    served = _SESSIONS.get(api)
    app = getattr(getattr(served, "server", None), "app", None)
    return app if isinstance(app, Fingerprint) else None
