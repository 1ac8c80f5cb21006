#!/usr/bin/env python3
"""Writes a synthetic class, to time the grader on a class of a real size (docs/guides/grading.md,
"How long grading takes"):

    python3 tools/grader/make_class.py 40 /tmp/class     # 40 students, every gradable chapter
    python3 tools/grader/grade.py --config tools/grader/corpus/corpus.toml --out /tmp/graded /tmp/class/*

Each student submits every chapter's exercise file: in a fixed rotation, one chapter file in three
is wrong (a corpus entry of that chapter, which must be rejected, or the untouched skeleton) and the
others are the reference solution (which must pass). So the class holds passes, failures,
compile errors and rejections in about the proportions of a real one; the expected verdict of every
file is written to DIR/expected.json.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gradelib import repo as repo_mod  # noqa: E402


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("students", type=int, help="how many students")
    p.add_argument("out", type=pathlib.Path, help="the folder to write (replaced)")
    p.add_argument("--wrong-every", type=int, default=3, help="one chapter file in this many is wrong (default 3)")
    p.add_argument("--repo", type=pathlib.Path, default=HERE.parent.parent, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.students < 1 or args.wrong_every < 1:
        p.error("students and --wrong-every must be positive")
    repo = args.repo.resolve()
    chapters, _ = repo_mod.discover(repo)
    wrong: dict[str, list[tuple[str, pathlib.Path]]] = {}
    for ch in chapters:
        entries = [("skeleton", repo / "exercises" / ch.exercise_path)]
        folder = HERE / "corpus" / ch.folder
        for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
            readme = entry / "README.md"
            first = readme.read_text().strip().splitlines()[0] if readme.is_file() else ""
            if (entry / ch.exercise).is_file() and not first.startswith(("CORRECT:", "FLAG:")):
                entries.append((entry.name, entry / ch.exercise))
        wrong[ch.name] = entries
    if args.out.exists():
        shutil.rmtree(args.out)
    expected: dict[str, dict[str, str]] = {}
    k = 0
    for i in range(args.students):
        student = f"student{i + 1:03d}"
        expected[student] = {}
        for ch in chapters:
            target = args.out / student / ch.exercise_path
            target.parent.mkdir(parents=True, exist_ok=True)
            if k % args.wrong_every == 0:
                entries = wrong[ch.name]
                name, src = entries[(k // args.wrong_every) % len(entries)]
                expected[student][ch.name] = f"rejected ({name})"
            else:
                src = repo / "solutions" / ch.exercise_path
                expected[student][ch.name] = "passed"
            shutil.copyfile(src, target)
            k += 1
    (args.out / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(f"wrote {args.students} students x {len(chapters)} chapters into {args.out} "
          f"(expected verdicts: {args.out / 'expected.json'})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
