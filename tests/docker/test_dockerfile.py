"""Static checks of the image recipe (no Docker engine is needed to run these)."""

from __future__ import annotations

import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "docker" / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    logical, current = [], ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        current += line[:-1] + " " if line.endswith("\\") else line
        if not line.endswith("\\"):
            keyword, _, rest = current.partition(" ")
            logical.append((keyword.upper(), rest.strip()))
            current = ""
    return logical


def test_every_copied_path_exists_in_the_repository():
    copies = [rest for keyword, rest in instructions() if keyword == "COPY"]
    assert copies
    for rest in copies:
        *sources, _dest = shlex.split(rest)
        for source in sources:
            assert (ROOT / source).exists(), f"COPY source {source} is missing"


def test_the_image_installs_debian_chromium_and_runs_the_suite():
    text = dict(instructions())
    assert text["FROM"].startswith("python:3.11")
    runs = " ".join(rest for keyword, rest in instructions() if keyword == "RUN")
    assert "apt-get install" in runs and "chromium" in runs
    assert "playwright install" not in runs
    assert text["CMD"] == '["make", "test"]'


def test_every_top_level_package_is_copied():
    copied = {shlex.split(rest)[0] for keyword, rest in instructions() if keyword == "COPY"}
    for folder in ("officegym", "apps", "seed_data", "tasks", "harness", "tests", "bench"):
        assert folder in copied
    # Without its committed gate results, the suite in the image would re-prove every template.
    assert "gate-results" in copied


def test_every_file_the_package_build_reads_is_copied():
    copied = {
        source
        for keyword, rest in instructions()
        if keyword == "COPY"
        for source in shlex.split(rest)[:-1]
    }
    # setup.py maps the source folders to the officegym namespace; without it the install
    # inside the image would find no packages.
    for name in ("pyproject.toml", "setup.py", "README.md", "Makefile"):
        assert name in copied, f"the image does not copy {name}"
