"""The instructor's grader: builds students' exercise folders and grades them (see docs/guides/grading.md).

Modules:
  config      the private grading configuration (TOML or JSON) and its validation
  repo        chapters with an exercise, discovered from chapters/*/CMakeLists.txt
  process     running a command with a timeout that kills its whole process group
  submission  finding a student's files and the early integrity checks
  symbols     what a student's compiled object may define and call
  results     the result model (cases, chapters, students) and the summary maths
  reports     Markdown, JSON and JUnit XML reports, and the class summary
  grading     the pipeline: one build of every runner, the checkers (public, hidden), sanitizer, speed
"""

VERSION = "2.0"
