"""Write path §8 (two-step artifact upload) and the artifact reads; the presigned object-store
routes (`PUT {uploadUrl}`, `GET {downloadUrl}`) outside `/api/v1`, which take no bearer token."""

from __future__ import annotations

from datetime import timedelta

from starlette.requests import Request
from starlette.responses import Response

from mock_server.control import route
from mock_server.engine import Ctx
from mock_server.engine.bodies import read_limited

from ..model import artifacts, serialize
from ..model.timefmt import iso
from . import common
from .common import operation


@operation("createWorkerArtifact")
async def create_worker_artifact(ctx: Ctx):
    run, worker = common.worker(ctx, write=True)
    art = artifacts.announce(ctx.store, run=run, worker=worker, body=ctx.body, now=common.now(ctx))
    return {
        "artifactId": art.id,
        "uploadUrl": artifacts.presigned_url(
            ctx.store, common.base_url(ctx), "PUT", art.object_key, art.upload_expires_at
        ),
        "uploadUrlExpiresAt": iso(art.upload_expires_at),
        "objectKey": art.object_key,
        "artifact": serialize.artifact(ctx.store, art),
    }


@operation("listWorkerArtifacts")
async def list_worker_artifacts(ctx: Ctx):
    _, worker = common.worker(ctx)
    rows = [a for a in ctx.store.artifacts.values() if a.worker_id == worker.id]
    return {"items": [serialize.artifact(ctx.store, a) for a in common.listing(ctx, rows)]}


@operation("listRunArtifacts")
async def list_run_artifacts(ctx: Ctx):
    _, run = common.run(ctx)
    rows = ctx.store.run_artifacts(run.id)
    return {"items": [serialize.artifact(ctx.store, a) for a in common.listing(ctx, rows)]}


@operation("getWorkerArtifact")
async def get_worker_artifact(ctx: Ctx):
    _, worker = common.worker(ctx)
    art = artifacts.require_artifact(ctx.store, worker, ctx.path["artifactId"])
    expires = common.now(ctx) + timedelta(seconds=ctx.store.timing.download_url_ttl_seconds)
    return {
        "artifact": serialize.artifact(ctx.store, art),
        "downloadUrl": artifacts.presigned_url(ctx.store, common.base_url(ctx), "GET", art.object_key, expires),
        "downloadUrlExpiresAt": iso(expires),
    }


# ---- the object store (presigned URLs) --------------------------------------------------------


async def put_object(request: Request) -> Response:
    api = request.app.state.api
    api.sync()
    data = await read_limited(request, api.max_body_bytes)  # a body over the cap is 413 before it is read
    artifacts.upload(
        api.store,
        key=request.path_params["key"],
        exp=request.query_params.get("exp"),
        sig=request.query_params.get("sig"),
        content_type=request.headers.get("content-type"),
        data=data,
        now=api.clock.now(),
    )
    return Response(status_code=200)


async def get_object(request: Request) -> Response:
    api = request.app.state.api
    api.sync()
    art = artifacts.download(
        api.store,
        key=request.path_params["key"],
        exp=request.query_params.get("exp"),
        sig=request.query_params.get("sig"),
        now=api.clock.now(),
    )
    # the stored bytes as uploaded: gzip stays gzip (no Content-Encoding), the client gunzips
    media = art.content_type or "application/octet-stream"
    return Response(art.data, status_code=200, headers={"content-type": media})


OBJECT_ROUTES = [
    route(artifacts.UPLOAD_PREFIX + "{key:path}", put_object, "PUT"),
    route(artifacts.DOWNLOAD_PREFIX + "{key:path}", get_object, "GET"),
]
