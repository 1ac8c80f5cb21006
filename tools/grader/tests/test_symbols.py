"""The object-file check (gradelib/symbols.py): which calls an exercise may make, and which names it
may define. Real objects are compiled with g++ (the test is skipped without it): a tiny "runner"
(a harness library, a fake CUDA runtime and a solution) and one student object per door."""
import pathlib
import shutil
import subprocess
import tempfile
import textwrap
import unittest

import support  # noqa: F401  (puts gradelib on the path)
from gradelib import symbols

HARNESS = """
#include <cstdio>
#include <cstdlib>
extern "C" int cudaLaunchKernel(const void*, int);
namespace tut { int check_cuda(int e) { if (e) std::printf("CUDA error %d\\n", e); return e; } }
namespace elementwise { void exercise_add(const float*, float*, long); }
int main(int argc, char**) {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  if (std::FILE* f = std::fopen("response", "w")) std::fclose(f);
  elementwise::exercise_add(nullptr, nullptr, argc);
  return tut::check_cuda(cudaLaunchKernel(v, argc));
}
"""
CUDART = 'extern "C" int cudaLaunchKernel(const void* p, int n) { return p == nullptr ? n : 0; }\n'
SOLUTION = "namespace elementwise { void exercise_add(const float*, float*, long) {} }\n"

STUDENTS = {
    # Correct code written many ways: the entry point, helpers, a global variable, an extern "C"
    # function nobody else calls, the CUDA runtime, std::string and std::vector, printf, exit()
    # (nvcc's host copies of __device__ functions call it), a libgcc helper (128-bit division).
    "allowed": """
        #include <cstdio>
        #include <cstdlib>
        #include <string>
        #include <vector>
        extern "C" int cudaLaunchKernel(const void*, int);
        extern "C" int cudaMemcpyAsync(void*, const void*, unsigned long, int, void*);
        int g_calls = 0;
        extern "C" int my_helper(int x) { return x + g_calls; }
        namespace { int twice(int x) { return 2 * x; } }
        namespace elementwise {
        __int128 big(__int128 a, __int128 b) { return a / b; }
        void exercise_add(const float* a, float* out, long n) {
          std::vector<float> v(static_cast<unsigned long>(n));
          std::string s = "n = " + std::to_string(n);
          std::printf("%s %d\\n", s.c_str(), twice(my_helper(static_cast<int>(v.size()))));
          if (n < 0) std::exit(1);
          cudaMemcpyAsync(out, a, static_cast<unsigned long>(n) * 4, 3, nullptr);
          cudaLaunchKernel(a, static_cast<int>(n));
          ++g_calls;
        }
        }
        """,
    "getenv": """
        #include <cstdlib>
        namespace elementwise { void exercise_add(const float*, float* out, long) {
          char name[] = {'T', 'U', 'T', '_', 'S', 0};
          if (std::getenv(name)) *out = 0; } }
        """,
    "fopen": """
        #include <cstdio>
        namespace elementwise { void exercise_add(const float*, float*, long) {
          if (std::FILE* f = std::fopen("report.json", "w")) { std::fputs("{}", f); std::fclose(f); } } }
        """,
    "ofstream": """
        #include <fstream>
        namespace elementwise { void exercise_add(const float*, float*, long) { std::ofstream("r.json") << "{}"; } }
        """,
    "dlopen": """
        #include <dlfcn.h>
        namespace elementwise { void exercise_add(const float*, float*, long) {
          void* h = dlopen("libcublas.so", RTLD_NOW); if (h) dlsym(h, "cublasSaxpy_v2"); } }
        """,
    "environ": """
        extern char** environ;
        namespace elementwise { void exercise_add(const float*, float* out, long) { if (environ[0]) *out = 1; } }
        """,
    "syscall": """
        namespace elementwise { void exercise_add(const float*, float*, long n) {
          long r; __asm__ volatile("syscall" : "=a"(r) : "a"(39L) : "rcx", "r11", "memory"); (void)r; (void)n; } }
        """,
    "main": """
        namespace elementwise { void exercise_add(const float*, float*, long) {} }
        int main() { return 0; }
        """,
    "harness": """
        namespace tut { int check_cuda(int) { return 0; } }
        namespace elementwise { void exercise_add(const float*, float*, long) {} }
        """,
    "replaces_getenv": """
        extern "C" char* getenv(const char*) noexcept { return nullptr; }
        namespace elementwise { void exercise_add(const float*, float*, long) {} }
        """,
    "weak_solution": """
        namespace elementwise {
        void solution_add(const float*, float*, long) __attribute__((weak));
        void exercise_add(const float* a, float* o, long n) { if (solution_add) solution_add(a, o, n); } }
        """,
}


def compile_all(folder: pathlib.Path, sources: dict[str, str]) -> dict[str, pathlib.Path]:
    """Compiles every source at once (g++ -O2 -c); returns {name: object}."""
    procs, objs = [], {}
    for name, text in sources.items():
        src = folder / f"{name}.cpp"
        src.write_text(textwrap.dedent(text))
        objs[name] = folder / f"{name}.o"
        procs.append((name, subprocess.Popen(["g++", "-std=c++17", "-O2", "-fPIE", "-c", str(src), "-o", str(objs[name])],
                                             stderr=subprocess.PIPE, text=True)))
    for name, p in procs:
        _, err = p.communicate(timeout=120)
        if p.returncode != 0:
            raise RuntimeError(f"g++ failed on {name}: {err}")
    return objs


@unittest.skipUnless(shutil.which("g++") and shutil.which("nm") and shutil.which("ar"), "needs g++, nm and ar")
class ObjectCheckTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = pathlib.Path(cls.tmp.name)
        cls.objs = compile_all(d, {"harness": HARNESS, "cudart": CUDART, "solution": SOLUTION,
                                   **{f"student_{k}": v for k, v in STUDENTS.items()}})
        cls.lib = d / "libharness.a"
        subprocess.run(["ar", "rcs", str(cls.lib), str(cls.objs["harness"])], check=True)
        cls.runner = d / "solution_runner"
        subprocess.run(["g++", "-pie", str(cls.objs["solution"]), str(cls.lib), str(cls.objs["cudart"]), "-o",
                        str(cls.runner)], check=True)
        cls.protected, cls.complete = symbols.protected_names(cls.runner, [cls.lib], cls.objs["solution"])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check(self, name, complete=None):
        problems, note = symbols.check_object(self.objs[f"student_{name}"], self.protected,
                                              self.complete if complete is None else complete)
        self.assertEqual(note, "")
        return problems

    def test_protected_names_come_from_the_built_runner(self):
        self.assertTrue(self.complete)
        for name in ("main", "getenv", "fopen", "cudaLaunchKernel", "_ZN3tut10check_cudaEi"):
            self.assertIn(name, self.protected)
        self.assertNotIn("_ZN11elementwise12exercise_addEPKfPfl", self.protected)  # the entry point is the student's
        self.assertNotIn("g_calls", self.protected)
        names, complete = symbols.protected_names(pathlib.Path("/nonexistent/runner"), [self.lib], self.objs["solution"])
        self.assertFalse(complete)
        self.assertIn("_ZN3tut10check_cudaEi", names)
        # Without the solution's object, the runner's names would include the entry point: not used.
        names, complete = symbols.protected_names(self.runner, [self.lib], None)
        self.assertFalse(complete)
        self.assertNotIn("_ZN11elementwise12exercise_addEPKfPfl", names)

    def test_correct_code_is_accepted(self):
        self.assertEqual(self.check("allowed"), [])

    def test_without_a_runner_to_compare_c_linkage_definitions_are_refused(self):
        problems = self.check("allowed", complete=False)
        self.assertEqual(len(problems), 2)
        self.assertTrue(all("with C linkage" in p for p in problems))
        self.assertTrue(any(p.startswith("defines g_calls") for p in problems))
        self.assertTrue(any(p.startswith("defines my_helper") for p in problems))

    def test_the_doors(self):
        expect = {
            "getenv": ["calls getenv"],
            "fopen": ["calls fclose", "calls fopen"],
            "ofstream": ["calls std::basic_ofstream"],
            "dlopen": ["calls dlopen", "calls dlsym"],
            "environ": ["calls environ"],
            "syscall": ["makes a system call itself"],
            "main": ["defines main"],
            "harness": ["defines tut::check_cuda(int)"],
            "replaces_getenv": ["defines getenv"],
            "weak_solution": ["calls elementwise::solution_add(float const*, float*, long)"],
        }
        for name, starts in expect.items():
            problems = self.check(name)
            for start in starts:
                self.assertTrue(any(p.startswith(start) for p in problems), (name, start, problems))
            self.assertTrue(problems, name)

    def test_replacing_the_harness_says_why(self):
        problems = self.check("replaces_getenv")
        self.assertEqual(problems, ["defines getenv (the runner's harness or libraries define or use it: it would "
                                    "replace theirs)"])


class AllowedCallTest(unittest.TestCase):
    def test_allowed(self):
        for name in ("cudaLaunchKernel", "cudaMemcpyAsync", "__cudaRegisterFatBinary", "tut::check_cuda(int)",
                     "std::__cxx11::basic_string<char>::append(char const*)", "std::__throw_length_error(char const*)",
                     "operator new(unsigned long)", "operator delete(void*, unsigned long)", "__cxa_atexit", "atexit",
                     "exit", "printf", "__printf_chk", "puts", "fwrite", "stderr", "malloc", "memcpy", "sqrtf", "expf",
                     "__expf_finite", "fmaxf", "__udivti3", "__powidf2", "__mulsc3", "__floatuntidf", "_Unwind_Resume",
                     "__gxx_personality_v0", "__stack_chk_fail", "typeinfo for std::runtime_error",
                     "__cxa_guard_acquire", "pthread_once", "__isoc23_strtol"):
            self.assertTrue(symbols.allowed_call(name), name)

    def test_refused(self):
        for name in ("getenv", "secure_getenv", "setenv", "environ", "__environ", "fopen", "fopen64", "open",
                     "write", "dlopen", "dlsym", "system", "popen", "execve", "fork", "syscall", "mprotect",
                     "std::basic_ofstream<char, std::char_traits<char> >::basic_ofstream(char const*)",
                     "std::basic_filebuf<char, std::char_traits<char> >::open(char const*, std::_Ios_Openmode)",
                     "std::filesystem::remove(std::filesystem::__cxx11::path const&)",
                     "cublasSgemm_v2", "cudnnCreate", "gemm::reference_gemm(gemm::Shape const&)",
                     "elementwise::solution_add_float4(float const*, float const*, float*, long, CUstream_st*)",
                     "cuLaunchKernel", "strstr", "nanosleep",
                     "tut::exercise::read_request(std::__cxx11::basic_string<char> const&)",
                     "tut::exercise::ResponseWriter::ResponseWriter(std::__cxx11::basic_string<char> const&)"):
            self.assertFalse(symbols.allowed_call(name), name)


class ParseTest(unittest.TestCase):
    def test_parse_nm_skips_archive_headers(self):
        text = "\ncompare.cpp.o:\n0000000000000420 T _ZN3tut1fEv\n                 U getenv\n0000 W _ZN3tut1gEv\n"
        self.assertEqual(symbols.parse_nm(text), [("T", "_ZN3tut1fEv"), ("U", "getenv"), ("W", "_ZN3tut1gEv")])

    def test_demangle_keeps_the_count(self):
        out = symbols.demangle(["_ZN3tut7testing4seedEv", "getenv"])
        self.assertEqual(len(out), 2)
        self.assertEqual(out[1], "getenv")

    def test_unreadable_objects_are_noted_not_rejected(self):
        with tempfile.TemporaryDirectory() as d:
            fake = pathlib.Path(d) / "x.o"
            fake.write_text("not an object")
            problems, note = symbols.check_object(fake, set())
            self.assertEqual(problems, [])
            self.assertIn("symbol check skipped", note)


if __name__ == "__main__":
    unittest.main()
