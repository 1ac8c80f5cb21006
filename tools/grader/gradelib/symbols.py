"""Link-time integrity: what the student's object file defines.

The exercise's object is linked into the test executable with the project's static libraries and
the test's own objects. A symbol it defines with external linkage wins over a library's: the
linker never opens the library member (or, for a weak library copy, prefers the strong one). So a
submission could ship its own `tut::ErrorStats::passed()` that always says yes, its own copy of a
test helper, or an `extern "C" getenv()` that hides the secret seed. Rule: the exercise may define
with external linkage only its entry points (EXERCISE_SYMBOLS) and what nvcc generates for its
kernels; weak definitions (inline functions and templates from headers) are fine unless the
project defines the same symbol strongly. Helpers belong in an anonymous namespace (as in the
skeletons).
"""
from __future__ import annotations

import pathlib
import shutil
import subprocess

STRONG = set("TDBRGS")   # nm types of strong external definitions
WEAK = set("WVu")        # weak / unique definitions (inline functions, templates, their data)

# Symbols nvcc and the C++ compiler generate for a translation unit.
_GENERATED = ("__device_stub__", "_GLOBAL__N_", "__cuda", "__nv_", "__fatbinwrap", "DW.ref.", "__sti__")


def parse_nm(text: str) -> dict[str, str]:
    """{symbol: type} from `nm --defined-only --extern-only` output (archives' member headers skipped)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2 or line.endswith(":"):
            continue
        kind, name = (parts[-2], parts[-1])
        if len(kind) == 1:
            if name not in out or kind in STRONG:
                out[name] = kind
    return out


def _is_entry_point(name: str, entry_points: list[str]) -> bool:
    # Itanium mangling writes an identifier as <length><identifier>; extern "C" names are bare.
    return any(name == ep or f"{len(ep)}{ep}" in name for ep in entry_points)


def foreign_definitions(student: dict[str, str], project: dict[str, str], entry_points: list[str]) -> list[str]:
    """The student's symbols that break the rule, each with why."""
    problems = []
    for name, kind in sorted(student.items()):
        if _is_entry_point(name, entry_points) or any(g in name for g in _GENERATED):
            continue
        if kind in STRONG:
            why = "the project defines it too" if name in project else "only the exercise's entry points may be"
            problems.append(f"{name} ({why})")
        elif kind in WEAK and project.get(name) in STRONG:
            problems.append(f"{name} (replaces the project's definition)")
    return problems


def demangle(names: list[str]) -> list[str]:
    """Readable C++ names via c++filt when there is one."""
    if not names or not shutil.which("c++filt"):
        return names
    try:
        r = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, timeout=30)
        out = r.stdout.splitlines()
        return out if len(out) == len(names) else names
    except (OSError, subprocess.SubprocessError):
        return names


def nm_symbols(paths: list[pathlib.Path]) -> dict[str, str] | None:
    """Defined external symbols of object files and archives; None if nm is missing or fails."""
    if not shutil.which("nm"):
        return None
    out: dict[str, str] = {}
    for p in paths:
        try:
            r = subprocess.run(["nm", "--defined-only", "--extern-only", str(p)], capture_output=True, text=True,
                               timeout=120)
        except (OSError, subprocess.SubprocessError):
            return None
        if r.returncode != 0:
            return None
        for name, kind in parse_nm(r.stdout).items():
            if name not in out or kind in STRONG:
                out[name] = kind
    return out


def check_build(build: pathlib.Path, test_target: str, exercise: str, entry_points: list[str]
                ) -> tuple[list[str], str]:
    """(problems, note) for the exercise's object in a CMake build tree. note explains a skipped
    check ("" when it ran); problems are readable "symbol (why)" lines."""
    target_dir = build.glob(f"**/CMakeFiles/{test_target}.dir")
    target_dir = next(target_dir, None)
    if target_dir is None:
        return [], "" if not (build / "CMakeFiles").is_dir() else "symbol check skipped: no objects found"
    objects = [p for p in target_dir.rglob("*.o")]
    mine = [p for p in objects if p.name == exercise + ".o"]
    if len(mine) != 1:
        return [], "symbol check skipped: the exercise's object file was not found"
    others = [p for p in objects if p != mine[0]] + sorted(build.rglob("*.a"))
    student, project = nm_symbols(mine), nm_symbols(others)
    if student is None or project is None:
        return [], "symbol check skipped: nm is missing or could not read the objects"
    bad = foreign_definitions(student, project, entry_points)
    if not bad:
        return [], ""
    mangled = [b.rsplit(" (", 1)[0] for b in bad]
    readable = demangle(mangled)
    return [f"{r} ({b.rsplit(' (', 1)[1]}" for r, b in zip(readable, bad)], ""
