"""BenchGen: join a published benchmark, queue a run, poll the score (`docs/reference/benchgen-api.md`)."""
