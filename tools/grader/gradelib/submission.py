"""A student's submission: which chapters it contains, integrity checks, and the merged folder.

A submission is a folder holding a copy of exercises/ (all chapters or only some), e.g.
`alice/01_elementwise/add_float4.cu`. Also accepted, with a warning: a folder holding exercises/
(a copy of the whole repository), a chapter folder named without its number (`elementwise/`),
or the exercise file at the top level. Only the exercise file of each chapter is taken: the
chapter's other files come from the repository, so a submission cannot replace a header or a test.

Each accepted file is copied into the grader's work folder (copy_accepted), from where the
grader's one build tree compiles it into that student's runner for the chapter. The checks here
are early, readable rejections only (a link, a huge file, an include of solutions/); what protects
the grade is the process design and the object-file check (symbols.py): see
docs/guides/grading.md, "Trust".
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import shutil
import stat

from .repo import Chapter

MAX_FILE_BYTES = 1024 * 1024
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.MULTILINE)


@dataclasses.dataclass
class Submitted:
    """One chapter's file in a submission."""

    chapter: Chapter
    path: pathlib.Path            # the student's file
    shown_as: str                 # its path inside the submission, for reports
    rejected: str = ""            # non-empty: why it is not built (integrity)
    warnings: list[str] = dataclasses.field(default_factory=list)
    same_as_skeleton: bool = False
    same_as_solution: bool = False


def student_name(path: pathlib.Path) -> str:
    """A file-system-safe name for the student: the submission folder's name."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", path.resolve().name).strip("._") or "student"
    return name


def _normalized(data: bytes) -> list[bytes]:
    return [ln.rstrip() for ln in data.splitlines() if ln.strip()]


def check_file(path: pathlib.Path, repo: pathlib.Path, chapter: Chapter, sub: Submitted) -> None:
    """Integrity checks: a regular file of sane size that does not pull in the solution."""
    try:
        st = os.lstat(path)
    except OSError as e:
        sub.rejected = f"cannot read {sub.shown_as}: {e}"
        return
    if stat.S_ISLNK(st.st_mode):
        sub.rejected = f"{sub.shown_as} is a symbolic link (submit the file itself)"
        return
    if not stat.S_ISREG(st.st_mode):
        sub.rejected = f"{sub.shown_as} is not a regular file"
        return
    if st.st_size > MAX_FILE_BYTES:
        sub.rejected = f"{sub.shown_as} is {st.st_size} bytes (limit {MAX_FILE_BYTES})"
        return
    data = path.read_bytes()
    text = data.decode("utf-8", errors="replace")
    for inc in _INCLUDE.findall(text):
        parts = pathlib.PurePosixPath(inc.replace("\\", "/")).parts
        if "solutions" in parts:
            sub.rejected = f"{sub.shown_as} includes {inc!r}: a file from solutions/"
            return
        if inc.startswith("/") or ".." in parts:
            sub.warnings.append(f"includes {inc!r} (outside its own folder): check it by hand")
    skeleton = (repo / "exercises" / chapter.exercise_path).read_bytes()
    solution = (repo / "solutions" / chapter.exercise_path).read_bytes()
    sub.same_as_skeleton = _normalized(data) == _normalized(skeleton)
    sub.same_as_solution = _normalized(data) == _normalized(solution)
    if sub.same_as_skeleton:
        sub.warnings.append("identical to the untouched skeleton")
    if sub.same_as_solution:
        sub.warnings.append(f"identical to the reference solution (solutions/{chapter.exercise_path})")


#: The start of find()'s warning for a class folder given as one submission (the grader also says it on
#: the console).
CLASS_FOLDER = "this folder holds submissions itself"


def find(submission: pathlib.Path, chapters: list[Chapter], repo: pathlib.Path
         ) -> tuple[dict[str, Submitted], list[str]]:
    """The chapters a submission contains (by chapter name), and warnings about what it ignored."""
    root = submission
    warnings: list[str] = []
    folders = {c.folder for c in chapters} | {c.name for c in chapters}
    if (submission / "exercises").is_dir() and not any((submission / f).is_dir() for f in folders):
        root = submission / "exercises"
        warnings.append("graded the exercises/ folder inside the submission")
    found: dict[str, Submitted] = {}
    used: set[str] = set()
    for ch in chapters:
        candidates = [(root / ch.folder / ch.exercise, f"{ch.folder}/{ch.exercise}", ""),
                      (root / ch.name / ch.exercise, f"{ch.name}/{ch.exercise}",
                       f"found {ch.name}/{ch.exercise}; the folder should be called {ch.folder}/"),
                      (root / ch.exercise, ch.exercise,
                       f"found {ch.exercise} at the top level; it belongs in {ch.folder}/")]
        for path, shown, note in candidates:
            if os.path.lexists(path):
                sub = Submitted(ch, path, shown)
                if note:
                    sub.warnings.append(note)
                check_file(path, repo, ch, sub)
                found[ch.name] = sub
                used.add(shown.split("/")[0])
                break
        else:
            for folder in (ch.folder, ch.name):
                if (root / folder).is_dir():
                    others = sorted(p.name for p in (root / folder).iterdir())[:6]
                    warnings.append(f"{folder}/ has no {ch.exercise} (it holds: {', '.join(others) or 'nothing'}); "
                                    f"{ch.name} is not submitted")
                    used.add(folder)
    for ch_name, sub in found.items():
        folder = sub.path.parent
        if folder != root and folder.is_dir():
            ignored = sorted(p.name for p in folder.iterdir() if p.name != sub.chapter.exercise)
            if ignored:
                more = f" and {len(ignored) - 5} more" if len(ignored) > 5 else ""
                sub.warnings.append(f"ignored {', '.join(ignored[:5])}{more} (only {sub.chapter.exercise} is graded)")
    if root.is_dir():
        stray = sorted(p.name for p in root.iterdir() if p.name not in used and not p.name.startswith("."))
        if stray:
            more = f" and {len(stray) - 8} more" if len(stray) > 8 else ""
            warnings.append(f"ignored {', '.join(stray[:8])}{more} (not an exercise of a gradable chapter)")
        # A class folder given as one submission: its entries are the submissions.
        nested = [name for name in stray if not found and (root / name).is_dir()
                  and any((root / name / f).is_dir() or (root / name / "exercises").is_dir() for f in folders)]
        if nested:
            more = f" and {len(nested) - 3} more" if len(nested) > 3 else ""
            warnings.append(f"{CLASS_FOLDER} ({', '.join(nested[:3])}{more}): to grade a class, give its "
                            f"student folders, e.g. {submission}/*/")
    return found, warnings


def copy_accepted(found: dict[str, Submitted], dest: pathlib.Path) -> dict[str, pathlib.Path]:
    """Copies each accepted file to dest/<folder>/<file> (the grader compiles it from there, so the
    build log names it as the student wrote it); returns {chapter name: copy}."""
    if dest.exists():
        shutil.rmtree(dest)
    copies = {}
    for name, sub in found.items():
        if sub.rejected:
            continue
        target = dest / sub.chapter.exercise_path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(sub.path.read_bytes())
        copies[name] = target
    return copies
