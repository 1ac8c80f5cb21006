#!/usr/bin/env python3
"""A stand-in for `cmake` in the grader's CPU tests: no compiler, no CUDA, no GPU.

Configure (`-S SRC -B BUILD -D...`) records TUTORIAL_EXERCISES_DIR; `-DFAKE_CONFIGURE_FAIL=1` fails.
Build (`--build BUILD --target T...`) "compiles" each chapter by reading the student's exercise file
in that folder and writing Python scripts as bin/test_<name>_exercise and bin/<name> that behave as
markers in the file say:

  COMPILE_ERROR   the build fails with a compiler-like error line (no executables)
  EXE_LINK_ERROR  the tests build, the chapter executable does not
  FAIL_ALL        every test case fails (with sizes and worst elements, like our tests print)
  FAIL_CASE2      only the second test case fails
  FAIL_HIDDEN     test cases fail when TUTORIAL_SEED is set (right only for the public seed)
  HANG_CASE1      the first test case never ends
  NO_GPU          test executables exit 77, the chapter executable 3 (no CUDA device)
  EXIT0           the test executable exits 0 without writing its report
  CRASH           the test executable dies of SIGSEGV
  SPEED_WRONG     the chapter executable finds the exercise wrong on its default problem
  SPEED=<x>       the exercise runs x times as fast as the solution (default 1)
  NO_MATCH        the test executable knows no test case of the requested name
  OOB             under TUTORIAL_SANITIZE=1 the test executable prints OOB_WRITE, which the fake
                  sanitizer (this script called with --tool ...) reports as a memcheck error

Every run of a generated executable appends one JSON line (argv, TUTORIAL_* variables) to $FAKE_LOG
when that is set, so tests can check what the grader passed.
"""
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from gradelib import repo as repo_mod  # noqa: E402

TEST_EXE = r'''#!@PYTHON@
import json, os, signal, sys, time
MARKERS = @MARKERS@
NAMES = @NAMES@
def log():
    path = os.environ.get("FAKE_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"argv": sys.argv, "seed": os.environ.get("TUTORIAL_SEED"),
                                "sizes": os.environ.get("TUTORIAL_EXTRA_SIZES"),
                                "sanitize": os.environ.get("TUTORIAL_SANITIZE"),
                                "extra": os.environ.get("FAKE_EXTRA")}) + "\n")
log()
if "NO_GPU" in MARKERS:
    print("SKIPPED: no usable CUDA device (fake); GPU tests need an NVIDIA GPU")
    sys.exit(77)
if "CRASH" in MARKERS:
    os.kill(os.getpid(), signal.SIGSEGV)
if "EXIT0" in MARKERS:
    sys.exit(0)
args = sys.argv[1:]
out = args[args.index("-o") + 1] if "-o" in args else None
spec = [a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] not in ("-o", "-r"))]
def unescape(s):
    r, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            r.append(s[i + 1]); i += 2
        else:
            r.append(s[i]); i += 1
    return "".join(r)
selected = [n for n in NAMES if not spec or n.lower() == unescape(spec[0]).lower()]
if "NO_MATCH" in MARKERS:
    selected = []
if "OOB" in MARKERS and os.environ.get("TUTORIAL_SANITIZE") == "1":
    print("OOB_WRITE at out[4097]")
if "HANG_CASE1" in MARKERS and NAMES and NAMES[0] in selected:
    print("running the first case...", flush=True)
    while True:
        time.sleep(1)
def esc(t):
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
hidden = os.environ.get("TUTORIAL_SEED") is not None
failures = 0
cases = []
for k, n in enumerate(selected):
    fail = ("FAIL_ALL" in MARKERS or ("FAIL_CASE2" in MARKERS and NAMES.index(n) == 1)
            or ("FAIL_HIDDEN" in MARKERS and hidden))
    if fail:
        failures += 1
        seed = os.environ.get("TUTORIAL_SEED", "20240601")
        body = ("FAILED:\n  REQUIRE( tut_stats_.passed(tut_tol_) )\nwith expansion:\n  false\n"
                "n = 4097, offsets (a, b, out) = (0, 0, 0), seed " + seed + "\n"
                "FAIL: 4097 elements, rel. norm error inf (limit 1.2e-07), max abs error inf, 1 NaN/Inf outputs (never pass)\n"
                "  worst elements:\n    [4096] got nan, expected 1.5\n    [4095] got 0, expected -2.25\n"
                "at test_support.hpp:47")
        cases.append('<testcase classname="x.global" name="%s" time="0.01"><failure message="x" type="REQUIRE">%s</failure></testcase>' % (esc(n), esc(body)))
    else:
        cases.append('<testcase classname="x.global" name="%s" time="0.01"/>' % esc(n))
if out:
    with open(out, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="x" errors="0" failures="%d" tests="%d">%s</testsuite></testsuites>\n'
                % (failures, len(cases), "".join(cases)))
print("fake test executable: %d case(s), %d failed" % (len(cases), failures))
sys.exit(min(failures, 255))
'''

CHAPTER_EXE = r'''#!@PYTHON@
import json, os, sys, time
MARKERS = @MARKERS@
NAME = @NAME@
path = os.environ.get("FAKE_LOG")
if path:
    with open(path, "a") as f:
        f.write(json.dumps({"argv": sys.argv, "seed": os.environ.get("TUTORIAL_SEED")}) + "\n")
if "NO_GPU" in MARKERS:
    print(NAME + ": no usable CUDA device (fake). The chapters need an NVIDIA GPU", file=sys.stderr)
    sys.exit(3)
args = sys.argv[1:]
out = args[args.index("--json") + 1]
speed = 1.0
for m in MARKERS:
    if m.startswith("SPEED="):
        speed = float(m.split("=", 1)[1])
wrong = "SPEED_WRONG" in MARKERS
sol = 2.0
rows = [{"version": "exercise", "kind": "exercise", "skipped": False, "correct": not wrong,
         "median_ms": None if wrong else sol / speed},
        {"version": "solution", "kind": "solution", "skipped": False, "correct": True, "median_ms": sol}]
with open(out, "w") as f:
    json.dump({"chapter": NAME, "problems": [{"label": "add n=1000", "results": rows}]}, f)
if wrong:
    print(NAME + ": exercise is WRONG on add n=1000 (checked before timing)\n  FAIL: 1000 elements, rel. norm error 0.5\n"
          "  worst elements:\n    [999] got 0, expected 3.5", file=sys.stderr)
    sys.exit(1)
print("all results correct")
'''


def configure(argv):
    src = pathlib.Path(argv[argv.index("-S") + 1])
    build = pathlib.Path(argv[argv.index("-B") + 1])
    defs = dict(a[2:].split("=", 1) for a in argv if a.startswith("-D") and "=" in a)
    if defs.get("FAKE_CONFIGURE_FAIL") == "1":
        print("CMake Error at CMakeLists.txt:3 (project): fake configure failure")
        return 1
    build.mkdir(parents=True, exist_ok=True)
    (build / "fake_cache.json").write_text(json.dumps({"source": str(src),
                                                        "exercises": defs["TUTORIAL_EXERCISES_DIR"]}))
    print("-- Build files have been written to: " + str(build))
    return 0


def script(template, **values):
    text = template.replace("@PYTHON@", sys.executable)
    for k, v in values.items():
        text = text.replace("@" + k + "@", v)
    return text


def build(argv):
    build_dir = pathlib.Path(argv[argv.index("--build") + 1])
    cache = json.loads((build_dir / "fake_cache.json").read_text())
    chapters, _ = repo_mod.discover(pathlib.Path(cache["source"]))
    i = argv.index("--target") + 1
    targets = []
    while i < len(argv) and not argv[i].startswith("-"):
        targets.append(argv[i])
        i += 1
    status = 0
    (build_dir / "bin").mkdir(exist_ok=True)
    for t in targets:
        ch = next((c for c in chapters if t in (c.test_target, c.exe_target)), None)
        if ch is None:
            print(f"ninja: error: unknown target '{t}'")
            return 1
        text = (pathlib.Path(cache["exercises"]) / ch.exercise_path).read_text()
        markers = re.findall(r"\b([A-Z][A-Z0-9_]+(?:=[0-9.]+)?)\b", text)
        if "BUILD_HANG" in markers:
            import time
            while True:
                time.sleep(1)
        if "COMPILE_ERROR" in markers:
            print(f"FAILED: {ch.name}_exercise_obj")
            print(f"{cache['exercises']}/{ch.exercise_path}(3): error: expected a \";\"")
            status = 1
            continue
        if t == ch.exe_target:
            if "EXE_LINK_ERROR" in markers:
                print(f"FAILED: bin/{t}\n/usr/bin/ld: undefined reference to `helper()'")
                status = 1
                continue
            body = script(CHAPTER_EXE, MARKERS=repr(markers), NAME=repr(ch.name))
        else:
            body = script(TEST_EXE, MARKERS=repr(markers), NAMES=repr(ch.test_names))
        exe = build_dir / "bin" / t
        exe.write_text(body)
        exe.chmod(0o755)
        print(f"[1/1] Linking bin/{t}")
    return status


def sanitizer(argv):
    """`fake_cmake.py --tool T --error-exitcode N [...] EXE ARGS`: runs EXE; reports an error if it printed OOB_WRITE."""
    import subprocess
    i = 0
    while i < len(argv) and argv[i].startswith("--"):
        i += 2 if argv[i] in ("--tool", "--error-exitcode", "--leak-check") else 1
    code = int(argv[argv.index("--error-exitcode") + 1])
    r = subprocess.run(argv[i:], capture_output=True, text=True)
    print("========= COMPUTE-SANITIZER (fake)")
    print(r.stdout, end="")
    if "OOB_WRITE" in r.stdout:
        print("========= Invalid __global__ write of size 4 bytes\n=========     at add_kernel+0x70\n"
              "========= ERROR SUMMARY: 1 error")
        return code
    print("========= ERROR SUMMARY: 0 errors")
    return r.returncode


def main(argv):
    if argv and argv[0] == "--tool":
        return sanitizer(argv)
    if "--build" in argv:
        return build(argv)
    return configure(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
