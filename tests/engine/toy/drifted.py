"""The toy API with one drift: a missing widget answers a code its spec does not document."""

from dataclasses import replace

from mock_server.engine import Ctx, Handlers, Problem

from .contract import CONTRACT
from .profile import PROFILE

handlers = Handlers()
for operation_id in PROFILE.handlers:
    if operation_id != "getWidget":
        handlers(operation_id)(PROFILE.handlers.get(operation_id))


@handlers("getWidget")
async def get_widget(ctx: Ctx) -> dict:
    widget = ctx.store.widgets.get(ctx.path["id"])
    if widget is None:
        raise Problem(404, "widget_gone", "No such widget.")
    return {"id": widget.id, "name": widget.name, "client_key": widget.client_key, "size": widget.size}


PROFILE = replace(PROFILE, handlers=handlers)
CONTRACT = replace(CONTRACT, name="tests.engine.toy.drifted:CONTRACT", mock="tests.engine.toy.drifted:PROFILE")
