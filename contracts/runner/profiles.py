"""The hypothesis profiles every suite runs under.

`quick` (CI and `make contract`): derandomized, few examples, so a run is fast
and the same every time. `smoke`: fewer still, for the target-mode matrix of
`make test` (tests/modes), which runs every suite in four modes. `full` (nightly, `--profile full`): more examples and
longer state machines. `--seed N` turns derandomization off and fixes the seed,
so a random run can be reproduced."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

from .safety import setting

settings.register_profile(
    "quick",
    max_examples=6,
    stateful_step_count=8,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    print_blob=False,
)
settings.register_profile("smoke", settings.get_profile("quick"), max_examples=2, stateful_step_count=4)
settings.register_profile(
    "full",
    settings.get_profile("quick"),
    max_examples=60,
    stateful_step_count=25,
    derandomize=False,
    print_blob=True,
)


def load() -> str:
    name = setting("PROFILE") or "quick"
    if setting("SEED"):
        settings.register_profile(f"{name}-seeded", settings.get_profile(name), derandomize=False)
        name = f"{name}-seeded"
    settings.load_profile(name)
    return name


PROFILE = load()
