#!/usr/bin/env python3
"""Grades a class: each submission (a copy of exercises/, or some chapters of it) becomes one runner
per chapter (the student's file and the harness, nothing else), built in one build tree with every
other student's; the chapter's checker, which never loads student code, runs it on the public cases
and the hidden cases of the private configuration, times it against the solution, and optionally
runs it under compute-sanitizer. See docs/guides/grading.md.

    python3 tools/grader/grade.py --config ~/private/grading.toml --out grading submissions/*/

Writes OUT/summary.{md,json,csv} and OUT/students/<name>/{report.md,report.json,junit.xml,logs/}.
Exit status: 0 graded (whatever the verdicts), 2 bad command line or configuration, 1 grader failure.
"""
from __future__ import annotations

import argparse
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gradelib import config as config_mod  # noqa: E402
from gradelib import grading, process, repo as repo_mod  # noqa: E402,F401


def parse_args(argv):
    p = argparse.ArgumentParser(description="Grade students' exercise folders (see docs/guides/grading.md).")
    p.add_argument("submissions", nargs="*", type=pathlib.Path,
                   help="one folder per student: a copy of exercises/ (all chapters or only some)")
    p.add_argument("--list", action="store_true",
                   help="list the gradable chapters and their exercise files (and why others are not), then exit")
    p.add_argument("--config", type=pathlib.Path,
                   help="the private grading configuration (.toml or .json; keep it outside the repository)")
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("build-grading"),
                   help="where reports go (default: build-grading)")
    p.add_argument("--work", type=pathlib.Path, help="where the build tree and the copied files go (default: OUT/work)")
    p.add_argument("--chapters",
                   help="comma-separated chapter names to grade (default: every chapter with an exercise)")
    p.add_argument("--sanitize", action="store_true",
                   help="also run each runner whose cases passed under compute-sanitizer (the public cases)")
    p.add_argument("--no-speed", action="store_true", help="skip the speed run against the solution")
    p.add_argument("--no-hidden", action="store_true", help="run the public cases only")
    p.add_argument("--jobs", type=int, help="checks run at the same time (default: cores / 4, at most 4)")
    p.add_argument("--ninja-jobs", type=int, help="compile jobs of the build (default: cores)")
    p.add_argument("--keep-builds", action="store_true", help="keep the build tree and the copied files under --work")
    p.add_argument("--repo", type=pathlib.Path, default=HERE.parent.parent,
                   help=argparse.SUPPRESS)  # the tutorial checkout (tests point it at a fake one)
    return p.parse_args(argv)


def setup(args):
    """Chapters, configuration (with the command-line overrides) and the Grader; raises ConfigError."""
    repo = args.repo.resolve()
    chapters, notes = repo_mod.discover(repo)
    names = [c.name for c in chapters]
    if not chapters:
        raise config_mod.ConfigError(f"{repo}: no chapter with an exercise found under chapters/")
    cfg = config_mod.load(args.config, names)
    only = None
    if args.chapters:
        only = [c.strip() for c in args.chapters.split(",") if c.strip()]
        unknown = [c for c in only if c not in names]
        if unknown:
            raise config_mod.ConfigError(f"--chapters: unknown {', '.join(unknown)} (gradable: {', '.join(names)})")
    if args.sanitize:
        cfg.sanitize = True
    if args.no_speed:
        cfg.speed = False
    if args.no_hidden:
        cfg.seed = None
    if args.keep_builds:
        cfg.keep_builds = True
    for flag, attr in (("jobs", "jobs"), ("ninja_jobs", "ninja_jobs")):
        value = getattr(args, flag)
        if value is not None:
            if value < 1:
                raise config_mod.ConfigError(f"--{flag.replace('_', '-')}: must be at least 1")
            setattr(cfg, attr, value)
    for tool in ("nm", "objdump"):
        if not shutil.which(tool):
            raise config_mod.ConfigError(f"{tool} not found: the check of students' object files needs binutils")
    for what, cmd in (("[build] cmake", cfg.cmake), ("[sanitize] command", cfg.sanitizer if cfg.sanitize else None)):
        if cmd is not None and not shutil.which(grading.resolve_program(cmd)[0]):
            raise config_mod.ConfigError(f"{what}: {cmd[0]!r} not found (on PATH or in the CUDA Toolkit's bin/)")
    grader = grading.Grader(repo, chapters, cfg, args.out, args.work, only)
    return grader, notes


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        grader, notes = setup(args)
    except config_mod.ConfigError as e:
        print(f"grade.py: error: {e}", file=sys.stderr)
        return 2
    for note in notes:
        grader.say(f"note: {note}")
    if args.list:
        for ch in grader.chapters:
            print(f"{ch.name}: exercises/{ch.exercise_path} (checker {ch.checker_target}, "
                  f"solution {ch.solution_target})")
        return 0
    if not args.submissions:
        print("grade.py: error: no submission folder given", file=sys.stderr)
        return 2
    if not grader.cfg.hidden_enabled:
        grader.say("WARNING: no secret seed ([hidden] seed in --config): only the public cases run")
    missing = [str(s) for s in args.submissions if not s.is_dir()]
    for m in missing:
        grader.say(f"WARNING: {m} is not a folder: skipped")
    subs = [s for s in args.submissions if s.is_dir()]
    if not subs:
        print("grade.py: error: no submission folder given", file=sys.stderr)
        return 2
    try:
        grader.grade(subs)
    except grading.SetupError as e:
        print(f"grade.py: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        process.kill_all()
        print("grade.py: interrupted", file=sys.stderr)
        return 130
    print()
    print((grader.out / "summary.md").read_text())
    print(f"reports: {grader.out / 'summary.md'} and {grader.out / 'students'}/<name>/report.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
