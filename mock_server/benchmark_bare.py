"""The bench's ceiling: a bare Starlette app answering a constant response.

`BENCH_BODY` names a file holding the body (the same bytes the mock answered),
`BENCH_STATUS` its status, and `BENCH_HEADERS` (a JSON list of `[name, value]`
pairs, empty by default) the header lines it adds to those the server and
Starlette write, so it can answer the mock's whole response, not only its body;
`mock_app()` is the mock of `BENCH_API` as an app factory. Used only by
`mock_server.benchmark`.
"""

import json
import os

from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

BODY = open(os.environ.get("BENCH_BODY", os.devnull), "rb").read()  # noqa: SIM115
STATUS = int(os.environ.get("BENCH_STATUS", "200"))
HEADERS = [
    (name.encode("latin-1"), value.encode("latin-1"))
    for name, value in json.loads(os.environ.get("BENCH_HEADERS", "[]"))
]


async def constant(request):
    await request.body()
    response = Response(BODY, STATUS, media_type="application/json")
    response.raw_headers.extend(HEADERS)
    return response


app = Starlette(routes=[Route("/{rest:path}", constant, methods=["GET", "POST"])])


def mock_app():
    """The mock of `BENCH_API` (clock frozen), built as `python -m mock_server` builds it, for
    servers that import an app factory (granian `--factory`)."""
    import gc

    from mock_server.apis import profile
    from mock_server.app import build_app
    from mock_server.engine.api import Api

    chosen = profile(os.environ.get("BENCH_API", "benchwright"))
    api = Api(chosen, chosen.config(**{**chosen.serve_options, "clock_scale": 0.0}))
    if chosen.ready_credentials:
        chosen.ready_credentials(api)  # seeds the ready token, as the banner of `python -m mock_server` does
    built = build_app(api)
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    return built
