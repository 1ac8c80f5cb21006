#!/usr/bin/env python3
"""Proves the grader bites: grades the reference solutions and every known-wrong submission of the
corpus, and exits 0 only if every solution passes and every wrong submission is rejected. Needs a GPU.

    python3 tools/grader/check_corpus.py [--out DIR] [--chapters a,b] [--jobs N] [--ninja-jobs N] [--sanitize]
                                         [--seed N] [--write-submissions DIR]

Submissions it grades (each in its own build tree, built with Ninja, several at once):
  solutions          the repository's solutions/ (every chapter): must PASS
  <chapter>--skeleton the untouched skeleton of each chapter (from exercises/): must be rejected
  <chapter>--<entry>  every tools/grader/corpus/NN_name/<entry>/ (its README.md says what is wrong): must be rejected

The hidden seed is drawn at random (printed; --seed reuses one); the other settings come from
tools/grader/corpus/corpus.toml. Exit status: 0 all as expected; 1 something passed that must not,
or failed that must not; 77 nothing wrong but some verdicts could not be reached (no GPU); 2 usage.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import secrets
import shutil
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gradelib import config as config_mod  # noqa: E402
from gradelib import grading, process, repo as repo_mod  # noqa: E402
from gradelib.reports import STATUS_TEXT, failure_line  # noqa: E402

CORPUS = HERE / "corpus"
REJECTED = ("failed", "compile_error", "rejected")


def corpus_entries(repo: pathlib.Path, chapters, corpus: pathlib.Path = CORPUS, all_chapters=None):
    """[(submission name, chapter, source file, what is wrong)] for the skeletons and the corpus
    entries of `chapters`. Raises ValueError for a malformed entry (no exercise file, no README) or
    a corpus folder that matches no gradable chapter (of `all_chapters`, default `chapters`)."""
    known = {c.folder for c in (all_chapters or chapters)}
    by_folder = {c.folder: c for c in chapters}
    entries = [(f"{c.name}--skeleton", c, repo / "exercises" / c.exercise_path, "the untouched skeleton")
               for c in chapters]
    for folder in sorted(p for p in corpus.iterdir() if p.is_dir()) if corpus.is_dir() else []:
        if folder.name not in known:
            raise ValueError(f"{folder}: no gradable chapter has the folder {folder.name!r}")
        ch = by_folder.get(folder.name)
        if ch is None:
            continue  # a chapter left out with --chapters
        for entry in sorted(p for p in folder.iterdir() if p.is_dir()):
            src, readme = entry / ch.exercise, entry / "README.md"
            if not src.is_file() or not readme.is_file():
                raise ValueError(f"{entry}: a corpus entry needs {ch.exercise} and a one-line README.md")
            what = readme.read_text().strip().splitlines()[0] if readme.read_text().strip() else "?"
            entries.append((f"{ch.name}--{entry.name}", ch, src, what))
    return entries


def make_submissions(repo: pathlib.Path, chapters, entries, dest: pathlib.Path) -> list[pathlib.Path]:
    """One folder per submission under dest (solutions first)."""
    if dest.exists():
        shutil.rmtree(dest)
    subs = []
    sol = dest / "solutions"
    for c in chapters:
        (sol / c.folder).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(repo / "solutions" / c.exercise_path, sol / c.exercise_path)
    subs.append(sol)
    for name, ch, src, _ in entries:
        target = dest / name / ch.exercise_path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        subs.append(dest / name)
    return subs


def evaluate(results, entries, chapters):
    """Rows of the final table and the overall outcome ("ok", "bad" or "unverified")."""
    wanted = {name: (ch, what) for name, ch, _, what in entries}
    rows, outcome = [], "ok"
    for st in results:
        if st.name == "solutions":
            checks = [(c, "the reference solution", "PASS") for c in chapters]
        else:
            ch, what = wanted[st.name]
            checks = [(ch, what, "REJECT")]
        by = {c.chapter: c for c in st.chapters}
        for ch, what, expect in checks:
            cr = by[ch.name]
            if cr.status == "skipped":
                good = None  # could not run here (no GPU): no verdict
            elif expect == "PASS":
                good = cr.status == "passed"
            else:
                good = cr.status in REJECTED  # "passed" or a grader "error" is not a rejection
            if good is False:
                outcome = "bad"
            elif good is None and outcome == "ok":
                outcome = "unverified"
            first = cr.first_failure()
            caught = ("integrity" if cr.status == "rejected" else "build" if cr.status == "compile_error"
                      else first.set if first is not None and cr.status == "failed" else "-")
            speed = f"{cr.speed.ratio:.2f}x" if cr.speed else "-"
            c = cr.counts()
            rows.append({"submission": st.name, "chapter": ch.name, "what": what, "expected": expect,
                         "verdict": STATUS_TEXT.get(cr.status, cr.status), "cases": f"{c['passed']}/{c['total']}",
                         "caught_by": caught, "speed": speed,
                         "ok": {True: "ok", False: "WRONG", None: "not verified"}[good],
                         "first_failure": failure_line(cr)})
    return rows, outcome


def table(rows) -> str:
    """The short Markdown summary printed at the end."""
    out = ["| submission | expected | verdict | cases passed | caught by | speed | check | first failure |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        first = r["first_failure"].replace("|", "\\|")
        if len(first) > 110:
            first = first[:107] + "..."
        out.append(f"| {r['submission']}{'' if r['submission'] != 'solutions' else ' (' + r['chapter'] + ')'} | "
                   f"{r['expected']} | {r['verdict']} | {r['cases']} | {r['caught_by']} | {r['speed']} | "
                   f"{r['ok']} | {first or '-'} |")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Grade the solutions and the known-wrong corpus; fail unless the "
                                            "grader accepts every solution and rejects every wrong submission.")
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("build-corpus"),
                   help="output folder (default: build-corpus)")
    p.add_argument("--jobs", type=int, help="submissions built at once (default: cores / 4)")
    p.add_argument("--ninja-jobs", type=int, help="compile jobs per build (default: cores / jobs)")
    p.add_argument("--seed", type=int, help="the hidden seed (default: a fresh random one)")
    p.add_argument("--sanitize", action="store_true", help="also run compute-sanitizer memcheck")
    p.add_argument("--keep-builds", action="store_true", help="keep the build trees")
    p.add_argument("--chapters", help="comma-separated chapters (default: all with an exercise)")
    p.add_argument("--write-submissions", type=pathlib.Path, metavar="DIR",
                   help="only write the submissions (one folder each) into DIR and exit: a class to try grade.py on")
    p.add_argument("--repo", type=pathlib.Path, default=HERE.parent.parent, help=argparse.SUPPRESS)
    p.add_argument("--corpus", type=pathlib.Path, default=CORPUS, help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    start = time.monotonic()
    repo = args.repo.resolve()
    chapters, notes = repo_mod.discover(repo)
    all_chapters = list(chapters)
    if args.chapters:
        only = [c.strip() for c in args.chapters.split(",") if c.strip()]
        unknown = [c for c in only if c not in [ch.name for ch in chapters]]
        if unknown:
            print(f"check_corpus.py: error: unknown chapter(s) {', '.join(unknown)}", file=sys.stderr)
            return 2
        chapters = [c for c in chapters if c.name in only]
    try:
        cfg_path = args.corpus / "corpus.toml"
        cfg = config_mod.load(cfg_path if cfg_path.is_file() else None, [c.name for c in all_chapters])
        entries = corpus_entries(repo, chapters, args.corpus, all_chapters)
    except (config_mod.ConfigError, ValueError) as e:
        print(f"check_corpus.py: error: {e}", file=sys.stderr)
        return 2
    if args.write_submissions:
        subs = make_submissions(repo, chapters, entries, args.write_submissions.resolve())
        print(f"wrote {len(subs)} submissions into {args.write_submissions}")
        return 0
    cfg.seed = args.seed if args.seed is not None else secrets.randbelow(2**62) + 1
    if (args.sanitize or cfg.sanitize) and not shutil.which(grading.resolve_program(cfg.sanitizer)[0]):
        print(f"check_corpus.py: error: --sanitize: {cfg.sanitizer[0]!r} not found", file=sys.stderr)
        return 2
    cfg.speed = True
    cfg.sanitize = cfg.sanitize or args.sanitize
    cfg.keep_builds = cfg.keep_builds or args.keep_builds
    if args.jobs:
        cfg.jobs = args.jobs
    if args.ninja_jobs:
        cfg.ninja_jobs = args.ninja_jobs
    out = args.out.resolve()
    subs = make_submissions(repo, chapters, entries, out / "submissions")
    grader = grading.Grader(repo, chapters, cfg, out)
    for note in notes:
        grader.say(f"note: {note}")
    grader.say(f"corpus check: {len(subs)} submissions ({len(entries)} known-wrong) over "
               f"{', '.join(c.name for c in chapters)}; hidden seed {cfg.seed} (reuse it with --seed {cfg.seed})")
    try:
        results = grader.grade(subs)
    except grading.SetupError as e:
        print(f"check_corpus.py: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        process.kill_all()
        return 130
    rows, outcome = evaluate(results, entries, chapters)
    text = table(rows)
    minutes = (time.monotonic() - start) / 60
    verdict = {"ok": "OK: every solution passed and every known-wrong submission was rejected",
               "bad": "FAILED: see the rows marked WRONG",
               "unverified": "NOT VERIFIED: some verdicts could not be reached here (no GPU?)"}[outcome]
    summary = (f"# Corpus check\n\n- {grader.run['date']} on {grader.run['device']}, commit {grader.run['git']}, "
               f"hidden seed {cfg.seed}, {minutes:.1f} min\n- {verdict}\n\n{text}\n")
    (out / "corpus_summary.md").write_text(summary)
    (out / "corpus_summary.json").write_text(json.dumps({"outcome": outcome, "seed": cfg.seed, "run": grader.run,
                                                         "rows": rows}, indent=2) + "\n")
    print()
    print(summary)
    print(f"class summary: {out / 'summary.md'}; reports: {out / 'students'}/<name>/report.md")
    return {"ok": 0, "bad": 1, "unverified": 77}[outcome]


if __name__ == "__main__":
    sys.exit(main())
