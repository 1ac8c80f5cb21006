#include "common/exercise/isolate.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace tut::exercise {

namespace {

constexpr uid_t kNobody = 65534;

/// The process group of the runner while it runs: killed if the checker itself is told to stop,
/// so that a checker killed at the grader's time limit never leaves a runner holding the GPU.
volatile sig_atomic_t g_running_group = 0;

void stop_with_the_runner(int sig) {
  if (g_running_group > 0) kill(-g_running_group, SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

bool write_text(const char* path, const std::string& text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

/// Undoes the octal escapes of /proc/self/mountinfo (a space is \040).
std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      out.push_back(static_cast<char>(std::strtol(s.substr(i + 1, 3).c_str(), nullptr, 8)));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

/// The mount points of this mount namespace, in mountinfo order.
std::vector<std::string> mount_points() {
  std::vector<std::string> points;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, devno, root, point;
    if (fields >> id >> parent >> devno >> root >> point) points.push_back(unescape(point));
  }
  return points;
}

bool under(const std::string& path, const std::string& dir) {
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

/// In a fresh mount namespace: every mount read-only except `work_dir` (bound onto itself) and
/// the kernel's /dev, /proc and /sys. Returns how many mounts could not be made read-only.
int make_read_only_except(const std::string& work_dir, std::string& error) {
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    error = errno_text("making the mounts private");
    return -1;
  }
  if (mount(work_dir.c_str(), work_dir.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
    error = errno_text("binding the work folder");
    return -1;
  }
  int failed = 0;
  for (const std::string& point : mount_points()) {
    if (point == work_dir || under(point, "/proc") || under(point, "/sys") || under(point, "/dev")) continue;
    struct statvfs st{};
    if (statvfs(point.c_str(), &st) != 0) continue;
    if (st.f_flag & ST_RDONLY) continue;
    unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY;
    // Flags the kernel may have locked must be kept, or the remount is refused.
    if (st.f_flag & ST_NOSUID) flags |= MS_NOSUID;
    if (st.f_flag & ST_NODEV) flags |= MS_NODEV;
    if (st.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
    if (st.f_flag & ST_NOATIME) flags |= MS_NOATIME;
    if (st.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
    if (st.f_flag & ST_RELATIME) flags |= MS_RELATIME;
    if (mount(nullptr, point.c_str(), nullptr, flags, nullptr) != 0) ++failed;
  }
  return failed;
}

/// Enters a new user namespace (with a mount namespace) in which this process is `inside_uid`,
/// mapped to `outside_uid` of the current one.
bool enter_user_namespace(uid_t inside_uid, uid_t outside_uid, gid_t inside_gid, gid_t outside_gid,
                          std::string& error) {
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
    error = errno_text("unshare(CLONE_NEWUSER | CLONE_NEWNS)");
    return false;
  }
  if (!write_text("/proc/self/setgroups", "deny") ||
      !write_text("/proc/self/uid_map", std::to_string(inside_uid) + " " + std::to_string(outside_uid) + " 1") ||
      !write_text("/proc/self/gid_map", std::to_string(inside_gid) + " " + std::to_string(outside_gid) + " 1")) {
    error = errno_text("writing the user namespace's id maps");
    return false;
  }
  return true;
}

/// True if `path` and every folder above it let others in (so the user nobody can run it).
bool others_can_reach(const std::string& path, mode_t need) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0 || (st.st_mode & need) != need) return false;
  for (std::string dir = path; !dir.empty() && dir != "/";) {
    const std::size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
    if (slash == std::string::npos) break;
    if (stat(dir.c_str(), &st) != 0 || !(st.st_mode & S_IXOTH)) return false;
  }
  return true;
}

/// True if others may read and write the GPU's device files (so the user nobody can use the GPU).
bool others_can_use_gpu() {
  struct stat st{};
  if (stat("/dev/nvidiactl", &st) != 0) return false;
  return (st.st_mode & (S_IROTH | S_IWOTH)) == (S_IROTH | S_IWOTH);
}

/// In the child: isolates the process as far as the system allows; returns what was done, in words.
/// `drop_to_nobody` is decided by the parent (root only, and only if nobody can run the program).
std::string isolate_child(const IsolatedCommand& cmd, bool drop_to_nobody, const std::string& why_not_nobody) {
  std::string error;
  std::string fs = "a writable file system";
  const bool root = geteuid() == 0;
  if (root) {
    if (unshare(CLONE_NEWNS) == 0) {
      const int failed = make_read_only_except(cmd.work_dir, error);
      fs = failed < 0 ? "a writable file system (" + error + ")"
                      : "a read-only file system except its work folder" +
                            (failed > 0 ? " (" + std::to_string(failed) + " mounts stayed writable)" : std::string());
    } else {
      fs = "a writable file system (" + errno_text("unshare(CLONE_NEWNS)") + ")";
    }
    std::string who = "as root (" + why_not_nobody + ")";
    if (drop_to_nobody) {
      if (setgroups(0, nullptr) == 0 && setgid(kNobody) == 0 && setuid(kNobody) == 0) {
        who = "as the user nobody";
      } else {
        who = "as root (" + errno_text("changing to the user nobody") + ")";
      }
    }
    return who + ", on " + fs;
  }
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  // Two nested user namespaces: in the first this process is root and makes the mounts read-only;
  // the second locks them (mounts inherited from a more privileged namespace cannot be made
  // writable again), and there the process is its ordinary self again.
  if (enter_user_namespace(0, uid, 0, gid, error)) {
    const int failed = make_read_only_except(cmd.work_dir, error);
    if (failed >= 0 && enter_user_namespace(uid, 0, gid, 0, error)) {
      fs = "a read-only file system except its work folder" +
           (failed > 0 ? " (" + std::to_string(failed) + " mounts stayed writable)" : std::string());
    } else {
      fs = "a writable file system (" + error + ")";
    }
  } else {
    fs = "a writable file system (" + error + ")";
  }
  return "as the grader's user, on " + fs;
}

std::vector<std::string> clean_environment(const IsolatedCommand& cmd) {
  std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + cmd.work_dir, "TMPDIR=" + cmd.work_dir,
                                  "LANG=C.UTF-8"};
  std::vector<std::string> keep = {"LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
                                   "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES"};
  keep.insert(keep.end(), cmd.keep_env.begin(), cmd.keep_env.end());
  for (const std::string& name : keep) {
    if (const char* v = std::getenv(name.c_str())) env.push_back(name + "=" + v);
  }
  return env;
}

/// The processes whose parent is this one (orphans of the runner are reparented here).
std::vector<pid_t> children_of_this_process() {
  std::vector<pid_t> kids;
  const pid_t self = getpid();
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return kids;
  while (dirent* e = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const std::size_t close_paren = text.rfind(')');
    if (close_paren == std::string::npos) continue;
    std::istringstream rest(text.substr(close_paren + 1));
    std::string state;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == self) kids.push_back(static_cast<pid_t>(pid));
  }
  closedir(proc);
  return kids;
}

/// Kills the runner's process group and every descendant reparented to this process.
void kill_leftovers(pid_t group) {
  kill(-group, SIGKILL);
  for (int round = 0; round < 50; ++round) {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    const std::vector<pid_t> kids = children_of_this_process();
    if (kids.empty()) return;
    for (pid_t k : kids) kill(k, SIGKILL);
    timespec pause{0, 2'000'000};
    nanosleep(&pause, nullptr);
  }
}

}  // namespace

std::string hide_directories(const std::vector<std::string>& dirs) {
  std::string error;
  if (geteuid() == 0) {
    if (unshare(CLONE_NEWNS) != 0) return errno_text("unshare(CLONE_NEWNS)");
  } else if (!enter_user_namespace(getuid(), getuid(), getgid(), getgid(), error)) {
    // Mapping the user to itself keeps the files the command writes its own; mounting inside the
    // namespace needs no more than that.
    return error;
  }
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return errno_text("making the mounts private");
  for (const std::string& dir : dirs) {
    struct stat st{};
    if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;  // nothing there to hide
    if (mount("tmpfs", dir.c_str(), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=555") != 0) {
      return errno_text(("hiding " + dir).c_str());
    }
  }
  return "";
}

void prepare_checker_process() {
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) signal(sig, stop_with_the_runner);
}

IsolatedResult run_isolated(const IsolatedCommand& cmd) {
  if (cmd.argv.empty()) throw std::invalid_argument("run_isolated: no command");
  IsolatedResult result;
  // Root runs the student's code as nobody where nobody can reach the program, its request and
  // the GPU; the work folder is then handed to nobody.
  bool drop = false;
  std::string why_not = "isolation is off";
  if (cmd.sandbox && geteuid() == 0) {
    if (!others_can_use_gpu()) {
      why_not = "the GPU's device files are not open to other users";
    } else if (!others_can_reach(cmd.argv[0], S_IXOTH)) {
      why_not = cmd.argv[0] + " is not reachable by other users";
    } else if (!others_can_reach(cmd.work_dir + "/.", 0)) {
      why_not = "the work folder " + cmd.work_dir + " is inside a folder other users cannot enter";
    } else {
      drop = true;
      bool all_readable = true;
      for (std::size_t i = 1; i < cmd.argv.size(); ++i) {
        if (cmd.argv[i].rfind(cmd.work_dir, 0) == 0) continue;  // files in the work folder are handed over below
        if (cmd.argv[i].find('/') != std::string::npos && access(cmd.argv[i].c_str(), F_OK) == 0 &&
            !others_can_reach(cmd.argv[i], S_IROTH)) {
          all_readable = false;
        }
      }
      if (!all_readable) {
        drop = false;
        why_not = "an argument's file is not readable by other users";
      }
      if (drop && chown(cmd.work_dir.c_str(), kNobody, kNobody) != 0) {
        drop = false;
        why_not = errno_text("handing the work folder to nobody");
      }
    }
  }
  if (drop) {
    // Everything the runner must read or write in its folder becomes nobody's.
    if (DIR* d = opendir(cmd.work_dir.c_str())) {
      while (dirent* e = readdir(d)) {
        if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
        const std::string p = cmd.work_dir + "/" + e->d_name;
        if (chown(p.c_str(), kNobody, kNobody) != 0) {
          // readable anyway if its mode allows; the runner reports what it cannot open
        }
      }
      closedir(d);
    }
  }

  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) throw std::runtime_error(errno_text("pipe2"));
  const std::vector<std::string> env = clean_environment(cmd);
  std::vector<char*> argv, envp;
  for (const std::string& a : cmd.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const int log = open(cmd.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) throw std::runtime_error(errno_text(("opening " + cmd.log_path).c_str()));
  if (drop && fchown(log, kNobody, kNobody) != 0) {
    // the log is opened before the change of user, so the runner can still write it
  }
  const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(errno_text("fork"));
  if (pid == 0) {
    // The child. Strictly, only async-signal-safe work is safe after fork() in a threaded program;
    // the checker's own threads have all been joined by now (the CUDA driver's may not be), and
    // glibc resets malloc's locks in the child, so the allocations below cannot deadlock.
    close(report[0]);
    setsid();
    dup2(devnull, 0);
    dup2(log, 1);
    dup2(log, 2);
    const long most = std::min<long>(sysconf(_SC_OPEN_MAX), 65536);
    for (int fd = 3; fd < most; ++fd) {
      if (fd != report[1]) close(fd);
    }
    rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    rlimit fsize{rlim_t{16} << 30, rlim_t{16} << 30};  // 16 GiB per file
    setrlimit(RLIMIT_FSIZE, &fsize);
    std::string how = "a clean environment and a time limit, " +
                      (cmd.sandbox ? isolate_child(cmd, drop, why_not) : std::string("without isolation (--no-sandbox)"));
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if (chdir(cmd.work_dir.c_str()) != 0) {
      how = "!cannot enter " + cmd.work_dir;
    } else {
      how += "\n";
      if (write(report[1], how.data(), how.size()) < 0) _exit(126);
      execve(argv[0], argv.data(), envp.data());
      how = std::string("!cannot run ") + argv[0] + ": " + std::strerror(errno);
    }
    if (write(report[1], how.data(), how.size()) < 0) _exit(126);
    _exit(127);
  }
  g_running_group = pid;
  close(report[1]);
  close(log);
  close(devnull);
  std::string said;
  char buf[512];
  for (ssize_t n; (n = read(report[0], buf, sizeof buf)) > 0;) said.append(buf, static_cast<std::size_t>(n));
  close(report[0]);

  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > cmd.timeout_s) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.timed_out = true;
      break;
    }
    timespec pause{0, 5'000'000};
    nanosleep(&pause, nullptr);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  kill_leftovers(pid);
  g_running_group = 0;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  const std::size_t bang = said.rfind("\n!") != std::string::npos ? said.rfind("\n!") + 1 : (said.rfind('!', 0) == 0 ? 0 : std::string::npos);
  if (bang != std::string::npos) throw std::runtime_error(said.substr(bang + 1));
  while (!said.empty() && said.back() == '\n') said.pop_back();
  result.sandbox = said;
  return result;
}

std::string tail_of_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > static_cast<std::streamoff>(max_bytes) ? size - static_cast<std::streamoff>(max_bytes) : 0;
  in.seekg(from);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : text) {
    if ((static_cast<unsigned char>(c) < 32 && c != '\n' && c != '\t') || static_cast<unsigned char>(c) == 127) c = '?';
  }
  return (from > 0 ? "...\n" : "") + text;
}

}  // namespace tut::exercise
