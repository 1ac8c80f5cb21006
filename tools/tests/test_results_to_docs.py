"""CPU tests of tools/results_to_docs.py (and of plot_results.py where matplotlib is installed):
README's results table, its check, and the learning path's results column. Synthetic result
files in a temporary folder; run from this folder with `python3 -m unittest -v test_results_to_docs`
(CTest: docs_results_to_docs, labels docs;cpu)."""
import contextlib
import io
import json
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import results_to_docs as rtd  # noqa: E402

try:
    import plot_results  # noqa: E402
except ImportError:
    plot_results = None


def row(version, kind, ms, vs, correct=True, skipped=False):
    return {"version": version, "kind": kind, "median_ms": ms, "vs_library": vs, "correct": correct,
            "skipped": skipped}


def report(problems, gpu="Test GPU"):
    return {"chapter": "x", "git": "abc", "device": {"name": gpu}, "problems": problems}


GEMM = report([
    {"label": "fp32 64x64x64", "dtype": "fp32", "library": "cublas", "metric": "tflops", "results": [
        row("v0_naive", "ours", 4.0, 0.25),
        row("v1_fast", "ours", 0.5, 2.0, correct=False),   # wrong: never the best
        row("v2_tiled", "ours", 1.25, 0.8),
        row("v3_hopper", "ours", None, None, skipped=True),
        row("copy_kernel", "ours", 0.1, 10.0),             # a helper, not a step of the ladder
        row("cublas", "library", 1.0, 1.0),
        row("solution", "solution", 0.9, 1.1)]},
    {"label": "fp32 128x128x128", "dtype": "fp32", "library": "cublas", "results": [  # same dtype: not shown
        row("v2_tiled", "ours", 1.0, 9.0), row("cublas", "library", 1.0, 1.0)]},
    {"label": "bf16 64x64x64", "dtype": "bf16", "library": "cublas_bf16", "results": [
        row("v4_mma", "ours", 0.5, 1.5), row("cublas_bf16", "library", 0.75, 1.0)]},
])
ADD = report([{"label": "add n=1024", "dtype": "fp32", "library": "cudaMemcpy", "results": [
    row("v0_block", "ours", 2.0, 0.5), row("cudaMemcpy", "library", 1.0, 1.0)]}], gpu="Other GPU")


class Tree:
    """A repository in a temporary folder: chapters/, docs/results/, README.md with markers."""

    def __init__(self, reports):
        self.tmp = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.tmp.name)
        self.results, self.chapters = root / "docs" / "results", root / "chapters"
        self.results.mkdir(parents=True)
        for i, (name, data) in enumerate(reports.items()):
            d = self.chapters / f"{i + 1:02d}_{name}"
            d.mkdir(parents=True)
            (d / "README.md").write_text(f"# Chapter {i + 1:02d}: {name} {{#ch{i + 1:02d}_{name}}}\n")
            (self.results / f"{name}.json").write_text(json.dumps(data))
        self.readme = root / "README.md"
        self.readme.write_text(f"# Title\n\nbefore\n\n{rtd.README_BEGIN} -->\n{rtd.README_END}\n\nafter\n")
        self.figure = root / "results.svg"

    def rows(self):
        chapters = rtd.discover_chapters(self.chapters)
        return rtd.readme_rows(chapters, rtd.result_files(self.results, [c["name"] for c in chapters]))

    def check(self):
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            return rtd.check_readme(self.readme, self.figure, self.rows(), self.results)

    def write_figure(self, rows):
        self.figure.write_text(f"<svg><metadata>results-digest:{rtd.rows_digest(rows)}</metadata></svg>")


class HeadlineRows(unittest.TestCase):
    def test_fastest_correct_step_of_the_ladder_per_precision(self):
        rows = rtd.headline_rows(GEMM)
        self.assertEqual([(r["dtype"], r["version"], r["library"]) for r in rows],
                         [("fp32", "v2_tiled", "cublas"), ("bf16", "v4_mma", "cublas_bf16")])
        self.assertEqual(rows[0]["ratio"], 0.8)  # the run's vs_library, not recomputed
        self.assertEqual((rows[0]["ms"], rows[0]["library_ms"]), (1.25, 1.0))
        self.assertEqual(rows[0]["gpu"], "Test GPU")

    def test_a_problem_without_a_timed_library_row_is_left_out(self):
        data = report([{"label": "p", "dtype": "fp32", "library": "lib", "results": [
            row("v0_a", "ours", 1.0, 1.0), row("lib", "library", None, None, skipped=True)]}])
        self.assertEqual(rtd.headline_rows(data), [])


class ReadmeTable(unittest.TestCase):
    def test_block_names_gpu_once_or_per_row(self):
        one = Tree({"gemm": GEMM})
        block = rtd.readme_block(one.rows())
        self.assertTrue(block.startswith(rtd.README_BEGIN) and block.endswith(rtd.README_END))
        self.assertIn("| [01 gemm](chapters/01_gemm/README.md) | fp32 64x64x64 | `v2_tiled` | 1.25 ms | `cublas` "
                      "| 1 ms | **0.80x** |", block)
        self.assertIn("Measured on Test GPU.", block)
        self.assertNotIn("| GPU |", block)
        two = Tree({"gemm": GEMM, "add": ADD})
        block = rtd.readme_block(two.rows())
        self.assertIn("| GPU |", block)
        self.assertIn("| [02 add](chapters/02_add/README.md) | add n=1024 (fp32) |", block)

    def test_check_fails_until_updated_then_passes(self):
        tree = Tree({"gemm": GEMM})
        self.assertEqual(tree.check(), 1)  # empty block
        parts = rtd.readme_split(tree.readme.read_text())
        tree.readme.write_text(parts[0] + rtd.readme_block(tree.rows()) + parts[2])
        self.assertEqual(tree.check(), 1)  # no figure yet
        tree.write_figure(tree.rows())
        self.assertEqual(tree.check(), 0)
        self.assertTrue(tree.readme.read_text().endswith("\n\nafter\n"))

    def test_check_fails_when_a_result_changes(self):
        tree = Tree({"gemm": GEMM})
        parts = rtd.readme_split(tree.readme.read_text())
        tree.readme.write_text(parts[0] + rtd.readme_block(tree.rows()) + parts[2])
        tree.write_figure(tree.rows())
        changed = json.loads(json.dumps(GEMM))
        changed["problems"][0]["results"][2]["median_ms"] = 1.2
        (tree.results / "gemm.json").write_text(json.dumps(changed))
        self.assertEqual(tree.check(), 1)

    def test_check_fails_without_markers(self):
        tree = Tree({"gemm": GEMM})
        tree.readme.write_text("# no block\n")
        self.assertEqual(tree.check(), 1)

    def test_update_writes_the_block_and_draws_the_figure(self):
        tree = Tree({"gemm": GEMM})
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            status = rtd.update_readme(tree.readme, tree.figure, tree.rows())
        self.assertIn("`v4_mma`", tree.readme.read_text())
        if plot_results is None:
            self.assertEqual(status, 1)  # the table is written; the plot needs matplotlib
            return
        self.assertEqual(status, 0)
        self.assertEqual(tree.check(), 0)
        first = tree.figure.read_bytes()
        tree.figure.unlink()
        with contextlib.redirect_stdout(io.StringIO()):
            rtd.update_readme(tree.readme, tree.figure, tree.rows())
        self.assertEqual(tree.figure.read_bytes(), first)  # the same bytes for the same data
        self.assertNotIn(b" \n", first)


class LearningPath(unittest.TestCase):
    def test_results_column_shows_each_precisions_ratio(self):
        tree = Tree({"gemm": GEMM})
        files = rtd.result_files(tree.results, ["gemm"])
        _, cell = rtd.results_summary(files["gemm"])
        self.assertEqual(cell, "**0.80x** `cublas` (fp32, `v2_tiled`)<br>**1.50x** `cublas_bf16` (bf16, `v4_mma`)"
                               "<br>Test GPU (**some results wrong**)")  # v1_fast was wrong


@unittest.skipIf(plot_results is None, "matplotlib is not installed")
class SweepStyles(unittest.TestCase):
    def test_twelve_series_of_ours_look_different(self):
        styles = [plot_results.series_style("ours", i) for i in range(12)]
        keys = {(s["color"], str(s["linestyle"]), s["marker"]) for s in styles}
        self.assertEqual(len(keys), 12)
        self.assertEqual(plot_results.series_style("library", 0)["linestyle"], "--")


if __name__ == "__main__":
    unittest.main()
