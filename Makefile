# Two commands set everything up on a fresh machine: `make run` and `make test`. `make` alone lists the targets.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# every client the suite drives is pinned in clients.lock (registry, package, version, its tests)
pin = $(shell awk '$$2 == "$(1)" {print $$3}' clients.lock)
CLAUDE_CODE_VERSION := $(call pin,@anthropic-ai/claude-code)
CLAUDE := $(VENV)/claude/node_modules/.bin/claude
CODEX_VERSION := $(call pin,@openai/codex)
CODEX := $(VENV)/codex/node_modules/.bin/codex
NODE_SDK_VERSION := $(call pin,@anthropic-ai/sdk)
NODE_SDK := $(VENV)/node-sdk/node_modules/@anthropic-ai/sdk/package.json
GEMINI_CLI_VERSION := $(call pin,@google/gemini-cli)
GEMINI := $(VENV)/gemini/node_modules/.bin/gemini
# the AI SDK's Google provider, pinned in tests/faces/vertex/aisdk/package.json
AISDK := $(VENV)/aisdk/node_modules/.installed
# the TypeScript helper (clients/js): its devDependencies from its package-lock.json (npm ci), built with tsc and
# packed into the venv's folder; next to it, the Node project its tests install the tarball into (vitest, jest, the
# openai and anthropic Node SDKs, the AI SDK), from tests/clients/js/project's package-lock.json
JS := $(VENV)/js
JS_HELPER := $(JS)/zenmux-emulator.tgz
JS_PROJECT := $(JS)/node_modules/.installed
# npm's cache for these two kept in the venv too, not in the home folder
NPM_JS = npm --cache $(abspath $(JS))/.npm-cache --no-audit --no-fund --loglevel=error
# aimock's pinned version lives in bench/aimock.py, which installs it (the bench's peer; tests/bench checks it)
AIMOCK := $(VENV)/aimock/node_modules/@copilotkit/aimock/dist/cli.js

.PHONY: help run test test-latest screenshots lint validate docs dist bench clean redis-server wrk
.DEFAULT_GOAL := help

## help: list the targets (the default)
help:
	@echo "make targets (HOST=127.0.0.1 PORT=8000 for run):"
	@sed -n 's/^## \([a-z-]*\): /  \1\t/p' $(MAKEFILE_LIST) | expand -t 14

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# what the README's examples import (the openai SDK), for `make run`
$(VENV)/.installed-examples: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[examples]'
	touch $@ $(VENV)/.installed

# the Python clients at their clients.lock pins (pip constraints made from its `pypi` lines)
$(VENV)/constraints.txt: clients.lock | $(BIN)/python
	awk '$$1 == "pypi" {print $$2 "==" $$3}' clients.lock > $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -c $(VENV)/constraints.txt -e '.[test]'
	touch $@ $(VENV)/.installed

$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@ $(VENV)/.installed

$(VENV)/.installed-lint: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[lint]'
	touch $@ $(VENV)/.installed

# Claude Code from npm, pinned, into the venv's folder: the Anthropic face's tests run it headless
$(CLAUDE): clients.lock | $(BIN)/python
	npm install --prefix $(VENV)/claude --no-audit --no-fund --loglevel=error @anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION)
	touch $@

# Codex CLI from npm, pinned, likewise: the Responses face's tests run `codex exec` headless
$(CODEX): clients.lock | $(BIN)/python
	npm install --prefix $(VENV)/codex --no-audit --no-fund --loglevel=error @openai/codex@$(CODEX_VERSION)
	touch $@

# the Node anthropic SDK from npm, pinned, likewise: tests/clients/test_node_sdk.py drives it
$(NODE_SDK): clients.lock | $(BIN)/python
	npm install --prefix $(VENV)/node-sdk --no-audit --no-fund --loglevel=error @anthropic-ai/sdk@$(NODE_SDK_VERSION)
	touch $@

# Gemini CLI from npm, pinned, likewise: the Vertex AI / Gemini face's tests run `gemini -p` headless
$(GEMINI): clients.lock | $(BIN)/python
	npm install --prefix $(VENV)/gemini --no-audit --no-fund --loglevel=error @google/gemini-cli@$(GEMINI_CLI_VERSION)
	touch $@

# @ai-sdk/google and ai from npm, pinned in their package.json, into the venv's folder: tests/faces/vertex runs them
$(AISDK): tests/faces/vertex/aisdk/package.json | $(BIN)/python
	mkdir -p $(VENV)/aisdk && cp tests/faces/vertex/aisdk/package.json $(VENV)/aisdk/
	npm install --prefix $(VENV)/aisdk --no-audit --no-fund --loglevel=error
	touch $@

$(JS_HELPER): clients/js/package.json clients/js/package-lock.json clients/js/tsconfig.json $(wildcard clients/js/src/*.ts)
	cd clients/js && $(NPM_JS) ci && npm run --silent build
	mkdir -p $(JS) && rm -f $(JS)/zenmux-emulator-*.tgz
	cd clients/js && $(NPM_JS) pack --silent --pack-destination $(abspath $(JS)) >/dev/null
	mv $(JS)/zenmux-emulator-*.tgz $@

$(JS_PROJECT): tests/clients/js/project/package.json tests/clients/js/project/package-lock.json
	mkdir -p $(JS) && cp tests/clients/js/project/package.json tests/clients/js/project/package-lock.json $(JS)/
	cd $(JS) && $(NPM_JS) ci
	touch $@

# aimock from npm, pinned in bench/aimock.py, into the venv's folder: `make bench` measures against it
$(AIMOCK): bench/aimock.py | $(BIN)/python
	cd bench && ../$(BIN)/python aimock.py --install
	touch $@

## run: serve the shipped scenarios on http://127.0.0.1:8000/api/v1 (and install openai for the README's examples)
run: $(VENV)/.installed-examples
	$(BIN)/zenmux-emulator serve --host $(HOST) --port $(PORT) --scenarios scenarios

# redis-server, jq, chromium and wrk from Debian's packages: the shared-state tests (--state, --workers) run against
# a real Redis, the documentation's journal recipes (tests/docs) run jq, the inspector's tests
# (tests/inspector) drive /usr/bin/chromium headless through Playwright (whose own browser downloads are not used),
# and the bench's tests (tests/bench/test_wrk.py) run wrk
APT_TOOLS := redis-server jq chromium wrk
redis-server:
	@command -v redis-server >/dev/null && command -v jq >/dev/null && [ -x /usr/bin/chromium ] && command -v wrk >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(APT_TOOLS); \
	  elif command -v sudo >/dev/null && command -v apt-get >/dev/null; then \
	    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(APT_TOOLS); \
	  else echo "make test needs $(APT_TOOLS) (Debian/Ubuntu: apt-get install $(APT_TOOLS))" >&2; exit 1; fi; }

## test: install with the test extras and the clients pinned in clients.lock (Claude Code, Codex, Gemini CLI, the Node SDK, the AI SDK's Google provider and aimock from npm, redis-server and jq from apt), build and pack the TypeScript helper and install its test project from its lock, then run the whole suite against real servers
test: $(VENV)/.installed-test $(CLAUDE) $(CODEX) $(GEMINI) $(NODE_SDK) $(AISDK) $(AIMOCK) $(JS_HELPER) $(JS_PROJECT) redis-server
	$(BIN)/python -m pytest -q -n auto

## test-latest: the newest release of every client in clients.lock, in .venv-latest: runs their tests, prints the drift table (exit 0 on drift)
test-latest: redis-server
	$(PYTHON) tools/test_latest.py

## screenshots: the inspector's screenshots in docs/guide/img, taken by its browser tests
screenshots: $(VENV)/.installed-test redis-server
	INSPECTOR_SCREENSHOTS=docs/guide/img $(BIN)/python -m pytest -q -n 0 tests/inspector/test_page.py -k "lists or timeline or conversation"

## lint: ruff (checks, McCabe complexity <= 12, format), mypy --strict and the import-linter contracts (.importlinter)
lint: $(VENV)/.installed-lint
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

## validate: check the shipped scenario files
validate: $(VENV)/.installed
	$(BIN)/zenmux-emulator validate scenarios

## docs: build the documentation site from docs/ into site/ (strict: a broken link or anchor fails it)
docs: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

## dist: build the wheel into dist/, for `pip install dist/zenmux_emulator-*.whl`
DIST ?= dist
dist: | $(BIN)/python
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir $(DIST) .

# wrk from Debian's package: the bench's load generator (bench/wrk.py), installed as redis-server is
wrk:
	@command -v wrk >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk; \
	  elif command -v sudo >/dev/null && command -v apt-get >/dev/null; then \
	    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk; \
	  else echo "make bench needs wrk (Debian/Ubuntu: apt-get install wrk)" >&2; exit 1; fi; }

## bench: the emulator against a bare aiohttp baseline and aimock under wrk (bench/run.py; ARGS=--quick for 1 s runs)
bench: $(VENV)/.installed $(AIMOCK) wrk
	$(BIN)/python bench/run.py $(ARGS)

## clean: remove the virtualenv and build files
clean:
	rm -rf $(VENV) .venv-latest .pytest_cache build dist site *.egg-info clients/js/node_modules clients/js/dist
