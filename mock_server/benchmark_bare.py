"""The bench's ceiling: a bare Starlette app answering a constant body.

`BENCH_BODY` names a file holding the body (the same bytes the mock answered),
`BENCH_STATUS` its status. Used only by `mock_server.benchmark`.
"""

import os

from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

BODY = open(os.environ.get("BENCH_BODY", os.devnull), "rb").read()  # noqa: SIM115
STATUS = int(os.environ.get("BENCH_STATUS", "200"))


async def constant(request):
    await request.body()
    return Response(BODY, STATUS, media_type="application/json")


app = Starlette(routes=[Route("/{rest:path}", constant, methods=["GET", "POST"])])
