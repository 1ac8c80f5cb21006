#!/usr/bin/env python3
"""Proves the grader bites: grades the reference solutions and every entry of the corpus, and exits
0 only if every solution and every correct entry passes and every known-wrong submission is
rejected. Needs a GPU for most verdicts (without one, only the build and symbol checks decide).

    python3 tools/grader/check_corpus.py [--out DIR] [--chapters a,b] [--jobs N] [--ninja-jobs N] [--sanitize]
                                         [--seed N] [--write-submissions DIR]

Submissions it grades, one "student" each, all in the grader's one build tree:
  solutions            the repository's solutions/ (every chapter): must PASS
  <chapter>--skeleton  the untouched skeleton of each chapter (from exercises/): must be rejected
  <chapter>--<entry>   every tools/grader/corpus/NN_name/<entry>/; the first line of its README.md
                       says what it is and what is expected of it:
                         "CORRECT: ..."  a correct submission: must PASS
                         "FLAG: ..."     wrong in a way only the speed run sees: must be rejected, or pass
                                         with a speed FLAG in its report
                         anything else   known-wrong: must be rejected (FAIL, COMPILE ERROR or REJECTED)
Corpus folders of chapters that exist but are not gradable yet are skipped (with a note).

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


def expectation(what: str) -> str:
    """What an entry's README line asks of the grader: "PASS", "FLAG" or "REJECT"."""
    head = what.lstrip().upper()
    if head.startswith("CORRECT:"):
        return "PASS"
    if head.startswith("FLAG:"):
        return "FLAG"
    return "REJECT"


def corpus_entries(repo: pathlib.Path, chapters, corpus: pathlib.Path = CORPUS, all_chapters=None, notes=None):
    """[(submission name, chapter, source file, what it is, expected)] for the skeletons and the
    corpus entries of `chapters`; expected is "PASS", "FLAG" or "REJECT" (see expectation()).
    Raises ValueError for a malformed entry (no exercise file, no README) or a corpus folder that is
    no chapter folder of the repository. The entries of a chapter that exists but is not gradable
    (of `all_chapters`, default `chapters`) are skipped, with a line in `notes`."""
    gradable = {c.folder for c in (all_chapters or chapters)}
    existing = {p.parent.name for p in repo.glob("chapters/[0-9][0-9]_*/CMakeLists.txt")}
    by_folder = {c.folder: c for c in chapters}
    entries = [(f"{c.name}--skeleton", c, repo / "exercises" / c.exercise_path, "the untouched skeleton", "REJECT")
               for c in chapters]
    for folder in sorted(p for p in corpus.iterdir() if p.is_dir()) if corpus.is_dir() else []:
        if folder.name not in gradable:
            if folder.name not in existing:
                raise ValueError(f"{folder}: no chapter of the repository has the folder {folder.name!r}")
            if notes is not None:
                count = sum(1 for p in folder.iterdir() if p.is_dir())
                notes.append(f"{folder.name}: not gradable yet: its {count} corpus entries are skipped")
            continue
        ch = by_folder.get(folder.name)
        if ch is None:
            continue  # a chapter left out with --chapters
        for entry in sorted(p for p in folder.iterdir() if p.is_dir()):
            src, readme = entry / ch.exercise, entry / "README.md"
            if not src.is_file() or not readme.is_file():
                raise ValueError(f"{entry}: a corpus entry needs {ch.exercise} and a one-line README.md")
            what = readme.read_text().strip().splitlines()[0] if readme.read_text().strip() else "?"
            entries.append((f"{ch.name}--{entry.name}", ch, src, what, expectation(what)))
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
    for name, ch, src, *_ in entries:
        target = dest / name / ch.exercise_path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        subs.append(dest / name)
    return subs


def caught_by(cr) -> str:
    """Which step decided a chapter that did not pass: build, integrity, or the set of its first
    failing case (public, hidden, speed, sanitize); "speed flag" for a pass the speed run flagged."""
    if cr.status == "rejected":
        return "integrity"
    if cr.status == "compile_error":
        return "build"
    first = cr.first_failure()
    if cr.status == "failed" and first is not None:
        return first.set
    if cr.status == "passed" and cr.speed is not None and cr.speed.flags:
        return "speed flag"
    return "-"


def evaluate(results, entries, chapters):
    """Rows of the final table and the overall outcome ("ok", "bad" or "unverified")."""
    wanted = {name: (ch, what, expect) for name, ch, _, what, expect in entries}
    rows, outcome = [], "ok"
    for st in results:
        if st.name == "solutions":
            checks = [(c, "the reference solution", "PASS") for c in chapters]
        else:
            checks = [wanted[st.name]]
        by = {c.chapter: c for c in st.chapters}
        for ch, what, expect in checks:
            cr = by[ch.name]
            flagged = cr.speed is not None and bool(cr.speed.flags)
            if cr.status == "skipped":
                good = None  # could not run here (no GPU): no verdict
            elif expect == "PASS":
                good = cr.status == "passed"
            elif expect == "FLAG":
                good = cr.status in REJECTED or (cr.status == "passed" and flagged)
            else:
                good = cr.status in REJECTED  # "passed" or a grader "error" is not a rejection
            if good is False:
                outcome = "bad"
            elif good is None and outcome == "ok":
                outcome = "unverified"
            speed = f"{cr.speed.ratio:.2f}x" if cr.speed else "-"
            c = cr.counts()
            rows.append({"submission": st.name, "chapter": ch.name, "what": what, "expected": expect,
                         "verdict": STATUS_TEXT.get(cr.status, cr.status), "cases": f"{c['passed']}/{c['total']}",
                         "caught_by": caught_by(cr), "speed": speed + (" FLAG" if flagged else ""),
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
    p = argparse.ArgumentParser(description="Grade the solutions and the corpus; fail unless the grader accepts "
                                            "every solution and correct entry and rejects every wrong submission.")
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("build-corpus"),
                   help="output folder (default: build-corpus)")
    p.add_argument("--jobs", type=int, help="checks run at once (default: cores / 4, at most 4)")
    p.add_argument("--ninja-jobs", type=int, help="compile jobs of the build (default: cores)")
    p.add_argument("--seed", type=int, help="the hidden seed (default: a fresh random one)")
    p.add_argument("--sanitize", action="store_true", help="also run compute-sanitizer memcheck")
    p.add_argument("--keep-builds", action="store_true", help="keep the build tree")
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
    skipped: list[str] = []
    try:
        cfg_path = args.corpus / "corpus.toml"
        cfg = config_mod.load(cfg_path if cfg_path.is_file() else None, repo_mod.chapter_names(repo))
        entries = corpus_entries(repo, chapters, args.corpus, all_chapters, skipped)
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
    for note in notes + skipped:
        grader.say(f"note: {note}")
    correct = sum(e[4] == "PASS" for e in entries)
    grader.say(f"corpus check: {len(subs)} submissions ({len(entries) - correct} known-wrong, {correct} correct) over "
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
    verdict = {"ok": "OK: every solution and correct entry passed and every known-wrong submission was rejected",
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
