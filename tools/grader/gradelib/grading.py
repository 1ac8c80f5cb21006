"""The grading pipeline (docs/guides/grading.md):

  find each student's files -> copy the accepted ones into the work folder -> configure ONE build
  tree with every (student, chapter) runner listed (TUT_GRADING_LIST) -> build the grader's own
  programs (the checkers, the solutions' runners, tut_isolate) -> build every student's runner in
  one parallel build (each student file compiled through tut_isolate, which hides solutions/,
  the corpus and the submissions; each student's copy lies in a folder of a random name, so no
  include can reach a classmate's; a compile error costs that chapter only) -> check what each
  compile read (Ninja's dependency records) and each runner's object file (symbols.py) ->
  correctness: check_<chapter> runs the student's runner on the public and hidden cases (several
  checks at once; the GPU is shared, nothing is timed; a check in which a runner crashed or timed
  out is repeated alone on the GPU, so that a neighbour's memory or time cannot fail it) ->
  optional sanitizer -> speed: after every check, one timed run per chapter for all its passing
  students and the solution, alone on the GPU -> verdicts -> reports.

The verdicts come only from the checkers' reports: programs built from the repository that never
load student code, run after the student's process and everything it started are gone.
"""
from __future__ import annotations

import datetime
import json
import os
import pathlib
import re
import secrets
import shutil
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from . import VERSION, process, reports, submission, symbols
from .config import Config
from .repo import Chapter
from .results import (CRASHED, ERROR, FAILED, NOT_RUN, PASSED, SKIPPED, TIMEOUT, BuildResult, CaseResult,
                      ChapterResult, Speed, StudentResult)

CHECK_PASSED, CHECK_FAILED, CHECK_USAGE, CHECK_NOT_CHECKED = 0, 1, 2, 77  # check_<chapter>'s exit statuses
SPEED_BATCH = 16  # students timed per checker run (one solution run serves them all)
RUNNER_STARTS = 4  # the checker starts a runner at most this often (after a case that kills it)


class SetupError(RuntimeError):
    """The grading run cannot start (the repository does not configure or build on this machine)."""


def _clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The grader's environment without any TUTORIAL_* variable, plus `extra`. If nvcc is not on
    PATH, the CUDA Toolkit's bin/ is added (CMake needs nvcc to configure)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUTORIAL_")}
    if not shutil.which("nvcc", path=env.get("PATH")):
        nvcc = resolve_program(["nvcc"])[0]
        if os.sep in nvcc:
            env["PATH"] = os.path.dirname(nvcc) + os.pathsep + env.get("PATH", "")
    env.update(extra or {})
    return env


def git_commit(repo: pathlib.Path) -> str:
    """The commit in every report: $TUT_GIT_COMMIT if set (the caller knows best: a tree copied to a GPU
    machine may carry no .git, or a stale one), else the repository's commit from git (with -dirty),
    else "unknown". The same rule as cmake/GitCommit.cmake."""
    explicit = os.environ.get("TUT_GIT_COMMIT", "").strip()
    if explicit:
        return explicit
    try:
        r = subprocess.run(["git", "-C", str(repo), "rev-parse", "--show-toplevel", "--short=12", "HEAD"],
                           capture_output=True, text=True, timeout=20)
        lines = r.stdout.split()
        # --show-toplevel: a tree without its own .git inside some other checkout must not take that one's commit.
        if r.returncode != 0 or len(lines) != 2 or pathlib.Path(lines[0]).resolve() != repo.resolve():
            return "unknown"
        commit = lines[1]
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=20).stdout.strip()
        return commit + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def resolve_program(cmd: list[str]) -> list[str]:
    """A bare program name not on PATH is looked for in the CUDA Toolkit's bin folder too."""
    if os.sep in cmd[0] or shutil.which(cmd[0]):
        return cmd
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and (pathlib.Path(root) / "bin" / cmd[0]).is_file():
            return [str(pathlib.Path(root) / "bin" / cmd[0])] + cmd[1:]
    return cmd


def describe_device() -> str:
    """The GPU(s) nvidia-smi reports, or why there is none."""
    try:
        r = subprocess.run([*resolve_program(["nvidia-smi"]), "--query-gpu=name,compute_cap", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "no GPU (nvidia-smi not found)"
    names = [ln.strip() for ln in r.stdout.splitlines() if ln.strip()]
    if r.returncode != 0 or not names:
        return "no GPU (nvidia-smi found none)"
    return "; ".join(names)


def compile_errors(log_text: str, limit: int = 20) -> str:
    """The first error lines of a build log, for the report: compiler errors first, then linker
    errors (each undefined or doubly defined symbol), then the linker's summary and ninja's FAILED
    lines; the log's last lines if none of these is found."""
    lines, seen = [], set()
    for line in log_text.splitlines():
        line = line.rstrip()
        if line and line not in seen and not line.startswith(("ninja: build stopped", "$ ")) and len(line) < 2000:
            seen.add(line)
            lines.append(line)
    summary = re.compile(r"collect2|ld returned|error: linker command failed")
    linker = [ln for ln in lines if re.search(r"undefined reference|multiple definition|undefined symbol", ln)]
    compiler = [ln for ln in lines if re.search(r"\berror\b", ln, re.IGNORECASE) and not ln.startswith("FAILED:")
                and " -o " not in ln and ln not in linker and not summary.search(ln)]
    tail = [ln for ln in lines if summary.search(ln)]
    failed = [ln for ln in lines if ln.startswith("FAILED:")]
    pick = (compiler + linker + tail + ([] if compiler or linker or tail else failed))[:limit]
    return "\n".join(pick) if pick else "\n".join(lines[-limit:])


def first_error(errors: str) -> str:
    """The one line a report shows for a failed build: the first compiler error, or, for a link
    error, the symbol that is missing (what the student called that the runner does not have)."""
    lines = [ln for ln in errors.splitlines() if ln.strip()]
    if lines and "undefined reference" not in lines[0] and not re.search(r"collect2|ld returned", lines[0]):
        return lines[0]
    missing = []
    for m in re.finditer(r"undefined (?:reference to|symbol:?) [`'\u2018]?([^'`\u2019\n]+)['`\u2019]?", errors):
        if m.group(1) not in missing:
            missing.append(m.group(1))
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        return (f"link error: undefined reference to {', '.join(missing[:3])}{more} (the runner links the harness "
                "and your file only: no solution, CPU reference, cuBLAS or cuDNN)")
    return lines[0] if lines else "the build failed"


def included_files(deps_text: str, build_dir: pathlib.Path) -> dict[str, list[str]]:
    """{object file (relative to the build folder): the files its compile read} from the output of
    `ninja -t deps` (each record: "<object>: #deps N, ..." then one indented path per line)."""
    out: dict[str, list[str]] = {}
    current = None
    for line in deps_text.splitlines():
        if not line.strip():
            current = None
            continue
        if not line[0].isspace() and ": #deps" in line:
            current = line.split(": #deps", 1)[0].strip()
            out[current] = []
        elif current is not None and line[0].isspace():
            path = pathlib.Path(line.strip())
            out[current].append(str(path if path.is_absolute() else build_dir / path))
    return out


_STEP = re.compile(r"^\[\d+/\d+\]")
_TARGET_OF = re.compile(r"CMakeFiles/(grade_[A-Za-z0-9_.-]+?)\.dir/|grading/([A-Za-z0-9_.-]+)/exercise_([A-Za-z0-9_]+)")


def split_build_log(text: str, targets: dict[tuple[str, str], str]) -> dict[str, str]:
    """{target: its failed commands' output} from a Ninja log of the one build of every runner.
    Ninja prints each failed command as "FAILED: <output file>", the command line, then its output,
    until the next "[i/n]" step line; the output file names the target."""
    by_dir = {f"grade_{s}__{c}": t for (s, c), t in targets.items()}
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("FAILED:"):
            m = _TARGET_OF.search(line)
            current = None
            if m and m.group(1):
                current = by_dir.get(m.group(1))
            elif m:
                current = targets.get((m.group(2), m.group(3)))
            if current is not None:
                out.setdefault(current, []).append(line)
            continue
        if _STEP.match(line) or line.startswith("ninja:"):
            current = None
            continue
        if current is not None:
            out[current].append(line)
    return {t: "\n".join(lines) for t, lines in out.items()}


def _redactor(cfg: Config):
    """Hides the secret seed (and seeds derived from it) in texts shown to students."""
    def redact(text: str) -> str:
        if not cfg.redact or cfg.seed is None or not text:
            return text
        text = re.sub(r"(seed\s*[=:]?\s*)\d+", r"\1<hidden>", text, flags=re.IGNORECASE)
        return text.replace(str(cfg.seed), "<hidden>")
    return redact


class Grader:
    """Grades submissions against the repository's chapters with one configuration."""

    def __init__(self, repo: pathlib.Path, chapters: list[Chapter], cfg: Config, out: pathlib.Path,
                 work: pathlib.Path | None = None, only: list[str] | None = None, say=print):
        self.repo = repo.resolve()
        self.chapters = chapters
        self.cfg = cfg
        self.out = out.resolve()
        self.work = (work or self.out / "work").resolve()
        self.only = only
        self._say = say
        self._print_lock = threading.Lock()
        self.redact = _redactor(cfg)
        cores = os.cpu_count() or 2
        self.check_jobs = cfg.jobs or max(1, min(4, cores // 4))
        self.ninja_jobs = cfg.ninja_jobs or cores
        self.build_dir = self.work / "build"
        self.device = describe_device()
        self.isolation = "unknown"
        self.files_dirs: dict[str, pathlib.Path] = {}  # student -> the random-named folder of their copies
        self.submission_dirs: list[pathlib.Path] = []
        self.run = {
            "grader": VERSION,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "git": git_commit(self.repo),
            "device": self.device,
            "settings": cfg.describe(),
            "hidden": cfg.hidden_enabled,
            "speed": cfg.speed,
            "sanitize": cfg.sanitize_tools if cfg.sanitize else [],
            "chapters": [c.name for c in chapters],
        }

    # ------------------------------------------------------------------ helpers
    def say(self, text: str) -> None:
        """Progress output (one line at a time, from any thread)."""
        with self._print_lock:
            self._say(text)

    def student_dir(self, name: str) -> pathlib.Path:
        """Where a student's reports go (they can be handed out as they are: the logs, which show the
        secret seed, go to OUT/logs/<name>/)."""
        return self.out / "students" / name

    def rel(self, path: pathlib.Path) -> str:
        """A path relative to the output folder, for reports."""
        try:
            return str(path.relative_to(self.out))
        except ValueError:
            return str(path)

    def bin(self, name: str) -> pathlib.Path:
        return self.build_dir / "bin" / name

    def runner_of(self, student: str, ch: Chapter) -> pathlib.Path:
        return self.build_dir / "grading" / student / f"exercise_{ch.name}"

    def chapter_of(self, cr: ChapterResult) -> Chapter:
        return next(c for c in self.chapters if c.name == cr.chapter)

    def _guarded(self, step, st: StudentResult, cr: ChapterResult) -> None:
        """Runs one step of one student's chapter; a grader bug costs that chapter, not the run."""
        try:
            step(st, cr)
        except Exception as e:  # noqa: BLE001 (any bug of ours: reported, the others go on)
            cr.cases.append(CaseResult("public", "grader", ERROR, summary=f"grader error: {type(e).__name__}: {e}"))
            self.say(f"[{st.name}] {cr.chapter}: grader ERROR ({type(e).__name__}: {e})")

    # ------------------------------------------------------------------ top level
    def grade(self, submissions: list[pathlib.Path]) -> list[StudentResult]:
        """Grades every submission and writes all reports."""
        start = time.monotonic()
        students: list[StudentResult] = []
        seen: set[str] = set()
        self.submission_dirs = [pathlib.Path(p).resolve() for p in submissions]
        for path in submissions:
            base = submission.student_name(path)
            name, k = base, 2
            while name in seen:
                name, k = f"{base}-{k}", k + 1
            seen.add(name)
            students.append(StudentResult(name, str(path)))
        self.say(f"grading {len(students)} submission(s) on {self.device}; {self.cfg.describe()}")
        for st in students:
            for old in (self.student_dir(st.name), self.out / "logs" / st.name):
                if old.exists():
                    shutil.rmtree(old)
            (self.out / "logs" / st.name).mkdir(parents=True, exist_ok=True)
        copies = self.collect(students)
        targets = {(st, ch): f"grade_{st}__{ch}" for st, by_ch in copies.items() for ch in by_ch}
        self.configure(copies)
        self.build_own_programs()
        self.build_runners(students, targets)
        pending = [(st, cr) for st in students for cr in st.chapters if cr.status == "pending"]
        self.say(f"checking {len(pending)} chapter submission(s), {self.check_jobs} at once")
        with ThreadPoolExecutor(max_workers=self.check_jobs) as pool:
            list(pool.map(lambda sc: self._guarded(self.check_cases, *sc), pending))
        if self.check_jobs > 1:
            self.recheck_alone(pending)
        if self.cfg.sanitize:
            with ThreadPoolExecutor(max_workers=self.check_jobs) as pool:
                list(pool.map(lambda sc: self._guarded(self.sanitize, *sc), pending))
        if self.cfg.speed:
            self.speed_runs(pending)
        else:
            for _, cr in pending:
                cr.speed_note = "not measured: the speed run is off"
        self.run["isolation"] = self.isolation
        for st in students:
            for ch in st.chapters:
                ch.derive_status()
            st.seconds = time.monotonic() - start
            reports.write_student(self.student_dir(st.name), st, self.run)
            t = st.totals()
            self.say(f"[{st.name}] {t['chapters_passed']}/{t['chapters_submitted']} chapters passed "
                     f"-> {self.student_dir(st.name) / 'report.md'}")
        self.run["seconds"] = round(time.monotonic() - start, 1)
        reports.write_summary(self.out, students, [c.name for c in self.chapters], self.run)
        if not self.cfg.keep_builds:
            shutil.rmtree(self.work, ignore_errors=True)
        return students

    def collect(self, students: list[StudentResult]) -> dict[str, dict[str, pathlib.Path]]:
        """Finds each student's chapters and copies the accepted files: {student: {chapter: file}}."""
        copies: dict[str, dict[str, pathlib.Path]] = {}
        for st in students:
            path = pathlib.Path(st.submission)
            found, warnings = submission.find(path, self.chapters, self.repo) if path.is_dir() else ({}, [])
            if not path.is_dir():
                st.warnings.append(f"{path} is not a folder: nothing graded")
            st.warnings.extend(warnings)
            for w in warnings:
                if w.startswith(submission.CLASS_FOLDER):
                    self.say(f"[{st.name}] WARNING: {w}")
            for ch in self.chapters:
                cr = ChapterResult(ch.name, ch.folder, ch.exercise)
                st.chapters.append(cr)
                if self.only is not None and ch.name not in self.only:
                    cr.status = "not_graded"
                    continue
                sub = found.get(ch.name)
                if sub is None:
                    continue
                cr.submitted_as, cr.warnings = sub.shown_as, list(sub.warnings)
                if sub.rejected:
                    cr.status, cr.detail = "rejected", sub.rejected
                    continue
                cr.status = "pending"
            accepted = {c.name: found[c.name] for c in self.chapters
                        if any(cr.chapter == c.name and cr.status == "pending" for cr in st.chapters)}
            # A folder of a random name: a student's file cannot guess where a classmate's copy is.
            self.files_dirs[st.name] = self.work / "files" / secrets.token_hex(12)
            copies[st.name] = submission.copy_accepted(accepted, self.files_dirs[st.name])
        return copies

    def hidden_folders(self) -> list[pathlib.Path]:
        """What students' compiles must not see: solutions/, the corpus, and every submission folder
        (whatever its path, a student could otherwise include a classmate's original file)."""
        hide = [self.repo / "solutions", self.repo / "tools" / "grader" / "corpus"]
        for sub in self.submission_dirs:
            # Never a folder that holds the repository or the grader's own files.
            if any(p == sub or sub in p.parents for p in (self.repo, self.out, self.work)):
                continue
            if ";" in str(sub):
                continue  # cannot be passed in a CMake list
            hide.append(sub)
        return hide

    # ------------------------------------------------------------------ building
    def configure(self, copies: dict[str, dict[str, pathlib.Path]]) -> None:
        """One build tree for the grader's programs and every student's runner."""
        self.work.mkdir(parents=True, exist_ok=True)
        listing = self.work / "grading_list.txt"
        listing.write_text("".join(f"{st}|{ch}|{path}\n" for st, by_ch in copies.items()
                                   for ch, path in by_ch.items()))
        hide = ";".join(f"--hide;{p}" for p in self.hidden_folders())
        cmd = [*self.cfg.cmake, "-S", str(self.repo), "-B", str(self.build_dir),
               f"-DCMAKE_BUILD_TYPE={self.cfg.build_type}", f"-DTUT_GRADING_LIST={listing}",
               f"-DTUT_GRADING_HIDE={hide}"]
        if self.cfg.generator:
            cmd += ["-G", self.cfg.generator]
        if self.cfg.cuda_architectures:
            cmd.append(f"-DCMAKE_CUDA_ARCHITECTURES={self.cfg.cuda_architectures}")
        cmd += self.cfg.cmake_args
        self.say("configuring the grading build")
        log = self.out / "logs" / "configure.log"
        res = process.run_bounded(cmd, self.cfg.configure_timeout, env=_clean_env(), log_path=log)
        if not res.ok:
            why = "timed out" if res.timed_out else res.start_error or f"exit status {res.rc}"
            raise SetupError(f"the repository does not configure ({why}); nothing was graded. See {log}:\n"
                             + compile_errors(res.output_tail, 12))

    def _build(self, targets: list[str], log: pathlib.Path, keep_going: bool) -> process.RunResult:
        cmd = [*self.cfg.cmake, "--build", str(self.build_dir), "--target", *targets, "-j", str(self.ninja_jobs)]
        if keep_going and self.cfg.generator.lower().startswith("ninja"):
            cmd += ["--", "-k", "0"]  # a student's compile error must not stop the others' builds
        return process.run_bounded(cmd, self.cfg.build_timeout, env=_clean_env(), log_path=log)

    def build_own_programs(self) -> None:
        """The checkers, the solutions' runners and tut_isolate: built from the repository, once."""
        chosen = [c for c in self.chapters if self.only is None or c.name in self.only]
        targets = ["tut_isolate"] + [t for c in chosen for t in (c.checker_target, c.solution_target)]
        self.say("building the checkers and the solutions' runners")
        log = self.out / "logs" / "build_grader.log"
        res = self._build(targets, log, keep_going=False)
        if not res.ok:
            raise SetupError(f"the grader's own programs do not build; nothing was graded. See {log}:\n"
                             + compile_errors(log.read_text(errors="replace") if log.is_file() else res.output_tail))
        probe = subprocess.run([str(self.bin("tut_isolate")), "--probe", str(self.repo / "solutions")],
                               capture_output=True, text=True)
        self.run["compile_isolation"] = (
            "students' files are compiled with solutions/, the corpus and the submissions hidden"
            if probe.returncode == 0 else
            "WARNING: solutions/ could not be hidden from students' compiles on this machine "
            f"({probe.stderr.strip()}); only the text check of their includes and the check of the files each "
            "compile read protect it")

    def build_runners(self, students: list[StudentResult], targets: dict[tuple[str, str], str]) -> None:
        """Every student's runner in one build; then what each compile read and each runner's object
        file are checked."""
        if not targets:
            return
        self.say(f"building {len(targets)} runner(s) from students' files ({self.ninja_jobs} compile jobs)")
        log = self.out / "logs" / "build_students.log"
        res = self._build(sorted(targets.values()), log, keep_going=True)
        text = log.read_text(errors="replace") if log.is_file() else res.output_tail
        failures = split_build_log(text, targets)
        deps = self.dependencies()
        by_name = {c.name: c for c in self.chapters}
        protected = {name: self.protected_names(by_name[name]) for name in sorted({c for _, c in targets})}
        for st in students:
            for cr in st.chapters:
                if cr.status != "pending":
                    continue
                ch = by_name[cr.chapter]
                target = targets[(st.name, ch.name)]
                slog = self.out / "logs" / st.name / f"build_{ch.name}.log"
                own = failures.get(target, "").replace(str(self.files_dirs.get(st.name, "")) + os.sep, "")
                slog.write_text(own or "built\n")
                built = self.runner_of(st.name, ch).is_file()
                if res.timed_out and not built:
                    cr.build = BuildResult("timeout", res.seconds,
                                           f"the build did not finish in {self.cfg.build_timeout} s", self.rel(slog))
                elif not built:
                    errors = compile_errors(own) if own else "not built (see the build log)"
                    cr.build = BuildResult("error", res.seconds, self.redact(errors), self.rel(slog))
                else:
                    cr.build = BuildResult("ok", res.seconds, "", self.rel(slog))
                if cr.build.status != "ok":
                    cr.status = "compile_error"
                    cr.detail = first_error(cr.build.errors) if cr.build.status == "error" else cr.build.errors
                    self.say(f"[{st.name}] {ch.name}: build {cr.build.status.upper()} ({cr.detail})")
                    continue
                objs = list((self.build_dir / "chapters" / ch.folder / "CMakeFiles" / f"{target}.dir").rglob(
                    ch.exercise + ".o"))
                note = "" if len(objs) == 1 else "the exercise's object file was not found"
                bad = []
                if not note:
                    bad = self.foreign_includes(st.name, ch, objs[0], deps)
                    names, complete = protected[ch.name]
                    more_bad, note = symbols.check_object(objs[0], names, complete)
                    bad += more_bad
                if note and not bad:
                    # No verdict without the object-file check: the grader's problem, not a pass.
                    cr.status, cr.detail = "error", f"the object-file check could not run ({note})"
                    self.say(f"[{st.name}] {ch.name}: ERROR ({cr.detail})")
                    continue
                if bad:
                    more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
                    cr.status = "rejected"
                    cr.detail = f"the compiled exercise {'; '.join(bad[:3])}{more}"
                    self.say(f"[{st.name}] {ch.name}: REJECTED ({bad[0]})")

    def protected_names(self, ch: Chapter) -> tuple[set[str], bool]:
        """The names a student's object must not define for chapter `ch` (symbols.protected_names):
        read from the solution's runner, which has the same harness and libraries."""
        own = list((self.build_dir / "chapters" / ch.folder / "CMakeFiles" / f"{ch.solution_target}.dir").rglob(
            ch.exercise + ".o"))
        return symbols.protected_names(self.bin(ch.solution_target),
                                       [self.build_dir / "common" / "libtutorial_runtime.a",
                                        self.build_dir / "common" / "libtutorial_exercise_runner.a"],
                                       own[0] if len(own) == 1 else None)

    def dependencies(self) -> dict[str, list[str]] | None:
        """What every compile of the build read, from Ninja's records (None without Ninja)."""
        if not self.cfg.generator.lower().startswith("ninja") or not shutil.which("ninja"):
            return None
        try:
            r = subprocess.run(["ninja", "-C", str(self.build_dir), "-t", "deps"], capture_output=True, text=True,
                               timeout=300)
        except (OSError, subprocess.SubprocessError):
            return None
        return included_files(r.stdout, self.build_dir) if r.returncode == 0 else None

    def foreign_includes(self, student: str, ch: Chapter, obj: pathlib.Path,
                         deps: dict[str, list[str]] | None) -> list[str]:
        """Files the compile of a student's exercise read that it must not: anything from solutions/,
        the corpus, a submission folder, or another student's copy. Where tut_isolate could hide
        those folders the compile fails first; this catches the rest (e.g. no namespaces here)."""
        if deps is None:
            return []
        read = deps.get(os.path.relpath(obj, self.build_dir))
        if read is None:
            return []
        own = self.files_dirs.get(student)
        forbidden = [*self.hidden_folders(), self.work / "files"]
        bad = []
        for path in read:
            p = pathlib.Path(os.path.normpath(path))
            if own is not None and (own == p or own in p.parents):
                continue
            if any(f == p or f in p.parents for f in forbidden):
                shown = os.path.relpath(p, self.repo) if self.repo in p.parents else str(p)
                bad.append(f"includes {shown} (a file from solutions/, the corpus or another submission)")
        return bad

    # ------------------------------------------------------------------ checking
    def _checker(self, ch: Chapter, args: list[str], report: pathlib.Path, log: pathlib.Path, timeout: float,
                 runner_timeout: int, env: dict[str, str] | None = None) -> tuple[process.RunResult, dict | None]:
        """Runs check_<chapter> for at most `timeout` seconds, each runner process it starts for at most
        `runner_timeout` (chosen so that the checker always ends by itself first: killed from outside,
        it could not kill its runner); returns how it ended and its JSON report (None if unreadable)."""
        report.unlink(missing_ok=True)
        cmd = [str(self.bin(ch.checker_target)), *args, "--report", str(report),
               "--timeout", str(max(1, int(runner_timeout))), "--work", str(self.work / "tmp")]
        res = process.run_bounded(cmd, timeout, env=_clean_env(env), log_path=log)
        try:
            data = json.loads(report.read_text())
        except (OSError, ValueError):
            data = None
        return res, data if isinstance(data, dict) else None

    @staticmethod
    def runner_limit(timeout: int) -> int:
        """A runner process's limit within a checker run of `timeout` seconds: the checker may start
        the runner RUNNER_STARTS times (after each case that kills or hangs it)."""
        return max(1, int((timeout - 10) / RUNNER_STARTS))

    def _setup_failure(self, res: process.RunResult, data: dict | None, what: str, timeout: float) -> CaseResult | None:
        """A CaseResult when the checker itself could not judge (no GPU, crashed, timed out)."""
        if res.start_error:
            return CaseResult(what, "checker", ERROR, summary=f"could not start the checker: {res.start_error}")
        if res.timed_out:
            return CaseResult(what, "checker", TIMEOUT, res.seconds,
                              summary=f"the check did not finish in {timeout:g} s (an infinite loop or a deadlock?)")
        if res.rc == CHECK_NOT_CHECKED:
            if self.device.startswith("no GPU"):
                return CaseResult(what, "checker", SKIPPED, summary="not checked: no usable CUDA device")
            return CaseResult(what, "checker", ERROR,
                              summary=f"the checker found no usable GPU, but this machine has {self.device}")
        if data is None or res.rc not in (CHECK_PASSED, CHECK_FAILED):
            tail = "\n".join(res.output_tail.strip().splitlines()[-10:])
            return CaseResult(what, "checker", ERROR, res.seconds,
                              summary=f"the checker stopped with exit status {res.rc} and no report",
                              message=tail)
        return None

    def check_cases(self, st: StudentResult, cr: ChapterResult) -> None:
        """The public and hidden cases of one student's chapter, judged by check_<chapter>."""
        ch = self.chapter_of(cr)
        logs = self.out / "logs" / st.name
        args = ["--runner", str(self.runner_of(st.name, ch))]
        hidden = self.cfg.hidden_enabled and self.cfg.chapter(ch.name).hidden
        if hidden:
            args += ["--cases", "all", "--seed", str(self.cfg.seed)]
            sizes = self.cfg.hidden_sizes(ch.name)
            if sizes:
                args += ["--extra-sizes", ",".join(str(n) for n in sizes)]
        timeout = self.cfg.test_timeout_of(ch.name)
        report, log = logs / f"{ch.name}_check.json", logs / f"{ch.name}_check.log"
        res, data = self._checker(ch, args, report, log, timeout, self.runner_limit(timeout))
        cr.cases = []
        failure = self._setup_failure(res, data, "public", timeout)
        if failure is not None:
            failure.log = self.rel(log)
            cr.cases.append(failure)
            self.say(f"[{st.name}] {ch.name}: {failure.status} ({failure.summary})")
            return
        self.isolation = data.get("isolation", self.isolation)
        for case in data.get("cases", []):
            group = case.get("group", "public")
            redact = self.redact if group == "hidden" else (lambda t: t)
            status = PASSED if case.get("passed") else (FAILED if case.get("ran") else CRASHED)
            summary = redact(case.get("summary", ""))
            cr.cases.append(CaseResult(group, case.get("name", "?"), status, 0.0,
                                       redact(case.get("details", "")) or summary, summary, self.rel(log)))
        if not data.get("cases"):
            # A verdict without cases: the checker judged the runner as a whole (e.g. it claimed there
            # is no GPU on a machine that has one: FAILED), or could not run it at all (ERROR).
            verdict = data.get("verdict", "")
            status = FAILED if verdict == "failed" else ERROR
            line = self.redact(data.get("line", "") or "the checker reported no cases")
            cr.cases.append(CaseResult("public", "the runner", status, res.seconds, line, line, self.rel(log)))
        counts = cr.counts()
        self.say(f"[{st.name}] {ch.name}: {counts['passed']}/{counts['total']} cases passed")

    def recheck_alone(self, pending: list[tuple[StudentResult, ChapterResult]]) -> None:
        """Repeats, one at a time, every check in which a runner crashed, timed out or could not be
        judged: while several checks share the GPU, a neighbour holding all its memory or time can
        make an honest runner fail. The second verdict, alone on the GPU, is the one that counts."""
        again = [(st, cr) for st, cr in pending
                 if any(c.status in (CRASHED, TIMEOUT, ERROR) for c in cr.cases)]
        if not again:
            return
        self.say(f"re-checking {len(again)} chapter submission(s) alone on the GPU (a runner crashed or timed out "
                 "while sharing it)")
        for st, cr in again:
            self._guarded(self.check_cases, st, cr)
            cr.warnings.append("checked again alone on the GPU (in the first check, shared with other students' "
                               "checks, a runner crashed or timed out); this is the second check's result")

    def sanitize(self, st: StudentResult, cr: ChapterResult) -> None:
        """compute-sanitizer over the student's runner, on the public cases."""
        if any(c.status in (FAILED, TIMEOUT, CRASHED, ERROR) for c in cr.cases):
            for tool in self.cfg.sanitize_tools:
                cr.cases.append(CaseResult("sanitize", f"compute-sanitizer --tool {tool}", NOT_RUN,
                                           summary="not run: a case did not pass"))
            return
        ch = self.chapter_of(cr)
        logs = self.out / "logs" / st.name
        for tool in self.cfg.sanitize_tools:
            report, log = logs / f"{ch.name}_sanitize_{tool}.json", logs / f"{ch.name}_sanitize_{tool}.log"
            limit = self.cfg.sanitize_timeout
            res, data = self._checker(ch, ["--runner", str(self.runner_of(st.name, ch)), "--sanitizer", tool],
                                      report, log, limit, self.runner_limit(limit), env=self.sanitizer_env())
            name = f"compute-sanitizer --tool {tool}"
            failure = self._setup_failure(res, data, "sanitize", self.cfg.sanitize_timeout)
            if failure is not None:
                failure.name, failure.log = name, self.rel(log)
                cr.cases.append(failure)
                continue
            cases = data.get("cases", [])
            bad = [c for c in cases if not c.get("passed")]
            # Passed only when the checker says so and judged at least one case: a report without
            # cases (the runner could not run, or claimed there is no GPU) checked nothing.
            passed = bool(cases) and not bad and data.get("verdict") == "passed"
            case = CaseResult("sanitize", name, PASSED if passed else FAILED, res.seconds, log=self.rel(log))
            if bad:
                case.summary = f"{bad[0].get('name')}: {bad[0].get('summary', '')}".splitlines()[0]
                case.message = bad[0].get("summary", "")
            elif not passed:
                case.summary = self.redact(data.get("line", "") or "the checker judged no case under the sanitizer")
                case.message = case.summary
            cr.cases.append(case)
            self.say(f"[{st.name}] {ch.name} {name}: {case.status}")

    def sanitizer_env(self) -> dict[str, str]:
        """The checker finds compute-sanitizer on PATH: the configured command's folder goes first."""
        program = resolve_program(list(self.cfg.sanitizer))[0]
        found = program if os.sep in program else shutil.which(program)
        if not found:
            return {}
        return {"PATH": os.path.dirname(os.path.abspath(found)) + os.pathsep + os.environ.get("PATH", "")}

    def speed_runs(self, pending: list[tuple[StudentResult, ChapterResult]]) -> None:
        """One timed run per chapter (in batches): every passing student's runner and the solution's,
        alone on the GPU after all checks; every repetition's outputs are checked."""
        for ch in self.chapters:
            todo = [(st, cr) for st, cr in pending if cr.chapter == ch.name]
            ready = []
            for st, cr in todo:
                if all(c.status == PASSED for c in cr.cases) and cr.cases:
                    ready.append((st, cr))
                elif any(c.status == SKIPPED for c in cr.cases):
                    cr.speed_note = "not measured: no GPU"
                else:
                    cr.speed_note = "not measured: the cases did not all pass"
            for i in range(0, len(ready), SPEED_BATCH):
                batch = ready[i:i + SPEED_BATCH]
                self.say(f"speed: {ch.name}, {len(batch)} student(s) and the solution")
                args = ["--cases", "none", "--speed", "--solution", str(self.bin(ch.solution_target))]
                for st, _ in batch:
                    args += ["--runner", str(self.runner_of(st.name, ch))]
                args += self.cfg.speed_args + self.cfg.chapter(ch.name).speed_args
                logs = self.out / "logs"
                # Each runner (the solution's too) gets the chapter's speed limit; the checker, all of them.
                each = self.cfg.speed_timeout_of(ch.name)
                timeout = each * (len(batch) + 1) + 60
                res, data = self._checker(ch, args, logs / f"speed_{ch.name}_{i}.json",
                                          logs / f"speed_{ch.name}_{i}.log", timeout, each)
                runs = {r.get("runner"): r for r in (data or {}).get("speed", [])}
                for st, cr in batch:
                    run = runs.get(str(self.runner_of(st.name, ch)))
                    case = CaseResult("speed", "timed run against the solution (every repetition checked)", ERROR,
                                      log=self.rel(logs / f"speed_{ch.name}_{i}.log"))
                    if run is None:
                        failure = self._setup_failure(res, data, "speed", timeout)
                        case.status = failure.status if failure else ERROR
                        case.summary = failure.summary if failure else "the speed run has no result for this student"
                        cr.speed_note = "not measured"
                    elif run.get("verdict") != "passed":
                        case.status = FAILED
                        case.summary = self.redact(run.get("result", {}).get("error", "the timed run failed"))
                        cr.speed_note = "not measured: the timed run was wrong"
                    else:
                        case.status = PASSED
                        mine, sol = run.get("result", {}), run.get("solution", {})
                        ratio = run.get("vs_solution")
                        if ratio is not None and mine.get("median_ms") and sol.get("median_ms"):
                            cr.speed = Speed(mine["median_ms"], sol["median_ms"], ratio, run.get("problem", ""),
                                             list(run.get("flags", [])))
                        else:
                            cr.speed_note = "not measured: the solution's timed run failed"
                        for flag in run.get("flags", []):
                            cr.warnings.append(f"speed FLAG: {flag}")
                    case.message = case.message or case.summary
                    cr.cases.append(case)
                    self.say(f"[{st.name}] {ch.name} speed: {case.status}"
                             + (f" ({cr.speed.ratio:.2f}x the solution's speed)" if cr.speed else ""))
