"""The result model (case -> chapter -> student -> class) and the summary maths.

Verdict of a chapter, from its build and its cases:
  passed         built, and every case passed (public, hidden, speed run, sanitizer)
  failed         at least one case failed, timed out or crashed
  compile_error  the student's runner did not build (a compile or link error)
  rejected       integrity: a symbolic link, an include of solutions/, a compile that read a file
                 it must not (solutions/, the corpus, another submission), or an object file that
                 defines or calls what an exercise must not (symbols.py)
  not_submitted  the submission has no file for this chapter
  skipped        built, but no case could run (no GPU on this machine)
  error          the grader or the machine failed (configure failed, bad speed arguments, ...)
  not_graded     left out with --chapters
"""
from __future__ import annotations

import dataclasses
import statistics

PASSED, FAILED, TIMEOUT, CRASHED, ERROR, SKIPPED, NOT_RUN = (
    "passed", "failed", "timeout", "crashed", "error", "skipped", "not_run")
FAILING = (FAILED, TIMEOUT, CRASHED)
CASE_SETS = ("public", "hidden", "speed", "sanitize")

CHAPTER_STATUSES = ("passed", "failed", "compile_error", "rejected", "not_submitted", "skipped", "error",
                    "not_graded")


@dataclasses.dataclass
class CaseResult:
    """One graded case: a case of the checker's public or hidden set, the timed run, or a sanitizer run."""

    set: str                  # "public", "hidden", "speed" or "sanitize"
    name: str                 # e.g. "n=4097" (the checker's case name: its parameters)
    status: str               # passed failed timeout crashed error skipped not_run
    seconds: float = 0.0
    message: str = ""         # the failure text (assertion, sizes, worst elements), cleaned
    summary: str = ""         # the same in one line
    log: str | None = None    # log file, relative to the student's report folder

    @property
    def label(self) -> str:
        """"<set>: <name>", as shown in reports."""
        return f"{self.set}: {self.name}"


@dataclasses.dataclass
class BuildResult:
    """Building one chapter's targets."""

    status: str               # "ok", "error" (compile/link error), "timeout"
    seconds: float = 0.0
    errors: str = ""          # the first error lines of the log
    log: str | None = None


@dataclasses.dataclass
class Speed:
    """The student's runner against the solution's, timed by the checker in the same run, on the
    same inputs (every repetition's outputs checked)."""

    exercise_ms: float        # median time of the student's launcher
    solution_ms: float        # median time of the solution's, same run
    ratio: float              # solution time / exercise time: > 1 is faster than the solution
    problem: str = ""         # the timed case
    flags: list[str] = dataclasses.field(default_factory=list)  # implausibilities the checker saw


@dataclasses.dataclass
class ChapterResult:
    """One chapter of one student."""

    chapter: str
    folder: str
    file: str
    status: str = "not_submitted"
    submitted_as: str | None = None
    detail: str = ""          # why, for rejected / compile_error / error
    warnings: list[str] = dataclasses.field(default_factory=list)
    build: BuildResult | None = None
    cases: list[CaseResult] = dataclasses.field(default_factory=list)
    speed: Speed | None = None
    speed_note: str = ""      # why there is no speed figure

    def counts(self) -> dict[str, int]:
        """Cases by outcome: passed, failed (failed + timeout + crashed), skipped, not_run, error, total."""
        c = {"passed": 0, "failed": 0, "skipped": 0, "not_run": 0, "error": 0, "total": len(self.cases)}
        for case in self.cases:
            key = "failed" if case.status in FAILING else case.status
            c[key] += 1
        return c

    def first_failure(self) -> CaseResult | None:
        """The first case (in run order) that failed, timed out or crashed; else the first error."""
        for wanted in (FAILING, (ERROR,)):
            for case in self.cases:
                if case.status in wanted:
                    return case
        return None

    def derive_status(self) -> str:
        """Sets and returns the verdict from the build and the cases (see the module comment)."""
        if self.status in ("not_submitted", "rejected", "not_graded"):
            return self.status
        if not self.cases:  # nothing ran: the build failed, or the grader did (status set to "error")
            if self.status != "error":
                failed_build = self.build is not None and self.build.status in ("error", "timeout")
                self.status = "compile_error" if failed_build else "error"
            return self.status
        c = self.counts()
        if c["failed"]:
            self.status = "failed"
        elif c["error"]:
            self.status = "error"
        elif c["passed"] == c["total"]:
            self.status = "passed"
        elif c["skipped"]:
            self.status = "skipped"  # could not run here (no GPU): no verdict
        else:
            self.status = "error"
        return self.status


@dataclasses.dataclass
class StudentResult:
    """Everything graded for one submission."""

    name: str
    submission: str
    chapters: list[ChapterResult] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    seconds: float = 0.0

    def totals(self) -> dict[str, int]:
        """Chapters passed / submitted / gradable, and cases passed / total over submitted chapters."""
        graded = [c for c in self.chapters if c.status != "not_graded"]
        submitted = [c for c in graded if c.status != "not_submitted"]
        return {
            "chapters_gradable": len(graded),
            "chapters_submitted": len(submitted),
            "chapters_passed": sum(c.status == "passed" for c in submitted),
            "cases_passed": sum(c.counts()["passed"] for c in submitted),
            "cases_total": sum(c.counts()["total"] for c in submitted),
        }


def class_statistics(students: list[StudentResult], chapter_names: list[str]) -> list[dict]:
    """Per chapter: how many submitted, passed, failed, ...; pass rate; speed of the passing ones."""
    out = []
    for name in chapter_names:
        results = [c for s in students for c in s.chapters if c.chapter == name]
        submitted = [c for c in results if c.status not in ("not_submitted", "not_graded")]
        by = {st: sum(c.status == st for c in results) for st in CHAPTER_STATUSES}
        speeds = sorted(c.speed.ratio for c in submitted if c.status == "passed" and c.speed is not None)
        judged = by["passed"] + by["failed"] + by["compile_error"] + by["rejected"]
        out.append({
            "chapter": name,
            "submitted": len(submitted),
            **by,
            "pass_rate": (by["passed"] / judged) if judged else None,
            "speed_median": statistics.median(speeds) if speeds else None,
            "speed_min": speeds[0] if speeds else None,
            "speed_max": speeds[-1] if speeds else None,
        })
    return out
