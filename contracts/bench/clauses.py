"""The clauses of the Bench claims (C-nn) that state more than one thing a server could break
alone. A claim not split here is one clause. A check asserts a clause by citing its id."""

from __future__ import annotations

from contracts.runner.claims import Clause

CLAUSES = [
    # C-19 API keys cannot mint broader credentials or gain account authority
    Clause("C-19.1", "a key cannot create another API key (403)"),
    Clause("C-19.2", "a key is not exchanged for an account credential by exchange_oauth_token"),
    Clause("C-19.3", "a key gets 403 on account-class operations"),
    # C-20 exchange_oauth_token needs an AuthKit token with the configured MCP resource audience
    Clause("C-20.1", "an AuthKit token with the configured audience becomes a credential with account authority"),
    Clause("C-20.2", "an AuthKit token with another audience is 401 invalid_audience"),
    Clause("C-20.3", "an expired AuthKit token is 401"),
    Clause("C-20.4", "only an AuthKit token is exchanged: an account OAuth credential is 401"),
]
