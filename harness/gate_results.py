"""Content-keyed gate results: what the gate proved for each template, and the inputs it
proved it on, so a run re-proves only what changed.

A template's **key** hashes what can change its gate result (`key_parts`): its module and
the task modules it imports, the source, templates and static files of its apps and of
`apps/web`, the harness core (every module the gate imports), the world version (which
hashes all of `seed_data`), the Chromium major version and the gate settings. Its **entry**
(one reviewable JSON file per template; a checkout keeps them in `gate-results/`) holds the key, its parts, and per
instance seed the goal and the oracle's diff (as hashes), the verdict of every probe, and
timings; plus the coverage the gate sampled.

`make test` re-proves each template whose key differs from its entry and fails until the
refreshed entry is committed; it also re-proves a sample of unchanged templates (chosen
from the commit id, so it moves every commit) and fails when any recorded verdict differs,
so a stale or hand-edited entry cannot survive for long. Timings are kept as measured and
never compared.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import importlib.util
import json
import re
import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from officegym.apps import registry as apps
from officegym.seed_data.store import world_version
from officegym.tasks.registry import Template

from .runtime import CHROMIUM

_SKIP_DIRS = {"__pycache__"}


@dataclass(frozen=True)
class GateSettings:
    """What decides how the gate plays one instance seed (not which seeds it plays)."""

    random_steps: int = 50
    cover_impossible: bool = True

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class StaleResults(AssertionError):
    """A committed entry does not match what the gate proves now."""


# ---- keys ----------------------------------------------------------------------------------


def _digest(items: Iterable[tuple[str, bytes]]) -> str:
    digest = hashlib.sha256()
    for name, data in sorted(items):
        digest.update(name.encode() + b"\0")
        digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()[:16]


@cache
def _origin(module: str) -> Path | None:
    """The file of module `module`, or None when the name is not a module (an attribute).
    `find_spec` imports a name's parents: they are checked to be packages first, so reading
    a key never runs a module (which would shadow a lazy attribute of the same name)."""
    parent = module.rpartition(".")[0]
    if parent:
        above = _origin(parent)
        if above is None or above.name != "__init__.py":
            return None
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def _run_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of `tree` but those under `if TYPE_CHECKING:` (imports that never run)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                todo.extend(child.orelse)
                continue
            todo.append(child)


def _imports(module: str, path: Path) -> set[str]:
    """The officegym modules `module` (at `path`) names in its import statements."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in _run_nodes(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = importlib.util.resolve_name("." * node.level + base, package)
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            parts = name.split(".")
            # A module's parent packages run first, so their `__init__` counts too.
            found.update(".".join(parts[:n]) for n in range(2, len(parts) + 1))
    return {name for name in found if name.startswith("officegym.")}


@cache
def module_closure(module: str) -> dict[str, Path]:
    """`module` and every officegym module it imports, directly or not: name → file."""
    seen: dict[str, Path] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _origin(name)
        if path is None:
            continue
        seen[name] = path
        todo.extend(_imports(name, path) - seen.keys())
    return seen


def _modules(closure: Mapping[str, Path], prefixes: Sequence[str]) -> list[tuple[str, bytes]]:
    return [
        (name, path.read_bytes())
        for name, path in closure.items()
        if name.startswith(tuple(prefixes))
    ]


def _package_files(package: str) -> list[tuple[str, bytes]]:
    """Every file of `package` and its subpackages (code, templates, static assets)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise LookupError(f"{package} is not a package")
    root = Path(next(iter(spec.submodule_search_locations)))
    files = [
        p
        for p in root.rglob("*")
        if p.is_file() and not _SKIP_DIRS & set(p.relative_to(root).parts) and p.suffix != ".pyc"
    ]
    return [(f"{package}/{p.relative_to(root).as_posix()}", p.read_bytes()) for p in files]


@cache
def _apps_part(slugs: tuple[str, ...]) -> str:
    files = _package_files("officegym.apps.web")
    for slug in slugs:
        files += _package_files(apps.entry(slug).package)
    for module in ("officegym.apps", "officegym.apps.registry"):
        path = _origin(module)
        if path is not None:
            files.append((module, path.read_bytes()))
    return _digest(files)


@lru_cache(maxsize=1)
def _harness_part() -> str:
    closure = module_closure("officegym.harness.gate")
    return _digest(_modules(closure, ("officegym.harness", "officegym.tasks")))


@lru_cache(maxsize=1)
def chromium_version() -> str:
    """The major version of the Chromium the harness drives (Debian's, else Playwright's)."""
    if CHROMIUM.exists():
        out = subprocess.run(
            [str(CHROMIUM), "--version"], capture_output=True, text=True, timeout=60, check=False
        ).stdout
        found = re.search(r"(\d+)\.\d+", out)
        if found:
            return f"chromium-{found.group(1)}"
    return f"playwright-{importlib.metadata.version('playwright')}"


def key_parts(template: Template, settings: GateSettings) -> dict[str, str]:
    """The hashed inputs of `template`'s gate result, one per kind of change."""
    module = type(template).__module__
    closure = module_closure(module)
    return {
        "template": _digest(_modules(closure, ("officegym.tasks",))),
        "apps": _apps_part(tuple(sorted(template.apps))),
        "harness": _harness_part(),
        "world": f"{world_version()}/{template.world.seed}/{template.world.scale}",
        "chromium": chromium_version(),
        "settings": json.dumps(settings.to_json(), sort_keys=True),
    }


def key_of(parts: Mapping[str, str]) -> str:
    return hashlib.sha256(json.dumps(dict(parts), sort_keys=True).encode()).hexdigest()[:16]


# ---- entries -------------------------------------------------------------------------------


def fingerprint(value: Any) -> str:
    """A short stable hash of a JSON-able value (goals, diffs)."""
    text = json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def entry(result, parts: Mapping[str, str]) -> dict[str, Any]:
    """The entry recording gate result `result` (a `gate.GateResult`) under key `parts`."""
    seeds: dict[str, Any] = {}
    for seed in result.seeds:
        probes = [p for p in result.probes if p.seed == seed]
        oracle = result.oracles.get(seed, {})
        seeds[str(seed)] = {
            "goal": oracle.get("goal", ""),
            "oracle_diff": oracle.get("diff", ""),
            "oracle_steps": oracle.get("steps", 0),
            "verdicts": sorted([p.agent, round(p.score, 6), p.success, p.ok] for p in probes),
            "seconds": round(sum(p.elapsed_s for p in probes), 1),
        }
    coverage = asdict(result.coverage) if result.coverage is not None else None
    return {
        "template": result.template,
        "key": key_of(parts),
        "parts": dict(parts),
        "passed": result.passed,
        "problems": list(result.problems),
        "coverage": coverage,
        "seeds": seeds,
        "seconds": round(result.elapsed_s, 1),
    }


def _proof(data: Mapping[str, Any], seeds: Iterable[str] | None = None) -> dict[str, Any]:
    """The part of an entry a re-proof must reproduce exactly (no timings)."""
    chosen = data.get("seeds", {})
    if seeds is not None:
        chosen = {s: chosen.get(s) for s in seeds}
    return {
        "passed": data.get("passed"),
        "problems": data.get("problems"),
        "coverage": data.get("coverage"),
        "seeds": {
            s: None if v is None else {k: v.get(k) for k in ("goal", "oracle_diff", "verdicts")}
            for s, v in chosen.items()
        },
    }


def differences(recorded: Mapping[str, Any], fresh: Mapping[str, Any]) -> list[str]:
    """How `recorded` differs from a `fresh` re-proof on the same key, for the seeds the
    fresh run played (an entry may also hold seeds a longer `make check` run played)."""
    if recorded.get("key") != fresh.get("key"):
        return [f"key {recorded.get('key')} is not the current key {fresh.get('key')}"]
    seeds = sorted(fresh.get("seeds", {}))
    old, new = _proof(recorded, seeds), _proof(fresh, seeds)
    found = []
    for field in ("passed", "problems", "coverage"):
        if old[field] != new[field]:
            found.append(f"{field}: recorded {old[field]!r}, now {new[field]!r}")
    for seed in seeds:
        was_seed, now_seed = old["seeds"][seed], new["seeds"][seed]
        if was_seed is None:
            found.append(f"seed {seed}: not recorded")
            continue
        # A longer run (`make check`) may have played more agents on a seed (the random
        # agent on every seed): compare the agents this run played, all of their verdicts.
        played = {verdict[0] for verdict in now_seed["verdicts"]}
        was_seed = {
            **was_seed,
            "verdicts": [v for v in was_seed["verdicts"] or [] if v[0] in played],
        }
        for field, value in now_seed.items():
            if was_seed[field] != value:
                found.append(f"seed {seed} {field}: recorded {was_seed[field]!r}, now {value!r}")
    return found


def merged(recorded: Mapping[str, Any] | None, fresh: Mapping[str, Any]) -> dict[str, Any]:
    """`fresh`, keeping the recorded seeds it did not play when both share a key."""
    if not recorded or recorded.get("key") != fresh["key"]:
        return dict(fresh)
    seeds = {**recorded.get("seeds", {}), **fresh["seeds"]}
    out = dict(fresh)
    out["seeds"] = {s: seeds[s] for s in sorted(seeds, key=int)}
    out["passed"] = bool(fresh["passed"]) and bool(recorded.get("passed"))
    return out


def path_of(folder: Path, template_id: str) -> Path:
    return folder / f"{template_id}.json"


def load(folder: Path, template_id: str) -> dict[str, Any] | None:
    path = path_of(folder, template_id)
    if not path.exists():
        return None
    return json.loads(path.read_text())


def save(folder: Path, data: Mapping[str, Any]) -> Path:
    """Write an entry as stable, diff-friendly JSON (one probe verdict per line)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = path_of(folder, data["template"])
    text = json.dumps(data, indent=1, sort_keys=True)
    # A verdict is [agent, score, success, ok]: keep each on one line.
    text = re.sub(
        r"\[\n\s+(\"[^\"]+\"),\n\s+([^,\n]+),\n\s+(true|false),\n\s+(true|false)\n\s+\]",
        r"[\1, \2, \3, \4]",
        text,
    )
    path.write_text(text + "\n")
    return path


def record(folder: Path, template: Template, result, settings: GateSettings) -> dict[str, Any]:
    """Write `result`'s entry for `template` to `folder`, keeping the seeds a longer run
    recorded under the same key; returns the entry written."""
    fresh = entry(result, key_parts(template, settings))
    written = merged(load(folder, template.id), fresh)
    save(folder, written)
    return written


# ---- what a run re-proves ------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """Per template: "changed" (no entry for the current key: re-prove and refresh),
    "sampled" (unchanged, re-proven to check the entry) or "recorded" (trusted as is)."""

    status: Mapping[str, str]
    parts: Mapping[str, Mapping[str, str]]
    changed_parts: Mapping[str, tuple[str, ...]]

    def ids(self, status: str) -> list[str]:
        return sorted(t for t, s in self.status.items() if s == status)


def sample(ids: Sequence[str], salt: str, count: int) -> list[str]:
    """`count` of `ids`, a different choice for each `salt` (the commit id)."""
    ranked = sorted(ids, key=lambda t: hashlib.sha256(f"{salt}/{t}".encode()).hexdigest())
    return sorted(ranked[:count])


def commit_id(root: Path) -> str:
    """The checked-out commit (what chooses the sampled re-proofs), or "" outside git."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def plan(
    templates: Iterable[Template],
    folder: Path,
    settings: GateSettings,
    *,
    salt: str,
    resample: int = 3,
) -> Plan:
    """Which templates a run must re-prove, from the entries in `folder`."""
    status: dict[str, str] = {}
    parts: dict[str, dict[str, str]] = {}
    changed_parts: dict[str, tuple[str, ...]] = {}
    for template in templates:
        now = key_parts(template, settings)
        parts[template.id] = now
        recorded = load(folder, template.id)
        if recorded is None:
            status[template.id] = "changed"
            changed_parts[template.id] = ("no entry",)
        elif recorded.get("key") != key_of(now) or not recorded.get("passed"):
            status[template.id] = "changed"
            was = recorded.get("parts", {})
            changed_parts[template.id] = tuple(k for k in now if was.get(k) != now[k]) or ("key",)
        else:
            status[template.id] = "recorded"
    unchanged = [t for t, s in status.items() if s == "recorded"]
    for template_id in sample(unchanged, salt, resample):
        status[template_id] = "sampled"
    return Plan(status=status, parts=parts, changed_parts=changed_parts)


__all__ = [
    "GateSettings",
    "Plan",
    "StaleResults",
    "chromium_version",
    "commit_id",
    "differences",
    "entry",
    "fingerprint",
    "key_of",
    "key_parts",
    "load",
    "merged",
    "module_closure",
    "plan",
    "record",
    "sample",
    "save",
]
