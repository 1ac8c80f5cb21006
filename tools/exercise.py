#!/usr/bin/env python3
"""A student's one command: rebuild what changed, check the exercise, time it against the solution.

    python3 tools/exercise.py gemm            # or 06_gemm, or 06
    python3 tools/exercise.py gemm --no-speed # correctness only
    python3 tools/exercise.py --list          # the chapters and their exercise files

It configures the build folder if there is none (cmake --preset default), builds only the
chapter's exercise programs (your file, the solution, the checker: never the chapter's ladder),
then runs build/bin/check_<chapter>, which runs your kernel on every case in a separate process,
compares each output with the CPU reference and, if all are right, times yours against the
solution's on fresh inputs. The last line is the verdict.

Exit status: 0 passed, 1 failed (or did not compile), 2 bad command line, 3 not checked (no GPU).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
PASSED, FAILED, USAGE, NOT_CHECKED = 0, 1, 2, 3
CHECKER_NOT_CHECKED = 77  # the checker's status when there is no usable GPU


def chapters() -> list[tuple[str, str, str]]:
    """(folder, name, exercise file) of every chapter with an exercise, in order."""
    found = []
    for cmake in sorted(ROOT.glob("chapters/[0-9][0-9]_*/CMakeLists.txt")):
        text = cmake.read_text()
        name = re.search(r"\bNAME\s+(\w+)", text)
        exercise = re.search(r"\bEXERCISE\s+(\S+)", text)
        if name and exercise and "EXERCISE_CHECK" in text:
            found.append((cmake.parent.name, name.group(1), exercise.group(1)))
    return found


def find_chapter(word: str) -> tuple[str, str, str] | None:
    for folder, name, exercise in chapters():
        if word in (folder, name, folder.split("_", 1)[0], folder[:2].lstrip("0")):
            return folder, name, exercise
    return None


def run(cmd: list[str], **kw) -> int:
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT, **kw).returncode


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="python3 tools/exercise.py",
        description="Rebuild, check and time one chapter's exercise (the student's loop).")
    p.add_argument("chapter", nargs="?", help="the chapter: its name (gemm), folder (06_gemm) or number (6)")
    p.add_argument("--no-speed", action="store_true", help="check correctness only; no timed comparison")
    p.add_argument("--build-dir", default="build", help="the build folder (default: build, as the presets use)")
    p.add_argument("--list", action="store_true", help="list the chapters and their exercise files")
    args = p.parse_args(argv)

    if args.list or not args.chapter:
        for folder, name, exercise in chapters():
            print(f"{name:12s} exercises/{folder}/{exercise}")
        if not args.chapter and not args.list:
            print("\nusage: python3 tools/exercise.py CHAPTER  (one of the names above)")
            return USAGE
        return PASSED
    chapter = find_chapter(args.chapter)
    if chapter is None:
        names = ", ".join(n for _, n, _ in chapters())
        print(f"tools/exercise.py: error: no chapter '{args.chapter}' (chapters: {names})", file=sys.stderr)
        return USAGE
    folder, name, exercise = chapter
    cmake = shutil.which("cmake")
    if cmake is None:
        print("tools/exercise.py: error: cmake not found (see README.md, Prerequisites)", file=sys.stderr)
        return USAGE

    build = (ROOT / args.build_dir).resolve()
    start = time.monotonic()
    if not (build / "CMakeCache.txt").exists():
        configure = ["cmake", "--preset", "default"] if args.build_dir == "build" else \
            ["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"]
        if run(configure) != 0:
            print("NOT CHECKED: the build folder could not be configured (the errors are above).")
            return FAILED
    targets = [f"exercise_{name}", f"check_{name}"] + ([] if args.no_speed else [f"solution_{name}"])
    if run(["cmake", "--build", str(build), "--target", *targets]) != 0:
        print(f"NOT CHECKED: exercises/{folder}/{exercise} did not build (the compiler's errors are above).")
        return FAILED
    print(f"(built in {time.monotonic() - start:.0f} s)", flush=True)

    bin_dir = build / "bin"
    check = [str(bin_dir / f"check_{name}"), "--runner", str(bin_dir / f"exercise_{name}")]
    if not args.no_speed:
        check += ["--speed", "--solution", str(bin_dir / f"solution_{name}")]
    status = run(check)
    if status == CHECKER_NOT_CHECKED:
        return NOT_CHECKED
    if status not in (PASSED, FAILED):
        print(f"FAILED: the checker stopped with status {status}")
        return FAILED
    return status


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        print("interrupted")
        sys.exit(130)
