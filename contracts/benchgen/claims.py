"""The BenchGen reference's claims, B-01…B-53, each with its text and the part of the reference it comes from.

Ids are fixed (tests, checks and drift reports cite them). `UNCHECKABLE` holds the
ones no HTTP exchange can confirm. `BASIS` says where each comes from: DOC (the reference
says it), INFERRED (the reference implies it) or PROPOSAL (the mock's reading where the
reference is silent, `docs/benchgen-notes.md`).
"""

from __future__ import annotations

from contracts.runner.claims import Claim

INTRO = "Intro"
HOW = "How it works"
REF1 = "API reference / 1 — Find a benchmark"
REF2 = "API reference / 2 — Join it"
REF3 = "API reference / 3 — Launch a run"
REF4 = "API reference / 4 — Follow it and read the results"
RUNNABLE = "What you can run"
SECURITY = "Security & control"
CLOSING = "Start with the API reference"


def _claim(id: str, section: str, text: str, basis: str = "DOC", checkable: bool = True) -> Claim:
    BASIS[id] = basis
    if not checkable:
        UNCHECKABLE.add(id)
    return Claim(id, section, text)


BASIS: dict[str, str] = {}  # claim id -> DOC | INFERRED | PROPOSAL
UNCHECKABLE: set[str] = set()

_ALL = [
    _claim("B-01", INTRO, "the base URL is https://api.benchgen.com"),
    _claim("B-02", INTRO, "one platform token serves the whole API"),
    _claim("B-03", REF2, "requests authenticate with Authorization: Bearer <token>"),
    _claim("B-04", REF2, "tokens start with bgn_"),
    _claim("B-05", REF1, "the public listing needs no authentication"),
    _claim("B-06", REF1, "the listing filters by search"),
    _claim("B-07", REF1, "the listing honours page_size"),
    _claim("B-08", REF1, "the listing returns only published benchmarks"),
    _claim("B-09", REF1, "every listed item has an id that works in register and queue"),
    _claim("B-10", REF2, "joining is POST /api/competitions/{id}/register/ with a bearer token"),
    _claim("B-11", REF2, "a successful join answers 201 with participant_status"),
    _claim("B-12", REF2, "participant_status is approved or pending"),
    _claim("B-13", REF2, "pending means an organizer must approve before the participant can run"),
    _claim("B-14", HOW, "the benchmark's auto-approval decides between approved and pending"),
    _claim("B-15", REF2, 'joining is safe to repeat: the repeat answers 400 "already applied"'),
    _claim("B-16", REF2, "a repeated join does not change the participation", basis="INFERRED"),
    _claim("B-17", REF2, "join and queue need the scope benchmark:run", basis="INFERRED"),
    _claim("B-18", REF3, "a run is queued with POST /models/api/queue_benchmark_run and a JSON body"),
    _claim("B-19", REF3, "a platform model is named by model_id, ids from GET /api/user_llm_models/"),
    _claim("B-20", RUNNABLE, "a platform model can be named by a model name or catalogue id in model"),
    _claim(
        "B-21", RUNNABLE, "an external endpoint: model_source external, model_url, model_name, optional model_token"
    ),
    _claim("B-22", REF3, "model_url is the chat-completions URL of an OpenAI-compatible endpoint"),
    _claim("B-23", HOW, "a Hugging Face model can be queued"),
    _claim("B-24", RUNNABLE, "a connected agent is a model, listed with the others, run through the same call"),
    _claim("B-25", RUNNABLE, "one run call covers every kind of model"),
    _claim("B-26", REF3, "a queued run answers 201 with a submission_id"),
    _claim("B-27", REF3, "insufficient credits give 402"),
    _claim("B-28", REF3, "a token without benchmark:run gets 403"),
    _claim("B-29", HOW, "a run spends credits"),
    _claim("B-30", HOW, "a run lands on the leaderboard"),
    _claim(
        "B-31", SECURITY, "external endpoint credentials are used for that run only: never stored, echoed or reused"
    ),
    _claim("B-32", REF4, "run_status is GET /api/submissions/{submission_id}/run_status/ and needs benchmark:read"),
    _claim("B-33", REF4, "run_status carries done"),
    _claim("B-34", REF4, "when done is true, score holds the primary leaderboard score"),
    _claim("B-35", REF4, "when a finished run failed, error says why"),
    _claim("B-36", REF4, "run_status carries run_path, the run's page in the web app"),
    _claim("B-37", REF4, "run_status carries check_again_seconds; clients poll no sooner"),
    _claim("B-38", REF4, "done is terminal: once true it stays true", basis="INFERRED"),
    _claim("B-39", REF4, "per-question results come from GET /api/submissions/{submission_id}/item_results/"),
    _claim("B-40", REF4, "item_results is for a finished run"),
    _claim("B-41", HOW, "each item gives the expected answer, the model's answer and whether it was right"),
    _claim("B-42", HOW, "tokens are created in the web app; there is no API for it"),
    _claim("B-43", SECURITY, "a token carries only the scopes chosen when it was created"),
    _claim("B-44", SECURITY, "a request outside the token's scopes is refused"),
    _claim("B-45", SECURITY, "scopes include benchmark:read and benchmark:run"),
    _claim("B-46", SECURITY, "the secret is shown once and only its hash is stored; no endpoint returns it"),
    _claim("B-47", SECURITY, "a token cannot create or revoke tokens"),
    _claim("B-48", SECURITY, "a revocation takes effect platform-wide within 60 seconds"),
    _claim("B-49", HOW, "a run on a benchmark not joined, or still pending, is refused", basis="INFERRED"),
    _claim("B-50", HOW, "the score is read only after done"),
    _claim("B-51", CLOSING, "an official reference with an OpenAPI file exists (not available here)", checkable=False),
    _claim("B-52", RUNNABLE, "every task of a connected-agent run is traced", checkable=False),
    _claim("B-53", RUNNABLE, "the built-in agent confirms before spending credits", checkable=False),
]

# the mock's readings the contract checks also hold a target to (PROPOSAL, `docs/benchgen-notes.md`)
PROPOSALS = [
    _claim("P-errors", "notes", 'errors are {"detail", "code"} with a code documented for the operation', "PROPOSAL"),
    _claim("P-pages", "notes", "lists are DRF pages {count, next, previous, results}", "PROPOSAL"),
    _claim(
        "P-throttle", "notes", "a poll sooner than check_again_seconds is 429 throttled with Retry-After", "PROPOSAL"
    ),
]

CLAIMS: list[Claim] = _ALL + PROPOSALS
BY_ID: dict[str, Claim] = {claim.id: claim for claim in CLAIMS}
