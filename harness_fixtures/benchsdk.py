"""`BenchsdkControl`: the benchsdk mock's own `/__mock` routes (`mock_server/benchsdk/control.py`).

There is no route that finishes a run: on this API a run ends through its workers' own calls
(the final task-result batch, `complete`), which a client test makes through the API itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from .control import MockControl, Token


@dataclass(frozen=True)
class Org:
    id: str
    slug: str
    name: str


class BenchsdkControl(MockControl):
    def create_org(self, slug: str | None = None, name: str | None = None) -> Org:
        body = self.call("POST", "/orgs", {"slug": slug, "name": name})
        return Org(body["id"], body["slug"], body["name"])

    def mint_token(self, kind: str = "api_key", *, org_id: str | None = None) -> Token:
        """An API key (`kind="api_key"`) or an OAuth token (`"oauth"`: it acts for its organization
        when the request names it in `X-Org-Slug`) of `org_id` (the seeded `acme` unless told)."""
        body = self.call("POST", "/tokens", {"kind": kind, "org_id": org_id})
        return Token(body["id"], body["token"], body["kind"], body)
