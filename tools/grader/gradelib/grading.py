"""The grading pipeline, per submission:

  find the submitted chapters -> merge them over the skeletons -> configure a build tree of its own
  -> build each chapter's targets (test_<name>_exercise and <name>; a compile error stops only that
  chapter) -> on the GPU, one submission at a time: every test case in its own process, public then
  hidden; the sanitizer -> (after every submission is built) the speed runs -> verdicts -> reports.

Several submissions build at once (config [build] jobs); the GPU steps take a lock, so no two
submissions share the GPU. The speed runs wait until every build has finished and run one at a
time (only the chapter executable is kept until then), so no compiler competes with a timed run.
Every step has a timeout.
"""
from __future__ import annotations

import datetime
import json
import os
import pathlib
import re
import shutil
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from . import VERSION, catch2, process, reports, submission, symbols
from .config import Config
from .repo import Chapter
from .results import (CRASHED, ERROR, FAILED, NOT_RUN, PASSED, SKIPPED, TIMEOUT, BuildResult, CaseResult,
                      ChapterResult, StudentResult, speed_from_rows)

SKIP_RETURN_CODE = 77       # GPU test executables without a GPU (CTest's SKIP_RETURN_CODE)
EXE_NO_DEVICE = 3           # chapter executables without a GPU
EXE_USAGE = 2               # chapter executables given bad arguments
SANITIZER_ERROR_CODE = 99
WHOLE_EXECUTABLE = "all test cases"


class SetupError(RuntimeError):
    """The grading run cannot start (the repository does not configure on this machine)."""


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
    errors, then ninja's FAILED lines; the log's last lines if none of these is found."""
    lines, seen = [], set()
    for line in log_text.splitlines():
        line = line.rstrip()
        if line and line not in seen and not line.startswith(("ninja: build stopped", "$ ")) and len(line) < 2000:
            seen.add(line)
            lines.append(line)
    compiler = [ln for ln in lines if re.search(r"\berror\b", ln, re.IGNORECASE) and not ln.startswith("FAILED:")
                and " -o " not in ln]
    linker = [ln for ln in lines if re.search(r"undefined reference|multiple definition|ld returned", ln)]
    failed = [ln for ln in lines if ln.startswith("FAILED:")]
    pick = (compiler + [ln for ln in linker if ln not in compiler] + ([] if compiler or linker else failed))[:limit]
    return "\n".join(pick) if pick else "\n".join(lines[-limit:])


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
        self.gpu_lock = threading.Lock()
        self._deferred: list[tuple] = []     # speed runs waiting for every build to finish
        self._deferred_lock = threading.Lock()
        self.redact = _redactor(cfg)
        cores = os.cpu_count() or 2
        self.jobs = cfg.jobs or max(1, cores // 4)
        self.ninja_jobs = cfg.ninja_jobs or max(1, cores // self.jobs)
        self.run = {
            "grader": VERSION,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "git": git_commit(self.repo),
            "device": describe_device(),
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

    # ------------------------------------------------------------------ top level
    def grade(self, submissions: list[pathlib.Path]) -> list[StudentResult]:
        """Grades every submission (several build at once) and writes all reports."""
        names, seen = [], set()
        for path in submissions:
            base = submission.student_name(path)
            name, k = base, 2
            while name in seen:
                name, k = f"{base}-{k}", k + 1
            seen.add(name)
            names.append(name)
        self.say(f"grading {len(submissions)} submission(s) on {self.run['device']}; {self.cfg.describe()}")
        self.say(f"chapters: {', '.join(c.name for c in self.chapters)}; {self.jobs} build(s) at once, "
                 f"{self.ninja_jobs} compile jobs each")
        self.preflight()
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            graded = list(pool.map(lambda pn: self.grade_one(*pn), zip(submissions, names)))
        self.run_deferred_speed()
        results = [self.finalize(st, broken, start) for st, broken, start in graded]
        shutil.rmtree(self.work / "_speed", ignore_errors=True)
        try:
            self.work.rmdir()  # only if empty (build trees removed)
        except OSError:
            pass
        chapter_names = [c.name for c in self.chapters]
        reports.write_summary(self.out, results, chapter_names, self.run)
        return results

    def preflight(self) -> None:
        """Configures the repository as it is (its own skeletons) once, so that a repository or machine
        that cannot configure stops the run with one message instead of failing every student."""
        build = self.work / "_preflight"
        shutil.rmtree(build, ignore_errors=True)
        log = self.out / "logs" / "preflight_configure.log"
        res = process.run_bounded(self._configure_command(self.repo / "exercises", build), self.cfg.configure_timeout,
                                  env=_clean_env(), log_path=log)
        shutil.rmtree(build, ignore_errors=True)
        if not res.ok:
            why = "timed out" if res.timed_out else res.start_error or f"exit status {res.rc}"
            raise SetupError(f"the repository itself does not configure ({why}); nothing was graded. "
                             f"See {log}:\n" + compile_errors(res.output_tail, 12))

    def _configure_command(self, exercises: pathlib.Path, build: pathlib.Path) -> list[str]:
        cmd = [*self.cfg.cmake, "-S", str(self.repo), "-B", str(build), f"-DTUTORIAL_EXERCISES_DIR={exercises}",
               f"-DCMAKE_BUILD_TYPE={self.cfg.build_type}"]
        if self.cfg.generator:
            cmd += ["-G", self.cfg.generator]
        if self.cfg.cuda_architectures:
            cmd.append(f"-DCMAKE_CUDA_ARCHITECTURES={self.cfg.cuda_architectures}")
        return cmd + self.cfg.cmake_args

    def grade_one(self, path: pathlib.Path, name: str):
        """One submission up to its speed runs (which wait for every build to finish: see
        run_deferred_speed); never raises for the submission's sake. Returns what finalize() needs."""
        start = time.monotonic()
        st = StudentResult(name, str(path))
        folder = self.student_dir(name)
        logs = self.out / "logs" / name
        for old in (folder, logs):
            if old.exists():
                shutil.rmtree(old)
        logs.mkdir(parents=True, exist_ok=True)
        broken = []
        try:
            self._grade_into(st, path, logs)
        except Exception as e:  # a bug of the grader must not lose the other students
            st.warnings.append(f"grader error: {type(e).__name__}: {e}")
            broken = [ch for ch in st.chapters if ch.status == "pending"]
        return st, broken, start

    def finalize(self, st: StudentResult, broken: list[ChapterResult], start: float) -> StudentResult:
        """Verdicts and the student's reports, once everything has run."""
        for ch in st.chapters:
            ch.derive_status()
        for ch in broken:  # unfinished: whatever ran, no verdict
            ch.status, ch.detail = "error", f"grader error: {st.warnings[-1]}"
        st.seconds = time.monotonic() - start
        folder = self.student_dir(st.name)
        reports.write_student(folder, st, self.run)
        t = st.totals()
        self.say(f"[{st.name}] {t['chapters_passed']}/{t['chapters_submitted']} chapters passed "
                 f"-> {folder / 'report.md'}")
        return st

    def run_deferred_speed(self) -> None:
        """The speed runs, one at a time, after every build has finished: no compiler competes with
        the timed runs for the machine. Each fills in the placeholder case left by run_chapter()."""
        if self._deferred:
            self.say(f"speed runs: {len(self._deferred)} (every build has finished)")
        for name, ch, cr, exe, logs, placeholder in self._deferred:
            try:
                case = self.run_speed(ch, cr, exe, logs, placeholder.name)
            except Exception as e:  # a grader bug costs this case only
                case = CaseResult("speed", placeholder.name, ERROR, summary=f"grader error: {type(e).__name__}: {e}")
                case.message = case.summary
            for field in ("status", "seconds", "message", "summary", "log"):
                setattr(placeholder, field, getattr(case, field))
            self.say(f"[{name}] {ch.name} {placeholder.label}: {placeholder.status}"
                     + (f" ({cr.speed.ratio:.2f}x the solution's speed)" if cr.speed else ""))
        self._deferred.clear()

    def _grade_into(self, st: StudentResult, path: pathlib.Path, logs: pathlib.Path) -> None:
        if not path.is_dir():
            st.warnings.append(f"{path} is not a folder: nothing graded")
            found, warnings = {}, []
        else:
            found, warnings = submission.find(path, self.chapters, self.repo)
        st.warnings.extend(warnings)
        pending: list[tuple[Chapter, ChapterResult]] = []
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
            pending.append((ch, cr))
        if not pending:
            return
        work = self.work / st.name
        if work.exists():
            shutil.rmtree(work)
        merged = submission.merge(self.repo, {c.name: found[c.name] for c, _ in pending}, work)
        build = work / "build"
        try:
            if not self.configure(st.name, merged, build, logs, pending):
                return
            built = [(ch, cr) for ch, cr in pending if self.build_chapter(st.name, ch, cr, build, logs)]
            if built:
                with self.gpu_lock:
                    for ch, cr in built:
                        self.run_chapter(st.name, ch, cr, build, logs)
        finally:
            if not self.cfg.keep_builds:
                shutil.rmtree(work, ignore_errors=True)

    # ------------------------------------------------------------------ steps
    def configure(self, name: str, merged: pathlib.Path, build: pathlib.Path, logs: pathlib.Path,
                  pending: list[tuple[Chapter, ChapterResult]]) -> bool:
        """Configures the submission's own build tree; on failure every pending chapter is an error."""
        cmd = self._configure_command(merged, build)
        self.say(f"[{name}] configuring")
        res = process.run_bounded(cmd, self.cfg.configure_timeout, env=_clean_env(), log_path=logs / "configure.log")
        if res.ok:
            return True
        why = ("timed out" if res.timed_out else res.start_error or f"exit status {res.rc}")
        detail = f"configure failed ({why}); see {self.rel(logs / 'configure.log')}\n" + compile_errors(res.output_tail)
        for _, cr in pending:
            cr.status, cr.detail = "error", detail
        self.say(f"[{name}] configure FAILED ({why})")
        return False

    def build_chapter(self, name: str, ch: Chapter, cr: ChapterResult, build: pathlib.Path,
                      logs: pathlib.Path) -> bool:
        """Builds the chapter's test executable and executable; True if the tests can run."""
        targets = [ch.test_target] + ([ch.exe_target] if self.cfg.speed else [])
        cmd = [*self.cfg.cmake, "--build", str(build), "--target", *targets, "-j", str(self.ninja_jobs)]
        if self.cfg.generator.lower().startswith("ninja"):
            cmd += ["--", "-k", "0"]  # build whatever can be built: the test target even if the executable fails
        log = logs / f"build_{ch.name}.log"
        self.say(f"[{name}] building {ch.name}")
        res = process.run_bounded(cmd, self.cfg.build_timeout, env=_clean_env(), log_path=log)
        rel = self.rel(log)
        tests_ok = (build / "bin" / ch.test_target).is_file()
        exe_ok = (build / "bin" / ch.exe_target).is_file()
        full_log = log.read_text(errors="replace") if log.is_file() else res.output_tail
        full_log = full_log.replace(str(build.parent / "exercises") + os.sep, "")  # "01_x/file.cu(3): error"
        if res.timed_out:
            cr.build = BuildResult("timeout", res.seconds, f"the build did not finish in {self.cfg.build_timeout} s",
                                   rel)
        elif tests_ok and (exe_ok or not self.cfg.speed):
            cr.build = BuildResult("ok", res.seconds, "", rel)
        elif tests_ok:
            cr.build = BuildResult("partial", res.seconds, compile_errors(full_log), rel)
        else:
            cr.build = BuildResult("error", res.seconds, compile_errors(full_log), rel)
            if re.search(r"unknown target|no such target", full_log, re.IGNORECASE):
                cr.status = "error"
                cr.detail = (f"the build has no target {ch.test_target} (is Catch2 installed? see {rel})")
        if cr.build.status in ("error", "timeout"):
            if cr.status != "error":
                cr.status = "compile_error"
                cr.detail = (cr.build.errors.splitlines() or [cr.build.status])[0]
            self.say(f"[{name}] {ch.name}: build {cr.build.status.upper()}")
            return False
        if not ch.symbols:
            cr.warnings.append("symbol check skipped: the chapter names no EXERCISE_SYMBOLS")
            return tests_ok
        bad, note = symbols.check_build(build, ch.test_target, ch.exercise, ch.symbols)
        if note:
            cr.warnings.append(note)
        if bad:
            more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
            cr.status = "rejected"
            cr.detail = (f"the exercise defines with external linkage what it must not (it would replace the "
                         f"project's code at link time): {'; '.join(bad[:3])}{more}")
            self.say(f"[{name}] {ch.name}: REJECTED (symbols)")
            return False
        return tests_ok

    def run_chapter(self, name: str, ch: Chapter, cr: ChapterResult, build: pathlib.Path,
                    logs: pathlib.Path) -> None:
        """All cases of one chapter: public, hidden, speed run, sanitizer."""
        exe = build / "bin" / ch.test_target
        chapter_cfg = self.cfg.chapter(ch.name)
        timeout = self.cfg.test_timeout_of(ch.name)
        names = ch.test_names or [None]
        sets = [("public", _clean_env())]
        if self.cfg.hidden_enabled and chapter_cfg.hidden:
            sets.append(("hidden", _clean_env(self.cfg.hidden_environment(ch.name))))
        for set_name, env in sets:
            for i, case_name in enumerate(names):
                case = self.run_test_case(ch, exe, set_name, case_name, env, timeout, build, logs, i)
                self.say(f"[{name}] {ch.name} {case.label}: {case.status}")
                cr.cases.append(case)
        if self.cfg.speed:
            failing = [c for c in cr.cases if c.status not in (PASSED, SKIPPED)]
            speed_name = "default problem, checked before and after timing"
            if cr.build and cr.build.status == "partial":
                cr.cases.append(CaseResult("speed", speed_name, ERROR, message=cr.build.errors,
                                           summary="the chapter executable did not build (tests did)"))
                cr.speed_note = "not measured: the chapter executable did not build"
            elif failing:
                cr.cases.append(CaseResult("speed", speed_name, NOT_RUN, summary="not run: a test case did not pass"))
                cr.speed_note = "not measured: the tests did not all pass"
            else:
                # Keep only the executable (the build tree goes); time it once every build is done.
                keep = self.work / "_speed" / name / ch.name
                keep.mkdir(parents=True, exist_ok=True)
                exe_copy = keep / ch.exe_target
                shutil.copy2(build / "bin" / ch.exe_target, exe_copy)
                placeholder = CaseResult("speed", speed_name, NOT_RUN, summary="not run (the grader stopped)")
                cr.cases.append(placeholder)
                with self._deferred_lock:
                    self._deferred.append((name, ch, cr, exe_copy, logs, placeholder))
        if self.cfg.sanitize:
            hung = any(c.status == TIMEOUT for c in cr.cases)
            for tool in self.cfg.sanitize_tools:
                if hung:  # it would hang as well, 10-100x slower
                    cr.cases.append(CaseResult("sanitize", f"compute-sanitizer --tool {tool}", NOT_RUN,
                                               summary="not run: a test case timed out"))
                    continue
                case = self.run_sanitizer(ch, exe, tool, build, logs)
                self.say(f"[{name}] {ch.name} {case.label}: {case.status}")
                cr.cases.append(case)

    def run_test_case(self, ch: Chapter, exe: pathlib.Path, set_name: str, case_name: str | None,
                      env: dict, timeout: int, build: pathlib.Path, logs: pathlib.Path, index: int) -> CaseResult:
        """One Catch2 test case in its own process, with its own timeout."""
        stem = f"{ch.name}_{set_name}_{index + 1}"
        junit = logs / f"{stem}.junit.xml"
        junit.unlink(missing_ok=True)
        log = logs / f"{stem}.log"
        cmd = [str(exe)] + ([catch2.spec_escape(case_name)] if case_name else []) + ["-r", "junit", "-o", str(junit)]
        res = process.run_bounded(cmd, timeout, cwd=build, env=env, log_path=log)
        case = CaseResult(set_name, case_name or WHOLE_EXECUTABLE, ERROR, res.seconds,
                          log=self.rel(log))
        redact = self.redact if set_name != "public" else (lambda t: t)
        tail = "\n".join(res.output_tail.strip().splitlines()[-15:])
        if res.start_error:
            case.summary = case.message = f"could not start the test executable: {res.start_error}"
            return case
        if res.timed_out:
            case.status = TIMEOUT
            case.summary = f"did not finish in {timeout} s (an infinite loop or a deadlock?)"
            case.message = redact(case.summary + "\nlast output:\n" + tail)
            return case
        if res.rc == SKIP_RETURN_CODE:
            case.status = SKIPPED
            line = next((ln for ln in res.output_tail.splitlines() if "SKIPPED" in ln), "exit status 77 (skipped)")
            case.summary = case.message = line.strip()
            return case
        found = catch2.parse_junit(junit)
        if found is not None and not found and res.rc in (0, 2, 4):
            # A report without any test case: Catch2 found no test with that name (v2 exits 0, v3 2).
            case.summary = case.message = (f"no test case called {case.name!r} in {exe.name} (did the chapter's "
                                           "tests change since the grader read them?)")
            return case
        if not found:
            case.status = CRASHED
            how = (f"killed by signal {-res.rc}" if res.rc is not None and res.rc < 0 else f"exit status {res.rc}")
            case.summary = (f"{how} without a test report" +
                            (" (did the code call exit()?)" if res.rc == 0 else " (a crash?)"))
            case.message = redact(case.summary + "\nlast output:\n" + tail)
            return case
        bad = [c for c in found if c.status in ("failed", "error")]
        if bad:
            case.status = FAILED
            case.message = redact(catch2.clean_message(bad[0].message))
            case.summary = redact(catch2.summarize_failure(bad[0].message))
        elif res.rc not in (0, None):
            case.status = CRASHED
            case.summary = f"every check passed, but the process ended with exit status {res.rc}"
            case.message = redact(case.summary + "\nlast output:\n" + tail)
        elif all(c.status == "skipped" for c in found):
            case.status = SKIPPED
            case.summary = case.message = found[0].message or "skipped"
        else:
            case.status = PASSED
        return case

    def run_speed(self, ch: Chapter, cr: ChapterResult, exe: pathlib.Path, logs: pathlib.Path,
                  speed_name: str) -> CaseResult:
        """The chapter executable on its default problem with the exercise and the solution (same run):
        the exercise must be correct there too (checked before and after timing); gives the speed."""
        out_json = logs / f"{ch.name}_speed.json"
        out_json.unlink(missing_ok=True)
        log = logs / f"{ch.name}_speed.log"
        cmd = [str(exe), "--version", "exercise", "--version", "solution", "--json", str(out_json)]
        if self.cfg.seed is not None:
            cmd += ["--seed", str(self.cfg.seed % (2**63 - 1))]
        cmd += self.cfg.speed_args + self.cfg.chapter(ch.name).speed_args
        timeout = self.cfg.speed_timeout_of(ch.name)
        res = process.run_bounded(cmd, timeout, cwd=exe.parent, env=_clean_env(), log_path=log)
        case = CaseResult("speed", speed_name, ERROR, res.seconds, log=self.rel(log))
        text = self.redact(res.output_tail)
        tail = "\n".join(text.strip().splitlines()[-15:])
        if res.start_error:
            case.summary = case.message = f"could not start {ch.exe_target}: {res.start_error}"
        elif res.timed_out:
            case.status = TIMEOUT
            case.summary = f"did not finish in {timeout} s"
            case.message = case.summary + "\nlast output:\n" + tail
            cr.speed_note = "not measured: timed out"
        elif res.rc == EXE_NO_DEVICE:
            case.status = SKIPPED
            case.summary = case.message = next((ln.strip() for ln in text.splitlines() if "device" in ln),
                                               "no usable CUDA device")
            cr.speed_note = "not measured: no GPU"
        elif res.rc == EXE_USAGE:
            case.summary = "the chapter executable rejected its arguments (check [speed] args in the configuration)"
            case.message = case.summary + "\n" + tail
        elif res.rc in (0, 1):
            try:
                data = json.loads(out_json.read_text())
                problems = data.get("problems", [])
            except (OSError, ValueError, AttributeError):
                problems = None
            rows = [r for p in problems or [] for r in p.get("results", []) if r.get("kind") == "exercise"]
            ran = [r for r in rows if not r.get("skipped")]
            if problems is None:
                case.summary = f"exit status {res.rc} but no readable JSON results"
                case.message = case.summary + "\n" + tail
            elif not ran:
                case.summary = "the exercise row did not run in the chapter executable"
                case.message = case.summary + "\n" + tail
            elif not all(r.get("correct") for r in ran):
                case.status = FAILED
                block = self._wrong_block(text)
                first = block.splitlines()[0] if block else "the exercise is wrong on the default problem"
                worst = [ln.strip() for ln in block.splitlines() if catch2.WORST_LINE.match(ln)][:2]
                case.message = block or first
                case.summary = first + (": worst " + "; ".join(worst) if worst else "")
                cr.speed_note = "not measured: wrong on the default problem"
            elif res.rc == 1:
                case.summary = "the solution row is wrong on this machine: the speed run cannot be trusted"
                case.message = case.summary + "\n" + tail
            else:
                case.status = PASSED
                cr.speed = speed_from_rows(problems)
                if cr.speed is None:
                    cr.speed_note = "not measured: no timed exercise and solution rows"
        else:
            case.status = CRASHED if (res.rc or 0) < 0 else FAILED
            case.summary = (f"killed by signal {-res.rc}" if (res.rc or 0) < 0 else f"exit status {res.rc}") + \
                " (a CUDA error? see the log)"
            case.message = case.summary + "\nlast output:\n" + tail
            cr.speed_note = "not measured: the run failed"
        return case

    @staticmethod
    def _wrong_block(text: str) -> str:
        """The chapter executable's report of a wrong result: the WRONG line and its indented details."""
        lines = text.splitlines()
        for i, ln in enumerate(lines):
            if "WRONG" in ln:
                block = [ln.strip()]
                for nxt in lines[i + 1:i + 12]:
                    if nxt.startswith(" "):
                        block.append(nxt.rstrip())
                    else:
                        break
                return "\n".join(block)
        return ""

    def run_sanitizer(self, ch: Chapter, exe: pathlib.Path, tool: str, build: pathlib.Path,
                      logs: pathlib.Path) -> CaseResult:
        """compute-sanitizer over the exercise's tests at small sizes (TUTORIAL_SANITIZE=1), public seed."""
        junit = logs / f"{ch.name}_sanitize_{tool}.junit.xml"
        junit.unlink(missing_ok=True)
        log = logs / f"{ch.name}_sanitize_{tool}.log"
        extra = ["--leak-check", "full"] if tool == "memcheck" else []
        cmd = [*resolve_program(self.cfg.sanitizer), "--tool", tool, "--error-exitcode", str(SANITIZER_ERROR_CODE), *extra,
               str(exe), "-r", "junit", "-o", str(junit)]
        res = process.run_bounded(cmd, self.cfg.sanitize_timeout, cwd=build,
                                  env=_clean_env({"TUTORIAL_SANITIZE": "1"}), log_path=log)
        case = CaseResult("sanitize", f"compute-sanitizer --tool {tool}", ERROR, res.seconds,
                          log=self.rel(log))
        full = log.read_text(errors="replace") if log.is_file() else res.output_tail
        findings = [ln.strip("= ").strip() for ln in full.splitlines()
                    if ln.startswith("=========") and re.search(r"Invalid|race|Race|Barrier|Uninitialized|leak|"
                                                               r"Program hit|error", ln)]
        summary_line = next((ln for ln in full.splitlines() if "ERROR SUMMARY" in ln), "").strip("= ").strip()
        if res.start_error:
            case.summary = case.message = f"could not start {self.cfg.sanitizer[0]}: {res.start_error}"
        elif res.timed_out:
            case.status = TIMEOUT
            case.summary = case.message = f"did not finish in {self.cfg.sanitize_timeout} s"
        elif res.rc == SKIP_RETURN_CODE:
            case.status, case.summary = SKIPPED, "no usable CUDA device"
            case.message = case.summary
        elif res.rc == 0:
            case.status = PASSED
        elif res.rc == SANITIZER_ERROR_CODE:
            case.status = FAILED
            case.summary = (findings[0] if findings else "errors found") + (f" ({summary_line})" if summary_line else "")
            case.message = "\n".join(findings[:20] + ([summary_line] if summary_line else []))
        else:
            bad = [c for c in (catch2.parse_junit(junit) or []) if c.status in ("failed", "error")]
            case.status = FAILED if bad else CRASHED
            case.summary = ("the tests fail under the sanitizer: " + catch2.summarize_failure(bad[0].message)) if bad \
                else f"exit status {res.rc}"
            case.message = catch2.clean_message(bad[0].message) if bad else "\n".join(full.splitlines()[-15:])
        return case
