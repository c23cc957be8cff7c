"""The image recipe, checked without a Docker engine: its stages, what each copies from the
repository, that the runtime installs the wheel `make` builds (not editable) as a non-root
user, and that its healthcheck and Chromium flags work."""

from __future__ import annotations

import ast
import http.server
import os
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from officegym.cli import main
from officegym.tasks.protocol import WorldSpec
from tests.docker import makefile
from tests.docker.dockerfile import (
    Dockerfile,
    DockerfileSyntaxError,
    DockerIgnore,
    Instruction,
    Stage,
    copy_targets,
    healthcheck_command,
    parse,
    shell_commands,
)

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "docker" / "Dockerfile"
DOCKERIGNORE = ROOT / "docker" / "Dockerfile.dockerignore"
WRAPPER = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def recipe() -> Dockerfile:
    return parse(DOCKERFILE.read_text())


@pytest.fixture(scope="module")
def make() -> makefile.Makefile:
    return makefile.read(ROOT / "Makefile")


@pytest.fixture(scope="module")
def ignore() -> DockerIgnore:
    return DockerIgnore(DOCKERIGNORE.read_text())


def commands(stages: Stage | list[Stage]) -> Iterator[tuple[Instruction, list[str]]]:
    """Each simple command the RUN instructions of `stages` execute, with its instruction."""
    for stage in stages if isinstance(stages, list) else [stages]:
        for run in stage.all("RUN"):
            if run.exec_args is not None:
                yield run, list(run.exec_args)
                continue
            for command in shell_commands(run.text):
                yield run, command


def pip_args(command: list[str]) -> list[str] | None:
    """The arguments after `python -m pip`, or None for another command."""
    if command[:1] in (["python"], ["python3"]) and command[1:3] == ["-m", "pip"]:
        return command[3:]
    return None


def pip_wheel(words: list[str]) -> tuple[list[str], str, str]:
    """`pip wheel`'s options, its wheel folder (-w) and its source folder."""
    assert words[0] == "wheel", words
    rest = words[1:]
    at = rest.index("-w")
    wheel_dir = rest[at + 1]
    rest = rest[:at] + rest[at + 2 :]
    options = [w for w in rest if w.startswith("-")]
    (source,) = [w for w in rest if not w.startswith("-")]
    return options, wheel_dir, source


def wheel_build(recipe: Dockerfile) -> tuple[list[str], str, str]:
    """The wheel stage's `pip wheel`: options, wheel folder and source folder (both absolute)."""
    for run, command in commands(recipe.stage("wheel")):
        args = pip_args(command)
        if args and args[0] == "wheel":
            options, wheel_dir, source = pip_wheel(args)
            absolute = [os.path.normpath(os.path.join(run.workdir, p)) for p in (wheel_dir, source)]
            return options, *absolute
    raise AssertionError("the wheel stage runs no `python -m pip wheel`")


def mounts(instruction: Instruction) -> list[dict[str, str]]:
    return [
        dict(part.split("=", 1) for part in value.split(","))
        for value in instruction.flag_values("mount")
    ]


def context_copies(stages: list[Stage]) -> list[Instruction]:
    """COPY and ADD instructions that take from the build context (no --from)."""
    return [
        i
        for stage in stages
        for i in stage.instructions
        if i.keyword in ("COPY", "ADD") and i.flag("from") is None
    ]


def image_path_to_repo(stages: list[Stage], image_path: str) -> Path:
    """The repository file a context COPY put at `image_path`."""
    for copy in context_copies(stages):
        for source, landed in copy_targets(copy, ROOT).items():
            if landed == image_path:
                return ROOT / source
    raise AssertionError(f"nothing is copied to {image_path}")


def runtime_user(recipe: Dockerfile) -> str:
    return recipe.stage("runtime").user.split(":")[0]


# -- the reader ----------------------------------------------------------------------------


def test_reader_joins_continuations_and_drops_comment_lines_inside_them():
    text = 'FROM scratch AS one\nRUN a \\\n# a comment\n    && b\nCMD ["x", "y"]\n'
    (stage,) = parse(text).stages
    assert [i.keyword for i in stage.instructions] == ["RUN", "CMD"]
    assert shell_commands(stage.instructions[0].text) == [["a"], ["b"]]
    assert stage.instructions[1].exec_args == ("x", "y")


def test_reader_rejects_an_unknown_instruction():
    with pytest.raises(DockerfileSyntaxError, match="line 2: unknown instruction 'RUNN'"):
        parse("FROM scratch\nRUNN true\n")


def test_dockerignore_reader_follows_dockers_pattern_rules():
    rules = DockerIgnore("**/__pycache__\n*.sqlite\nout\n!out/keep.txt\n")
    assert rules.excludes("apps/web/__pycache__/x.pyc")
    assert rules.excludes("w.sqlite") and not rules.excludes("deep/w.sqlite")
    assert rules.excludes("out/gate.json") and not rules.excludes("out/keep.txt")
    assert not rules.excludes("apps/web/server.py")


# -- stages --------------------------------------------------------------------------------


def test_dockerfile_has_base_wheel_test_and_runtime_stages(recipe):
    assert {"base", "wheel", "test", "runtime"} <= {s.name for s in recipe.stages}


def test_runtime_and_test_images_are_built_from_base_on_debian_python_311(recipe):
    base = recipe.stage("base")
    assert base.base == "python:3.11-slim-bookworm"
    assert recipe.stage("runtime").parent is base
    assert recipe.stage("test").parent is base


def test_a_build_without_target_gives_the_runtime_image(recipe):
    assert recipe.default_target.name == "runtime"


# -- the build context ---------------------------------------------------------------------


def test_every_copy_source_is_in_the_repository_and_the_build_context(recipe, ignore):
    copies = context_copies(recipe.stages)
    assert copies
    for copy in copies:
        for source in copy.words[:-1]:
            assert (ROOT / source).exists(), f"line {copy.line}: COPY source {source} is missing"
            assert not ignore.excludes(source), f"line {copy.line}: {source} is dockerignored"


def test_build_context_leaves_out_local_venvs_caches_build_output_and_worlds(ignore):
    for path in (
        ".git",
        ".venv/bin/python",
        ".venv-integrations/wheel/officegym-0.1.0-py3-none-any.whl",
        "officegym.egg-info/PKG-INFO",
        "harness/__pycache__/env.cpython-311.pyc",
        "out/gate.json",
        "build/lib/officegym/cli.py",
        "tests/worlds/w1.sqlite",
    ):
        assert ignore.excludes(path), path
    for path in ("tests/conftest.py", "gate-results", "apps/chat/static", "docker/healthcheck.py"):
        assert not ignore.excludes(path), path


# -- the wheel, as the Makefile builds it --------------------------------------------------


def test_wheel_stage_copies_exactly_the_makefiles_package_files(recipe, make):
    _, _, source = wheel_build(recipe)
    landed = {
        name: target
        for copy in context_copies([recipe.stage("wheel")])
        for name, target in copy_targets(copy, ROOT).items()
    }
    package_files = make.words("PACKAGE_FILES")
    assert sorted(landed) == sorted(package_files)
    for name in package_files:
        assert landed[name] == f"{source}/{name}", f"{name} lands at {landed[name]}"


def test_wheel_stage_runs_the_makefiles_pip_wheel_command(recipe, make):
    (line,) = [line for line in make.recipe("integrations-wheel") if " -m pip wheel " in line]
    expected = pip_wheel(line.split(" -m pip ", 1)[1].split())[0]
    options, _, _ = wheel_build(recipe)
    assert options == expected


def test_wheel_stage_builds_with_the_setuptools_of_the_makefiles_wheel_venv(recipe, make):
    venv_python = make.expand("$(IPY)")
    (line,) = [line for line in make.recipe(venv_python) if " -m pip install " in line]
    expected = shell_commands(line)[0][3:]
    installs = [pip_args(c) for _, c in commands(recipe.stage("wheel")) if pip_args(c)]
    assert expected in installs


def test_build_context_leaves_out_what_the_makefiles_wheel_copy_excludes(make, ignore):
    (tar,) = [line for line in make.recipe("integrations-wheel") if line.startswith("tar ")]
    excluded = [w.split("=", 1)[1] for w in tar.split() if w.startswith("--exclude=")]
    assert excluded
    for name in excluded:
        assert ignore.excludes(f"harness/{name}"), name


# -- the runtime image ---------------------------------------------------------------------


def test_runtime_installs_the_built_wheel_not_editable(recipe):
    _, wheel_dir, _ = wheel_build(recipe)
    runtime = recipe.stage("runtime")
    installs = [
        (run, args)
        for run, command in commands(runtime)
        if (args := pip_args(command)) and args[0] == "install"
    ]
    assert len(installs) == 1, installs
    run, args = installs[0]
    (mount,) = mounts(run)
    assert mount["from"] == "wheel" and mount["source"] == wheel_dir
    assert not {"-e", "--editable"} & set(args)
    (spec,) = [a for a in args[1:] if not a.startswith("-")]
    assert spec.startswith(f"$(ls {mount['target']}/officegym-*.whl)["), spec


def test_runtime_takes_from_the_repository_only_its_docker_files(recipe):
    lineage = recipe.stage("runtime").lineage()
    sources = {s for copy in context_copies(lineage) for s in copy.words[:-1]}
    assert sources == {"docker/chromium-flags", "docker/healthcheck.py"}
    for stage in lineage:
        for run in stage.all("RUN"):
            assert all(m.get("from") == "wheel" for m in mounts(run)), f"line {run.line}"


def test_runtime_installs_only_the_browser_an_emoji_font_and_an_init_from_debian(recipe):
    packages = {
        word
        for _, command in commands(recipe.stage("runtime").lineage())
        if command[:2] == ["apt-get", "install"]
        for word in command[2:]
        if not word.startswith("-")
    }
    assert packages == {"chromium", "fonts-noto-color-emoji", "tini"}
    (entrypoint,) = recipe.stage("base").all("ENTRYPOINT")
    assert entrypoint.exec_args == ("/usr/bin/tini", "--")


def test_runtime_extras_are_declared_and_serve_every_serving_command(recipe):
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    extras = recipe.stage("runtime").args["OFFICEGYM_EXTRAS"].split(",")
    assert set(extras) <= set(declared)
    assert "dev" not in extras
    assert {extra for _, extra, _ in main.LAZY.values()} <= set(extras)


def test_runtime_switches_to_the_non_root_user_made_in_base_before_its_command(recipe):
    runtime = recipe.stage("runtime")
    user = runtime_user(recipe)
    assert user not in ("root", "0")
    useradds = [c for _, c in commands(recipe.stage("base")) if c[0] == "useradd"]
    assert [c[-1] for c in useradds] == [user]
    assert useradds[0][useradds[0].index("--uid") + 1] != "0"
    switch = [i for i in runtime.all("USER") if i.text.split(":")[0] == user][-1]
    assert runtime.position(switch) < runtime.position(runtime.last("CMD"))


def test_officegym_home_is_a_volume_the_runtime_user_owns(recipe):
    runtime = recipe.stage("runtime")
    home = runtime.env["OFFICEGYM_HOME"]
    assert [v for i in runtime.all("VOLUME") for v in i.words] == [home]
    user = runtime_user(recipe)
    owned = [
        c[-1]
        for _, c in commands(runtime.lineage())
        if c[:2] == ["install", "-d"] and c[c.index("-o") + 1] == user
    ]
    assert {"$OFFICEGYM_HOME", home} & set(owned), owned


def test_runtime_builds_the_default_world_as_its_user_before_declaring_the_volume(recipe):
    runtime = recipe.stage("runtime")
    seeds = [(run, c) for run, c in commands(runtime) if c[:2] == ["officegym", "seed"]]
    assert len(seeds) == 1
    run, command = seeds[0]
    seed = main.get_command(click.Context(main), "seed")
    params = seed.make_context("seed", command[2:]).params
    assert (params["seed"], params["scale"]) == (WorldSpec().seed, WorldSpec().scale)
    assert run.user.split(":")[0] == runtime_user(recipe)
    assert runtime.position(run) < runtime.position(runtime.last("VOLUME"))


def test_default_command_serves_the_env_server_on_the_exposed_port(recipe):
    runtime = recipe.stage("runtime")
    command = list(runtime.last("CMD").exec_args)
    assert command[:2] == ["officegym", "serve-env"]
    serve_env = main.get_command(click.Context(main), "serve-env")
    params = serve_env.make_context("serve-env", command[2:]).params
    assert params["host"] == "0.0.0.0"
    assert runtime.last("EXPOSE").words == [str(params["port"])]
    assert runtime.env["PORT"] == str(params["port"])  # the port the healthcheck asks


# -- the healthcheck -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def healthcheck(recipe) -> list[str]:
    """The HEALTHCHECK's command, runnable here: this Python and the repository's script."""
    runtime = recipe.stage("runtime")
    command = healthcheck_command(runtime.last("HEALTHCHECK"))
    assert isinstance(command, list) and command[0] == "python", command
    script = image_path_to_repo(runtime.lineage(), command[-1])
    return [sys.executable, *command[1:-1], str(script)]


@pytest.fixture
def health_server() -> Iterator:
    """A function that starts a loopback HTTP server answering GET /health with a status and
    body, and returns its port."""
    servers = []

    def start(status: int, body: bytes) -> int:
        class Health(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(status if self.path == "/health" else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Health)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return server.server_address[1]

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def run_healthcheck(command: list[str], port: int) -> subprocess.CompletedProcess[str]:
    # A proxy in the environment must not carry the loopback request away.
    proxy = "http://127.0.0.1:9"
    env = {**os.environ, "PORT": str(port), "http_proxy": proxy, "HTTP_PROXY": proxy}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=30)


def test_healthcheck_script_uses_only_the_standard_library(healthcheck):
    tree = ast.parse(Path(healthcheck[-1]).read_text())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and not node.level
    }
    assert imported and imported <= sys.stdlib_module_names | {"__future__"}, imported


def test_healthcheck_passes_when_the_server_answers_200_with_json(healthcheck, health_server):
    port = health_server(200, b'{"status": "healthy", "active_sessions": 0}')
    done = run_healthcheck(healthcheck, port)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("healthy")


def test_healthcheck_fails_when_the_server_answers_503(healthcheck, health_server):
    port = health_server(503, b'{"status": "unhealthy"}')
    done = run_healthcheck(healthcheck, port)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "503" in done.stdout


# -- Chromium in a container ---------------------------------------------------------------


def flags_file(recipe: Dockerfile) -> Path:
    return image_path_to_repo(recipe.stage("runtime").lineage(), "/etc/chromium.d/officegym")


def chromium_flags(recipe: Dockerfile, **env: str) -> list[str]:
    """CHROMIUM_FLAGS after sourcing the flags file as Debian's wrapper does."""
    script = 'CHROMIUM_FLAGS=""; . "$1"; printf %s "$CHROMIUM_FLAGS"'
    environ = {k: v for k, v in os.environ.items() if k != "OFFICEGYM_CHROMIUM_FLAGS"}
    done = subprocess.run(
        ["/bin/sh", "-c", script, "sh", str(flags_file(recipe))],
        env={**environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return done.stdout.split()


def test_chromium_flags_go_where_debians_chromium_wrapper_reads_them(recipe):
    assert flags_file(recipe) == ROOT / "docker" / "chromium-flags"
    if not WRAPPER.is_file() or not WRAPPER.read_bytes().startswith(b"#!"):
        pytest.skip(f"{WRAPPER} is not Debian's wrapper script here")
    assert "for file in /etc/chromium.d/*" in WRAPPER.read_text()


def test_chromium_in_the_image_does_not_use_dev_shm(recipe):
    assert chromium_flags(recipe) == ["--disable-dev-shm-usage"]


def test_chromium_flags_take_more_flags_from_the_environment(recipe):
    flags = chromium_flags(recipe, OFFICEGYM_CHROMIUM_FLAGS="--lang=de --mute-audio")
    assert flags == ["--disable-dev-shm-usage", "--lang=de", "--mute-audio"]


# -- the test image ------------------------------------------------------------------------


def test_test_image_holds_the_repository_with_its_tests_and_runs_make_test(recipe, make, ignore):
    test = recipe.stage("test")
    sources = {s for copy in context_copies([test]) for s in copy.words[:-1]}
    assert "." in sources
    assert not ignore.excludes("tests/docker/test_dockerfile.py")
    assert test.last("CMD").exec_args == ("make", "test")
    assert make.recipe("test")


def test_test_image_installs_what_make_test_fetches_while_building(recipe, make):
    targets = [c[1:] for _, c in commands(recipe.stage("test")) if c[0] == "make"]
    assert targets == [["install", "integrations-venv"]]
    assert set(targets[0]) <= make.targets
