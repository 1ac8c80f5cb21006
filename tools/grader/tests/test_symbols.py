"""The link-time symbol check: an exercise may define with external linkage only its entry points
and what nvcc generates; it must not replace the project's code or the C library's."""
import pathlib
import tempfile
import textwrap
import unittest

import support  # noqa: F401
from gradelib import symbols

# `nm --defined-only --extern-only` of a real solution object (chapter 01, nvcc 13, sm_90a).
SOLUTION = textwrap.dedent("""\
    0000000000000000 V DW.ref.__gxx_personality_v0
    0000000000000140 T _Z107__device_stub__ZN11elementwise46_GLOBAL__N__000933b4_13_add_float4_cu_ea10700017add_float4_kernelEPKfS2_PflPKfS0_Pfl
    0000000000000270 T _ZN11elementwise19exercise_add_float4EPKfS1_PflP11CUstream_st
    0000000000000010 T _ZN11elementwise46_GLOBAL__N__000933b4_13_add_float4_cu_ea10700017add_float4_kernelEPKfS2_Pfl
    0000000000000000 W _ZN3tut9CudaErrorD0Ev
    0000000000000000 W _ZN3tut9CudaErrorD1Ev
    0000000000000000 V _ZTIN3tut9CudaErrorE
    """)

# An archive: member headers, blank lines, strong and weak definitions.
LIBRARY = textwrap.dedent("""\

    compare.cpp.o:
    0000000000000420 T _ZNK3tut10ErrorStats6passedERKNS_9ToleranceE
    0000000000000000 W _ZN3tut9CudaErrorD1Ev

    testing.cpp.o:
    0000000000000100 T _ZN3tut7testing4seedEv
    0000000000000000 W _ZN3tut7testing12GuardedBuffer4dataEv
    """)

ENTRY = ["exercise_add_float4"]


class SymbolTest(unittest.TestCase):
    def test_parse_nm(self):
        lib = symbols.parse_nm(LIBRARY)
        self.assertEqual(lib["_ZNK3tut10ErrorStats6passedERKNS_9ToleranceE"], "T")
        self.assertEqual(lib["_ZN3tut7testing12GuardedBuffer4dataEv"], "W")
        self.assertNotIn("compare.cpp.o:", lib)

    def test_a_solution_is_clean(self):
        self.assertEqual(symbols.foreign_definitions(symbols.parse_nm(SOLUTION), symbols.parse_nm(LIBRARY), ENTRY), [])

    def test_replacements_and_extra_definitions_are_caught(self):
        evil = SOLUTION + textwrap.dedent("""\
            0000000000000500 T _ZNK3tut10ErrorStats6passedERKNS_9ToleranceE
            0000000000000600 T getenv
            0000000000000700 T _ZN11elementwise6helperEi
            0000000000000000 W _ZN3tut7testing4seedEv
            0000000000000000 W _ZN3tut7testing12GuardedBuffer4dataEv
            """)
        bad = symbols.foreign_definitions(symbols.parse_nm(evil), symbols.parse_nm(LIBRARY), ENTRY)
        self.assertEqual(bad, [
            "_ZN11elementwise6helperEi (only the exercise's entry points may be)",
            "_ZN3tut7testing4seedEv (replaces the project's definition)",
            "_ZNK3tut10ErrorStats6passedERKNS_9ToleranceE (the project defines it too)",
            "getenv (only the exercise's entry points may be)",
        ])  # a weak copy of a weak (inline) definition, GuardedBuffer::data, is fine

    def test_entry_points_match_whole_identifiers(self):
        # "exercise_add_float4x" is another identifier, not the entry point.
        other = {"_ZN11elementwise20exercise_add_float4xEv": "T", "exercise_add_float4": "T"}
        self.assertEqual(symbols.foreign_definitions(other, {}, ENTRY),
                         ["_ZN11elementwise20exercise_add_float4xEv (only the exercise's entry points may be)"])

    def test_check_build_without_objects_is_silent_or_says_why(self):
        with tempfile.TemporaryDirectory() as d:
            build = pathlib.Path(d)
            self.assertEqual(symbols.check_build(build, "test_x_exercise", "x.cu", ENTRY), ([], ""))
            (build / "CMakeFiles").mkdir()
            problems, note = symbols.check_build(build, "test_x_exercise", "x.cu", ENTRY)
            self.assertEqual(problems, [])
            self.assertIn("symbol check skipped", note)

    def test_demangle_keeps_the_count(self):
        names = ["_ZN3tut7testing4seedEv", "getenv"]
        out = symbols.demangle(names)
        self.assertEqual(len(out), 2)
        self.assertEqual(out[1], "getenv")


if __name__ == "__main__":
    unittest.main()
