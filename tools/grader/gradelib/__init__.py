"""The instructor's grader: builds students' exercise folders and grades them (see docs/guides/grading.md).

Modules:
  config      the private grading configuration (TOML or JSON) and its validation
  repo        chapters with an exercise, discovered from chapters/*/CMakeLists.txt
  catch2      Catch2 test names, test-spec escaping, JUnit results
  process     running a command with a timeout that kills its whole process group
  submission  finding a student's files, integrity checks, merging over the skeletons
  results     the result model (cases, chapters, students) and the summary maths
  reports     Markdown, JSON and JUnit XML reports, and the class summary
  grading     the pipeline: configure, build, tests (public, hidden), speed run, sanitizer
"""

VERSION = "1.0"
