"""The benchsdk control surface, beside the engine's reset/clock/requests/faults:

    POST /__mock/orgs   {slug?, name?}                        -> 201 {id, slug, name}
    POST /__mock/tokens {org_id?, kind?: "api_key"|"oauth"}   -> 201 {id, token, kind, org_id, org_slug}

A token defaults to an API key of the seeded organization. An OAuth token acts for its
organization when the request names it in `X-Org-Slug` or `X-Organization-Id`.
"""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import Response

from mock_server.control import api_of, json_body, json_response, route
from mock_server.engine import Problem

from .model import catalog

_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


async def create_org(request: Request) -> Response:
    api = api_of(request)
    body = await json_body(request)
    slug = body.get("slug")
    name = body.get("name")
    if slug is None:
        slug = f"org-{len(api.store.orgs) + 1}"
        while api.store.org_by_slug(slug) is not None:
            slug += "-x"
    if not isinstance(slug, str) or not _SLUG.match(slug):
        raise Problem(400, "invalid_argument", "slug: lowercase letters, digits and hyphens", field="slug")
    if name is not None and (not isinstance(name, str) or not name):
        raise Problem(400, "invalid_argument", "name: a non-empty string", field="name")
    org = catalog.create_org(api.store, slug=slug, name=name or slug)
    if api.store.default_org_id is None:  # unseeded: the first organization is the default one
        api.store.default_org_id = org.id
    return json_response({"id": org.id, "slug": org.slug, "name": org.name}, 201)


async def create_token(request: Request) -> Response:
    api = api_of(request)
    body = await json_body(request)
    org_id = body.get("org_id")
    kind = body.get("kind", "api_key")
    if org_id is None:
        org = api.store.orgs.get(api.store.default_org_id or "")
    elif isinstance(org_id, str):
        org = api.store.orgs.get(org_id)
    else:
        raise Problem(400, "invalid_argument", "org_id: a string", field="org_id")
    if org is None:
        raise Problem(
            404, "not_found", f"no organization {org_id!r}" if org_id else "no default organization", field="org_id"
        )
    if not isinstance(kind, str):
        raise Problem(400, "invalid_argument", "kind: 'api_key' or 'oauth'", field="kind")
    token = catalog.mint_token(api.store, org=org, kind=kind, now=api.clock.now())
    return json_response(
        {"id": token.id, "token": token.token, "kind": token.kind, "org_id": org.id, "org_slug": org.slug}, 201
    )


CONTROL_ROUTES = [
    route("/__mock/orgs", create_org, "POST"),
    route("/__mock/tokens", create_token, "POST"),
]
