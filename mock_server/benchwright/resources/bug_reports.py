"""Bug reports (§12): "Authenticated users can file a bug against any run they
can see. Reports go to the Benchwright team's triage queue."

`description` is capped at 8000 characters by the spec (`maxLength`, so a longer
one is `400 invalid_argument`); a `trace_id` the caller cannot see is `404`,
exactly as reading that run would be. Reports are stored in
`store.bug_reports` (`BugReport`).
"""

from __future__ import annotations

from mock_server.benchwright.model.present import present, schema
from mock_server.benchwright.model.rows import BugReport
from mock_server.benchwright.model.runs import readable_run
from mock_server.benchwright.resources import handler
from mock_server.benchwright.store import new_id
from mock_server.engine import Ctx, Reply


@handler("createBugReport")
async def create_bug_report(ctx: Ctx) -> Reply:
    body = ctx.body
    trace_id = body.get("trace_id")
    if trace_id is not None:
        readable_run(ctx.store, ctx.user, trace_id)
    report = BugReport(
        id=new_id(),
        user_id=ctx.user.id,
        description=body["description"],
        trace_id=trace_id,
        status="open",
        created_at=ctx.store.clock.now(),
    )
    ctx.store.bug_reports[report.id] = report
    return Reply(present(report, schema(ctx.api.spec, "BugReport")), status=201)
