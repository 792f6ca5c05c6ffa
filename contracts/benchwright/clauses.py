"""The clauses of Benchwright's reference sections: each statement of a section that a server
could break alone. A section not split here is one clause. A check asserts a clause by citing
its id (`"§2.4#1"`) or one of the suite claim ids the clause lists in `via` (the suite claim's
checks assert exactly that clause), so a suite claim names at most one clause.

Sections are walked in the reference's order. A section whose clauses are not listed is read as
one statement, the one its checks assert (docs/benchwright.md names them and why)."""

from __future__ import annotations

from contracts.runner.claims import Clause

CLAUSES = [
    # §1 Versioning and headers
    Clause("§1#1", "every response carries X-Benchwright-Request-Id", via=("headers.request_id",)),
    Clause("§1#2", "every response carries X-Benchwright-Api-Version: 1", via=("headers.api_version",)),
    # §2.0 Two prefixes
    Clause("§2.0#1", "/api expects a browser session: a PAT there is 401 while /v1 serves it"),
    # (its other statement, that a few /v1 operations refuse PATs, is §2.4#11)
    # §2.1 Personal access tokens
    Clause("§2.1#1", "a token's value has the bw_live_pat_ shape"),
    Clause("§2.1#2", "rotate produces a fresh value under the same id"),
    Clause("§2.1#3", "last_used_at is bumped by an authenticated request: set once the token has authenticated"),
    Clause(
        "§2.1#4",
        "the server keeps only SHA-256(token)",
        checkable=False,
        reason="storage: no HTTP answer shows what the server keeps",
    ),
    Clause(
        "§2.1#5",
        "revoked tokens are soft-deleted so audit queries keep them",
        checkable=False,
        reason="audit storage: a revoked row is surfaced nowhere (no revoked_at, filtered out of the list)",
    ),
    # §2.2 Scopes
    Clause(
        "§2.2#1", "a token lacking the scope is 403 scope_insufficient naming required_scope", via=("scopes.enforced",)
    ),
    Clause("§2.2#2", "registry reads serve an anonymous caller", via=("visibility.anonymous",)),
    Clause("§2.2#3", "a public or unlisted run's read surface serves an anonymous caller"),
    Clause("§2.2#4", "a private run's read surface never serves an anonymous caller"),
    # §2.3 Provider credentials
    Clause("§2.3#1", "rotating a provider key in the Secrets API leaves the PAT working"),
    Clause("§2.3#2", "rotating a PAT leaves the provider secrets untouched"),
    # §2.4 Token lifecycle
    Clause("§2.4#1", "GET /v1/tokens/me answers with a PAT: auth type, user id, email, role, full access"),
    Clause("§2.4#2", "GET /v1/tokens/me lists exactly the scopes this token holds"),
    Clause("§2.4#3", "GET /v1/tokens lists the caller's tokens as metadata; a token's value is never echoed"),
    Clause("§2.4#4", "the full value is returned once, in create and rotate", via=("tokens.no_value",)),
    Clause("§2.4#5", "a revoked token is filtered out of the list"),
    Clause("§2.4#6", "an expired token stays in the list with expired: true"),
    Clause("§2.4#7", "an expired token is refused with 401 token_expired and expired_at", via=("auth.expired",)),
    Clause("§2.4#8", "a revoked token is refused with 401 auth_required", via=("auth.revoked",)),
    Clause("§2.4#9", "rotation keeps id and scopes; the old value is 401 at once", via=("auth.rotation",)),
    Clause("§2.4#10", "a named PAT is answered about even beside a session cookie", via=("auth.precedence",)),
    Clause("§2.4#11", "token mutation with a PAT is 403 scope_insufficient", via=("auth.session_only",)),
    Clause("§2.4#12", "spent_cents_period equals GET /v1/tokens/{id}/spending", via=("tokens.spending",)),
    Clause("§2.4#13", "the session-only refusal names the bare operation in detail and carries no required_scope"),
    Clause("§2.4#14", "the browser session is served on the session-only operations"),
    # §2.5 Teams
    Clause("§2.5#1", "GET /v1/teams/me answers team, members, invites, balance, is_owner; team null without one"),
    Clause("§2.5#2", "billing-, token- and secret-shaped answers carry meta.payer, the wallet the call bills to"),
    Clause("§2.5#3", "creating a team while on one is 409 already_on_team"),
    # §3.1 Identifiers
    Clause("§3.1#1", "run ids are bare UUIDs", via=("ids.shape",)),
    Clause("§3.1#2", "ledger row ids are txn_ + UUID"),
    Clause("§3.1#3", "subset and impl ids end in ':' and the first 12 hex characters of their content hash"),
    # §3.2 Timestamps
    Clause("§3.2#1", "timestamps are RFC 3339 strings with a UTC offset", via=("timestamps.rfc3339",)),
    Clause("§3.2#2", "duration fields (`_ms`) are integers, never floats", via=("timestamps.duration_ms",)),
    # §3.3 Money
    Clause("§3.3#1", "amount_cents is a whole-cent integer", via=("money.shape",)),
    Clause("§3.3#2", "currency is an ISO-4217 code", via=("money.currency",)),
    Clause(
        "§3.3#3", "amount_cents is amount_usd rounded up: a non-zero cost is at least 1 cent", via=("money.rounding",)
    ),
    # §3.4 Pagination
    Clause(
        "§3.4#1",
        "following next_page_token yields each item exactly once",
        via=("pagination.traversal",),
    ),
    Clause("§3.4#2", "a limit above the maximum is silently clamped, not rejected", via=("pagination.clamp",)),
    Clause("§3.4#3", "an omitted limit means the default page size", via=("pagination.default",)),
    Clause("§3.4#4", "a cursor page reports no total"),
    Clause("§3.4#5", "has_more comes with a next_page_token, and only then"),
    # §3.5 Filtering and sorting (checked on the run list, which declares them)
    Clause("§3.5#1", "a value with no recognized prefix is an exact match"),
    Clause("§3.5#2", "in: is set membership"),
    Clause("§3.5#3", "gte: and lte: bound inclusively"),
    Clause("§3.5#4", "gt: and lt: bound strictly"),
    Clause("§3.5#5", "like: is a case-sensitive pattern"),
    Clause("§3.5#6", "ilike: is a case-insensitive pattern"),
    Clause("§3.5#7", "sort orders by its key, a leading - reverses"),
    Clause("§3.5#8", "a comma list of sort keys orders the ties of one key by the next"),
    Clause("§3.5#9", "unknown filter keys are silently ignored, not rejected", via=("filters.unknown",)),
    # (its last statement, no general search operator, is §3.5#9 on an undeclared ?q=: ignored like any key)
    # §3.6 Partial responses and expansion
    Clause("§3.6#1", "an unknown ?expand= key on the balance is 400 unknown_filter_field"),
    Clause("§3.6#2", "?expand= on the balance adds each named key"),
    # §3.7 Idempotency
    Clause("§3.7#1", "a retry with the same key replays with Idempotent-Replayed: true", via=("idempotency.replay",)),
    Clause(
        "§3.7#2",
        "the same key with a different body or path is 409 idempotency_conflict",
        via=("idempotency.conflict",),
    ),
    Clause("§3.7#3", "a retry while the first is in flight is 409, never a second run", via=("idempotency.in_flight",)),
    Clause("§3.7#4", "keys longer than 256 characters are 400 invalid_argument", via=("idempotency.length",)),
    Clause(
        "§3.7#5",
        "keys are scoped to the token: another token's use is neither a replay nor a conflict",
        via=("idempotency.scope",),
    ),
    Clause("§3.7#6", "rotating a PAT invalidates the keys tied to it", via=("idempotency.rotation",)),
    Clause("§3.7#7", "browser sessions share the cache keyed by user: a second session of the user replays"),
    # §3.8 Concurrency tokens
    Clause("§3.8#1", 'ETags are weak: W/"<id>:<updated_at epoch ms>"', via=("etag.weak",)),
    Clause(
        "§3.8#2",
        "a stale If-Match is 412 precondition_failed with the current ETag on the enforcing routes",
        via=("etag.if_match",),
    ),
    Clause("§3.8#3", "If-Match: * matches any current row", via=("etag.star",)),
    Clause("§3.8#4", "the ETag moves when the row changes", via=("etag.moves",)),
    Clause("§3.8#5", "the other mutable resources read and ignore If-Match", via=("etag.ignored",)),
    Clause("§3.8#6", "the 412 carries the current ETag"),
    # §3.9 Errors
    Clause(
        "§3.9#1",
        "4xx answers are application/problem+json (the legacy {error} body where the reference says so)",
        via=("errors.problem",),
    ),
    Clause("§3.9#2", "a problem's status member is the HTTP status", via=("errors.status_member",)),
    Clause(
        "§3.9#3",
        "a problem carries type, title, status, code, detail, request_id and retryable",
        via=("errors.problem_fields",),
    ),
    # §4.1.1 status, display_status, halt_reason (and the Run object's cost fields, §4.1)
    Clause(
        "§4.1.1#1",
        "display_status folds halted and halt_reason into status as tabulated",
        via=("lifecycle.display_status",),
    ),
    Clause("§4.1.1#2", "a run's incurred and billed costs are the sums of their parts (§4.1)", via=("runs.cost",)),
    # §4.2.1 Natural-language launch
    Clause("§4.2.1#1", "a natural-language launch (`request`) is accepted"),
    Clause(
        "§4.2.1#2",
        "an explicit driver pin that is neither a priced Gemini model nor openrouter:// is 403 admin_required",
    ),
    Clause("§4.2.1#3", "a phase_models spec is held to the driver rule, with the same 403 admin_required"),
    Clause("§4.2.1#4", "an unknown compute value is 400 invalid_argument"),
    Clause("§4.2.1#5", "the chosen compute backend is stamped on the run as backend"),
    Clause("§4.2.1#6", "a model.provider other than the pinnable ones is 400 unknown_provider"),
    Clause("§4.2.1#7", "an unrecognized trials aggregator is 400 unknown_aggregator"),
    Clause("§4.2.1#8", "a limit the platform does not enforce (attempt.cost) is refused with 400"),
    Clause("§4.2.1#9", "metadata.autonomous without a model pin is 400 autonomous_model_required"),
    Clause("§4.2.1#10", "metadata is not persisted: the run resource does not return it"),
    Clause("§4.2.1#11", "the old operator and agent keys pin no Driver"),
    Clause("§4.2.1#12", "an unknown harness is 400 unknown_harness"),
    Clause("§4.2.1#13", "the old bridge key is 400 bridge_renamed_to_harness"),
    Clause("§4.2.1#14", "harness synonyms resolve to their harness (scratch is benchwright)"),
    Clause("§4.2.1#15", "an omitted harness is inferred from the metadata.<x>_harness object present"),
    Clause("§4.2.1#16", "metadata.limit caps Materialize to the first N samples"),
    Clause("§4.2.1#17", "metadata.publish_on_complete flips the run public once it finalizes ok"),
    Clause("§4.2.1#18", "a publish_on_complete run that errors stays private"),
    # §4.2.1's `limits` ceilings: run and phase ceilings stop the run, task ceilings only their task
    Clause("§4.2.1#19", "a run ceiling stops the run: it halts and ends, and no later phase starts"),
    Clause("§4.2.1#20", "a phase ceiling stops the run too"),
    Clause("§4.2.1#21", "reaching a run-level ceiling halts with halt_reason limit_exceeded:<level>.<quantity>"),
    Clause("§4.2.1#22", "a phase:<name> ceiling overrides the phase ceiling for that phase alone"),
    Clause("§4.2.1#23", "a task ceiling stops only that task: recorded failed, the other tasks carry on, no halt"),
    Clause("§4.2.1#24", "a task stopped by its ceiling is never retried, whatever task.attempts allows"),
    Clause("§4.2.1#25", "run.cost compares cost.incurred, model spend included: it fires while cost.billed is under"),
    # the pre-`limits` spellings (metadata.limit is §4.2.1#16)
    Clause("§4.2.1#26", "constraints.max_cost_cents is run.cost, in cents"),
    Clause("§4.2.1#27", "constraints.max_duration_ms is run.duration, in milliseconds"),
    Clause("§4.2.1#28", "constraints.max_tasks is run.tasks: how many dataset rows run"),
    Clause("§4.2.1#29", "metadata.task_timeout_sec is attempt.duration: it fails the try over it, not the task or run"),
    # metadata.proxy_linger_seconds, read on the run's ProxySandboxLinger event (§15)
    Clause("§4.2.1#30", "metadata.proxy_linger_seconds keeps the run's proxy N seconds after the run finishes"),
    Clause("§4.2.1#31", "a proxy_linger_seconds above 86400 is clamped to 86400, not refused"),
    Clause("§4.2.1#32", "a negative proxy_linger_seconds is clamped to 0, not refused: nothing lingers"),
    # (not split out: the task.cost, task.tokens and task.attempts ceilings and metadata.task_attempts, which
    # need per-task spend and retries the mock does not model; that halts wait for the phase to end)
    # §4.2.2 Pinned benchmark launch (two launch modes at once and an unknown id are §4.2.5#1 and #2)
    Clause("§4.2.2#1", "a pinned launch runs that catalog benchmark"),
    Clause("§4.2.2#2", "the launcher writes the synthetic request `Run <name>`"),
    Clause("§4.2.2#3", "the catalog id with or without the bm_ prefix, or the exact name, pins the one row"),
    # §4.2.3 Replay launch
    Clause("§4.2.3#1", "a replay shares its parent's benchmark, subset and impl"),
    Clause("§4.2.3#2", "a replay of a fork replays from its root: the new run's forked_from names the root"),
    Clause("§4.2.3#3", "a replay without model runs the parent's model (the noise check)"),
    Clause("§4.2.3#4", "a replay with a model runs that model (the cross-model A/B)"),
    Clause("§4.2.3#5", "a replay pins the parent's sample count, not the subset's current size"),
    Clause("§4.2.3#6", "a replay re-runs Attach, Materialize and Report and inherits the phases before"),
    # §4.2.4 Response
    Clause(
        "§4.2.4#1", "every launch mode answers one 202 shape: id, status launching, mode, links.self and links.events"
    ),
    Clause("§4.2.4#2", "there is no cost estimate on the launch response"),
    # (sandbox_id and links.dashboard are present "when known": nothing a client can hold a server to)
    # §4.2.5 preflight errors
    Clause("§4.2.5#1", "two launch modes at once is 400 invalid_argument"),
    Clause("§4.2.5#2", "an unknown pinned benchmark is 404 benchmark_not_found"),
    Clause("§4.2.5#3", "an unknown replay parent is 404 parent_not_found"),
    Clause("§4.2.5#4", "a refused launch creates no run"),
    # §4.3 fork
    Clause("§4.3#1", "a fork without a description is 400"),
    Clause("§4.3#2", "a fork records its parent (forked_from) and its description", via=("runs.fork",)),
    Clause("§4.3#3", "model overrides the parent's pin; indices restrict what the fork materializes"),
    Clause("§4.3#4", "forking a benchwright-harness run is 409 fork_unsupported"),
    # §4.4 GET /v1/runs/{id}
    Clause("§4.4#1", "?expand=child_forks lists the runs forked from this one"),
    Clause("§4.4#2", "?expand=phase_breakdown adds a row per phase invocation with its duration"),
    # §4.5 GET /v1/runs
    Clause("§4.5#1", "the status filter matches exactly, and in: sets by membership", via=("runs.filter",)),
    Clause("§4.5#2", "the visibility filter matches exactly"),
    # §4.6 halt
    Clause("§4.6#1", "halt stops the run now: the answer is the run with halted=true", via=("lifecycle.transitions",)),
    Clause("§4.6#2", "the reason is recorded: operator_kill by <who>: <reason>, whitespace collapsed, cut at 200"),
    # §4.7 DELETE
    Clause("§4.7#1", "after DELETE every read of the run is 404", via=("runs.delete",)),
    Clause("§4.7#2", "teardown kills the run's sandboxes and stamps halt_reason operator_kill"),
    Clause("§4.7#3", "fork children are adopted: re-pointed at the deleted run's parent, with provenance"),
    # §4.8 PATCH
    Clause("§4.8#1", "only visibility and review_resolution are patchable", via=("runs.patch",)),
    Clause("§4.8#2", "visibility=public needs status ok, else 409 visibility_constraint_violated"),
    Clause("§4.8#3", "an unlisted run reads anonymously and is not projected into the public catalog"),
    Clause("§4.8#4", "a non-private run carries the fingerprint_hash GET /fingerprint re-derives"),
    # §4.9 narrate
    Clause("§4.9#1", "narration is opt-in: 204 until run_narration_enabled", via=("runs.narrate",)),
    Clause("§4.9#2", "a slice that is neither recent nor full is 400 invalid_argument"),
    Clause("§4.9#3", "first_seq / last_seq bound the window within the run's events"),
    Clause("§4.9#4", "answers are cached per (run, last_seq)"),
    Clause("§4.9#5", "an anonymous read of a public run skips the opt-in check"),
    # §4.10 Aggregate stats
    Clause("§4.10#1", "attempts counts started phases, success the completed ones", via=("runs.phase_stats",)),
    Clause("§4.10#2", "avg_ms is the mean duration of the completed phases"),
    Clause("§4.10#3", "failed counts only phases of errored runs"),
    Clause("§4.10#4", "with no finalized runs the answer is a bare {}"),
    # §4.11 pause and resume
    Clause("§4.11#1", "pause halts a running run with an operator_pause reason"),
    Clause("§4.11#2", "pausing a halted run is 409 already_halted"),
    Clause("§4.11#3", "resume lifts an operator pause"),
    Clause("§4.11#4", "resuming a run that is not paused is 409 not_paused"),
    # §5.1 GET /v1/runs/{id}/events
    Clause("§5.1#1", "events come in seq order, ascending by default"),
    Clause("§5.1#2", "after_seq returns only events with a greater seq"),
    Clause("§5.1#3", "before_seq bounds the seq from above"),
    Clause("§5.1#4", "order=desc returns newest first"),
    Clause("§5.1#5", "types narrows to the listed event types"),
    Clause("§5.1#6", "exclude_types leaves the listed event types out"),
    Clause("§5.1#7", "with both types and exclude_types, exclude_types wins and types is discarded"),
    Clause("§5.1#8", "limit defaults to 500 and is clamped to 1000"),
    Clause("§5.1#9", "has_more means only that the page came back full"),
    # §5.2 SSE
    Clause("§5.2#1", "a stream resumes strictly after Last-Event-ID (or ?last_event_id=)", via=("sse.resume",)),
    Clause("§5.2#2", "`id:` is the bare seq, `event:` the type, folded into data as `type`", via=("sse.shape",)),
    Clause("§5.2#3", "a terminal run's stream ends with run.finished and closes", via=("sse.finish",)),
    Clause("§5.2#4", "keep-alives are `event: ping` at the documented interval", via=("sse.keepalive",)),
    # §5.3 Event identity and ordering
    Clause("§5.3#1", "(run_id, seq) is unique and seq ascends within a run", via=("sse.dedupe",)),
    Clause("§5.3#2", "event ids are unique across runs"),
    Clause("§5.3#3", "an event keeps its id across reads, so overlapping polls and reconnects dedupe by it"),
    Clause("§5.3#4", "a polling id sent as Last-Event-ID does not parse: the stream replays the whole run, no error"),
    # (§5.3's "resume from seq" is §5.2#1 and §5.1#2; "not monotonic across runs" promises nothing)
    # §6.1 artifacts list
    Clause("§6.1#1", "the type filter returns only that type", via=("artifacts.filter",)),
    Clause("§6.1#2", "every row carries seq, invocation and its content URL", via=("artifacts.listing",)),
    Clause("§6.1#3", "versioned types count 1..latest_version per name with include_versions, only the latest without"),
    # §6.2 artifact detail
    Clause("§6.2#1", "the detail carries no version or latest_version", via=("artifacts.detail",)),
    Clause("§6.2#2", "otherwise the detail is its list row"),
    # §6.3 artifact content
    Clause("§6.3#1", "content is served whole as the row's mime", via=("artifacts.content",)),
    Clause("§6.3#2", "active content is served as text/plain with nosniff", via=("artifacts.active_content",)),
    Clause("§6.3#3", "size_bytes counts the content's characters"),
    # §6.4 fingerprint
    Clause(
        "§6.4#1",
        "the fingerprint's hash is the run's fingerprint_hash, where the chain ends",
        via=("artifacts.fingerprint",),
    ),
    Clause("§6.4#2", "each component is the event at its seq, and its canonical string parses back to its data"),
    # §6.5 GET /v1/runs/{id}/report (the content's rules are §6.3's)
    Clause(
        "§6.5#1", "the report route is 302 to the content of the lowest-seq report artifact", via=("artifacts.report",)
    ),
    Clause("§6.5#2", "the report route is gated by run visibility only: a public run's serves an anonymous caller"),
    # §7.1 tasks
    Clause("§7.1#1", "the passed filter returns only rows with that passed", via=("tasks.filter",)),
    Clause("§7.1#2", "error_class is derived, never null, one of the documented buckets", via=("tasks.error_class",)),
    Clause("§7.1#3", "a row's timestamp is epoch milliseconds", via=("tasks.timestamp",)),
    Clause("§7.1#4", "passed is score >= 1.0", via=("tasks.passed",)),
    Clause("§7.1#5", "the summary's counts and pass_rate agree with each other and the rows", via=("tasks.summary",)),
    # §7.2 payload
    Clause("§7.2#1", "a payload repeats its row's addressing and score", via=("tasks.payload",)),
    Clause("§7.2#2", "raw=0 drops raw_output and nothing else"),
    Clause(
        "§7.2#3", "without ?trial the payload is the best-scoring trial, ties to the lowest", via=("tasks.best_trial",)
    ),
    # §8.1 the registry summary
    Clause("§8.1#1", "each summary row's counters are what the full tree holds", via=("registry.summary",)),
    Clause("§8.1#2", "facets and agg appear only with counts=1"),
    # §8.2 GET /v1/registry/benchmarks/{id}
    Clause("§8.2#1", "the detail lists the subsets and impls the catalog tree shows", via=("registry.detail",)),
    Clause("§8.2#2", "it carries native and derived leaderboards per subset"),
    Clause("§8.2#3", "it carries covering-run counts per subset"),
    Clause("§8.2#4", "it carries index spans per subset"),
    Clause("§8.2#5", "per-task content and the difficulty distribution are not in it (fetched separately)"),
    # (per-user range names are "any": nothing to hold a server to)
    # §8.3 first-class reads
    Clause("§8.3#1", "stats count what the tree holds; the distribution has a row per sample", via=("registry.reads",)),
    Clause("§8.3#2", "dataset/info is the dataset's rows and size; the dataset is a JSONL attachment"),
    Clause("§8.3#3", "the leaderboard is the best score per model among the subset's public runs"),
    # §8.4 publish
    Clause("§8.4#1", "an empty body publishes: visibility public", via=("registry.publish",)),
    Clause("§8.4#2", "publishing a run that is not ok is 409 visibility_constraint_violated"),
    Clause("§8.4#3", "the answer echoes the run's fingerprint_hash"),
    Clause("§8.4#4", "a published run is projected into the catalog"),
    # §8.5 create a benchmark
    Clause(
        "§8.5#1", "a created benchmark's id is bm_-prefixed, with the name sent", via=("registry.create_benchmark",)
    ),
    Clause("§8.5#2", "a created benchmark reports the literal visibility private"),
    # §8.6 create a subset
    Clause(
        "§8.6#1",
        "subsets are content-addressed: the same tasks answer 200 created false",
        via=("registry.create_subset",),
    ),
    Clause("§8.6#2", "more than 1000 tasks in one request is 400"),
    Clause("§8.6#3", "a frozen subset refuses appends (409 subset_frozen)"),
    # §8.7 register a scorer
    Clause(
        "§8.7#1",
        "an impl id is imp_<benchmark>:<fingerprint>, its fingerprint 12 characters",
        via=("registry.create_impl",),
    ),
    Clause("§8.7#2", "the same code registered again answers the same id"),
    # §8.8 updating
    Clause("§8.8#1", "PATCH answers {id, ok}, not the object, and refuses unknown fields", via=("registry.update",)),
    Clause("§8.8#2", "a non-admin official=true is refused"),
    Clause("§8.8#3", "freezing a subset is one-way: rolling true again is refused"),
    # §8.9 editing a built benchmark
    Clause("§8.9#1", "a recipe patch merges and reports what changed; the subset id stays", via=("registry.build",)),
    Clause("§8.9#2", "a tasks patch forks a new subset and retires the old, which then refuses edits (409)"),
    Clause("§8.9#3", "editing the samples back to a retired set revives that subset, minting no third"),
    Clause(
        "§8.9#4",
        "a handle resolves or refuses: a shared name is 409 ambiguous, a run-projected subset"
        " 404 not_authored, an unknown one 404",
    ),
    # §9.1 GET /v1/secrets (meta.payer is §2.5#2)
    Clause("§9.1#1", "secret values never surface", via=("secrets.no_value",)),
    Clause("§9.1#2", "rule ids are bare UUIDs"),
    Clause("§9.1#3", "injections is a flat array of surfaces, product_sandbox or operator"),
    # §9.2 POST /v1/secrets
    Clause("§9.2#1", "inline rules are validated (inject kinds, identifier names)", via=("secrets.rules",)),
    Clause("§9.2#2", "a blank inline rule is skipped"),
    Clause("§9.2#3", "each rule allows its host in the host policy"),
    Clause("§9.2#4", "a second secret of the same name is refused, not renamed"),
    # §9.3 rotation
    Clause("§9.3#1", "PATCH answers {id}", via=("secrets.rotation",)),
    Clause("§9.3#2", "a PATCH without value only relabels"),
    # §9.4 Deleting a secret
    Clause("§9.4#1", "DELETE is 204 and the secret, with its rules, leaves the list"),
    Clause("§9.4#2", "the host-policy entries the secret's rules added (auto_from_secret) are withdrawn"),
    Clause("§9.4#3", "a user entry for a host a rule also names survives", via=("secrets.delete",)),
    # (not yet asserted: the next launch needing the deleted credential is 412 no_provider_secret; it
    # needs the account's provider key deleted, which the suite does not do)
    # §9.5 managing rules independently
    Clause("§9.5#1", "a rule POST answers 201 with a one-element array", via=("secrets.rule_routes",)),
    Clause("§9.5#2", "the added rule's host is allowed in the host policy (auto_from_secret)"),
    Clause("§9.5#3", "a rule DELETE is 204 and drops the rule from the secret"),
    # §9.6 Host policy
    Clause("§9.6#1", "entries carry their source", via=("host_policy.rules",)),
    Clause("§9.6#2", "default_mode is allow until PATCH /host-policy/default flips it", via=("host_policy.default",)),
    Clause("§9.6#3", "the starter pack adds its five hosts, sourced as the pack, and counts them"),
    # §9.7 blocked-host log
    Clause("§9.7#1", "blocked hosts carry their counts and sources", via=("blocked_hosts.log",)),
    Clause("§9.7#2", "clearing a host drops it from the log"),
    # §9a.1 registering a machine
    Clause(
        "§9a.1#1", "a registration is signed and its id is eg_ + 10 base32 characters", via=("egress.registration",)
    ),
    Clause("§9a.1#2", "a heartbeat cannot change the policy"),
    Clause("§9a.1#3", "a fingerprint stays bound to its key: another key is refused"),
    Clause("§9a.1#4", "a machine reads online only within the window of its last heartbeat"),
    # §9a.2 asking for it on a run
    Clause(
        "§9a.2#1",
        "a launch pinned to a machine that is not serving is 412 egress_endpoint_unavailable",
        via=("egress.launch",),
    ),
    Clause("§9a.2#2", "wait_for_egress holds the run instead: 202"),
    Clause("§9a.2#3", "a bare local_egress launch has no launch-time check: 202"),
    # §9a.3 serving work
    Clause("§9a.3#1", "a pinned run is its machine's pending work until attach releases it", via=("egress.serving",)),
    Clause("§9a.3#2", "the status read carries no connection details"),
    # §9a.4 where the traffic went
    Clause(
        "§9a.4#1", "a host is routed through the tunnel exactly when the frozen policy says", via=("egress.routes",)
    ),
    Clause("§9a.4#2", "each route's seen_count and first/last seen agree"),
    # §10.1 balance
    Clause("§10.1#1", "the balance is the newest ledger row's balance_after"),
    Clause("§10.1#2", "month_spent is the month's debits"),
    # §10.2 top-ups
    Clause("§10.2#1", "amount_cents outside 500..5,000,000 is refused", via=("billing.topup_bounds",)),
    Clause("§10.2#2", "a top-up within the bounds answers the hosted checkout url"),
    # §10.3 top-up status
    Clause(
        "§10.3#1",
        "a paid top-up reads succeeded with the amount asked for; its ledger row references it",
        via=("billing.topup",),
    ),
    Clause("§10.3#2", "a top-up reads by its top_ id or the bare UUID alike"),
    # §10.4 transactions
    Clause("§10.4#1", "ledger rows chain: balance_after = previous + delta", via=("billing.ledger",)),
    # §10.6 usage trend
    Clause("§10.6#1", "six consecutive labelled months ending at the current one", via=("billing.trend",)),
    Clause("§10.6#2", "current_month_cents is month_spent", via=("billing.month_spent",)),
    Clause("§10.6#3", "only the last bucket is current; current and previous month cents are those buckets"),
    # §10.7 export
    Clause("§10.7#1", "the export is an RFC 4180 CSV attachment with a filename", via=("billing.export",)),
    Clause("§10.7#2", "it holds one row per ledger entry"),
    Clause("§10.7#3", "type=runs exports per-run rows"),
    # §10.8 statement
    Clause("§10.8#1", "the statement is text/html", via=("billing.statement",)),
    Clause("§10.8#2", "the statement is the month asked for"),
    # §10.9 subscription
    Clause("§10.9#1", "subscription failures are legacy {error} bodies", via=("billing.subscription",)),
    Clause("§10.9#2", "tier free is an idempotent ack"),
    Clause("§10.9#3", "a paid tier answers a checkout url"),
    # §10.10 verify-subscription
    Clause("§10.10#1", "a checkout not yet complete answers {ok: false, reason: pending}", via=("billing.verify",)),
    Clause("§10.10#2", "another user's checkout session is 403"),
    Clause("§10.10#3", "a completed checkout applies idempotently: a second verify is a harmless ok"),
    # §11 Settings
    Clause("§11#1", "only the schema's keys are writable; validated keys refuse bad values", via=("settings.keys",)),
    Clause("§11#2", "a PUT value is what GET returns, until DELETE", via=("settings.roundtrip",)),
    # §12 bug reports
    Clause("§12#1", "a bug report answers 201 {id, status: open}", via=("bug_reports.create",)),
    Clause("§12#2", "descriptions cap at 8000 characters"),
    # §12a Operators
    Clause("§12a#1", "an operator boots, is listed and runs", via=("operators.lifecycle",)),
    Clause("§12a#2", "pending counts agree with the items", via=("operators.pending",)),
    Clause("§12a#3", "operator names are unique: a second of the same name is 409"),
    Clause("§12a#4", "stop interrupts the turn and leaves the operator running"),
    Clause("§12a#5", "shutdown keeps the operator, as stopped, and it takes no more messages"),
    Clause("§12a#6", "an item is withdrawable exactly in the states that allow it"),
    Clause("§12a#7", "a withdrawn item leaves the queue; withdrawing it again is 404"),
    # §13 Rate limits
    Clause("§13#1", "authenticated answers carry X-RateLimit-Limit, -Remaining and -Reset", via=("ratelimit.headers",)),
    Clause("§13#2", "Remaining counts down the account's bucket, shared by its PATs", via=("ratelimit.counters",)),
    Clause("§13#3", "past the quota a request is 429 rate_limited", via=("ratelimit.exceeded",)),
    Clause(
        "§13#4",
        "the X-RateLimit-* values are whole numbers and Remaining never exceeds Limit",
        via=("ratelimit.values",),
    ),
    Clause("§13#5", "anonymous answers and 401s carry no X-RateLimit-* headers", via=("ratelimit.anonymous",)),
    Clause("§13#6", "a 429 carries Retry-After in whole seconds within the window"),
    Clause("§13#7", "GET /v1/users/me/rate-limits says what the headers say"),
    # §14 Error reference: a code is one the reference documents for the operation
    Clause(
        "§14#1", "an error's code is one the reference documents for the operation", via=("errors.code_documented",)
    ),
    # §17 deprecation (pre-GA: only the announcement's shape is checkable)
    Clause("§17#1", "a deprecation is announced with Deprecation: true", via=("deprecation.headers",)),
    Clause("§17#2", "its Sunset is an HTTP-date"),
    Clause("§17#3", "its Link carries rel=deprecation"),
]

# the sections whose checks raise a drift under the section itself (`Drift("§14", ...)`) or under one of
# its clause ids: registered as claims (contracts.benchwright.claims) so a drift is filed under its title
SECTIONS = {
    "§1": "every response carries the request id and API version headers",
    "§2.0": "/v1 takes a PAT; /api expects a browser session",
    "§2.2": "scopes gate PATs; registry reads and public or unlisted runs serve anyone, private runs never",
    "§2.1": "personal access tokens: their shape, rotation, last use",
    "§2.3": "provider keys live in the Secrets API, apart from the PAT",
    "§2.5": "teams: my team, the payer of a call, one team at a time",
    "§3.6": "?expand= on the two endpoints that take it",
    "§3.10": "null is a known field without a value; a missing key does not apply to the shape",
    "§3.1": "ids have the documented shape per resource",
    "§3.2": "timestamps are RFC 3339; durations are `_ms` integers",
    "§3.3": "money is whole integer cents with an ISO-4217 currency; amount_usd is exact",
    "§3.4": "cursor pagination: traversal, clamp, default, no total, has_more with its token",
    "§3.7": "idempotency keys: replay, conflict, in flight, length, scope, rotation",
    "§3.8": "weak ETags; If-Match enforced where documented, with the current ETag on a 412",
    "§3.9": "errors are problem+json",
    "§3.5": "filter operators (exact, in:, bounds, patterns), sorts, unknown keys ignored",
    "§6.5": "the report route redirects to the first report and is gated by run visibility only",
    "§8.2": "a benchmark's detail: subsets and impls, leaderboards, coverage and spans per subset, no task content",
    "§9.4": "deleting a secret is 204, withdraws its auto entries and keeps the user's own",
    "§9.1": "secret values never surface; rule ids are bare UUIDs; injections a flat array of surfaces",
    "§10.10": "verify answers pending before completion, 403 for another user's session, applies idempotently",
    "§10.2": "top-up bounds and the checkout url",
    "§10.8": "the statement is text/html for the month asked for",
    "§17": "a deprecation is announced with Deprecation, an HTTP-date Sunset and a rel=deprecation Link",
    "§5.3": "event identity: seq per run, ids unique across runs and stable across reads, a polling id replays",
    "§4.3": "a fork needs a description and records its parent, description, model pin and indices",
    "§4.5": "the run list's status and visibility filters match exactly (and `in:` sets)",
    "§4.4": "GET /v1/runs/{id} and its expansions",
    "§4.6": "halt stops the run now and records the reason",
    "§4.11": "pause halts a running run resumably; resume lifts only an operator pause",
    "§4.7": "DELETE stops then removes one run and adopts its fork children",
    "§4.8": "only visibility and review_resolution are patchable",
    "§4.9": "narration is opt-in, slice-checked, windowed by seq and cached per last_seq",
    "§4.10": "phase stats of the finalized runs",
    "§6.1": "artifact rows carry seq, invocation and their content URL; versions count up",
    "§6.2": "an artifact's detail is its list row without version and latest_version",
    "§6.3": "content is served whole with the row's mime and size_bytes characters",
    "§6.4": "the fingerprint's hash is the run's and its components derive from data",
    "§7.2": "a payload repeats its row's addressing and score; raw=0 drops raw_output only",
    "§8.1": "the summary catalog's counters agree with the full tree it abbreviates",
    "§8.3": "the first-class reads agree with each other: stats, datasets, leaderboards",
    "§8.4": "publish defaults to public, echoes the run's fingerprint, refuses non-ok runs",
    "§8.5": "a created benchmark is bm_-prefixed and reports a literal private",
    "§8.6": "subsets are content-addressed by tasks, capped per request, frozen ones refuse appends",
    "§8.8": "PATCH answers {id, ok}, refuses unknown fields and official, and freezes one way",
    "§8.9": "recipe patches merge and report changes; task patches fork and retire the old",
    "§9.2": "rules are validated, blank inline ones skipped, and each allows its host",
    "§9.3": "PATCH answers {id}; without a value it only relabels",
    "§9.5": "a rule POST answers a one-element array and allows its host; DELETE is 204 and drops it",
    "§9.6": "host policy entries carry their source; the starter pack adds the five hosts",
    "§9.7": "blocked hosts carry their counts and sources; clearing a host drops it",
    "§9a.1": "a registration is signed, its id is eg_ + 10 base32 characters, and a heartbeat cannot change policy",
    "§9a.2": "a launch pinned to a machine that is not serving is 412 unless it waits",
    "§9a.3": "a pinned run is its machine's pending work until attach releases it",
    "§9a.4": "a host is routed through the tunnel exactly when the frozen policy says",
    "§10.1": "the balance and month_spent agree with the ledger",
    "§10.3": "a paid top-up reads succeeded with the amount asked for, by top_ id or bare UUID",
    "§10.6": "the usage trend is six consecutive labelled months ending at the current one",
    "§10.9": "subscription failures are legacy {error} bodies; free is an ack; paid answers a checkout url",
    "§8.7": "an impl id is imp_<benchmark>:<fingerprint>; the same code, the same id",
    "§10.7": "the export is an RFC 4180 CSV attachment with one row per ledger entry",
    "§12": "a bug report answers 201 {id, status: open}; descriptions cap at 8000",
    "§12a": "operators: lifecycle, unique names, stop and shutdown, the pending queue",
    "§13": "rate-limit headers, the account's bucket and the 429 past the quota",
    "§14": "every error code is one the reference documents for the operation",
}
