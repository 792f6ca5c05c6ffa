"""A validating proxy in front of a live API (or a mock): real traffic checked against the contract.

It sits beside the contract runner because it applies the runner's claims, validators and
redactions (`contracts.runner`) to traffic it did not generate.

`ProxyApp(api, upstream, record=..., log=...)` (`app.py`) forwards every request, streams
included, and checks each exchange and the sequence of them (`checks.py`) plus the API's own
conventions (`registry.py`); violations go back in `X-Contract-Violations` and into a drift log
(`drift.py`); a recording (`recording.py`) of redacted exchanges (`redact.py`) can seed a fresh
mock through its own HTTP surface (`seed.py`). CLI: `cli.py`.
"""
