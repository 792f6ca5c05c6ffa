"""Per-resource claims of the reference: what a client relies on about each resource's
semantics (forks, deletes, artifacts, the registry, the vault, billing flows, settings,
bug reports, operators, the event catalogue and the worked examples), beside the
cross-cutting claims of `contracts.benchwright.claims`.
"""

from __future__ import annotations

from contracts.benchwright.claims import CLAIMS, Claim
from contracts.runner.claims import register

SECTION_CLAIMS = [
    # runs
    Claim(
        "runs.fork",
        "§4.3",
        "a fork needs a description and records its parent, description, model pin and indices as documented",
    ),
    Claim(
        "runs.delete",
        "§4.7",
        "DELETE stops then removes one run: every read of it is 404 and its fork children are adopted",
    ),
    Claim(
        "runs.patch",
        "§4.8",
        "only visibility and review_resolution are patchable; public needs status ok; unlisted reads anonymously",
    ),
    Claim("runs.narrate", "§4.9", "narration is opt-in (204), slice-checked, windowed by seq and cached per last_seq"),
    Claim(
        "runs.phase_stats",
        "§4.10",
        "phase stats pair PhaseStarted / PhaseCompleted of the finalized runs; failed counts errored runs only",
    ),
    # artifacts and tasks
    Claim("artifacts.listing", "§6.1", "artifact rows carry seq, invocation and their content URL; versions count up"),
    Claim("artifacts.detail", "§6.2", "an artifact's detail is its list row without version and latest_version"),
    Claim("artifacts.content", "§6.3", "content is served whole with the row's mime and size_bytes characters"),
    Claim("artifacts.fingerprint", "§6.4", "the fingerprint's hash is the run's and its components derive from data"),
    Claim("artifacts.report", "§6.5", "the report route redirects to the content of the lowest-seq report artifact"),
    Claim("tasks.payload", "§7.2", "a payload repeats its row's addressing and score; raw=0 drops raw_output only"),
    Claim("tasks.best_trial", "§7.2", "a payload without ?trial is the best-scoring trial, ties to the lowest"),
    # registry
    Claim("registry.summary", "§8.1", "the summary catalog's counters agree with the full tree it abbreviates"),
    Claim("registry.detail", "§8.2", "a benchmark's detail lists the subsets and impls the catalog tree shows"),
    Claim("registry.reads", "§8.3", "the first-class reads agree with each other: stats, leaderboards, datasets"),
    Claim("registry.publish", "§8.4", "publish defaults to public, echoes the run's fingerprint, refuses non-ok runs"),
    Claim("registry.create_benchmark", "§8.5", "a created benchmark is bm_-prefixed and reports a literal private"),
    Claim(
        "registry.create_subset",
        "§8.6",
        "subsets are content-addressed by tasks: same tasks update (200, created false); frozen ones refuse appends",
    ),
    Claim("registry.create_impl", "§8.7", "an impl id is imp_<benchmark>:<fingerprint>; the same code, the same id"),
    Claim(
        "registry.update",
        "§8.8",
        "PATCH answers {id, ok} not the object, refuses unknown fields and official, and freezes one way",
    ),
    Claim("registry.build", "§8.9", "recipe patches merge and report changes; task patches fork and retire the old"),
    # secrets and host policy, local egress
    Claim("secrets.rules", "§9.2", "rules are validated, blank inline ones skipped, and each allows its host"),
    Claim("secrets.rotation", "§9.3", "PATCH answers {id}; without a value it only relabels"),
    Claim("secrets.delete", "§9.4", "deleting a secret withdraws the entries its rules added, not the user's own"),
    Claim("secrets.rule_routes", "§9.5", "a rule POST answers a one-element array; DELETE is 204 and drops it"),
    Claim("host_policy.rules", "§9.6", "host policy entries carry their source; the starter pack adds the five hosts"),
    Claim("host_policy.default", "§9.6", "default_mode is allow until PATCH /host-policy/default flips it"),
    Claim("blocked_hosts.log", "§9.7", "blocked hosts carry their counts and sources; clearing a host drops it"),
    Claim(
        "egress.registration",
        "§9a.1",
        "a registration is signed, its id is eg_ + 10 base32 characters, and a heartbeat cannot change policy",
    ),
    Claim("egress.launch", "§9a.2", "a launch pinned to a machine that is not serving is 412 unless it waits"),
    Claim("egress.serving", "§9a.3", "a pinned run is its machine's pending work until attach releases it"),
    Claim("egress.routes", "§9a.4", "a host is routed through the tunnel exactly when the frozen policy says"),
    # billing flows
    Claim("billing.topup", "§10.3", "a paid top-up reads succeeded with the amount asked for, by top_ id or bare UUID"),
    Claim("billing.topup_bounds", "§10.2", "a top-up amount outside 500..5,000,000 cents is refused"),
    Claim("billing.trend", "§10.6", "the usage trend is six consecutive labelled months ending at the current one"),
    Claim("billing.export", "§10.7", "the export is an RFC 4180 CSV attachment with one row per ledger entry"),
    Claim("billing.statement", "§10.8", "the statement is text/html for the month asked for"),
    Claim("billing.subscription", "§10.9", "subscription failures are legacy {error} bodies; free is an ack"),
    Claim("billing.verify", "§10.10", "verifying an incomplete checkout answers {ok: false, reason: pending}"),
    Claim("billing.controls", "§10.5", "a controls PATCH is what the balance then reports"),
    # settings, bug reports, operators
    Claim("settings.keys", "§11", "only the schema's keys are writable; validated keys refuse bad values"),
    Claim("settings.roundtrip", "§11", "a PUT value is what GET /v1/settings then returns, until DELETE"),
    Claim("bug_reports.create", "§12", "a bug report answers 201 {id, status: open}; descriptions cap at 8000"),
    Claim(
        "operators.lifecycle",
        "§12a",
        "an operator boots, lists and runs under a unique name; stop leaves it running; shutdown keeps it as stopped",
    ),
    Claim(
        "operators.pending", "§12a", "pending counts agree with its items; only withdrawable items can be taken back"
    ),
    # events and examples
    Claim("events.catalog", "§15", "each event of a documented type carries the fields §15 lists for it"),
    Claim("examples.ci_gate", "§16.1", "the CI example runs as written: launch, stream to the end, gate on summary"),
    Claim("examples.fork", "§16.2", "the fork example runs as written, with curl's default content type"),
    Claim(
        "deprecation.headers",
        "§17",
        "a deprecation is announced by Deprecation: true with an HTTP-date Sunset and a rel=deprecation Link",
    ),
]

CLAIMS.update({claim.id: claim for claim in SECTION_CLAIMS})
register(SECTION_CLAIMS)
