"""The private configuration: parsing, defaults, merging, and one clear error per mistake."""
import json
import pathlib
import tempfile
import unittest

import support  # noqa: F401  (puts gradelib on the path)
from gradelib import config, repo
from gradelib.config import ConfigError

CHAPTERS = ["elementwise", "reduce"]


class DefaultsTest(unittest.TestCase):
    def test_no_file_means_public_only(self):
        cfg = config.load(None)
        self.assertFalse(cfg.hidden_enabled)
        self.assertTrue(cfg.speed)
        self.assertFalse(cfg.sanitize)
        self.assertEqual(cfg.test_timeout_of("elementwise"), 600)
        self.assertEqual(cfg.speed_timeout_of("elementwise"), 300)
        self.assertEqual((cfg.jobs, cfg.ninja_jobs, cfg.generator), (0, 0, "Ninja"))
        self.assertIn("hidden cases OFF", cfg.describe())

    def test_example_config_in_the_repository_is_valid(self):
        cfg = config.load(support.GRADER / "example_config.toml", ["elementwise"])
        self.assertTrue(cfg.hidden_enabled)
        self.assertEqual(cfg.chapter("elementwise").test_timeout, 300)
        self.assertEqual(cfg.hidden_sizes("elementwise"), [6, 1031, 70001, 1000003, 5000011])
        self.assertNotIn(str(cfg.seed), cfg.describe())  # the secret never appears in reports

    def test_configuration_shown_in_the_grading_guide_is_valid(self):
        import re
        import tomllib
        page = (support.REPO / "docs/guides/grading.md").read_text()
        blocks = [b for b in re.findall(r"```\n(.*?)```", page, re.S) if "[hidden]" in b]
        self.assertEqual(len(blocks), 1)
        cfg = config.from_dict(tomllib.loads(blocks[0]), "grading.md", ["elementwise"])
        self.assertTrue(cfg.hidden_enabled)

    def test_corpus_config_is_valid(self):
        chapters = repo.chapter_names(support.REPO)  # gradable or not yet
        cfg = config.load(support.GRADER / "corpus" / "corpus.toml", chapters)
        self.assertIsNone(cfg.seed)  # drawn at random by check_corpus.py
        # No global sizes: a size n is n elements in 1-D chapters but n x n or n^3 in others.
        self.assertEqual(cfg.extra_sizes, [])
        self.assertTrue(cfg.hidden_sizes("elementwise"))
        for name, limit in (("gemv", 20000), ("transpose", 20000), ("gemm", 4096)):
            if name in chapters:  # n x n matrices (gemv, transpose) and n^3 products (gemm) must stay small
                self.assertTrue(cfg.hidden_sizes(name), name)
                self.assertLessEqual(max(cfg.hidden_sizes(name)), limit, name)
        # A runner process gets a quarter of a check (the checker may start it four times): room for
        # every case of elementwise, whose largest hidden case moves 3 x 2^26 floats.
        self.assertGreaterEqual(cfg.test_timeout_of("elementwise"), 120)


class ParseTest(unittest.TestCase):
    def load_toml(self, text, chapters=CHAPTERS):
        with tempfile.TemporaryDirectory() as d:
            p = pathlib.Path(d) / "grading.toml"
            p.write_text(text)
            return config.load(p, chapters)

    def test_full_document(self):
        cfg = self.load_toml("""
[hidden]
seed = 18446744073709551615
extra_sizes = [6, 1031]
redact = false
[timeouts]
test = 5
build = 100
[build]
cmake = ["/opt/cmake/bin/cmake", "--log-level=WARNING"]
cuda_architectures = "80;90a"
jobs = 2
ninja_jobs = 8
keep = true
[speed]
args = ["--reps", "5"]
[sanitize]
enabled = true
tools = ["memcheck", "racecheck"]
command = "/opt/cuda/bin/compute-sanitizer"
[chapters.reduce]
extra_sizes = [1031, 99991]
test_timeout = 42
speed_timeout = 7
speed_args = ["--reps", "20"]
hidden = false
""")
        self.assertEqual(cfg.seed, 2**64 - 1)
        self.assertFalse(cfg.redact)
        self.assertEqual(cfg.cmake, ["/opt/cmake/bin/cmake", "--log-level=WARNING"])
        self.assertEqual((cfg.jobs, cfg.ninja_jobs, cfg.cuda_architectures), (2, 8, "80;90a"))
        self.assertEqual(cfg.test_timeout_of("reduce"), 42)
        self.assertEqual(cfg.test_timeout_of("elementwise"), 5)
        self.assertEqual(cfg.speed_timeout_of("reduce"), 7)
        self.assertEqual(cfg.hidden_sizes("reduce"), [6, 1031, 99991])  # merged, no duplicate
        self.assertEqual(cfg.hidden_sizes("elementwise"), [6, 1031])
        self.assertFalse(cfg.chapter("reduce").hidden)
        self.assertTrue(cfg.chapter("elementwise").hidden)
        self.assertEqual(cfg.chapter("reduce").speed_args, ["--reps", "20"])
        self.assertEqual(cfg.speed_args, ["--reps", "5"])
        self.assertEqual(cfg.sanitize_tools, ["memcheck", "racecheck"])
        self.assertEqual(cfg.sanitizer, ["/opt/cuda/bin/compute-sanitizer"])
        self.assertTrue(cfg.keep_builds)
        self.assertNotIn("18446744073709551615", cfg.describe())

    def test_json_works_too(self):
        with tempfile.TemporaryDirectory() as d:
            p = pathlib.Path(d) / "grading.json"
            p.write_text(json.dumps({"hidden": {"seed": 5, "extra_sizes": [7]}}))
            cfg = config.load(p, CHAPTERS)
        self.assertEqual((cfg.seed, cfg.hidden_sizes("elementwise")), (5, [7]))

    def test_environment_keys_are_refused_with_the_reason(self):
        # The old grader passed the seed and extra variables through the environment of the process
        # that ran the student's code; now that process gets a clean environment.
        for text in ('[hidden]\nenv = { EXTRA = "1" }\n', '[chapters.reduce]\nenv = { X = "1" }\n'):
            with self.assertRaises(ConfigError) as ctx:
                self.load_toml(text)
            message = str(ctx.exception)
            self.assertIn("env: no longer used", message)
            self.assertIn("clean environment", message)
            self.assertIn("command line", message)

    def assertConfigError(self, text, *fragments):
        with self.assertRaises(ConfigError) as ctx:
            self.load_toml(text)
        for f in fragments:
            self.assertIn(f, str(ctx.exception))

    def test_errors_name_the_key(self):
        self.assertConfigError('[hidden]\nseed = "12"\n', "[hidden] seed", "integer")
        self.assertConfigError("[hidden]\nseed = -1\n", "[hidden] seed")
        self.assertConfigError("[hidden]\nseed = true\n", "[hidden] seed")
        self.assertConfigError("[hidden]\nseed = 18446744073709551616\n", "[hidden] seed")
        self.assertConfigError("[hidden]\nextra_sizes = [5, 0]\n", "extra_sizes[1]")
        self.assertConfigError("[hidden]\nextra_sizes = 5\n", "extra_sizes", "list")
        self.assertConfigError("[build]\njobs = -1\n", "[build] jobs")
        self.assertConfigError("[speed]\nargs = \"--reps 5\"\n", "[speed] args", "list of strings")
        self.assertConfigError("[timeouts]\ntest = 0\n", "[timeouts] test")
        self.assertConfigError('[build]\ncmake = ""\n', "[build] cmake")
        self.assertConfigError('[build]\ncuda_architectures = "90a; rm -rf"\n', "cuda_architectures")
        self.assertConfigError('[sanitize]\ntools = ["memcheck", "leakcheck"]\n', "unknown tool 'leakcheck'")
        self.assertConfigError("[sanitize]\ntools = []\n", "at least one tool")

    def test_typos_are_errors_with_a_suggestion(self):
        self.assertConfigError("[hiden]\nseed = 1\n", "unknown key 'hiden'", "did you mean 'hidden'")
        self.assertConfigError("[hidden]\nsed = 1\n", "unknown key 'sed'", "did you mean 'seed'")
        self.assertConfigError("[chapters.reduce]\ntest_timout = 3\n", "did you mean 'test_timeout'")
        self.assertConfigError("[chapters.reduction]\nhidden = false\n", "reduction", "did you mean 'reduce'")
        self.assertConfigError("[chapters.transpose]\nhidden = false\n", "gradable chapters: elementwise, reduce")
        self.assertConfigError("hidden = 3\n", "[hidden] must be a table")

    def test_bad_files(self):
        self.assertConfigError("[hidden\nseed = 1\n", "not valid TOML")
        with self.assertRaises(ConfigError) as ctx:
            config.load("/nonexistent/grading.toml")
        self.assertIn("no such configuration file", str(ctx.exception))
        with tempfile.TemporaryDirectory() as d:
            p = pathlib.Path(d) / "grading.json"
            p.write_text("{ not json")
            with self.assertRaises(ConfigError) as ctx:
                config.load(p)
            self.assertIn("not valid JSON", str(ctx.exception))
            p.write_text("[1, 2]")
            with self.assertRaises(ConfigError) as ctx:
                config.load(p)
            self.assertIn("top level", str(ctx.exception))


if __name__ == "__main__":
    unittest.main()
