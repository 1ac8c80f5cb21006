"""Shared helpers of the grader's CPU tests: a fake tutorial repository and submissions."""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
GRADER = HERE.parent
REPO = GRADER.parent.parent
sys.path.insert(0, str(GRADER))

FAKE_CMAKE = [sys.executable, str(HERE / "fake_cmake.py")]


def write(path: pathlib.Path, text: str) -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def make_fake_repo(root: pathlib.Path) -> pathlib.Path:
    """A repository with two gradable chapters (alpha, beta), one without an exercise (gamma) and one
    whose exercise has no checker yet (delta: not gradable)."""
    repo = root / "repo"
    write(repo / "chapters/01_alpha/CMakeLists.txt",
          "# chapter 01\ntutorial_add_chapter(\n  NAME alpha\n  REFERENCE reference.cpp\n  SOURCES a.cu  # the versions\n"
          "  MAIN main.cpp\n  EXERCISE alpha.cu\n  EXERCISE_CALL exercise_call.cu\n"
          "  EXERCISE_CHECK exercise_check.cpp)\n")
    write(repo / "exercises/01_alpha/alpha.cu", "// alpha skeleton: TODO(student)\nFAIL_PUBLIC\n")
    write(repo / "solutions/01_alpha/alpha.cu", "// alpha solution\nint x = 1;\n")
    write(repo / "chapters/02_beta/CMakeLists.txt",
          'tutorial_add_chapter(NAME beta SOURCES b.cu MAIN main.cpp EXERCISE "beta.cu" '
          "EXERCISE_CALL exercise_call.cu EXERCISE_CHECK exercise_check.cpp)\n")
    write(repo / "exercises/02_beta/beta.cu", "// beta skeleton\nFAIL_ALL\n")
    write(repo / "solutions/02_beta/beta.cu", "// beta solution\n")
    write(repo / "chapters/03_gamma/CMakeLists.txt", "tutorial_add_chapter(NAME gamma SOURCES g.cu MAIN main.cpp)\n")
    write(repo / "chapters/04_delta/CMakeLists.txt",
          "tutorial_add_chapter(NAME delta SOURCES d.cu MAIN main.cpp EXERCISE delta.cu EXERCISE_TESTS t.cpp)\n")
    write(repo / "exercises/04_delta/delta.cu", "// delta skeleton\n")
    write(repo / "solutions/04_delta/delta.cu", "// delta solution\n")
    return repo


def make_submission(root: pathlib.Path, name: str, files: dict) -> pathlib.Path:
    """A student folder: {relative path: text}."""
    sub = root / "subs" / name
    sub.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        write(sub / rel, text)
    return sub
