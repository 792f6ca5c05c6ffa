"""The clauses of the BenchGen claims (B-nn) that state more than one thing a server could break
alone. A claim not split here is one clause. A check asserts a clause by citing its id."""

from __future__ import annotations

from contracts.runner.claims import Clause

CLAUSES = [
    # B-35 when a finished run failed, error says why
    Clause("B-35.1", "a finished run that failed carries error, a non-empty message"),
    Clause("B-35.2", "a run not yet done carries no error"),
    # B-38 done is terminal
    Clause("B-38.1", "once done is true it stays true"),
    Clause("B-38.2", "once done, the score does not change"),
    # B-48 a revocation takes effect platform-wide within 60 seconds
    Clause("B-48.1", "a revoked token still works until the 60-second window ends"),
    Clause("B-48.2", "from the end of the window on, the token is 401 authentication_failed"),
    Clause("B-48.3", "platform-wide: every operation refuses the revoked token, whatever its scope"),
]
