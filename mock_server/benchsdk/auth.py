"""Auth (reference: Transport & conventions, Auth): `Authorization: Bearer <token>`, where the
token is an org-scoped API key (`bp_…`) or an OAuth token sent with `X-Org-Slug` or
`X-Organization-Id` (A-02..A-04)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mock_server.engine import ANONYMOUS, Principal, Problem

if TYPE_CHECKING:
    from starlette.requests import Request

    from mock_server.engine import Api
    from mock_server.engine.compile import Operation

# the spec's security scheme that admits each credential kind
SCHEME_OF_KIND = {"api_key": "apiKey", "oauth": "oauth"}


@dataclass(slots=True)
class OrgPrincipal(Principal):
    """A caller acting for one organization."""

    org_id: str = ""
    org_slug: str = ""


class BenchsdkAuth:
    def authenticate(self, request: Request, api: Api) -> Principal:
        header = request.headers.get("authorization")
        if header is None:
            return ANONYMOUS
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise Problem(401, "unauthenticated", "Authorization must be 'Bearer <token>'.")
        store = api.store
        row = store.tokens.get(token)
        if row is None:
            raise Problem(401, "unauthenticated", "The bearer token is not a known API key or OAuth token.")
        if row.kind == "api_key":
            org = store.orgs[row.org_id]  # the key implies its org; org headers are ignored
        else:
            slug = request.headers.get("x-org-slug")
            org_id = request.headers.get("x-organization-id")
            if not slug and not org_id:
                raise Problem(
                    400,
                    "org_required",
                    "An OAuth request must name its organization in X-Org-Slug or X-Organization-Id.",
                )
            org = store.org_by_slug(slug) if slug else store.orgs.get(org_id or "")
            if org is None or org.id != row.org_id:
                named = f"slug {slug!r}" if slug else f"id {org_id!r}"
                raise Problem(
                    403, "org_forbidden", f"The token's user is not a member of the organization with {named}."
                )
        return OrgPrincipal(kind=row.kind, subject=org.id, credential_id=row.id, org_id=org.id, org_slug=org.slug)

    def authorize(self, op: Operation, principal: Principal, api: Api) -> None:
        if op.security.anonymous:
            return
        alternatives = op.security.alternatives
        if not principal.authenticated:
            raise Problem(
                401, "unauthenticated", "This operation needs Authorization: Bearer <API key or OAuth token>."
            )
        scheme = SCHEME_OF_KIND.get(principal.kind)
        if not any(scheme in alt for alt in alternatives):
            raise Problem(401, "unauthenticated", f"A {principal.kind} credential is not accepted by this operation.")
