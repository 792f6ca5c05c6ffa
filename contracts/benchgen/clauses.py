"""The clauses of the BenchGen claims (B-nn) that state more than one thing a server could break
alone, or that no HTTP exchange can show. A claim not listed here is one clause (`B-nn.1`), asserted
when a check asserts the claim. A check asserts a clause by citing its id.

Worked through claim by claim, B-01…B-50 (B-51…B-53 are not checkable as a whole, `claims.UNCHECKABLE`):
the claims left whole state one thing (a route, a status, a field, one refusal); the ones below are
split where a server could keep one statement and break the other.
"""

from __future__ import annotations

from contracts.runner.claims import Clause

CLAUSES = [
    # B-01 the production base URL: a check talks to the target it is given, never to the address itself
    Clause(
        "B-01.1",
        "the base URL is https://api.benchgen.com",
        checkable=False,
        reason="a check runs against the target it is given (BENCHGEN_API_URL); which host serves production is "
        "not something an exchange with that target can show (the walkthrough replay only checks that the "
        "reference's commands use this base)",
    ),
    # B-09 listed ids: an integer id each, the one register and queue take
    Clause("B-09.1", "every listed benchmark has an integer id"),
    Clause("B-09.2", "a listed id is the benchmark's id in register and queue"),
    # B-13 pending: refused until approved, then runs
    Clause("B-13.1", "a pending participant's run is refused (400 participation_pending)"),
    Clause("B-13.2", "once an organizer approves, the same participant's run is queued"),
    # B-21 an external endpoint: with its key, and without (the key is optional)
    Clause("B-21.1", "an external endpoint (model_source external, model_url, model_name) with model_token queues"),
    Clause("B-21.2", "model_token is optional: the same endpoint without one queues too"),
    # B-30 the leaderboard is the web app's: the API has no leaderboard operation
    Clause(
        "B-30.1",
        "a run lands on the leaderboard",
        checkable=False,
        reason="the API has no leaderboard operation (the reference lists none); the leaderboard is a page of "
        "the web app",
    ),
    # B-31 external endpoint credentials: never echoed, never stored, never reused
    Clause("B-31.1", "the endpoint key comes back in no answer, accepted or refused, of any operation"),
    Clause(
        "B-31.2",
        "the endpoint key is not stored",
        checkable=False,
        reason="what a server stores is not observable over HTTP (the mock keeps only a hash; a check can only "
        "see that no answer carries the key, B-31.1)",
    ),
    Clause(
        "B-31.3",
        "the endpoint key is not reused for another run",
        checkable=False,
        reason="only the endpoint sees which key a run calls it with; no answer of the API states it",
    ),
    # B-32 run_status: its route, and its scope
    Clause("B-32.1", "run_status is served at GET /api/submissions/{submission_id}/run_status/ for the caller's run"),
    Clause("B-32.2", "run_status needs benchmark:read: a token without it gets 403"),
    # B-35 when a finished run failed, error says why
    Clause("B-35.1", "a finished run that failed carries error, a non-empty message"),
    Clause("B-35.2", "a run not yet done carries no error"),
    # B-36 run_path: present, and that run's own page
    Clause("B-36.1", "run_status carries run_path, a non-empty path"),
    Clause("B-36.2", "run_path is the run's own page: the same on every poll of a run, another for another run"),
    # B-37 check_again_seconds: what the server states, and what the client does with it
    Clause(
        "B-37.1", "run_status carries check_again_seconds: an integer >= 1 while the run is in flight, none once done"
    ),
    Clause(
        "B-37.2",
        "clients poll no sooner than check_again_seconds",
        checkable=False,
        reason="an obligation of the client (the suite keeps it on a deployment); a server's enforcement of it is "
        "the mock's proposal P-throttle, checked under that id",
    ),
    # B-38 done is terminal
    Clause("B-38.1", "once done is true it stays true"),
    Clause("B-38.2", "once done, the score does not change"),
    # B-41 each item: three answers a server could drop one by one
    Clause("B-41.1", "each item gives the expected answer"),
    Clause("B-41.2", "each item gives the model's answer"),
    Clause("B-41.3", "each item says whether it was right (correct, a boolean)"),
    # B-46 the token's secret: shown once, hashed, returned by no endpoint
    Clause("B-46.1", "no endpoint returns the token's secret"),
    Clause(
        "B-46.2",
        "the secret is shown once",
        checkable=False,
        reason="it is shown in the web app at creation (B-42); the API has no operation that shows it at all",
    ),
    Clause(
        "B-46.3",
        "only the secret's hash is stored",
        checkable=False,
        reason="what a server stores is not observable over HTTP; B-46.1 is what an exchange can show",
    ),
    # B-48 a revocation takes effect platform-wide within 60 seconds
    Clause("B-48.1", "a revoked token still works until the 60-second window ends"),
    Clause("B-48.2", "from the end of the window on, the token is 401 authentication_failed"),
    Clause("B-48.3", "platform-wide: every operation refuses the revoked token, whatever its scope"),
]
