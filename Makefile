# Two commands do everything on a fresh machine: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
HOST ?= 127.0.0.1
PORT ?= 8000
SEED ?= 0
SCALE ?= small

.PHONY: run test check lint format bench soak browser install clean integrations-venv \
	integrations-wheel

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) browser

# Debian's Chromium (driven by Playwright via executable_path) and a colour emoji font, so
# screenshots show reactions and statuses, when apt is there; otherwise Playwright's own build.
EMOJI_FONT := /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf
browser: $(STAMP)
	@if [ -x $(CHROMIUM) ] && [ -f $(EMOJI_FONT) ]; then :; \
	elif command -v apt-get >/dev/null 2>&1; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium fonts-noto-color-emoji; \
	elif [ ! -x $(CHROMIUM) ]; then \
		$(BIN)/python -m playwright install chromium; \
	fi

run: install
	$(BIN)/officegym serve --host $(HOST) --port $(PORT) --seed $(SEED) --scale $(SCALE)

lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The integrations venv builds (mostly downloads and unpacking) while the main suite runs; its
# log is shown when the build fails.
test: install lint
	@mkdir -p out
	@$(MAKE) --no-print-directory integrations-venv > out/integrations-venv.log 2>&1 & build=$$!; \
	$(BIN)/python -m pytest -n auto --dist loadgroup --durations=30; tests=$$?; \
	wait $$build || { cat out/integrations-venv.log; exit 1; }; \
	exit $$tests
	cd $(IVENV) && OFFICEGYM_REQUIRE_BROWSERGYM=1 bin/python -P -m pytest -m browsergym \
		--rootdir=.. --import-mode=importlib -p no:cacheprovider ../tests/officegym/integrations

# The integrations venv: BrowserGym pins Playwright 1.44, so its tests run beside the main venv,
# against this tree's wheel as a user installs it (not editable). Dependencies install once
# (again when pyproject.toml changes); the wheel is rebuilt and re-installed on every run. The
# tests run from inside the venv folder, with -P and importlib imports, so that the repository
# root (whose officegym/ folder is only part of the package) is never on sys.path.
IVENV := .venv-integrations
IPY := $(IVENV)/bin/python
IWHEEL := $(IVENV)/wheel
ISOURCE := $(IVENV)/source
ISTAMP := $(IVENV)/.installed
PACKAGE_FILES := setup.py pyproject.toml README.md officegym officegym_verifiers.py apps harness seed_data \
	tasks

$(IPY):
	$(PY) -m venv $(IVENV)
	echo '*' > $(IVENV)/.gitignore
	$(IPY) -m pip install --quiet --upgrade pip 'setuptools>=77'

$(ISTAMP): pyproject.toml $(IPY) | integrations-wheel
	$(IPY) -m pip install --quiet "$$(ls $(IWHEEL)/officegym-*.whl)[browsergym]" pytest pytest-xdist
	touch $(ISTAMP)

# The wheel is built from a copy of the package's files: setuptools' build/ folder in the tree
# would carry modules deleted since into it.
integrations-wheel: $(IPY)
	rm -rf $(ISOURCE) $(IWHEEL) && mkdir -p $(ISOURCE)
	tar -cf - --exclude=__pycache__ $(PACKAGE_FILES) | tar -xf - -C $(ISOURCE)
	$(IPY) -m pip wheel --quiet --no-deps --no-build-isolation -w $(IWHEEL) $(ISOURCE)
	rm -rf $(ISOURCE)

integrations-venv: integrations-wheel $(ISTAMP)
	$(IPY) -m pip install --quiet --no-deps --force-reinstall $(IWHEEL)/officegym-*.whl

# The full quality gate: every task template on instance seeds 0-4, one process per core,
# recorded in gate-results/ (make test re-proves changed templates on seed 0), then the
# reliability suite at full depth (make test runs it at a bounded depth).
check: install
	$(BIN)/officegym check --seeds 5 --jobs $$(nproc) --results gate-results --json out/gate.json
	OFFICEGYM_RELIABILITY=full $(BIN)/python -m pytest tests/reliability -n auto

bench: install
	$(BIN)/python bench/world.py
	$(BIN)/python bench/chat.py
	$(BIN)/python bench/crm.py
	$(BIN)/python bench/sheets.py
	$(BIN)/python bench/booking.py
	$(BIN)/python bench/harness.py

# 1,000 episodes through one env pool: memory, files, threads and processes every 100.
soak: install
	$(BIN)/python bench/soak.py --episodes 1000 --json out/soak.json

clean:
	rm -rf $(VENV) $(IVENV) .pytest_cache
