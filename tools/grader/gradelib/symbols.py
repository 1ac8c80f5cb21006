"""What a student's compiled object may define and call (docs/guides/grading.md, "Trust").

The student's file is linked, alone with the harness, into the runner: the process that runs the
student's kernel and writes its outputs. The checker never loads that code and judges only the
outputs, so the student's process cannot change a verdict; what it could still try is to *produce*
right outputs without a GPU kernel of its own (read its inputs on the host, rewrite what the
harness sends back, ask a library), or to replace the harness. The object file shows, after the
preprocessor and whatever macros, what the code really references; this module reads it with nm
and objdump:

- Defined: nothing the runner's other code defines or uses. A strong definition of `main`,
  `getenv`, `cudaEventElapsedTime`, a tut:: function, ... would replace the harness's or the
  library's at link time. The names the runner uses are read from a built runner (the
  solution's: the same harness and libraries), less what the solution's own file defines (the
  exercise's entry point). Everything else is the student's own: kernels, helpers, global
  variables, extern "C" functions nobody else calls. Without a built runner to compare with, any
  strong definition with C linkage is refused (the conservative rule).
- Called: only the CUDA runtime, the harness's tut:: helpers, the C++ runtime and the standard
  library (no file streams, no file system), the C math library, printf-style output to the
  terminal, and what the compilers themselves generate (nvcc's host copies of __device__
  functions call exit(), libgcc's arithmetic helpers). An exercise has no use for files, the
  environment, dynamic loading, processes or system calls, so getenv, environ, fopen, dlopen,
  system, ... are refused, whatever way the source spells them.
- No system-call instruction in the host code (inline assembly would bypass the C library).
"""
from __future__ import annotations

import pathlib
import re
import shutil
import subprocess

STRONG = set("TDBRGS")   # nm types of strong external definitions

# Undefined symbols an exercise may reference, as demangled names.
_ALLOWED_PREFIXES = (
    "cuda", "__cuda", "__nv", "__fatbinwrap", "__device_stub", "tut::",
    "std::", "__gnu_cxx::", "__cxxabiv1::", "operator new", "operator delete", "__cxa_", "__gxx_personality",
    "_Unwind_", "__dynamic_cast", "typeinfo for ", "typeinfo name for ", "vtable for ", "VTT for ",
    "guard variable for ", "__stack_chk_fail", "__dso_handle", "_GLOBAL_OFFSET_TABLE_", "__assert_fail",
    "__tls_get_addr", "__once_proxy", "__gthread", "pthread_once", "pthread_mutex_lock", "pthread_mutex_unlock",
    "__libc_single_threaded", "__isoc99_", "__printf_chk", "__fprintf_chk", "__sprintf_chk", "__snprintf_chk",
    "__vsnprintf_chk", "__memcpy_chk", "__memset_chk", "__memmove_chk", "__strcpy_chk", "__vfprintf_chk",
    "__vprintf_chk", "__vsprintf_chk", "__isoc23_",
)
_ALLOWED_NAMES = {
    "atexit",  # every CUDA object registers its kernels and unregisters them at exit
    "exit",    # nvcc's host copy of a __device__ function with external linkage calls exit(1)
    "memcpy", "memset", "memmove", "memcmp", "strlen", "strcmp", "strncmp", "strchr", "strcpy", "strncpy",
    "printf", "puts", "putchar", "fprintf", "fputs", "fputc", "fwrite", "fflush", "snprintf", "sprintf",
    "vsnprintf", "vfprintf", "vprintf", "stderr", "stdout", "abort", "malloc", "free", "calloc", "realloc",
    "posix_memalign", "aligned_alloc", "qsort", "abs", "labs", "llabs", "rand", "srand",
}
_MATH = re.compile(r"^(__)?(sqrt|exp|exp2|expm1|log|log2|log10|log1p|pow|fabs|fmax|fmin|floor|ceil|round|lround|"
                   r"llround|trunc|frexp|ldexp|scalbn|tanh|sinh|cosh|erf|erfc|sin|cos|tan|asin|acos|atan|atan2|"
                   r"fma|copysign|nextafter|hypot|cbrt|rint|lrint|nearbyint|modf|fmod|remainder|isnan|isinf|"
                   r"finite|isfinite|signbit|fpclassify)[fl]?(_finite)?$")
# Inside tut::, the runner's own side of the exchange with the checker (reading the request file,
# writing the response): a student's file that called it could read both input sets or rewrite
# its own outputs and graph counts. The harness's other helpers (errors, launch sizes) stay allowed.
_TUT_REFUSED = re.compile(r"^tut::exercise::")
# Inside std::, what no exercise needs: files, the file system, other processes.
_STD_REFUSED = re.compile(r"fstream|filebuf|__basic_file|filesystem|std::system|std::getenv|std::experimental")
# libgcc's helpers for arithmetic the hardware lacks (128-bit division, complex products, powi, ...).
_LIBGCC = re.compile(r"^__((popcount|clz|ctz|parity|ffs|bswap)[sdt]i2|u?(div|mod)ti3|(mul|div)[sdxt]c3|"
                     r"powi[sdxt]f2|(fix|fixuns|float|floatun)[a-z]{4}|extend[sdxt]f[sdxt]f2|"
                     r"trunc[sdxt]f[sdxt]f2)$")
_SYSCALL = re.compile(r"\b(syscall|sysenter|int\s+\$0x80)\b")

# What nvcc and the C++ compiler generate for a translation unit (defined symbols).
_GENERATED = ("__device_stub__", "_GLOBAL__", "__cuda", "__nv_", "__fatbinwrap", "DW.ref.", "__sti__")


def allowed_call(name: str) -> bool:
    """True if an exercise may reference the (demangled) undefined symbol `name`."""
    if name.startswith("std::") or " std::" in name[:40]:
        return not _STD_REFUSED.search(name)
    if name in _ALLOWED_NAMES or _MATH.match(name) or _LIBGCC.match(name):
        return True
    if _TUT_REFUSED.match(name):
        return False
    return name.startswith(_ALLOWED_PREFIXES) and not _STD_REFUSED.search(name)


def _run(cmd: list[str]) -> str | None:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout if r.returncode == 0 else None


def demangle(names: list[str]) -> list[str]:
    """Readable C++ names via c++filt when there is one."""
    if not names or not shutil.which("c++filt"):
        return names
    out = _run_input(["c++filt"], "\n".join(names))
    lines = out.splitlines() if out is not None else []
    return lines if len(lines) == len(names) else names


def _run_input(cmd: list[str], text: str) -> str | None:
    try:
        r = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout if r.returncode == 0 else None


def parse_nm(text: str) -> list[tuple[str, str]]:
    """[(type, symbol)] from `nm` output (archive member headers skipped)."""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2 or line.endswith(":"):
            continue
        kind, name = parts[-2], parts[-1]
        if len(kind) == 1:
            out.append((kind, name))
    return out


def defined_in(paths: list[pathlib.Path]) -> set[str]:
    """Strong external symbols the harness's objects and libraries define."""
    names: set[str] = set()
    for p in paths:
        text = _run(["nm", "--defined-only", "--extern-only", str(p)])
        for kind, name in parse_nm(text or ""):
            if kind in STRONG:
                names.add(name)
    return names


def used_by_program(program: pathlib.Path) -> set[str] | None:
    """Every symbol a linked program defines or imports (version suffixes removed), or None if nm
    cannot read it."""
    text = _run(["nm", str(program)]) if program.is_file() else None
    if text is None:
        return None
    return {name.split("@", 1)[0] for _, name in parse_nm(text)}


def protected_names(runner: pathlib.Path | None, harness: list[pathlib.Path],
                    own: pathlib.Path | None) -> tuple[set[str], bool]:
    """(names a student's object must not define, complete): what the harness's libraries define,
    plus everything the built `runner` (the solution's: the same harness and libraries) defines
    or imports, less what `own` (the solution's object: the exercise's entry points) defines.
    `complete` is False when the runner or `own` could not be read: then only the harness's
    libraries are used, and check_object() also refuses every strong definition with C linkage."""
    names = defined_in(harness)
    # Without the solution's object the entry points cannot be told apart from the harness's
    # names: then the runner is not used (every student defines the entry point).
    used = used_by_program(runner) if runner is not None and own is not None else None
    if used is None:
        return names, False
    return (names | used) - defined_in([own]), True


def check_object(obj: pathlib.Path, protected: set[str], complete: bool = True) -> tuple[list[str], str]:
    """(problems, note) for a student's object file: readable "what (why)" lines; the note says why
    the check could not run ("" when it ran). `protected`: the names it must not define (see
    protected_names()); with `complete` False any strong C-linkage definition is refused too."""
    if not shutil.which("nm"):
        return [], "symbol check skipped: nm is missing"
    defined = _run(["nm", "--defined-only", "--extern-only", str(obj)])
    undefined = _run(["nm", "--undefined-only", str(obj)])
    if defined is None or undefined is None:
        return [], "symbol check skipped: nm could not read the object"
    problems = []
    strong = [name for kind, name in parse_nm(defined) if kind in STRONG and not name.startswith(_GENERATED)]
    for name, readable in zip(strong, demangle(strong)):
        if name in protected or name == "main":
            problems.append(f"defines {readable} (the runner's harness or libraries define or use it: it would "
                            "replace theirs)")
        elif not complete and not name.startswith("_Z"):
            problems.append(f"defines {readable} with C linkage (it could replace a library function; "
                            "give it a C++ name, e.g. in an anonymous namespace)")
    calls = sorted({name for _, name in parse_nm(undefined)})
    for name, readable in zip(calls, demangle(calls)):
        if not allowed_call(readable):
            problems.append(f"calls {readable} (an exercise has no use for it: only the CUDA runtime, the harness, "
                            "the C++ and math libraries and printf-style output are allowed)")
    if shutil.which("objdump"):
        text = _run(["objdump", "-d", "--no-show-raw-insn", str(obj)]) or ""
        hit = next((ln.strip() for ln in text.splitlines() if _SYSCALL.search(ln)), None)
        if hit:
            problems.append(f"makes a system call itself ({hit}): an exercise has no use for one")
    return problems, ""
