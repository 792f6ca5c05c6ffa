"""The reference claims the suite verifies, each with its section and one line.

Failures name a claim, so the drift report can group them by what the reference
promised rather than by which test happened to notice. Schema-level failures found
by schemathesis map to the `spec.*` claims, with the operation's own section.
"""

from __future__ import annotations

from contracts.runner.claims import SPEC_CLAIMS, Claim, Drift, register

__all__ = ["CLAIMS", "Claim", "Drift"]

CLAIMS = {
    claim.id: claim
    for claim in [
        Claim(
            "headers.request_id",
            "§1",
            "every response carries X-Benchwright-Request-Id and X-Benchwright-Api-Version: 1",
        ),
        Claim("timestamps.rfc3339", "§3.2", "timestamps are RFC 3339 strings in UTC; durations are `_ms` integers"),
        Claim("money.shape", "§3.3", "money is whole integer cents with an ISO-4217 currency; amount_usd is exact"),
        Claim("etag.weak", "§3.8", 'ETags are weak: W/"<id>:<updated_at epoch ms>"'),
        # the conventions check's findings, one clause each (contracts/benchwright/clauses.py `via`)
        Claim("headers.api_version", "§1", "every response carries X-Benchwright-Api-Version: 1"),
        Claim("timestamps.duration_ms", "§3.2", "duration fields (`_ms`) are integers"),
        Claim("money.currency", "§3.3", "a money object's currency is an ISO-4217 code"),
        Claim("money.rounding", "§3.3", "amount_cents is amount_usd rounded up"),
        Claim("errors.status_member", "§3.9", "a problem's status member is the HTTP status"),
        Claim("errors.problem_fields", "§3.9", "a problem carries all its standard members"),
        Claim("errors.code_documented", "§14", "an error's code is one the reference documents for the operation"),
        Claim("ratelimit.values", "§13", "X-RateLimit-* values are whole numbers; Remaining never exceeds Limit"),
        Claim("ratelimit.anonymous", "§13", "anonymous answers and 401s carry no X-RateLimit-* headers"),
        Claim("errors.problem", "§3.9", "errors are problem+json carrying a `code` documented for the operation"),
        Claim("ratelimit.headers", "§13", "X-RateLimit-* headers on authenticated responses only"),
        Claim(
            "idempotency.replay", "§3.7", "a retry with the same Idempotency-Key replays with Idempotent-Replayed: true"
        ),
        Claim("idempotency.conflict", "§3.7", "the same key with a different body or path is 409 idempotency_conflict"),
        Claim("idempotency.length", "§3.7", "keys longer than 256 characters are 400 invalid_argument"),
        Claim("etag.if_match", "§3.8", "a stale If-Match is 412 precondition_failed with the current ETag; * matches"),
        Claim("etag.ignored", "§3.8", "routes documented as ignoring If-Match accept a stale one"),
        Claim("pagination.traversal", "§3.4", "following next_page_token yields each item exactly once, with no total"),
        Claim("pagination.clamp", "§3.4", "a limit above the documented maximum is silently clamped, not rejected"),
        Claim("pagination.default", "§3.4", "an omitted limit means the documented default page size"),
        Claim("scopes.enforced", "§2.2", "a token lacking the scope gets 403 scope_insufficient naming required_scope"),
        Claim("auth.revoked", "§2.4", "a revoked token gets 401 auth_required"),
        Claim("auth.expired", "§2.4", "an expired token gets 401 token_expired with expired_at"),
        Claim("sse.resume", "§5.2", "an SSE stream resumes strictly after Last-Event-ID (or ?last_event_id=)"),
        Claim("sse.shape", "§5.2", "SSE `id:` is the bare seq, `event:` the type, folded into data as `type`"),
        Claim("sse.finish", "§5.2", "a terminal run's stream ends with event run.finished and closes"),
        Claim("sse.dedupe", "§5.3", "event ids are unique within a stream, in seq order"),
        Claim(
            "lifecycle.display_status", "§4.1.1", "display_status follows status, halted and halt_reason as tabulated"
        ),
        Claim("filters.unknown", "§3.5", "unknown filter keys are silently ignored, not rejected"),
        Claim("runs.filter", "§4.5", "the run list's status and visibility filters match exactly (and `in:` sets)"),
        Claim("artifacts.filter", "§6.1", "the artifact list's type filter returns only that type"),
        Claim("tasks.filter", "§7.1", "the task list's passed filter returns only rows with that passed"),
        Claim("ids.shape", "§3.1", "ids have the documented shape per resource (UUID, txn_ + UUID, content hash)"),
        Claim(
            "visibility.anonymous",
            "§2.2",
            "registry reads and public or unlisted runs' read surface serve anyone; private runs' never do",
        ),
        Claim("artifacts.active_content", "§6.3", "active content is served as text/plain with nosniff"),
        Claim("tasks.error_class", "§7.1", "error_class is derived, never null, one of the documented buckets"),
        Claim("tasks.timestamp", "§7.1", "a task row's timestamp is epoch milliseconds, not an ISO string"),
        Claim("tasks.passed", "§7.1", "passed is score >= 1.0"),
        Claim("secrets.no_value", "§9.1", "secret values are write-only: no list or detail returns them"),
        Claim("tokens.no_value", "§2.4", "a token's value is shown once at creation and never again"),
        Claim("lifecycle.transitions", "§4.6", "halt, pause and resume move a run as §4.6 and §4.11 state"),
        Claim(
            "idempotency.scope",
            "§3.7",
            "keys are scoped to the caller: another token's use of a key is neither a replay nor a conflict",
        ),
        Claim(
            "idempotency.in_flight",
            "§3.7",
            "a retry while the first request is in flight is 409 idempotency_conflict, never a second execution",
        ),
        Claim("idempotency.rotation", "§3.7", "rotating a PAT invalidates the idempotency keys tied to it"),
        Claim("etag.star", "§3.8", "If-Match: * matches the current row on every route the spec marks x-if-match"),
        Claim("etag.moves", "§3.8", "a resource's ETag moves on every change, so a tag read before it is stale"),
        Claim(
            "ratelimit.counters",
            "§13",
            "X-RateLimit-Remaining counts down the account's bucket, shared by its PATs, as /users/me/rate-limits says",
        ),
        Claim("ratelimit.exceeded", "§13", "past the quota a request is 429 rate_limited with Retry-After in seconds"),
        Claim("sse.keepalive", "§5.2", "an idle stream sends `event: ping` keep-alives at the documented interval"),
        Claim("auth.rotation", "§2.4", "after a rotation the new value authenticates and the old one is 401 at once"),
        Claim(
            "auth.precedence",
            "§2.4",
            "a named PAT is answered about even beside a session cookie; a non-token string falls through to it",
        ),
        Claim(
            "auth.session_only",
            "§2.4",
            "session-only operations refuse a PAT with 403 scope_insufficient and serve the browser session",
        ),
        Claim(
            "billing.ledger",
            "§10.4",
            "ledger rows chain (balance_after = previous + delta) and the newest is the balance of §10.1",
        ),
        Claim(
            "billing.month_spent",
            "§10.6",
            "month_spent, the usage trend's current month and the month's debits are the same ledger rows",
        ),
        Claim("tokens.spending", "§2.4", "a token's spent_cents_period is what GET /v1/tokens/{id}/spending says"),
        # sections whose checks name their clauses (contracts/benchwright/clauses.py): `Drift("§5.1#2", ...)`
        Claim("§2.4", "§2.4", "token listing and introspection: who the credential is, its scopes, expiry"),
        Claim("§5.1", "§5.1", "the events listing: seq order, bounds, order, type filters"),
        Claim("§4.2.1", "§4.2.1", "a natural-language launch (`request`) is accepted"),
        Claim("§4.2.2", "§4.2.2", "a pinned launch (`benchmark`) runs that catalog benchmark"),
        Claim("§4.2.3", "§4.2.3", "a replay shares its parent's benchmark, subset and impl"),
        Claim("§4.2.4", "§4.2.4", "every launch mode answers one 202 shape: id, status, mode, links"),
        Claim("§4.2.5", "§4.2.5", "preflight errors are synchronous, carry their codes and create no run"),
        Claim("runs.cost", "§4.1", "incurred = driver + model + sandbox; billed = driver + sandbox + narration"),
        Claim("tasks.summary", "§7.1", "the task summary's counts and pass_rate agree with each other and the rows"),
    ]
}

CLAIMS.update({claim.id: claim for claim in SPEC_CLAIMS})
register(CLAIMS.values())

# the per-resource claims (§4.3 to §17), in their own module; it adds itself to CLAIMS
from contracts.benchwright import section_claims  # noqa: E402,F401

# the sections whose checks name a clause of theirs (`Drift("§4.7#2", ...)`) or the section itself
from contracts.benchwright.clauses import SECTIONS  # noqa: E402

register(Claim(section, section, text) for section, text in SECTIONS.items() if section not in CLAIMS)
CLAIMS.update({section: Claim(section, section, text) for section, text in SECTIONS.items() if section not in CLAIMS})
