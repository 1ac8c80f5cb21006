// Running the student's process apart from the checker (common/exercise/isolate.hpp): a clean
// environment, no inherited descriptors, a time limit, and nothing left running afterwards.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/exercise/isolate.hpp"
#include "common/testing.hpp"

using namespace tut::exercise;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char templ[] = "/tmp/tut_isolate_XXXXXX";
    path = mkdtemp(templ);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

IsolatedResult sh(const TempDir& dir, const std::string& script, double timeout_s = 20.0) {
  IsolatedCommand cmd;
  cmd.argv = {"/bin/sh", "-c", script};
  cmd.work_dir = dir.path;
  cmd.log_path = dir.path + "/log";
  cmd.timeout_s = timeout_s;
  return run_isolated(cmd);
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("the child's exit status and output are reported", "[exercise][isolate]") {
  TempDir dir;
  const IsolatedResult r = sh(dir, "echo hello; exit 7");
  CHECK(r.exit_code == 7);
  CHECK_FALSE(r.timed_out);
  CHECK(read_all(dir.path + "/log") == "hello\n");
  CHECK(r.sandbox.find("clean environment") != std::string::npos);
}

TEST_CASE("the child sees a clean environment, without the grader's variables", "[exercise][isolate]") {
  TempDir dir;
  setenv("TUTORIAL_SEED", "12345", 1);
  const IsolatedResult r = sh(dir, "echo \"seed=[$TUTORIAL_SEED] home=[$HOME]\"");
  unsetenv("TUTORIAL_SEED");
  CHECK(r.exit_code == 0);
  CHECK(read_all(dir.path + "/log") == "seed=[] home=[" + dir.path + "]\n");
}

TEST_CASE("the child inherits no file descriptor of the checker", "[exercise][isolate]") {
  TempDir dir;
  const int fd = open((dir.path + "/secret").c_str(), O_WRONLY | O_CREAT, 0600);  // not close-on-exec
  REQUIRE(fd >= 3);
  const IsolatedResult r = sh(dir, "ls /proc/self/fd | wc -l");
  close(fd);
  // The shell's own: 0, 1, 2 and the one ls lists its folder with.
  CHECK(std::stoi(read_all(dir.path + "/log")) <= 4);
  CHECK(r.exit_code == 0);
}

TEST_CASE("a child past its time limit is killed", "[exercise][isolate]") {
  TempDir dir;
  const IsolatedResult r = sh(dir, "sleep 30", 0.5);
  CHECK(r.timed_out);
  CHECK(r.seconds < 10.0);
}

TEST_CASE("nothing the child starts outlives it, not even in a new session", "[exercise][isolate]") {
  TempDir dir;
  prepare_checker_process();
  // A grandchild that leaves the process group and keeps writing after its parent has exited.
  const IsolatedResult r =
      sh(dir, "setsid sh -c 'sleep 1; echo late > " + dir.path + "/late' >/dev/null 2>&1 & echo started");
  CHECK(r.exit_code == 0);
  sleep(2);
  CHECK_FALSE(std::filesystem::exists(dir.path + "/late"));
}
