"""The benchsdk Benchmarks Platform API (`/api/v1`): what `bench run` reports to."""
