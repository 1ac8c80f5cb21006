// Known-wrong submission (grader corpus): door 5 of issue 23. It includes the reference solution
// through a path built by macros, which no text check of `#include "..."` lines sees:
//  - first the copy of solutions/ that check_corpus.py hands the grader as one more "student"
//    (the grader's work folder holds every student's file: a neighbour's folder is two levels
//    up from this file's copy), and the submissions folder check_corpus.py writes;
//  - then solutions/01_elementwise/add_float4.cu through the repository on the include path.
// The grader compiles every student's file with solutions/, the corpus and the submissions
// hidden behind empty file systems (tut_isolate), and puts each student's copy in a folder of an
// unguessable name, so the file is not found: a compile error. Where folders cannot be hidden,
// the compiler's own list of the files it read (Ninja's deps) names the solution: rejected.
#define TUT_STR2(x) #x
#define TUT_STR(x) TUT_STR2(x)
#define TUT_SOLUTION(file) TUT_STR(solutions/01_elementwise/file)
#define TUT_NEIGHBOUR(file) TUT_STR(../../solutions/01_elementwise/file)
#define TUT_WRITTEN(file) TUT_STR(../../../../submissions/solutions/01_elementwise/file)

#if __has_include(TUT_NEIGHBOUR(add_float4.cu))
#include TUT_NEIGHBOUR(add_float4.cu)
#elif __has_include(TUT_WRITTEN(add_float4.cu))
#include TUT_WRITTEN(add_float4.cu)
#else
#include TUT_SOLUTION(add_float4.cu)
#endif
