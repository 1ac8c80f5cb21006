"""Chapters with an exercise, discovered from the repository (nothing about a chapter is hard-coded).

A chapter is gradable when chapters/NN_name/CMakeLists.txt calls tutorial_add_chapter() with
NAME, EXERCISE and EXERCISE_TESTS. From that call the grader learns everything it needs: the
chapter's name (targets test_<name>_exercise and <name>), the exercise file name (the file a
student edits in exercises/NN_name/), and the test sources (their TEST_CASE names are the cases
the grader runs one by one).
"""
from __future__ import annotations

import dataclasses
import pathlib
import re

from . import catch2

_KEYWORDS = ("NAME", "SOURCES", "MAIN", "CPU_TESTS", "GPU_TESTS", "EXERCISE", "EXERCISE_TESTS",
             "EXERCISE_SYMBOLS", "LIBRARIES")


@dataclasses.dataclass
class Chapter:
    """One gradable chapter."""

    name: str                 # e.g. "elementwise": targets test_<name>_exercise and <name>
    folder: str               # e.g. "01_elementwise": exercises/<folder>/, solutions/<folder>/
    exercise: str             # e.g. "add_float4.cu": the one file a student edits
    test_sources: list[str]   # e.g. ["chapters/01_elementwise/test_exercise.cpp"] (repository-relative)
    test_names: list[str]     # TEST_CASE names found in them ([] means: run the executable whole)
    symbols: list[str] = dataclasses.field(default_factory=list)  # EXERCISE_SYMBOLS: the entry points

    @property
    def test_target(self) -> str:
        """The CMake target of the exercise's tests."""
        return f"test_{self.name}_exercise"

    @property
    def exe_target(self) -> str:
        """The chapter executable (links the exercise and the solution; used for the speed run)."""
        return self.name

    @property
    def exercise_path(self) -> str:
        """The exercise file, relative to an exercises/ folder."""
        return f"{self.folder}/{self.exercise}"


def _strip_cmake_comments(text: str) -> str:
    out = []
    for line in text.splitlines():
        in_quote = False
        cut = len(line)
        for i, c in enumerate(line):
            if c == '"':
                in_quote = not in_quote
            elif c == "#" and not in_quote:
                cut = i
                break
        out.append(line[:cut])
    return "\n".join(out)


def parse_chapter_call(cmake_text: str) -> dict[str, list[str]] | None:
    """The arguments of the tutorial_add_chapter() call, by keyword; None if there is no call."""
    text = _strip_cmake_comments(cmake_text)
    m = re.search(r"\btutorial_add_chapter\s*\(", text, re.IGNORECASE)
    if not m:
        return None
    depth, i = 1, m.end()
    while i < len(text) and depth:
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
        i += 1
    body = text[m.end():i - 1]
    tokens = re.findall(r'"([^"]*)"|(\S+)', body)
    args: dict[str, list[str]] = {}
    current = None
    for quoted, bare in tokens:
        tok = quoted if quoted or not bare else bare
        if not quoted and tok in _KEYWORDS:
            current = tok
            args.setdefault(current, [])
        elif current is not None:
            args[current].append(tok)
    return args


def discover(repo: pathlib.Path) -> tuple[list[Chapter], list[str]]:
    """Gradable chapters in folder order, and a note for every chapter folder that is not gradable."""
    chapters, notes = [], []
    for cmake in sorted(repo.glob("chapters/[0-9][0-9]_*/CMakeLists.txt")):
        folder = cmake.parent.name
        args = parse_chapter_call(cmake.read_text(errors="replace"))
        if args is None:
            notes.append(f"{folder}: no tutorial_add_chapter() call")
            continue
        name = (args.get("NAME") or [""])[0]
        exercise = (args.get("EXERCISE") or [""])[0]
        tests = args.get("EXERCISE_TESTS") or []
        if not exercise:
            continue  # a chapter without an exercise: nothing to grade
        problem = None
        if not re.fullmatch(r"[A-Za-z0-9_]+", name):
            problem = f"NAME {name!r} is not a plain name"
        elif "$" in exercise or "/" in exercise or not tests or any("$" in t for t in tests):
            problem = "EXERCISE / EXERCISE_TESTS must be plain file names"
        elif not (repo / "exercises" / folder / exercise).is_file():
            problem = f"exercises/{folder}/{exercise} is missing"
        elif not (repo / "solutions" / folder / exercise).is_file():
            problem = f"solutions/{folder}/{exercise} is missing"
        if problem:
            notes.append(f"{folder}: not gradable: {problem}")
            continue
        names: list[str] = []
        sources = []
        for t in tests:
            src = cmake.parent / t
            sources.append(str(src.relative_to(repo)))
            if not src.is_file():
                names = []
                notes.append(f"{folder}: test source {t} not found; its tests run as one case")
                break
            found = catch2.test_case_names(src.read_text(errors="replace"))
            if found is None:  # a construct we do not expand (e.g. TEMPLATE_TEST_CASE)
                names = []
                notes.append(f"{folder}: {t} has test cases the grader cannot list; they run as one case")
                break
            names.extend(found)
        chapters.append(Chapter(name, folder, exercise, sources, names, list(args.get("EXERCISE_SYMBOLS") or [])))
    return chapters, notes
