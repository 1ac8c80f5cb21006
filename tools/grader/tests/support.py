"""Shared helpers of the grader's CPU tests: a fake tutorial repository and submissions."""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
GRADER = HERE.parent
REPO = GRADER.parent.parent
sys.path.insert(0, str(GRADER))

FAKE_CMAKE = [sys.executable, str(HERE / "fake_cmake.py")]

ALPHA_TESTS = '''// Tests of the alpha exercise.
#include "exercise.hpp"
TEST_CASE("alpha matches the reference, at every size", "[alpha][exercise]") {
  // TEST_CASE("commented out", "[x]") is not a case
}
TEST_CASE("alpha is right for "
          "fresh inputs", "[alpha][exercise]") {}
'''

BETA_TESTS = '''#include "exercise.hpp"
/* TEST_CASE("also not a case") */
TEST_CASE("beta [works]", "[beta]") {}
'''


def write(path: pathlib.Path, text: str) -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def make_fake_repo(root: pathlib.Path) -> pathlib.Path:
    """A repository with two gradable chapters (alpha, beta) and one without an exercise (gamma)."""
    repo = root / "repo"
    write(repo / "chapters/01_alpha/CMakeLists.txt",
          "# chapter 01\ntutorial_add_chapter(\n  NAME alpha\n  SOURCES a.cu  # the versions\n  MAIN main.cpp\n"
          "  EXERCISE alpha.cu\n  EXERCISE_TESTS test_exercise.cpp\n  EXERCISE_SYMBOLS exercise_alpha)\n")
    write(repo / "chapters/01_alpha/test_exercise.cpp", ALPHA_TESTS)
    write(repo / "exercises/01_alpha/alpha.cu", "// alpha skeleton: TODO(student)\nFAIL_ALL\n")
    write(repo / "solutions/01_alpha/alpha.cu", "// alpha solution\nint x = 1;\n")
    write(repo / "chapters/02_beta/CMakeLists.txt",
          'tutorial_add_chapter(NAME beta SOURCES b.cu MAIN main.cpp EXERCISE "beta.cu" '
          "EXERCISE_TESTS test_exercise.cpp EXERCISE_SYMBOLS exercise_beta)\n")
    write(repo / "chapters/02_beta/test_exercise.cpp", BETA_TESTS)
    write(repo / "exercises/02_beta/beta.cu", "// beta skeleton\nFAIL_ALL\n")
    write(repo / "solutions/02_beta/beta.cu", "// beta solution\n")
    write(repo / "chapters/03_gamma/CMakeLists.txt", "tutorial_add_chapter(NAME gamma SOURCES g.cu MAIN main.cpp)\n")
    return repo


def make_submission(root: pathlib.Path, name: str, files: dict) -> pathlib.Path:
    """A student folder: {relative path: text}."""
    sub = root / "subs" / name
    sub.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        write(sub / rel, text)
    return sub
