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

.PHONY: run test check lint format bench soak browser install clean

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

test: install lint
	$(BIN)/python -m pytest -n auto

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
	rm -rf $(VENV) .pytest_cache
