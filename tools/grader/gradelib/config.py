"""The instructor's private grading configuration.

A TOML file (Python 3.11's tomllib) or a JSON file with the same structure. It lives outside the
repository: it holds the secret seed and the extra sizes of the hidden cases. Every key is
optional; without a [hidden] seed no hidden cases run. Unknown sections or keys are errors (a
typo must not silently switch a hidden case off). docs/guides/grading.md documents every key;
tools/grader/example_config.toml is a complete example.
"""
from __future__ import annotations

import dataclasses
import difflib
import json
import os
import pathlib
from typing import Any

MAX_SEED = 2**64 - 1
MAX_SIZE = 2**40
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file and the key."""


@dataclasses.dataclass
class ChapterConfig:
    """[chapters.<name>]: per-chapter hidden cases and limits."""

    extra_sizes: list[int] = dataclasses.field(default_factory=list)
    hidden: bool = True
    test_timeout: int | None = None
    speed_timeout: int | None = None
    speed_args: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Config:
    """Everything the grader reads from the private configuration (defaults when absent)."""

    source: str = "(defaults: no configuration file)"
    # [hidden]
    seed: int | None = None
    extra_sizes: list[int] = dataclasses.field(default_factory=list)
    redact: bool = True
    # [timeouts], seconds
    configure_timeout: int = 600
    build_timeout: int = 1800
    test_timeout: int = 600
    speed_timeout: int = 300
    sanitize_timeout: int = 1800
    # [build]
    cmake: list[str] = dataclasses.field(default_factory=lambda: ["cmake"])
    generator: str = "Ninja"
    cuda_architectures: str = ""
    build_type: str = "Release"
    cmake_args: list[str] = dataclasses.field(default_factory=list)
    jobs: int = 0          # checks run at once (the GPU is shared by correctness checks; 0 = cores / 4, at most 4)
    ninja_jobs: int = 0    # compile jobs of the one build of every runner (0 = cores)
    keep_builds: bool = False
    # [speed]
    speed: bool = True
    speed_args: list[str] = dataclasses.field(default_factory=list)
    # [sanitize]
    sanitize: bool = False
    sanitize_tools: list[str] = dataclasses.field(default_factory=lambda: ["memcheck"])
    sanitizer: list[str] = dataclasses.field(default_factory=lambda: ["compute-sanitizer"])
    # [chapters.<name>]
    chapters: dict[str, ChapterConfig] = dataclasses.field(default_factory=dict)

    @property
    def hidden_enabled(self) -> bool:
        """Hidden cases run only with a secret seed."""
        return self.seed is not None

    def chapter(self, name: str) -> ChapterConfig:
        """The chapter's section (defaults if it has none)."""
        return self.chapters.get(name, ChapterConfig())

    def hidden_sizes(self, chapter: str) -> list[int]:
        """Extra 1-D sizes of the chapter's hidden run: the global ones, then the chapter's."""
        sizes = list(self.extra_sizes)
        for n in self.chapter(chapter).extra_sizes:
            if n not in sizes:
                sizes.append(n)
        return sizes

    def test_timeout_of(self, chapter: str) -> int:
        """Timeout of one checker run of the chapter (all its public and hidden cases)."""
        return self.chapter(chapter).test_timeout or self.test_timeout

    def speed_timeout_of(self, chapter: str) -> int:
        """Timeout of the chapter's speed run, per student timed."""
        return self.chapter(chapter).speed_timeout or self.speed_timeout

    def describe(self) -> str:
        """One line for reports: what was configured, never the secret itself."""
        hidden = "hidden cases ON" if self.hidden_enabled else "hidden cases OFF (no [hidden] seed)"
        return (f"{hidden}; speed run {'ON' if self.speed else 'OFF'}; "
                f"sanitizer {'ON (' + ', '.join(self.sanitize_tools) + ')' if self.sanitize else 'OFF'}; "
                f"configuration: {self.source}")


# The schema: section -> key -> (Config attribute or None for per-chapter, checker).
def _int_checker(lo: int, hi: int):
    def check(where: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ConfigError(f"{where}: must be an integer in [{lo}, {hi}] (got {value!r})")
        return value
    return check


def _bool(where: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: must be true or false (got {value!r})")
    return value


def _str(where: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{where}: must be a string (got {value!r})")
    return value


def _str_list(where: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: must be a list of strings (got {value!r})")
    return list(value)


def _command(where: str, value: Any) -> list[str]:
    """A program: a string (one word, no shell) or a non-empty list of strings."""
    if isinstance(value, str) and value.strip():
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return list(value)
    raise ConfigError(f"{where}: must be a program name or a non-empty list of strings (got {value!r})")


def _sizes(where: str, value: Any) -> list[int]:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: must be a list of sizes, e.g. [77, 1000003] (got {value!r})")
    out = []
    for i, n in enumerate(value):
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_SIZE:
            raise ConfigError(f"{where}[{i}]: a size must be an integer in [1, 2^40] (got {n!r})")
        out.append(n)
    return out


def _no_env(where: str, value: Any) -> dict[str, str]:
    raise ConfigError(f"{where}: no longer used: the student's code runs with a clean environment, and the "
                      "checker gets the seed and the extra sizes on its command line")


def _tools(where: str, value: Any) -> list[str]:
    tools = _str_list(where, value)
    if not tools:
        raise ConfigError(f"{where}: name at least one tool ({', '.join(SANITIZER_TOOLS)})")
    for t in tools:
        if t not in SANITIZER_TOOLS:
            raise ConfigError(f"{where}: unknown tool {t!r} (known: {', '.join(SANITIZER_TOOLS)})")
    return tools


def _arch(where: str, value: Any) -> str:
    text = _str(where, value)
    if text and not all(part.strip() and all(c.isalnum() or c == "-" for c in part) for part in text.split(";")):
        raise ConfigError(f"{where}: must look like \"90a\" or \"80;90a\" (got {value!r})")
    return text


_TIMEOUT = _int_checker(1, 24 * 3600)
_JOBS = _int_checker(0, 1024)

_SCHEMA: dict[str, dict[str, tuple[str, Any]]] = {
    "hidden": {
        "seed": ("seed", _int_checker(0, MAX_SEED)),
        "extra_sizes": ("extra_sizes", _sizes),
        "env": ("redact", _no_env),
        "redact": ("redact", _bool),
    },
    "timeouts": {
        "configure": ("configure_timeout", _TIMEOUT),
        "build": ("build_timeout", _TIMEOUT),
        "test": ("test_timeout", _TIMEOUT),
        "speed": ("speed_timeout", _TIMEOUT),
        "sanitize": ("sanitize_timeout", _TIMEOUT),
    },
    "build": {
        "cmake": ("cmake", _command),
        "generator": ("generator", _str),
        "cuda_architectures": ("cuda_architectures", _arch),
        "build_type": ("build_type", _str),
        "cmake_args": ("cmake_args", _str_list),
        "jobs": ("jobs", _JOBS),
        "ninja_jobs": ("ninja_jobs", _JOBS),
        "keep": ("keep_builds", _bool),
    },
    "speed": {
        "enabled": ("speed", _bool),
        "args": ("speed_args", _str_list),
    },
    "sanitize": {
        "enabled": ("sanitize", _bool),
        "tools": ("sanitize_tools", _tools),
        "command": ("sanitizer", _command),
    },
}

_CHAPTER_SCHEMA: dict[str, Any] = {
    "extra_sizes": _sizes,
    "env": _no_env,
    "hidden": _bool,
    "test_timeout": _TIMEOUT,
    "speed_timeout": _TIMEOUT,
    "speed_args": _str_list,
}


def _unknown(where: str, key: str, known) -> ConfigError:
    close = difflib.get_close_matches(key, list(known), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(sorted(known))})"
    return ConfigError(f"{where}: unknown key {key!r}{hint}")


def from_dict(data: Any, source: str = "(inline)", known_chapters: list[str] | None = None) -> Config:
    """Validates a parsed document and returns the Config. Raises ConfigError naming the key."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a table of sections")
    cfg = Config(source=source)
    for section, body in data.items():
        if section == "chapters":
            if not isinstance(body, dict):
                raise ConfigError(f"{source}: [chapters] must hold [chapters.<name>] tables")
            for name, chapter_body in body.items():
                where = f"{source}: [chapters.{name}]"
                if known_chapters is not None and name not in known_chapters:
                    close = difflib.get_close_matches(name, known_chapters, n=1)
                    hint = f"did you mean {close[0]!r}?" if close else f"gradable chapters: {', '.join(known_chapters)}"
                    raise ConfigError(f"{where}: no chapter with an exercise is called {name!r} ({hint})")
                if not isinstance(chapter_body, dict):
                    raise ConfigError(f"{where}: must be a table")
                ch = ChapterConfig()
                for key, value in chapter_body.items():
                    if key not in _CHAPTER_SCHEMA:
                        raise _unknown(where, key, _CHAPTER_SCHEMA)
                    setattr(ch, key, _CHAPTER_SCHEMA[key](f"{where} {key}", value))
                cfg.chapters[name] = ch
            continue
        if section not in _SCHEMA:
            raise _unknown(source, section, list(_SCHEMA) + ["chapters"])
        if not isinstance(body, dict):
            raise ConfigError(f"{source}: [{section}] must be a table")
        for key, value in body.items():
            if key not in _SCHEMA[section]:
                raise _unknown(f"{source}: [{section}]", key, _SCHEMA[section])
            attr, check = _SCHEMA[section][key]
            setattr(cfg, attr, check(f"{source}: [{section}] {key}", value))
    return cfg


def load(path: str | os.PathLike | None, known_chapters: list[str] | None = None) -> Config:
    """Reads the configuration file (.toml or .json); None gives the defaults (no hidden cases)."""
    if path is None:
        return Config()
    p = pathlib.Path(path)
    if not p.is_file():
        raise ConfigError(f"{p}: no such configuration file")
    text = p.read_bytes()
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ConfigError(f"{p}: not valid JSON: {e}") from None
    else:
        try:
            import tomllib
        except ModuleNotFoundError:  # Python < 3.11
            raise ConfigError(f"{p}: reading TOML needs Python 3.11 or newer; use a .json file instead") from None
        try:
            data = tomllib.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
            raise ConfigError(f"{p}: not valid TOML: {e}") from None
    return from_dict(data, str(p), known_chapters)
