"""The claims of the Bench platform reference, by id, with the section of
docs/reference/bench-platform-clients.md that makes them. A failing check raises `Drift(claim, …)`."""

from __future__ import annotations

from ._runner import Claim

INTRO = "Headless platform clients"
INSTALL = "Install the platform clients"
AUTH = "Authenticate"
READ = "Read systems and results"
SHAPE = "Request shape"
UPLOAD = "Upload a dataset"
BENCH = "Save understanding and run a bench"
CASES = "Add test cases and criteria"
PUBLISH = "Publish real app results"
ERRORS = "Errors, streams and cancellation"

CLAIMS = [
    Claim("C-01", INSTALL, "Production and development have separate endpoints"),
    Claim("C-02", INTRO, "Development and production credentials are separate: one is refused by the other"),
    Claim("C-03", INTRO, "The platform client is separate from the tracing and application-test client"),
    Claim("C-04", INTRO, "Each call makes exactly one API request"),
    Claim("C-05", INTRO, "Writes are never retried automatically"),
    Claim("C-06", INTRO, "A call never starts an evaluation or executes application code on its own"),
    Claim(
        "C-07",
        INTRO,
        "The operation reference lists the API's operations (135 in the text; the catalog is authoritative)",
    ),
    Claim("C-08", READ, "list_operations fetches the API's current catalog over the network"),
    Claim("C-09", READ, "operations() returns the pinned catalog without a network call"),
    Claim("C-10", SHAPE, "A request has the shape path, query, body, form, files"),
    Claim("C-11", SHAPE, "path holds named resource identifiers such as id, owner, repo and datasetID"),
    Claim("C-12", SHAPE, "query holds branch, environment, version, paging or other URL query values"),
    Claim("C-13", SHAPE, "body is JSON using the API's field names"),
    Claim("C-14", SHAPE, "form holds multipart fields; structured values are serialized as JSON"),
    Claim("C-15", SHAPE, "files is used only by upload operations"),
    Claim("C-16", SHAPE, "MCP tools of this release use the same shape; earlier tools keep theirs"),
    Claim("C-17", AUTH, "An API key gives scoped data access"),
    Claim(
        "C-18",
        AUTH,
        "GitHub setup, API-key management, membership and billing need an OAuth account credential or a session",
    ),
    Claim("C-19", AUTH, "API keys cannot mint broader credentials or gain account authority"),
    Claim("C-20", AUTH, "exchange_oauth_token needs an AuthKit token with the configured MCP resource audience"),
    Claim("C-21", AUTH, "An AuthKit token is not a bearer credential for ordinary operations"),
    Claim("C-22", AUTH, "Public authentication operations work without a credential"),
    Claim("C-23", AUTH, "Credentials refresh through a token supplier (client-side)"),
    Claim("C-24", READ, "A path id given as a number or as a string reaches the same resource"),
    Claim("C-25", READ, "Resource ids come from the list and scan operations"),
    Claim("C-26", UPLOAD, "preview_dataset comes before upload and offers the column mapping"),
    Claim("C-27", UPLOAD, "upload_dataset needs content-storage consent (content_consent: true)"),
    Claim("C-28", UPLOAD, "The upload form carries mode and mapping {input, expected, actual}"),
    Claim("C-29", UPLOAD, "files are {name, content}; binary bytes (XLSX) are kept exactly"),
    Claim("C-30", UPLOAD, "A context document holds at most 60 KB"),
    Claim("C-31", UPLOAD, "A dataset holds at most 4 MB"),
    Claim("C-32", UPLOAD, "Prompt uploads hold at most 2 MB in total"),
    Claim("C-33", BENCH, "get_system_context returns context.version, a number"),
    Claim("C-34", BENCH, "put_context_source takes expected_version and a source {id, kind, category, scope, text}"),
    Claim("C-35", BENCH, "A stale expected_version fails with context_changed"),
    Claim("C-36", BENCH, "A successful write advances the version, so replaying the same write fails"),
    Claim("C-37", CASES, "Reusing a source id edits that entry"),
    Claim("C-38", CASES, "enabled: false pauses an entry"),
    Claim("C-39", CASES, "delete_context_source removes an entry"),
    Claim("C-40", CASES, "A case is JSON text {type: case, component_id, enabled, input, expected, resolved_prompt}"),
    Claim(
        "C-41",
        CASES,
        "A criterion is JSON text {type: criterion, component_id, enabled, statement, pass/fail conditions}",
    ),
    Claim("C-42", BENCH, "A plain rule has kind user, category rules_constraints, scope system, and free text"),
    Claim("C-43", CASES, "component_id must be a component of that system"),
    Claim("C-44", CASES, "Structured expected values are kept exactly"),
    Claim("C-45", CASES, "Context edits affect future evaluations, not historical reports"),
    Claim("C-46", BENCH, "Historical reports keep the evidence used when they were evaluated"),
    Claim("C-47", BENCH, "evaluation_allowance can be read before spending"),
    Claim("C-48", BENCH, "start_system_evaluation returns {runs: [{id}]}; the list can be empty"),
    Claim("C-49", BENCH, "start_system_evaluation spends allowance"),
    Claim("C-50", BENCH, "get_evaluation is polled with the run id; artifacts are read once it finishes"),
    Claim("C-51", PUBLISH, "publish_runtime_evaluation takes the complete report as its body"),
    Claim("C-52", PUBLISH, "Reading or publishing a report starts nothing and spends nothing"),
    Claim("C-53", ERRORS, "Errors expose status, code, message, reference and the complete server error as details"),
    Claim(
        "C-54", ERRORS, "Plan-limit errors carry pricing_url, upgrade_url, billing_url, payment_confirmation_required"
    ),
    Claim("C-55", ERRORS, "Paying is the developer's choice; nothing pays automatically"),
    Claim("C-56", ERRORS, "API-key cap errors carry manage_key_url instead of the upgrade fields"),
    Claim("C-57", ERRORS, "Plan, credential and repository errors need a configuration change (not retryable)"),
    Claim("C-58", ERRORS, "A response over 16 MB is refused by the client; pages keep responses smaller"),
    Claim("C-59", ERRORS, "Redirects are not followed with credentials (the API never redirects)"),
    Claim("C-60", ERRORS, "Endpoints use HTTPS, except loopback HTTP in local tests"),
    Claim("C-61", ERRORS, "Legacy stage endpoints answer NDJSON"),
    Claim("C-62", ERRORS, "The client returns the event array and raises on a terminal error event"),
    Claim("C-63", ERRORS, "Long work uses background runs and explicit polling"),
    Claim("C-64", ERRORS, "Cancellation is client-side per language; Python calls are synchronous"),
    Claim("C-65", ERRORS, "The default request timeout is 120 s"),
    Claim("C-66", ERRORS, "set_model_providers can fail with a plan-limit error whose details.upgrade_url is set"),
    Claim("C-67", AUTH, "Token values never appear in source or logs"),
    Claim("C-68", BENCH, "Golden cases are added through the test-library tools or the context-source contract"),
]

BY_ID = {c.id: c for c in CLAIMS}

# Claims about the published clients, not the server: no HTTP exchange with a server can show
# them, so the coverage report lists them as not checkable, each with its reason.
UNCHECKABLE: dict[str, str] = {
    "C-01": "which host serves which environment is deployment configuration: a run reaches one endpoint"
    " (the credential separation the claim implies is C-02)",
    "C-03": "how the clients are packaged (a separate client library), not server behaviour",
    "C-04": "what a client does per call; the server sees requests, not calls",
    "C-05": "the client's retry policy",
    "C-09": "operations() reads the catalog pinned in the client, without a network call",
    "C-10": "the client's request object; on the wire it is the method, path, query and body the spec checks",
    "C-16": "the MCP tools' input shapes, not this HTTP API",
    "C-23": "the client's token supplier (client-side refresh)",
    "C-24": "the client serializes a number or a string id to the same path text",
    "C-64": "cancellation is client-side per language",
    "C-65": "the client's default request timeout",
}
