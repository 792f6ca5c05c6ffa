"""Bug reports (§12): "Authenticated users can file a bug against any run they
can see. Reports go to the Benchwright team's triage queue."

`description` is capped at 8000 characters by the spec (`maxLength`, so a longer
one is `400 invalid_argument`); a `trace_id` the caller cannot see is `404`,
exactly as reading that run would be. Reports are stored in
`store.table("bug_reports")`.
"""

from __future__ import annotations

from mock_server.benchwright.resources import handler
from mock_server.benchwright.resources.runs import readable_run
from mock_server.benchwright.store import new_id
from mock_server.engine import Ctx, Reply


@handler("createBugReport")
async def create_bug_report(ctx: Ctx) -> Reply:
    body = ctx.body
    trace_id = body.get("trace_id")
    if trace_id is not None:
        readable_run(ctx, trace_id)
    report = {
        "id": new_id(),
        "user_id": ctx.user.id,
        "description": body["description"],
        "trace_id": trace_id,
        "status": "open",
        "created_at": ctx.store.clock.now(),
    }
    ctx.store.table("bug_reports")[report["id"]] = report
    return Reply({"id": report["id"], "status": report["status"]}, status=201)
