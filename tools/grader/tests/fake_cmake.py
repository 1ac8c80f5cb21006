#!/usr/bin/env python3
"""A stand-in for `cmake` in the grader's CPU tests: no compiler, no CUDA, no GPU.

Configure (`-S SRC -B BUILD -D...`) records the -D definitions (TUT_GRADING_LIST, TUT_GRADING_HIDE,
...) in BUILD/fake_cache.json; `-DFAKE_CONFIGURE_FAIL=1` fails like a CMake error.

Build (`--build BUILD --target T... [-- -k 0]`) prints what Ninja prints and makes, per target:
  tut_isolate            bin/tut_isolate (`--probe DIR` exits 0, or 1 when $FAKE_NO_HIDE is set)
  check_<name>           bin/check_<name>: a fake checker (CHECKER below), a Python script
  solution_<name>        bin/solution_<name>: a fake runner made from the chapter's solution
  grade_<s>__<chapter>   grading/<s>/exercise_<chapter>: a fake runner made from the student's file
                         (named in TUT_GRADING_LIST), and its "object file" (the file's text) under
                         chapters/NN_name/CMakeFiles/grade_<s>__<chapter>.dir/

A fake runner is a script that holds the markers of its source file. Markers the build obeys:
  COMPILE_ERROR          the compile fails (Ninja's FAILED block, a compiler error line)
  LINK_ERROR=<symbol>    the link fails: "undefined reference to `<symbol>'"
  BUILD_HANG             the build never ends
Markers the fake checker obeys (for the runner it is given):
  FAIL_PUBLIC            the second public case is wrong (worst elements in its details)
  FAIL_ALL               every case is wrong
  FAIL_HIDDEN            the hidden cases are wrong (their details name the seed)
  RUNNER_DIES            the runner is killed by SIGSEGV in the second public case (no answer)
  CRASH_ONCE             the runner dies in every case of its first check, not later ones
                         (a neighbour took the GPU's memory)
  NO_KERNEL              the launcher launched no kernel (every case)
  RUNNER_NO_DEVICE       the runner says there is no GPU: the checker's verdict "failed", no cases
  NO_GPU                 the checker finds no GPU: exit 77, verdict "not checked"
  CHECKER_CRASH          the checker dies of SIGSEGV without a report
  CHECKER_HANG           the checker never ends
  SANITIZE_FAIL          under --sanitizer, a case fails (the sanitizer's error in its summary)
  SPEED=<x>              the timed run is x times as fast as the solution's (default 1); above 4 flagged
  SPEED_WRONG            a timed repetition is wrong
  SOLUTION_BROKEN        (in a solution) the solution's timed run fails

Every run of a fake checker appends one JSON line (argv, PATH) to $FAKE_LOG when that is set.
"""
import json
import pathlib
import re
import sys
import time

CHECKER = r'''#!@PYTHON@
import json, os, re, signal, sys, time
CHAPTER = @CHAPTER@
args = sys.argv[1:]
if os.environ.get("FAKE_LOG"):
    with open(os.environ["FAKE_LOG"], "a") as f:
        f.write(json.dumps({"checker": CHAPTER, "argv": args, "path": os.environ.get("PATH", "")}) + "\n")
if "--list" in args:
    print(CHAPTER + " exercise: public cases\n  n=1\n  n=4097\n  n=65537")
    sys.exit(0)
def values(flag):
    return [args[i + 1] for i, a in enumerate(args) if a == flag and i + 1 < len(args)]
def value(flag, default=None):
    v = values(flag)
    return v[0] if v else default
runners, solution, report = values("--runner"), value("--solution"), value("--report")
for p in runners + ([solution] if solution else []):
    if not os.access(p, os.X_OK):
        print("check_%s: %s is not an executable (build it first)" % (CHAPTER, p), file=sys.stderr)
        sys.exit(2)
def markers(path):
    return re.findall(r"\b([A-Z][A-Z0-9_]+(?:=[0-9.]+)?)\b", open(path).read())
mine = markers(runners[0])
result = {"chapter": CHAPTER, "file": "exercises/x", "runner": runners[0]}
def finish(verdict, line, status):
    result["verdict"], result["line"] = verdict, line
    if report:
        with open(report, "w") as f:
            json.dump(result, f, indent=2)
    print(line)
    sys.exit(status)
if "CHECKER_CRASH" in mine:
    os.kill(os.getpid(), signal.SIGSEGV)
if "CHECKER_HANG" in mine:
    while True:
        time.sleep(1)
if "NO_GPU" in mine:
    finish("not checked", "NOT CHECKED: no usable CUDA device (fake)", 77)
result["isolation"] = "a clean environment and a time limit, as the grader's user, on a read-only file system except its work folder"
cases_arg, seed, sanitizer = value("--cases", "public"), value("--seed"), value("--sanitizer")
if "RUNNER_NO_DEVICE" in mine and cases_arg != "none":
    finish("failed", "FAILED: the runner reported no usable CUDA device, but this machine has one: no device (fake)", 1)
cases = []
if cases_arg in ("public", "all"):
    cases += [("public", "n=1"), ("public", "n=4097"), ("public", "n=65537")]
if cases_arg in ("hidden", "all"):
    cases += [("hidden", "n=%d" % (int(seed) % 1000 + 7)), ("hidden", "n=%d" % (int(seed) % 777 + 5))]
    cases += [("hidden", "n=" + s) for s in value("--extra-sizes", "").split(",") if s]
crash_once = False
if "CRASH_ONCE" in mine:
    flag = runners[0] + ".crashed"
    crash_once = not os.path.exists(flag)
    open(flag, "w").close()
out = []
for k, (group, name) in enumerate(cases):
    c = {"name": name, "group": group, "passed": True, "ran": True, "summary": ""}
    if "FAIL_ALL" in mine or ("FAIL_PUBLIC" in mine and group == "public" and k == 1):
        c.update(passed=False, summary="wrong result: 3 of 4097 elements wrong (1 not written or not finite)",
                 details="worst elements:\n  out[4096] got nan, expected 1.5\n  out[4095] got 0, expected -2.25")
    elif "FAIL_HIDDEN" in mine and group == "hidden":
        c.update(passed=False, summary="wrong result: 7 of 9 elements wrong",
                 details="inputs from seed %s\n  out[3] got 0, expected 2.5" % seed)
    elif crash_once or ("RUNNER_DIES" in mine and k == 1):
        c.update(passed=False, ran=False, summary="the runner stopped in this case: it was killed by signal 11 "
                                                  "(Segmentation fault)\ncase 1: n=4097")
    elif "NO_KERNEL" in mine:
        c.update(passed=False, summary="the launcher launched no kernel: the answer must be computed on the GPU")
    elif sanitizer and "SANITIZE_FAIL" in mine and k == 2:
        c.update(passed=False, ran=False, summary="compute-sanitizer %s reported errors in this case\n"
                 "========= Invalid __global__ write of size 4 bytes" % sanitizer)
    out.append(c)
if cases:
    result["cases"] = out
    passed = sum(c["passed"] for c in out)
    result["passed"], result["total"] = passed, len(out)
    if passed != len(out):
        first = next(c for c in out if not c["passed"])
        finish("failed", "FAILED: %d of %d cases failed (first: %s: %s)" % (len(out) - passed, len(out), first["name"],
                                                                          first["summary"].splitlines()[0]), 1)
if "--speed" in args:
    sol_ms = 2.0
    sol_ok = solution is None or "SOLUTION_BROKEN" not in markers(solution)
    speed, status = [], 0
    for r in runners:
        m = markers(r)
        x = float(next((v.split("=")[1] for v in m if v.startswith("SPEED=")), 1.0))
        entry = {"problem": "n=8388608", "runner": r}
        if solution:
            entry["solution"] = ({"correct": True, "median_ms": sol_ms, "min_ms": sol_ms, "max_ms": sol_ms, "reps": 10}
                                 if sol_ok else {"correct": False, "error": "the solution failed"})
        if "SPEED_WRONG" in m:
            entry["result"] = {"correct": False, "error": "repetition 3 of the timed run is wrong: 5 of 8388608 elements wrong"}
            entry["verdict"] = "failed"
            status = 1
        else:
            ms = sol_ms / x
            entry["result"] = {"correct": True, "median_ms": ms, "min_ms": ms, "max_ms": ms, "reps": 10}
            flags = []
            if solution and sol_ok:
                entry["vs_solution"] = sol_ms / ms
                if sol_ms / ms > 4.0:
                    flags.append("more than 4x faster than the solution: implausible for this exercise")
            entry["flags"], entry["verdict"] = flags, "passed"
        speed.append(entry)
    result["speed"] = speed
    if status:
        finish("failed", "FAILED: The timed run FAILED", 1)
    if not cases:
        finish("passed", "TIMED: done", 0)
finish("passed", "PASSED: all %d cases are correct." % len(cases), 0)
'''

RUNNER = r'''#!@PYTHON@
# A fake runner built from @SOURCE@; the fake checker reads the markers below.
# MARKERS: @MARKERS@
import sys
sys.exit(0)
'''

ISOLATE = r'''#!@PYTHON@
import os, sys
if len(sys.argv) > 2 and sys.argv[1] == "--probe":
    if os.environ.get("FAKE_NO_HIDE"):
        print("tut_isolate: cannot hide folders here: no user namespaces (fake)", file=sys.stderr)
        sys.exit(1)
    sys.exit(0)
sys.exit(125)
'''


def configure(argv):
    src = pathlib.Path(argv[argv.index("-S") + 1])
    build = pathlib.Path(argv[argv.index("-B") + 1])
    defs = dict(a[2:].split("=", 1) for a in argv if a.startswith("-D") and "=" in a)
    if defs.get("FAKE_CONFIGURE_FAIL") == "1":
        print("CMake Error at CMakeLists.txt:3 (project): fake configure failure")
        return 1
    build.mkdir(parents=True, exist_ok=True)
    (build / "fake_cache.json").write_text(json.dumps({"source": str(src), "defs": defs, "argv": argv}))
    print("-- Build files have been written to: " + str(build))
    return 0


def script(path: pathlib.Path, template: str, **values) -> None:
    text = template.replace("@PYTHON@", sys.executable)
    for k, v in values.items():
        text = text.replace("@" + k + "@", v)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


def markers_of(text: str) -> list[str]:
    return re.findall(r"\b([A-Z][A-Z0-9_]+(?:=[0-9A-Za-z_.]+)?)\b", text)


def build(argv):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
    from gradelib import repo as repo_mod

    build_dir = pathlib.Path(argv[argv.index("--build") + 1])
    cache = json.loads((build_dir / "fake_cache.json").read_text())
    chapters, _ = repo_mod.discover(pathlib.Path(cache["source"]))
    by_name = {c.name: c for c in chapters}
    listing = {}
    if cache["defs"].get("TUT_GRADING_LIST"):
        for line in pathlib.Path(cache["defs"]["TUT_GRADING_LIST"]).read_text().splitlines():
            student, chapter, file = line.split("|")
            listing[f"grade_{student}__{chapter}"] = (student, chapter, pathlib.Path(file))
    i = argv.index("--target") + 1
    targets = []
    while i < len(argv) and not argv[i].startswith("-"):
        targets.append(argv[i])
        i += 1
    failed = False
    steps = len(targets)
    for k, t in enumerate(targets, 1):
        step = f"[{k}/{steps}]"
        if t == "tut_isolate":
            script(build_dir / "bin" / t, ISOLATE)
        elif t.startswith("check_") and t[6:] in by_name:
            script(build_dir / "bin" / t, CHECKER, CHAPTER=repr(t[6:]))
        elif t.startswith("solution_") and t[9:] in by_name:
            ch = by_name[t[9:]]
            src = pathlib.Path(cache["source"]) / "solutions" / ch.exercise_path
            script(build_dir / "bin" / t, RUNNER, SOURCE=str(src), MARKERS=" ".join(markers_of(src.read_text())))
        elif t in listing:
            student, chapter, src = listing[t]
            ch = by_name[chapter]
            text = src.read_text()
            markers = markers_of(text)
            obj = build_dir / "chapters" / ch.folder / "CMakeFiles" / f"{t}.dir" / str(src).lstrip("/")
            obj = obj.with_name(obj.name + ".o")
            rel_obj = obj.relative_to(build_dir)
            if "BUILD_HANG" in markers:
                while True:
                    time.sleep(1)
            print(f"{step} Building CUDA object {rel_obj}")
            if "COMPILE_ERROR" in markers:
                print(f"FAILED: {rel_obj} \n{build_dir}/bin/tut_isolate --hide x -- nvcc -c {src} -o {rel_obj}")
                print(f'{src}(3): error: identifier "n_vecs" is undefined\n    for (v = first; v < n_vecs; v += s)\n'
                      f'\n1 error detected in the compilation of "{src}".')
                failed = True
                continue
            obj.parent.mkdir(parents=True, exist_ok=True)
            obj.write_text(text)
            exe = f"grading/{student}/exercise_{chapter}"
            print(f"{step} Linking CXX executable {exe}")
            link = next((m.split("=", 1)[1] for m in markers if m.startswith("LINK_ERROR=")), None)
            if link:
                print(f"FAILED: {exe} \n: && /usr/bin/c++ -O3 {rel_obj} -o {exe} common/libtutorial_exercise_runner.a && :")
                print(f"/usr/bin/ld: {rel_obj}: in function `x::launch()':\n"
                      f"tmpxft_0001-6_x.cudafe1.cpp:(.text+0x6e): undefined reference to `{link}'\n"
                      "collect2: error: ld returned 1 exit status")
                failed = True
                continue
            script(build_dir / exe, RUNNER, SOURCE=str(src), MARKERS=" ".join(markers))
        else:
            print(f"ninja: error: unknown target '{t}'")
            return 1
    if failed:
        print("ninja: build stopped: cannot make progress due to previous errors.")
        return 1
    return 0


def main(argv):
    if "--build" in argv:
        return build(argv)
    return configure(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
