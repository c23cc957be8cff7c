"""A small reader of Dockerfile and .dockerignore syntax, enough to check the image recipe
without a Docker engine.

It follows Docker's rules for what it knows (line continuations, comment lines inside them,
instruction flags, exec and shell forms, global ARGs in FROM, stages named with `AS`, WORKDIR
and USER carried into stages built `FROM` another) and refuses what it does not (unknown
instructions, heredocs, variables in paths, users and ports), so a recipe it cannot read
fails loudly instead of being checked wrongly.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "DockerIgnore",
    "Dockerfile",
    "DockerfileSyntaxError",
    "Instruction",
    "Stage",
    "copy_targets",
    "healthcheck_command",
    "parse",
    "shell_commands",
]

KEYWORDS = frozenset(
    [
        "ADD",
        "ARG",
        "CMD",
        "COPY",
        "ENTRYPOINT",
        "ENV",
        "EXPOSE",
        "FROM",
        "HEALTHCHECK",
        "LABEL",
        "MAINTAINER",
        "ONBUILD",
        "RUN",
        "SHELL",
        "STOPSIGNAL",
        "USER",
        "VOLUME",
        "WORKDIR",
    ]
)
# Instructions whose `--name=value` options come before their arguments.
FLAGGED = frozenset({"ADD", "COPY", "FROM", "HEALTHCHECK", "RUN"})
# Instructions that take a JSON array (exec form) as well as plain text.
EXEC_FORM = frozenset({"ADD", "CMD", "COPY", "ENTRYPOINT", "RUN", "SHELL", "VOLUME"})
FLAG = re.compile(r"--([a-z][a-z-]*)(?:=(\S*))?\s+")
VARIABLE = re.compile(r"\$(?:\{(\w+)(?::-([^}]*))?\}|(\w+))")


class DockerfileSyntaxError(ValueError):
    """The recipe is not Dockerfile syntax this reader understands; the message says where."""


@dataclass(frozen=True)
class Instruction:
    """One instruction, continuations joined, with the state it runs in."""

    keyword: str
    text: str
    line: int
    flags: tuple[tuple[str, str], ...] = ()
    exec_args: tuple[str, ...] | None = None
    workdir: str = "/"
    user: str = "root"

    def flag(self, name: str) -> str | None:
        """The value of the first `--name` option, or None."""
        return next((value for key, value in self.flags if key == name), None)

    def flag_values(self, name: str) -> list[str]:
        return [value for key, value in self.flags if key == name]

    @property
    def words(self) -> list[str]:
        """The arguments: the exec-form array, else the text split at whitespace."""
        return list(self.exec_args) if self.exec_args is not None else self.text.split()


@dataclass
class Stage:
    """A build stage: `FROM base AS name` and its instructions."""

    name: str
    base: str
    index: int
    parent: Stage | None
    instructions: list[Instruction] = field(default_factory=list)
    workdir: str = "/"
    user: str = "root"
    env: dict[str, str] = field(default_factory=dict)
    args: dict[str, str] = field(default_factory=dict)

    def lineage(self) -> list[Stage]:
        """This stage and the stages it is built from, the first ancestor first."""
        return [*(self.parent.lineage() if self.parent else []), self]

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def last(self, keyword: str) -> Instruction | None:
        found = self.all(keyword)
        return found[-1] if found else None

    def position(self, instruction: Instruction) -> int:
        return self.instructions.index(instruction)


@dataclass
class Dockerfile:
    global_args: dict[str, str]
    stages: list[Stage]

    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name.lower():
                return stage
        raise KeyError(f"no stage named {name!r}: stages are {[s.name for s in self.stages]}")

    @property
    def default_target(self) -> Stage:
        """The stage `docker build` builds without `--target`: the last one."""
        return self.stages[-1]


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, instruction text) with comment lines dropped and continuations
    joined as Docker joins them (the backslash and newline removed)."""
    logical: list[tuple[int, str]] = []
    current: str | None = None
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if current is None:
            current, start = "", number
        line = raw.rstrip()
        if line.endswith("\\"):
            current += line[:-1]
            continue
        logical.append((start, (current + line).strip()))
        current = None
    if current is not None:
        raise DockerfileSyntaxError(f"line {start}: a line continuation runs past the end")
    return logical


def _substitute(text: str, values: dict[str, str], line: int) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(3)
        if name in values and values[name] != "":
            return values[name]
        if match.group(2) is not None:
            return match.group(2)
        raise DockerfileSyntaxError(f"line {line}: ${name} has no value here")

    return VARIABLE.sub(value, text)


def _split_flags(rest: str) -> tuple[tuple[tuple[str, str], ...], str]:
    flags = []
    while match := FLAG.match(rest):
        flags.append((match.group(1), match.group(2) or ""))
        rest = rest[match.end() :]
    return tuple(flags), rest


def _exec_args(keyword: str, rest: str, line: int) -> tuple[str, ...] | None:
    if keyword not in EXEC_FORM or not rest.startswith("["):
        return None
    try:
        args = json.loads(rest)
    except ValueError:
        if keyword == "SHELL":
            raise DockerfileSyntaxError(f"line {line}: SHELL needs a JSON array") from None
        return None  # Docker runs a malformed array as a shell command, and so do we.
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise DockerfileSyntaxError(f"line {line}: {keyword}'s array must hold only strings")
    return tuple(args)


def _env_pairs(rest: str, line: int) -> dict[str, str]:
    words = shlex.split(rest)
    if words and "=" not in words[0]:
        if len(words) < 2:
            raise DockerfileSyntaxError(f"line {line}: ENV {words[0]} has no value")
        return {words[0]: rest.split(None, 1)[1]}
    pairs = {}
    for word in words:
        name, equals, value = word.partition("=")
        if not equals or not name:
            raise DockerfileSyntaxError(f"line {line}: ENV expects NAME=value, got {word!r}")
        pairs[name] = value
    return pairs


def _from(rest: str, global_args: dict[str, str], line: int) -> tuple[str, str | None]:
    words = _substitute(rest, global_args, line).split()
    if len(words) == 1:
        return words[0], None
    if len(words) == 3 and words[1].upper() == "AS":
        return words[0], words[2].lower()
    raise DockerfileSyntaxError(f"line {line}: expected FROM image [AS name], got FROM {rest}")


def parse(text: str) -> Dockerfile:
    """The stages of a Dockerfile's text; DockerfileSyntaxError on what it cannot read."""
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for line, body in _logical_lines(text):
        word, _, rest = body.partition(" ")
        keyword, rest = word.upper(), rest.strip()
        if keyword not in KEYWORDS:
            raise DockerfileSyntaxError(f"line {line}: unknown instruction {word!r}")
        if not rest:
            raise DockerfileSyntaxError(f"line {line}: {keyword} needs arguments")
        if "<<" in rest and keyword in ("RUN", "COPY", "ADD"):
            raise DockerfileSyntaxError(f"line {line}: heredocs are not supported by this reader")
        flags, rest = _split_flags(rest) if keyword in FLAGGED else ((), rest)
        if keyword == "FROM":
            base, name = _from(rest, global_args, line)
            name = name or str(len(stages))
            if any(s.name == name for s in stages):
                raise DockerfileSyntaxError(f"line {line}: a second stage named {name!r}")
            parent = next((s for s in stages if s.name == base.lower()), None)
            stages.append(
                Stage(
                    name=name,
                    base=base,
                    index=len(stages),
                    parent=parent,
                    workdir=parent.workdir if parent else "/",
                    user=parent.user if parent else "root",
                    env=dict(parent.env) if parent else {},
                )
            )
            continue
        if not stages:
            if keyword != "ARG":
                raise DockerfileSyntaxError(f"line {line}: {keyword} before the first FROM")
            name, _, default = rest.partition("=")
            global_args[name.strip()] = default.strip()
            continue
        stage = stages[-1]
        if "$" in rest and keyword in ("ADD", "COPY", "USER", "WORKDIR", "VOLUME", "EXPOSE"):
            raise DockerfileSyntaxError(
                f"line {line}: variables in {keyword} are not supported by this reader"
            )
        instruction = Instruction(
            keyword=keyword,
            text=rest,
            line=line,
            flags=flags,
            exec_args=_exec_args(keyword, rest, line),
            workdir=stage.workdir,
            user=stage.user,
        )
        stage.instructions.append(instruction)
        if keyword == "WORKDIR":
            stage.workdir = posixpath.normpath(posixpath.join(stage.workdir, rest))
        elif keyword == "USER":
            stage.user = rest
        elif keyword == "ENV":
            stage.env.update(_env_pairs(rest, line))
        elif keyword == "ARG":
            name, _, default = rest.partition("=")
            stage.args[name.strip()] = default.strip()
    if not stages:
        raise DockerfileSyntaxError("no FROM: a Dockerfile has at least one stage")
    return Dockerfile(global_args=global_args, stages=stages)


def copy_targets(instruction: Instruction, context: Path) -> dict[str, str]:
    """Where each source of a COPY from the build context lands in the image: a file at its
    path, a folder at the folder that receives its contents (Docker copies a folder's
    contents, not the folder)."""
    *sources, dest = instruction.words
    if not sources:
        raise DockerfileSyntaxError(f"line {instruction.line}: COPY needs a source and a target")
    into_folder = dest.endswith("/") or len(sources) > 1
    target = posixpath.normpath(posixpath.join(instruction.workdir, dest))
    landed = {}
    for source in sources:
        name = posixpath.normpath(source)
        if (context / name).is_dir() or not into_folder:
            landed[name] = target
        else:
            landed[name] = posixpath.join(target, posixpath.basename(name))
    return landed


def healthcheck_command(instruction: Instruction) -> list[str] | str | None:
    """The HEALTHCHECK's command (exec form as a list, shell form as text), None for NONE."""
    word, _, rest = instruction.text.partition(" ")
    if word.upper() == "NONE":
        return None
    if word.upper() != "CMD":
        raise DockerfileSyntaxError(f"line {instruction.line}: HEALTHCHECK expects CMD or NONE")
    rest = rest.strip()
    if rest.startswith("["):
        return list(json.loads(rest))
    return rest


def shell_commands(script: str) -> list[list[str]]:
    """The simple commands of a shell script, split at `&&`, `||`, `;` and `|`."""
    lexer = shlex.shlex(script, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    for token in lexer:
        if token and set(token) <= set(";&|"):
            commands.append([])
        else:
            commands[-1].append(token)
    return [c for c in commands if c]


def _ignore_regex(pattern: str) -> re.Pattern[str]:
    """Docker's pattern syntax: `*` and `?` within one path segment, `**` across segments,
    `[...]` classes, backslash escapes."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**", i):
            i += 2
            if pattern.startswith("/", i):
                out.append("(?:.*/)?")
                i += 1
            else:
                out.append(".*")
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.index("]", i + 1)
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith(("!", "^")) else body) + "]")
            i = end
        elif char == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out))


class DockerIgnore:
    """The patterns of a .dockerignore file and Docker's rule for them: the last pattern that
    matches a path or one of its parent folders decides, `!` patterns take paths back in."""

    def __init__(self, text: str) -> None:
        self.patterns: list[tuple[bool, re.Pattern[str]]] = []
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            keep = line.startswith("!")
            pattern = posixpath.normpath(line[1:].strip() if keep else line).lstrip("/")
            self.patterns.append((keep, _ignore_regex(pattern)))

    def excludes(self, path: str) -> bool:
        """Whether `path` (relative to the context root, `/`-separated) stays out."""
        path = posixpath.normpath(path)
        if path == ".":
            return False
        parts = path.split("/")
        prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
        excluded = False
        for keep, regex in self.patterns:
            if any(regex.fullmatch(p) for p in prefixes):
                excluded = not keep
        return excluded
