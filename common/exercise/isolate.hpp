/// @file
/// @brief Running the student's process apart from the checker (Linux).
///
/// The checker starts the runner with run_isolated(): a new session and process group, a clean
/// environment, no inherited file descriptors, limits on core dumps and file sizes, and a time
/// limit, after which the whole process tree is killed. Where the system allows it, the runner
/// also gets a file system on which everything is read-only except its own work folder (a mount
/// namespace: inside an unprivileged user namespace, or, when the checker runs as root, with the
/// runner dropped to the user `nobody`). Nothing the runner leaves behind outlives the call: the
/// checker is its processes' subreaper, and kills every descendant when the runner has exited.
/// The checker also makes itself non-dumpable, so that the runner cannot read or write the
/// checker's memory or file descriptors through /proc.
#pragma once

#include <string>
#include <vector>

namespace tut::exercise {

/// How to start one process.
struct IsolatedCommand {
  std::vector<std::string> argv;       ///< program (a path) and arguments
  std::string work_dir;                ///< its current directory, HOME and TMPDIR; the only writable place
  std::string log_path;                ///< its stdout and stderr go here
  double timeout_s = 300.0;            ///< wall-clock limit
  bool sandbox = true;                 ///< false: no namespace, no user change (still a clean env and fds)
  std::vector<std::string> keep_env;   ///< extra environment variables passed through by name
};

/// How it ended.
struct IsolatedResult {
  int exit_code = -1;      ///< exit status, or -1 if it did not exit normally
  int signal = 0;          ///< the signal that killed it, if any
  bool timed_out = false;  ///< killed at the time limit
  double seconds = 0.0;    ///< wall-clock time
  std::string sandbox;     ///< what isolation it ran under, in words (for the report)
};

/// Makes this process non-dumpable and the subreaper of its descendants. Call once, early.
void prepare_checker_process();

/// Starts the command, waits (up to its time limit), then kills whatever it left running.
/// Throws std::runtime_error if the process cannot be started at all.
IsolatedResult run_isolated(const IsolatedCommand& command);

/// Runs the rest of this process with each folder of `dirs` hidden behind an empty, read-only
/// file system (a private mount namespace: as root, or inside an unprivileged user namespace).
/// The grader compiles students' files this way, so that no include, however spelled, can reach
/// solutions/ or the grader's corpus. Returns "" on success, else why it could not (then nothing
/// is hidden).
std::string hide_directories(const std::vector<std::string>& dirs);

/// The last `max_bytes` of a log file, as text (for reports).
std::string tail_of_file(const std::string& path, std::size_t max_bytes = 4000);

}  // namespace tut::exercise
