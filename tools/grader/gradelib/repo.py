"""Chapters with an exercise, discovered from the repository (nothing about a chapter is hard-coded).

A chapter is gradable when chapters/NN_name/CMakeLists.txt calls tutorial_add_chapter() with
NAME, EXERCISE, EXERCISE_CALL and EXERCISE_CHECK. From that call the grader learns everything it
needs: the chapter's name (its checker check_<name> and the solution's runner solution_<name>,
built once from the repository; each student's runner, built from the student's file), and the
exercise file name (the file a student edits in exercises/NN_name/).
"""
from __future__ import annotations

import dataclasses
import pathlib
import re

_KEYWORDS = ("NAME", "REFERENCE", "SOURCES", "MAIN", "CPU_TESTS", "GPU_TESTS", "EXERCISE", "EXERCISE_CALL",
             "EXERCISE_CHECK", "LIBRARIES", "BAD_ARGS", "HUGE_ARGS")


@dataclasses.dataclass
class Chapter:
    """One gradable chapter."""

    name: str                 # e.g. "elementwise"
    folder: str               # e.g. "01_elementwise": exercises/<folder>/, solutions/<folder>/
    exercise: str             # e.g. "add_float4.cu": the one file a student edits

    @property
    def checker_target(self) -> str:
        """The checker (never loads student code), built once from the repository."""
        return f"check_{self.name}"

    @property
    def solution_target(self) -> str:
        """The solution's runner, built once: the speed runs' reference."""
        return f"solution_{self.name}"

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


def chapter_names(repo: pathlib.Path) -> list[str]:
    """The NAME of every chapter, gradable or not (a configuration may name a chapter whose exercise
    is not gradable yet, e.g. the corpus check's settings)."""
    names = []
    for cmake in sorted(repo.glob("chapters/[0-9][0-9]_*/CMakeLists.txt")):
        args = parse_chapter_call(cmake.read_text(errors="replace"))
        name = ((args or {}).get("NAME") or [""])[0]
        if name:
            names.append(name)
    return names


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
        if not exercise:
            continue  # a chapter without an exercise: nothing to grade
        problem = None
        if not re.fullmatch(r"[A-Za-z0-9_]+", name):
            problem = f"NAME {name!r} is not a plain name"
        elif "$" in exercise or "/" in exercise:
            problem = "EXERCISE must be a plain file name"
        elif not args.get("EXERCISE_CHECK") or not args.get("EXERCISE_CALL"):
            problem = "no EXERCISE_CHECK / EXERCISE_CALL (the checker and the runner's call)"
        elif not (repo / "exercises" / folder / exercise).is_file():
            problem = f"exercises/{folder}/{exercise} is missing"
        elif not (repo / "solutions" / folder / exercise).is_file():
            problem = f"solutions/{folder}/{exercise} is missing"
        if problem:
            notes.append(f"{folder}: not gradable: {problem}")
            continue
        chapters.append(Chapter(name, folder, exercise))
    return chapters, notes
