"""The clauses of Benchwright's reference sections: each statement of a section that a server
could break alone. A section not split here is one clause. A check asserts a clause by citing
its id (`"§2.4#1"`) or one of the suite claim ids the clause lists in `via`."""

from __future__ import annotations

from contracts.runner.claims import Clause

CLAUSES = [
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
]
