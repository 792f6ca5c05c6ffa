"""The clauses of the Bench claims (C-nn) that state more than one thing a server could break
alone. A claim not split here is one clause. A check asserts a clause by citing its id.

Every claim of the reference was read in order; the ones below state more than one thing. The
others state one (C-02, C-07, C-08, C-11, C-13, C-14, C-15, C-21, C-22, C-25, C-27, C-29,
C-33, C-35, C-37, C-38, C-40, C-42, C-43, C-44, C-48, C-49, C-54, C-55, C-59, C-60,
C-61, C-66) or are about the published clients only (`claims.UNCHECKABLE`)."""

from __future__ import annotations

from contracts.runner.claims import Clause

CLIENT_SIDE = "what the published client does with the response; the server's part is the claim's other clauses"

CLAUSES = [
    # C-06 A call never starts an evaluation or executes application code on its own
    Clause("C-06.1", "reads spend no evaluation allowance"),
    Clause("C-06.2", "reads start no evaluation run"),
    # C-12 query holds branch, environment, version, paging or other URL query values
    Clause("C-12.1", "offset/limit pages list every item exactly once, in one order, next_offset advancing"),
    Clause("C-12.2", "every page's total is the number of items the pages list"),
    Clause(
        "C-12.3",
        "an environment query value selects the traces whose spans name it (attributes bench.environment, as the"
        " tracing client sends it), each trace holding every span sent under its id",
    ),
    # C-63 Long work uses background runs and explicit polling
    Clause("C-63.1", "a start answers a background run that has not finished (queued or running)"),
    Clause(
        "C-63.2",
        "a runtime run's events carry ascending cursors and the page the run's status;"
        " after the last cursor nothing repeats",
    ),
    Clause(
        "C-63.3",
        "a runtime run's result reads its status apart from result{decision, comparisons, metrics},"
        " with a decision gate acts on",
    ),
    # C-17 An API key gives scoped data access
    Clause("C-17.1", "a valid API key reads the workspace's data (200)"),
    Clause("C-17.2", "no credential, or one that is not a key, is refused with 401"),
    Clause("C-17.3", "a key's access is scoped to its workspace: another account's system is 404"),
    # C-18 GitHub setup, API-key management, membership and billing need an account credential or a session
    Clause("C-18.1", "an API key gets 403 on account-class operations (GitHub setup, trace privacy)"),
    Clause("C-18.2", "an OAuth account credential is accepted on account-class operations"),
    # C-19 API keys cannot mint broader credentials or gain account authority
    Clause("C-19.1", "a key cannot create another API key (403)"),
    Clause("C-19.2", "a key is not exchanged for an account credential by exchange_oauth_token"),
    Clause("C-19.3", "a key gets 403 on API-key management (the account authority over credentials)"),
    # C-20 exchange_oauth_token needs an AuthKit token with the configured MCP resource audience
    Clause("C-20.1", "an AuthKit token with the configured audience becomes a credential with account authority"),
    Clause("C-20.2", "an AuthKit token with another audience is 401 invalid_audience"),
    Clause("C-20.3", "an expired AuthKit token is 401"),
    Clause("C-20.4", "only an AuthKit token is exchanged: an account OAuth credential is 401"),
    # C-26 preview_dataset comes before upload and offers the column mapping
    Clause("C-26.1", "a preview offers a suggested column mapping"),
    Clause("C-26.2", "a preview stores no dataset"),
    Clause("C-26.3", "re-choosing a stored dataset's mapping takes its current version: a stale one is 409"),
    # C-28 The upload form carries mode and mapping {input, expected, actual}
    Clause("C-28.1", "the form's mode (and name) are stored as sent"),
    Clause("C-28.2", "the mapping decides which columns are input, expected and actual (compare rows, imported cases)"),
    # C-30 A context document holds at most 60 KB
    Clause("C-30.1", "a document of exactly the limit is accepted as one source"),
    Clause("C-30.2", "a document one byte over the limit is refused with 413 and writes nothing"),
    # C-31 A dataset holds at most 4 MB
    Clause("C-31.1", "a dataset of exactly 4 MB is accepted"),
    Clause("C-31.2", "a dataset one byte over 4 MB is refused with 413"),
    # C-32 Prompt uploads hold at most 2 MB in total
    Clause("C-32.1", "prompt files summing to exactly the limit are accepted"),
    Clause("C-32.2", "prompt files summing to one byte over the limit are refused with 413"),
    # C-34 put_context_source takes expected_version and a source {id, kind, category, scope, text}
    Clause("C-34.1", "a current write of a well-formed source is accepted (200)"),
    Clause("C-34.2", "a source id without the manual prefix is refused with 400 and writes nothing"),
    # C-36 A successful write advances the version, so replaying the same write fails
    Clause("C-36.1", "every successful write moves the version by exactly one, in its answer and on a re-read"),
    Clause("C-36.2", "replaying a write (its expected_version now past) fails with 409 context_changed"),
    # C-39 delete_context_source removes an entry
    Clause("C-39.1", "deleting a source removes it in one versioned write"),
    Clause("C-39.2", "deleting a removed source is 404 and writes nothing"),
    # C-41 A criterion is JSON text {type: criterion, component_id, enabled, statement, pass/fail conditions}
    Clause("C-41.1", "a criterion is stored and listed as type criterion with its entry as sent"),
    Clause("C-41.2", "a criterion whose text is not JSON is refused with 400 and writes nothing"),
    # C-45 Context edits affect future evaluations, not historical reports
    Clause("C-45.1", "an edit reaches the next evaluation (its context version and evidence)"),
    Clause("C-45.2", "an edit does not reach a finished report"),
    # C-46 Historical reports keep the evidence used when they were evaluated
    Clause("C-46.1", "a run's artifacts carry the context version it ran at and that version's evidence"),
    Clause("C-46.2", "the context as of a past version reads as it was written (`?version=n`)"),
    # C-47 evaluation_allowance can be read before spending
    Clause("C-47.1", "the allowance is readable with a key (200)"),
    Clause("C-47.2", "remaining is the limit less what was used (none when unlimited)"),
    # C-50 get_evaluation is polled with the run id; artifacts are read once it finishes
    Clause("C-50.1", "polling a run sees its status move only forward, to one terminal status"),
    Clause("C-50.2", "the artifacts of a run that has not finished are refused (409)"),
    Clause("C-50.3", "a finished run's summary is the fold of its artifacts' case results"),
    # C-51 publish_runtime_evaluation takes the complete report as its body
    Clause("C-51.1", "a published report reads back exactly as sent"),
    Clause("C-51.2", "an incomplete report is refused with 400"),
    # C-52 Reading or publishing a report starts nothing and spends nothing
    Clause("C-52.1", "publishing a report spends no allowance"),
    Clause("C-52.2", "publishing a report starts no evaluation run"),
    # C-53 Errors expose status, code, message, reference and the complete server error as details
    Clause("C-53.1", "every error is the envelope {error: {code, message, reference}}"),
    Clause("C-53.2", "the code is one the spec documents for the operation, under the status answered"),
    Clause("C-53.3", "the reference names the request (the X-Request-Id it answered with)"),
    Clause(
        "C-53.4",
        "the client's error carries the response's status, code, message, reference and whole error",
        checkable=False,
        reason=CLIENT_SIDE + " (the credential checks still compare the two)",
    ),
    # C-56 API-key cap errors carry manage_key_url instead of the upgrade fields
    Clause("C-56.1", "a key-cap error carries manage_key_url"),
    Clause("C-56.2", "a key-cap error carries none of the plan-upgrade fields"),
    # C-57 Plan, credential and repository errors need a configuration change (not retryable)
    Clause("C-57.1", "a revoked key is 401 credential_revoked (not read as a made-up one)"),
    Clause("C-57.2", "an OAuth credential past its lifetime is 401"),
    # C-58 A response over 16 MB is refused by the client; pages keep responses smaller
    Clause("C-58.1", "every response stays far below the clients' 16 MB ceiling"),
    Clause("C-58.2", "a page holds at most `limit` items, and never more than the spec's max_limit"),
    # C-62 The client returns the event array and raises on a terminal error event
    Clause("C-62.1", "a stage stream is progress events, then exactly one terminal event"),
    Clause("C-62.2", "a stage that fails ends with an error event whose code the operation documents"),
    Clause(
        "C-62.3",
        "the client returns the whole event array and raises on a terminal error event",
        checkable=False,
        reason=CLIENT_SIDE,
    ),
    # C-67 Token values never appear in source or logs
    Clause("C-67.1", "a key's secret is in its creation answer only, never readable again"),
    Clause("C-67.2", "the server's request log holds no token value"),
    # C-68 Golden cases are added through the test-library tools or the context-source contract
    Clause("C-68.1", "a dataset import adds one case per row, listed in the test library"),
    Clause("C-68.2", "a case put as a context source is listed in the test library"),
]
