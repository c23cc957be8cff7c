"""A non-editable install: the wheel built from this tree, installed into a fresh venv, holds
every package and data file and runs on its own, away from the source folders.

The wheel is built offline with this venv's setuptools (no build isolation) from a copy of the
tree, so a stale `build/` cannot lend it files. The fresh venv gets only the wheel; third-party
dependencies come from this interpreter's import path less the repository, appended after the
fresh venv's own site-packages by a `.pth` file, and the checks run in isolated mode from an
empty folder, so nothing imports from the repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest

from officegym.tasks.registry import templates

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
# Each source folder and where it lands inside the installed `officegym` package.
ROOTS = {
    "officegym": ".",
    "apps": "apps",
    "harness": "harness",
    "seed_data": "seed_data",
    "tasks": "tasks",
}
DATA_DIRS = ("templates", "static")
DEPS_PTH = "officegym-test-deps.pth"

PROBE = """
import json, officegym
from officegym.tasks.registry import get, templates
ids = [t.id for t in templates()]
for template_id in ids:
    get(template_id)
print(json.dumps({"file": officegym.__file__, "templates": ids}))
"""


@dataclass(frozen=True)
class Install:
    python: Path
    bin: Path
    site: Path
    home: Path
    env: dict[str, str]

    def run(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(a) for a in args],
            cwd=self.home,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
        return done


def _in_data_dir(relative: Path) -> bool:
    return any(part in DATA_DIRS for part in relative.parts[:-1])


def _quiet(*args: str | Path) -> None:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Install:
    """The wheel of this tree, installed without `-e` (and with `--no-deps --no-index`)."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    shutil.copytree(
        REPO,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv*", "build", "dist", "out", "*.egg-info", "__pycache__", ".*_cache"
        ),
    )
    wheels = tmp / "wheels"
    build = ("wheel", "--no-deps", "--no-build-isolation", "--no-index", "--quiet")
    _quiet(sys.executable, "-m", "pip", *build, "-w", wheels, source)
    (wheel,) = wheels.glob("officegym-*.whl")

    target = tmp / "venv"
    venv.create(target, with_pip=False)
    python = target / "bin" / "python"
    pip = (sys.executable, "-m", "pip", "--python", python)
    _quiet(*pip, "install", "--no-deps", "--no-index", "--quiet", wheel)
    site = Path(
        subprocess.run(
            [python, "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    sources = {REPO, *(REPO / name for name in ROOTS)}
    deps = [p for p in sys.path if p and Path(p).is_dir() and Path(p).resolve() not in sources]
    (site / DEPS_PTH).write_text("".join(f"{p}\n" for p in dict.fromkeys(deps)))

    home = tmp / "elsewhere"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(OFFICEGYM_HOME=str(tmp / "officegym-home"), COLUMNS="200")
    return Install(python=python, bin=target / "bin", site=site, home=home, env=env)


@pytest.fixture(scope="module")
def probe(installed: Install) -> dict:
    """What the installed interpreter sees: officegym's file and the registered template ids."""
    return json.loads(installed.run(installed.python, "-I", "-c", PROBE).stdout)


def test_installed_officegym_comes_from_the_wheel_not_the_source_tree(installed, probe):
    package = Path(probe["file"]).resolve().parent
    assert package == (installed.site / "officegym").resolve()
    assert not package.is_relative_to(REPO)


def test_wheel_installs_nothing_beside_the_officegym_package_and_the_verifiers_module(installed):
    stray = sorted(
        p.name
        for p in installed.site.iterdir()
        if p.name not in ("officegym", "officegym_verifiers.py", "__pycache__", DEPS_PTH)
        and not p.name.endswith(".dist-info")
    )
    assert stray == []
    cache = installed.site / "__pycache__"
    compiled = sorted(p.name for p in cache.iterdir()) if cache.is_dir() else []
    assert all(name.startswith("officegym_verifiers.") for name in compiled), compiled


def test_wheel_holds_every_package_of_the_source_folders(installed):
    expected = {
        Path(folder, init.parent.relative_to(REPO / name))
        for name, folder in ROOTS.items()
        for init in (REPO / name).rglob("__init__.py")
    }
    package = installed.site / "officegym"
    missing = sorted(str(p) for p in expected if not (package / p / "__init__.py").is_file())
    assert missing == []


def test_wheel_holds_every_template_static_file_and_sql_script(installed):
    expected = {
        Path(folder, path.relative_to(REPO / name))
        for name, folder in ROOTS.items()
        for path in (REPO / name).rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and (path.suffix == ".sql" or _in_data_dir(path.relative_to(REPO / name)))
    }
    assert expected, "the source folders hold no templates or static files to check"
    package = installed.site / "officegym"
    missing = sorted(str(p) for p in expected if not (package / p).is_file())
    assert missing == []


def test_installed_wheel_registers_every_task_template(probe):
    assert probe["templates"] == [t.id for t in templates()]


def test_installed_command_lists_every_task_template(installed):
    listed = json.loads(installed.run(installed.bin / "officegym", "tasks", "--json").stdout)
    assert [row["id"] for row in listed] == [t.id for t in templates()]
