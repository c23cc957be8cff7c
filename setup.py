"""Package discovery: five source folders install as one `officegym` namespace.

`pyproject.toml` holds the metadata; this file only maps each folder to its place under
`officegym` and finds every package below it, so a new subpackage (a folder with an
`__init__.py`) ships without an edit here. No folder installs as a top-level package of its own;
the one top-level module is `officegym_verifiers`, the name the `verifiers` library looks up.
"""

from setuptools import find_packages, setup

PACKAGE_DIR = {
    "officegym": "officegym",
    "officegym.apps": "apps",
    "officegym.harness": "harness",
    "officegym.seed_data": "seed_data",
    "officegym.tasks": "tasks",
}

setup(
    package_dir=PACKAGE_DIR,
    # The one top-level module: verifiers finds the `officegym-verifiers` environment by name.
    py_modules=["officegym_verifiers"],
    packages=sorted(
        f"{root}.{found}" if found else root
        for root, folder in PACKAGE_DIR.items()
        for found in ["", *find_packages(where=folder)]
    ),
)
