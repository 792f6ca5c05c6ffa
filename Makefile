# One command each, on a fresh machine: every target installs what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
REDOCLY_VERSION := 2.77.0
REDOCLY := .tools/node_modules/.bin/redocly
PRISM_VERSION := 5.16.0
PRISM := .tools/node_modules/.bin/prism
PROFILE ?= quick
HOST ?= 127.0.0.1
# API=NAME picks one API for serve and contract (default: every registered API)
API ?=
# SEEDS=N: make contract runs everything N times in a row, hypothesis seeds 1..N (reports/seed-<n>/)
SEEDS ?=
# ALLOW=spend,writes,destructive: the opt-ins against a deployment; MAX_REQUESTS=N: the request budget
ALLOW ?=
MAX_REQUESTS ?=
# DIFF=1: make contract also sends each request to an oracle mock and reports behavioural drift (docs/differential.md)
# SET='FIELD=VALUE ...': make serve passes each as --set (a config field, e.g. keep_finished_runs=100)
SET ?=

.PHONY: install test test-nightly serve contract contract-regressions explore proxy stress lint spec-check spec-bundle bench diff-bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

$(REDOCLY):
	npm install --no-save --no-audit --no-fund --prefix .tools @redocly/cli@$(REDOCLY_VERSION) @stoplight/prism-cli@$(PRISM_VERSION)

# per commit: every test not marked slow (tests/conftest.py), on one worker more than the cores (a third of a
# worker's time is spent waiting on servers and clocks); worksteal keeps them busy to the end
WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
test: install
	$(BIN)/python -m pytest -q -n $(WORKERS) --dist worksteal

# nightly: the slow tests too (docs/testing.md)
test-nightly: install
	HARNESS_SLOW=1 $(BIN)/python -m pytest -q -n $(WORKERS) --dist worksteal

serve: install
	$(BIN)/python -m mock_server.serve --host $(HOST) $(if $(API),--api $(API)) $(if $(PORT),--port $(PORT)) $(foreach s,$(SET),--set $(s))

contract: install
	$(BIN)/harness-contract --profile $(PROFILE) --report-dir reports $(if $(API),--api $(API)) $(if $(SEEDS),--seeds $(SEEDS)) $(if $(ALLOW),--allow $(ALLOW)) $(if $(MAX_REQUESTS),--max-requests $(MAX_REQUESTS)) $(if $(DIFF),--differential)

# every entry of the regression corpus (contracts/regressions.toml) at its API, profile and seed (per commit)
contract-regressions: install
	$(BIN)/harness-contract --regressions --report-dir reports/regressions $(if $(API),--api $(API))

# nightly exploration: SEEDS=N random seeds (default 3) at PROFILE (default full); what drifts becomes a
# corpus entry in reports/explore/regressions-found.toml
explore: install
	$(BIN)/harness-contract --explore $(or $(SEEDS),3) --profile $(if $(filter command line,$(origin PROFILE)),$(PROFILE),full) --report-dir reports/explore $(if $(API),--api $(API))

# the stress suite (reports/stress.md): fuzzing, hostile input, races, streams, disclosure, uptime;
# SHORT=1 for the CI size (tests/stress runs it in make test), API=NAME for one API
stress: install
	$(BIN)/python -m mock_server.stress $(if $(SHORT),--short) $(if $(API),--api $(API)) --out reports/stress.md

# the validating proxy in front of UPSTREAM (API=NAME, default benchwright; RECORD=FILE records the session;
# ORACLE=1 also compares each answer with an oracle mock's, docs/differential.md)
proxy: install
	$(BIN)/python -m contracts.proxy --api $(or $(API),benchwright) --upstream $(UPSTREAM) --host $(HOST) $(if $(PORT),--port $(PORT)) $(if $(RECORD),--record $(RECORD)) $(if $(ORACLE),--oracle)

# dist/benchmark_api_harness-<version>-py3-none-any.whl: the harness as a dependency (docs/packaging.md)
.PHONY: wheel
wheel: install
	$(BIN)/python -m pip wheel --quiet --no-deps --no-build-isolation -w dist .

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

# the APIs a target works on: API=NAME, else every registered one (read after install)
LIST_APIS = $(if $(API),echo $(API),$(BIN)/python -c 'from mock_server.apis import APIS; print(*APIS)')

# build/<api>.json per API (build/openapi.json: Benchwright's, as before)
spec-bundle: install
	$(BIN)/python -m mock_server.bundle --api benchwright --out build/openapi.json
	for api in $$($(LIST_APIS)); do $(BIN)/python -m mock_server.bundle --api $$api --out build/$$api.json || exit 1; done

# each bundle through openapi-spec-validator and Redocly (spec/<api>/redocly.yaml if the API has its own rules)
spec-check: spec-bundle $(REDOCLY)
	for api in $$($(LIST_APIS)); do \
	  config=redocly.yaml; [ -f spec/$$api/redocly.yaml ] && config=spec/$$api/redocly.yaml; \
	  $(BIN)/openapi-spec-validator build/$$api.json && $(REDOCLY) lint --config $$config build/$$api.json || exit 1; \
	done

bench: install
	@command -v wrk >/dev/null || { echo "make bench needs wrk (Debian: apt-get install wrk)" >&2; exit 2; }
	@command -v npm >/dev/null && $(MAKE) --no-print-directory $(PRISM) || echo "no npm: Prism is left out of the comparison"
	$(BIN)/python -m mock_server.benchmark --out reports/bench.md

# what DIFF=1 costs: plain and differential runs of each API's profile in alternating rounds, the wall-time
# ratio against its 2x budget (API=NAME, default all four; ROUNDS=N, default 2; docs/differential.md)
diff-bench: install
	$(BIN)/python -m contracts.runner.differential.cost $(foreach a,$(or $(API),$(shell $(LIST_APIS))),--api $(a)) --profile $(PROFILE) $(if $(ROUNDS),--rounds $(ROUNDS)) --out reports/diff-cost.md

$(PRISM):
	npm install --no-save --no-audit --no-fund --prefix .tools @redocly/cli@$(REDOCLY_VERSION) @stoplight/prism-cli@$(PRISM_VERSION)

clean:
	rm -rf $(VENV) .tools build reports .pytest_cache .ruff_cache .hypothesis
