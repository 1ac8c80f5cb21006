// tut_isolate: runs a command with some folders hidden (common/exercise/isolate.hpp).
//
//     tut_isolate [--hide DIR]... [--required] -- COMMAND [ARG]...
//
// The grader uses it as the compiler launcher of students' files: solutions/ and the grader's
// corpus are hidden, so that no include can reach them. Without namespaces (some containers), the
// command runs with nothing hidden and a warning on stderr, or, with --required, does not run
// (exit 125). `tut_isolate --probe DIR` exits 0 if DIR can be hidden here.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/exercise/isolate.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> hide;
  bool required = false;
  int i = 1;
  for (; i < argc; ++i) {
    if (std::strcmp(argv[i], "--hide") == 0 && i + 1 < argc) {
      hide.emplace_back(argv[++i]);
    } else if (std::strcmp(argv[i], "--probe") == 0 && i + 1 < argc) {
      const std::string why = tut::exercise::hide_directories({argv[++i]});
      if (!why.empty()) std::fprintf(stderr, "tut_isolate: cannot hide folders here: %s\n", why.c_str());
      return why.empty() ? 0 : 1;
    } else if (std::strcmp(argv[i], "--required") == 0) {
      required = true;
    } else if (std::strcmp(argv[i], "--") == 0) {
      ++i;
      break;
    } else {
      std::fprintf(stderr, "usage: tut_isolate [--hide DIR]... [--required] -- COMMAND [ARG]...\n");
      return 125;
    }
  }
  if (i >= argc) {
    std::fprintf(stderr, "tut_isolate: no command\n");
    return 125;
  }
  const std::string why = tut::exercise::hide_directories(hide);
  if (!why.empty()) {
    std::fprintf(stderr, "tut_isolate: warning: nothing hidden (%s)\n", why.c_str());
    if (required) return 125;
  }
  execvp(argv[i], argv + i);
  std::fprintf(stderr, "tut_isolate: cannot run %s: %s\n", argv[i], std::strerror(errno));
  return 127;
}
