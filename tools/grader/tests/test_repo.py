"""Chapter discovery from chapters/*/CMakeLists.txt: which chapters are gradable and why not."""
import pathlib
import tempfile
import textwrap
import unittest

import support
from gradelib import repo


class DiscoveryTest(unittest.TestCase):
    def test_parse_chapter_call(self):
        args = repo.parse_chapter_call(textwrap.dedent("""\
            # tutorial_add_chapter(NAME commented_out)
            tutorial_add_chapter(
              NAME gemm   # the chapter
              REFERENCE reference.cpp
              SOURCES a.cu "b c.cu"
              EXERCISE tiled.cu
              EXERCISE_CALL exercise_call.cu
              EXERCISE_CHECK exercise_check.cpp
              LIBRARIES CUDA::cublas)
            add_custom_target(other)
            """))
        self.assertEqual(args["NAME"], ["gemm"])
        self.assertEqual(args["SOURCES"], ["a.cu", "b c.cu"])
        self.assertEqual(args["EXERCISE"], ["tiled.cu"])
        self.assertEqual(args["EXERCISE_CALL"], ["exercise_call.cu"])
        self.assertEqual(args["EXERCISE_CHECK"], ["exercise_check.cpp"])
        self.assertEqual(args["LIBRARIES"], ["CUDA::cublas"])
        self.assertIsNone(repo.parse_chapter_call("add_library(x y.cu)"))

    def test_fake_repository(self):
        with tempfile.TemporaryDirectory() as d:
            root = support.make_fake_repo(pathlib.Path(d))
            (root / "solutions/02_beta/beta.cu").unlink()
            chapters, notes = repo.discover(root)
            names = repo.chapter_names(root)
        self.assertEqual([c.name for c in chapters], ["alpha"])
        alpha = chapters[0]
        self.assertEqual((alpha.folder, alpha.exercise, alpha.exercise_path, alpha.checker_target,
                          alpha.solution_target), ("01_alpha", "alpha.cu", "01_alpha/alpha.cu", "check_alpha",
                                                   "solution_alpha"))
        self.assertTrue(any("02_beta" in n and "solutions/02_beta/beta.cu is missing" in n for n in notes))
        self.assertTrue(any("04_delta: not gradable" in n and "EXERCISE_CHECK" in n for n in notes))
        self.assertFalse(any("03_gamma" in n for n in notes))  # no exercise: nothing to say
        self.assertEqual(names, ["alpha", "beta", "gamma", "delta"])

    def test_the_real_repository_has_chapter_01(self):
        chapters, _ = repo.discover(support.REPO)
        by = {c.name: c for c in chapters}
        self.assertIn("elementwise", by)
        self.assertEqual(by["elementwise"].exercise_path, "01_elementwise/add_float4.cu")
        self.assertEqual(by["elementwise"].checker_target, "check_elementwise")
        self.assertIn("attention", repo.chapter_names(support.REPO))


if __name__ == "__main__":
    unittest.main()
