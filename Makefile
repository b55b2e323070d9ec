# Set-up and everyday targets. `make run` and `make test` work on a fresh machine with
# Python 3.11 and make: each creates .venv and installs the project into it first.
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
JOBS   ?=
# make test runs the suite on every core (pytest-xdist); TEST_WORKERS=0 runs it in one process.
# --dist worksteal: an idle worker takes the queued tests of a busy one, so a few long
# end-to-end tests do not leave a core idle at the end (2 workers: 175-187 s -> 150-153 s).
TEST_WORKERS ?= auto

# The reproduction configs of the papers (each writes its tables and figures under results/).
REPRO_CONFIGS := configs/uci.yaml configs/noise.yaml configs/mcboost.yaml configs/coherence.yaml \
                 configs/rebel.yaml configs/directboost.yaml configs/directboost_noise.yaml

.PHONY: run test bench reproduce reproduce-quick noise-sweep noise-sweep-quick install install-test clean-venv help print-repro-configs

help:
	@echo "make run    - install, then run configs/quick.yaml and print its table"
	@echo "make test   - install with test extras, then run the test suite"
	@echo "make bench  - install with bench extras, then run the benchmarks (SAMME on Letter; DMCBoost"
	@echo "              and SAMME on Letter and a 525,010-row poker training set; the 8-leaf"
	@echo "              least-squares tree against LightGBM's on Letter; the histogram tree with"
	@echo "              and without its rows in node order on poker; a REBEL round with"
	@echo "              two-point similarities against a SAMME stump round on pendigits;"
	@echo "              DirectBoost^eps_avg's fit and LPBoost's LP against AdaBoost's round on"
	@echo "              Adult-10k)"
	@echo "make reproduce       - every reproduction config in full (hours; re-run to resume),"
	@echo "                       then its tables and figures under results/<experiment>/,"
	@echo "                       significance tests, and the index results/README.md"
	@echo "make reproduce-quick - the same tables on the configs' quick budgets (minutes),"
	@echo "                       under results/<experiment>/quick/, labelled QUICK"
	@echo "make noise-sweep       - beyond the papers: every multi-class algorithm on every offline"
	@echo "                       multi-class dataset at 5 label-noise rates (many CPU-hours;"
	@echo "                       resumes); noise-sweep-quick: its quick budget (seconds)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $@ $(VENV)/.installed

# The reproduction configs include the REBEL paper's Figure 9 (svm, mlp: scikit-learn).
$(VENV)/.installed-sklearn: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[sklearn]"
	touch $@ $(VENV)/.installed

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

run: $(VENV)/.installed
	$(BIN)/mcboost run configs/quick.yaml $(if $(JOBS),--jobs $(JOBS),)

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal

bench: $(VENV)/.installed-bench
	$(BIN)/python -m benchmarks.bench_samme
	$(BIN)/python -m benchmarks.bench_dmcboost
	$(BIN)/python -m benchmarks.bench_leafwise_tree
	$(BIN)/python -m benchmarks.bench_tree_rows
	$(BIN)/python -m benchmarks.bench_rebel
	$(BIN)/python -m benchmarks.bench_directboost

# Each config's run resumes from its result store; a config that exits 1 (some cells failed)
# does not stop the others, but makes the target fail at the end. Then each config's
# significance tests (results/<experiment>/significance/) and the index.
reproduce: $(VENV)/.installed-sklearn
	@status=0; for c in $(REPRO_CONFIGS); do \
	  $(BIN)/mcboost run $$c -q $(if $(JOBS),--jobs $(JOBS),) || status=$$?; \
	  [ $$status -eq 130 ] && exit 130; \
	done; \
	for c in $(REPRO_CONFIGS); do $(BIN)/mcboost compare $$c > /dev/null || status=$$?; done; \
	$(BIN)/mcboost index $(REPRO_CONFIGS) || status=$$?; exit $$status

reproduce-quick: $(VENV)/.installed-sklearn
	@status=0; for c in $(REPRO_CONFIGS); do \
	  $(BIN)/mcboost run $$c --quick -q $(if $(JOBS),--jobs $(JOBS),) || status=$$?; \
	  [ $$status -eq 130 ] && exit 130; \
	done; exit $$status

# The noise sweep of issue 35 (not a paper's table): configs/noise_sweep.yaml.
noise-sweep: $(VENV)/.installed
	$(BIN)/mcboost run configs/noise_sweep.yaml -q $(if $(JOBS),--jobs $(JOBS),)

noise-sweep-quick: $(VENV)/.installed
	$(BIN)/mcboost run configs/noise_sweep.yaml --quick -q $(if $(JOBS),--jobs $(JOBS),)

print-repro-configs:
	@echo $(REPRO_CONFIGS)

clean-venv:
	rm -rf $(VENV)
