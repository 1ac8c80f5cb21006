#!/usr/bin/env python3
"""Checks that no student-facing page gives an exercise's answer away.

Student-facing: README.md, docs/mainpage.md, docs/guides/*.md except the instructors' guide
(grading.md), every chapters/*/README.md (and the code its \\snippet, \\include and fenced blocks
pull in), every chapters/*/exercise.hpp and every exercise skeleton.

Two rules:
1. None of them points at solutions/ or at the grader's corpus (near-solutions); only the
   instructors' guide does.
2. No chapter page embeds the exercise's answer: the lines of solutions/NN/<file> that the
   skeleton does not have (normalized: comments, blank lines and lone braces dropped). A page may
   share a few generic lines with the answer (an index computation, a loop header); it fails when
   more than ANSWER_SHARE of the answer's lines, or more than ANSWER_LINES of them, appear in the
   code the page shows.

    python3 tools/check_student_pages.py [--root DIR] [-v]

Exit status 0 when every rule holds, 1 otherwise (each breach on its own line).
"""
from __future__ import annotations

import argparse
import pathlib
import re
import sys

ANSWER_SHARE = 0.25   # of the answer's lines, at most this share (or 3 lines) may appear on the chapter page
ANSWER_LINES = 6      # ... and at most this many
FORBIDDEN = [(re.compile(r"\bsolutions/"), "points at solutions/ (the answers)"),
             (re.compile(r"grader/corpus|\bcorpus/"), "points at the grader's corpus (near-answers)")]


def normalize(line: str) -> str:
    line = re.sub(r"//.*$", "", line)
    return re.sub(r"\s+", " ", line).strip()


def code_lines(text: str) -> list[str]:
    """Normalized code lines, without comments, blanks, lone braces and preprocessor lines."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = []
    for raw in text.splitlines():
        line = normalize(raw)
        if not line or re.fullmatch(r"[{}();,\s]*", line) or line.startswith("#"):
            continue
        if line.startswith(("namespace", "}  //", "} //")) or len(line) < 20:
            continue  # too short to be anybody's answer: __syncthreads();, return;, an index
        out.append(line)
    return out


def snippet_region(path: pathlib.Path, tag: str) -> str:
    """The text between the two `[tag]` markers of a Doxygen snippet (the whole file if none)."""
    if not path.exists():
        return ""
    lines = path.read_text(errors="replace").splitlines()
    marks = [i for i, ln in enumerate(lines) if re.search(r"\[" + re.escape(tag) + r"\]", ln)]
    if len(marks) >= 2:
        return "\n".join(lines[marks[0] + 1:marks[1]])
    return ""


def embedded_code(page: pathlib.Path, root: pathlib.Path, unresolved: list[str] | None = None) -> str:
    """Every piece of code a Doxygen page shows: its snippets, includes and fenced blocks. A snippet
    whose file this cannot find, or whose tag the file lacks, is added to `unresolved`: a piece of
    the page it could not check must not pass for one without the answer."""
    text = page.read_text(errors="replace")
    pieces = [m.group(1) for m in re.finditer(r"```[^\n]*\n(.*?)```", text, flags=re.S)]
    for m in re.finditer(r"\\snippet(?:\{[^}]*\})?\s+(\S+)\s+(\S+)", text):
        rel, tag = m.group(1), m.group(2)
        # Doxygen finds a snippet's file by the end of its path anywhere under EXAMPLE_PATH, so a
        # bare name (v3_float4.cu) is looked for in the page's own folder too, not only at the top.
        found = [base / rel for base in (root / "chapters", root, root / "exercises", root / "solutions")
                 if (base / rel).exists()] or sorted(page.parent.rglob(rel))
        region = snippet_region(found[0], tag) if found else ""
        if not region and unresolved is not None:
            unresolved.append(f"\\snippet {rel} {tag}" + (": no such file" if not found else ": no such tag"))
        pieces.append(region)
    for m in re.finditer(r"\\(?:include|includelineno|dontinclude)(?:\{[^}]*\})?\s+(\S+)", text):
        for base in (root / "chapters", root):
            if (base / m.group(1)).exists():
                pieces.append((base / m.group(1)).read_text(errors="replace"))
                break
    return "\n".join(pieces)


def chapter_exercise(chapter: pathlib.Path) -> str | None:
    cm = chapter / "CMakeLists.txt"
    if not cm.exists():
        return None
    m = re.search(r"\bEXERCISE\s+(\S+)", cm.read_text())
    return m.group(1) if m else None


def student_files(root: pathlib.Path) -> list[pathlib.Path]:
    files = [root / "README.md", root / "docs" / "mainpage.md"]
    files += [p for p in sorted((root / "docs" / "guides").glob("*.md")) if p.name != "grading.md"]
    files += sorted(root.glob("chapters/*/README.md")) + sorted(root.glob("chapters/*/exercise.hpp"))
    files += sorted(p for p in (root / "exercises").rglob("*") if p.is_file())
    return [f for f in files if f.exists()]


def check(root: pathlib.Path, verbose: bool = False) -> list[str]:
    problems = []
    for f in student_files(root):
        text = f.read_text(errors="replace")
        for pattern, what in FORBIDDEN:
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{f.relative_to(root)}:{line}: {what}")
    for chapter in sorted(root.glob("chapters/[0-9][0-9]_*")):
        name = chapter_exercise(chapter)
        page = chapter / "README.md"
        if not name or not page.exists():
            continue
        solution = root / "solutions" / chapter.name / name
        skeleton = root / "exercises" / chapter.name / name
        if not solution.exists() or not skeleton.exists():
            continue
        given = set(code_lines(skeleton.read_text(errors="replace")))
        answer = [ln for ln in dict.fromkeys(code_lines(solution.read_text(errors="replace"))) if ln not in given]
        unresolved: list[str] = []
        shown = set(code_lines(embedded_code(page, root, unresolved)))
        problems += [f"{page.relative_to(root)}: cannot check {u}" for u in unresolved]
        leaked = [ln for ln in answer if ln in shown]
        limit = min(ANSWER_LINES, max(3, int(ANSWER_SHARE * len(answer))))
        if verbose:
            print(f"{chapter.name}: {len(leaked)} of the answer's {len(answer)} lines on the page (limit {limit})")
        if len(leaked) > limit:
            sample = "; ".join(leaked[:4])
            problems.append(f"{page.relative_to(root)}: shows {len(leaked)} of the {len(answer)} lines of "
                            f"the exercise's answer (at most {limit} allowed), e.g. {sample}")
    return problems


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent)
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    problems = check(args.root.resolve(), args.verbose)
    for line in problems:
        print(line)
    print("student pages: " + ("OK, no answer given away" if not problems else f"{len(problems)} problem(s)"))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
