#include "common/exercise/checker.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "common/device_info.hpp"
#include "common/exercise/isolate.hpp"
#include "common/json.hpp"
#include "common/random.hpp"
#include "common/timing.hpp"

namespace tut::exercise {

// ------------------------------------------------------------------------------------------------
// Helpers for the chapters' descriptions

std::uint64_t SeededDraw::below(std::uint64_t count) {
  state_ = tut::mix64(state_);
  return state_ % count;
}

std::int64_t SeededDraw::between(std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo + 1)));
}

std::int64_t int_param(const CaseRequest& c, const std::string& name) {
  for (const auto& [k, v] : c.ints)
    if (k == name) return v;
  throw std::out_of_range("case " + c.name + " has no integer parameter " + name);
}

double real_param(const CaseRequest& c, const std::string& name) {
  for (const auto& [k, v] : c.reals)
    if (k == name) return v;
  throw std::out_of_range("case " + c.name + " has no real parameter " + name);
}

ArraySpec f32_array(const std::string& name, Role role, std::uint64_t count, std::uint32_t offset) {
  ArraySpec a;
  a.name = name;
  a.dtype = DType::f32;
  a.role = role;
  a.count = count;
  a.offset = offset;
  return a;
}

std::vector<unsigned char> random_f32_bytes(std::uint64_t count, std::uint64_t seed, float lo, float hi) {
  std::vector<unsigned char> bytes(count * sizeof(float));
  tut::fill_random(reinterpret_cast<float*>(bytes.data()), count, seed, lo, hi);
  return bytes;
}

Finding finding_of(const tut::ErrorStats& stats, const tut::Tolerance& tol, const std::string& what,
                   const tut::IndexFormatter& where, const std::string& nonfinite) {
  Finding f;
  f.passed = stats.passed(tol);
  if (!f.passed) {
    std::ostringstream os;
    os.precision(3);
    if (stats.over_tolerance() > 0 || stats.count() == 0) {
      os << stats.over_tolerance() << " of " << stats.count() << " " << what << " wrong (" << stats.nonfinite() << " "
         << nonfinite << ")";
    } else {
      os << "every one of the " << stats.count() << " " << what << " within its bound, but the normwise error "
         << stats.rel_norm_error() << " is above " << tol.max_rel_norm;
    }
    f.summary = os.str();
  }
  f.details = stats.describe(tol, where);
  return f;
}

std::size_t RunView::index_of(const std::string& name) const {
  for (std::size_t a = 0; a < c_.arrays.size(); ++a)
    if (c_.arrays[a].name == name) return a;
  throw std::out_of_range("case " + c_.name + " has no array " + name);
}

const std::vector<unsigned char>& RunView::input_bytes(const std::string& name) const {
  const std::size_t a = index_of(name);
  const std::vector<std::size_t> up = c_.uploaded();
  for (std::size_t i = 0; i < up.size(); ++i)
    if (up[i] == a) return c_.data[set_][i];
  throw std::invalid_argument("array " + name + " is not an input");
}

const float* RunView::input(const std::string& name) const {
  return reinterpret_cast<const float*>(input_bytes(name).data());
}

const std::vector<unsigned char>& RunView::output_bytes(const std::string& name) const {
  const std::size_t a = index_of(name);
  if (run_ == nullptr || a >= run_->arrays.size()) throw std::invalid_argument("no output " + name + " in this run");
  return run_->arrays[a].data;
}

const float* RunView::output(const std::string& name) const {
  return reinterpret_cast<const float*>(output_bytes(name).data());
}

namespace {

// ------------------------------------------------------------------------------------------------
// Options

constexpr std::uint64_t kPublicSeed = 20240601;
constexpr int kExitPassed = 0, kExitFailed = 1, kExitUsage = 2, kExitNotChecked = 77;

struct Options {
  std::string runner, solution, report, work, sanitizer;
  std::vector<std::string> more_runners;  // --cases none --speed: further runners timed in the same run
  std::string cases = "public";  // public | hidden | all
  bool have_seed = false;
  std::uint64_t seed = 0;
  std::vector<std::int64_t> extra_sizes;
  bool speed = false;
  int reps = 10;
  double timeout_s = 300.0;
  bool sandbox = true;
  bool list = false;
  bool keep = false;
  bool show_seed = false;
};

void usage(const Exercise& ex, std::ostream& os) {
  os << "usage: check_" << ex.chapter() << " --runner PATH [options]\n"
     << "Checks the exercise of chapter " << ex.chapter() << " (" << ex.file() << ") as built into the runner PATH\n"
     << "(build/bin/exercise_" << ex.chapter() << " or build/bin/solution_" << ex.chapter()
     << "): runs it on every case in a separate\nprocess and compares its outputs with the CPU reference.\n\n"
     << "  --runner PATH      the runner to check (required, except with --list)\n"
     << "  --solution PATH    with --speed: also time the solution's runner, for the ratio\n"
     << "  --cases WHICH      public (default), hidden (needs --seed), all, or none (with --speed: time only;\n"
     << "                     then --runner may be repeated, and each runner is timed against one solution run)\n"
     << "  --seed N           the secret seed of the hidden cases\n"
     << "  --extra-sizes L    comma-separated extra sizes for the hidden cases\n"
     << "  --speed            after the cases pass, time the timed case (every repetition checked)\n"
     << "  --reps N           timed repetitions (default 10)\n"
     << "  --sanitizer TOOL   run the runner under compute-sanitizer --tool TOOL (memcheck, racecheck, ...)\n"
     << "  --timeout S        wall-clock limit of one runner process, seconds (default 300)\n"
     << "  --report FILE      write the verdict as JSON\n"
     << "  --work DIR         where the request and response files go (default: a new folder in $TMPDIR)\n"
     << "  --keep             keep that folder\n"
     << "  --no-sandbox       run the runner without a private mount namespace or user change\n"
     << "  --show-seed        print the seed in case names (hidden by default)\n"
     << "  --list             list the public cases and exit (no GPU needed)\n"
     << "Exit status: 0 every case passed, 1 a case failed, 2 bad command line, 77 not checked (no GPU).\n"
     << "Students: python3 tools/exercise.py " << ex.chapter() << " builds, checks and times in one command.\n";
}

std::uint64_t parse_u64(const std::string& flag, const std::string& v) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) {
    throw std::invalid_argument(flag + ": expected a non-negative integer, got '" + v + "'");
  }
  return std::stoull(v);
}

Options parse(int argc, char** argv, const Exercise& ex) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + ": missing value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      usage(ex, std::cout);
      std::exit(0);
    } else if (a == "--runner") {
      if (o.runner.empty()) {
        o.runner = value();
      } else {
        o.more_runners.push_back(value());
      }
    } else if (a == "--solution") {
      o.solution = value();
    } else if (a == "--cases") {
      o.cases = value();
      if (o.cases != "public" && o.cases != "hidden" && o.cases != "all" && o.cases != "none") {
        throw std::invalid_argument("--cases: public, hidden, all or none");
      }
    } else if (a == "--seed") {
      o.seed = parse_u64(a, value());
      o.have_seed = true;
    } else if (a == "--extra-sizes") {
      std::stringstream ss(value());
      for (std::string item; std::getline(ss, item, ',');) {
        if (!item.empty()) o.extra_sizes.push_back(static_cast<std::int64_t>(parse_u64(a, item)));
      }
    } else if (a == "--speed") {
      o.speed = true;
    } else if (a == "--reps") {
      o.reps = static_cast<int>(parse_u64(a, value()));
      if (o.reps < 1 || o.reps > 1000) throw std::invalid_argument("--reps: 1 to 1000");
    } else if (a == "--sanitizer") {
      o.sanitizer = value();
    } else if (a == "--timeout") {
      o.timeout_s = static_cast<double>(parse_u64(a, value()));
      if (o.timeout_s < 1) throw std::invalid_argument("--timeout: at least 1 second");
    } else if (a == "--report") {
      o.report = value();
    } else if (a == "--work") {
      o.work = value();
    } else if (a == "--keep") {
      o.keep = true;
    } else if (a == "--no-sandbox") {
      o.sandbox = false;
    } else if (a == "--show-seed") {
      o.show_seed = true;
    } else if (a == "--list") {
      o.list = true;
    } else {
      throw std::invalid_argument("unknown flag " + a + " (see --help)");
    }
  }
  if (!o.list && o.runner.empty()) throw std::invalid_argument("--runner PATH is required (see --help)");
  if ((o.cases == "hidden" || o.cases == "all") && !o.have_seed) {
    throw std::invalid_argument("--cases " + o.cases + " needs --seed");
  }
  if (o.cases == "none" && !o.speed) throw std::invalid_argument("--cases none needs --speed");
  if (!o.more_runners.empty() && o.cases != "none") {
    throw std::invalid_argument("several --runner only with --cases none --speed");
  }
  return o;
}

// ------------------------------------------------------------------------------------------------
// One case's verdict

struct CaseVerdict {
  std::string name;
  std::string group;  // public | hidden
  bool passed = false;
  bool ran = false;
  std::string summary;
  std::string details;
};

/// Libraries a runner must not load: the vendor libraries the exercise is measured against.
std::string forbidden_library(const std::vector<std::string>& libraries) {
  static const char* const kForbidden[] = {"libcublas", "libcudnn", "libcufft", "libcusparse", "libcusolver",
                                           "libtorch", "libcutensor", "libnpp"};
  for (const std::string& lib : libraries) {
    const std::string base = std::filesystem::path(lib).filename().string();
    for (const char* f : kForbidden) {
      if (base.rfind(f, 0) == 0) return base;
    }
  }
  return "";
}

std::string hex_byte(unsigned char b) {
  std::ostringstream s;
  s << "0x" << std::hex << std::setw(2) << std::setfill('0') << static_cast<int>(b);
  return s.str();
}

/// "" if the guards of every array of a (non-timed) run hold kGuardByte and every pure input is
/// unchanged; otherwise what is wrong.
std::string check_guards_and_inputs(const CaseRequest& c, const RunBack& run) {
  const std::vector<std::size_t> up = c.uploaded();
  for (std::size_t a = 0; a < c.arrays.size(); ++a) {
    const ArraySpec& spec = c.arrays[a];
    const ArrayBack& back = run.arrays[a];
    for (std::size_t i = 0; i < back.before.size(); ++i) {
      if (back.before[i] != kGuardByte) {
        const std::size_t lead = back.before.size() - i;
        return "wrote before the start of " + spec.name + " (byte " + std::to_string(lead) + " before element 0 is " +
               hex_byte(back.before[i]) + ")";
      }
    }
    for (std::size_t i = 0; i < back.after.size(); ++i) {
      if (back.after[i] != kGuardByte) {
        return "wrote past the end of " + spec.name + " (byte " + std::to_string(i) + " after its last element)";
      }
    }
    if (spec.role == Role::in) {
      for (std::size_t u = 0; u < up.size(); ++u) {
        if (up[u] != a) continue;
        const std::vector<unsigned char>& sent = c.data[run.set][u];
        if (sent != back.data) {
          std::size_t at = 0;
          while (at < sent.size() && sent[at] == back.data[at]) ++at;
          return "modified its input " + spec.name + " (element " + std::to_string(at / dtype_bytes(spec.dtype)) + ")";
        }
      }
    }
  }
  return "";
}

/// Judges one answered correctness case.
void judge(const Exercise& ex, const CaseRequest& c, const CaseBack& back, CaseVerdict& v) {
  v.ran = true;
  if (!back.error.empty()) {
    v.summary = back.error;
    return;
  }
  if (const std::string lib = forbidden_library(back.libraries); !lib.empty()) {
    v.summary = "the runner loaded " + lib + ": the exercise must compute the answer with its own kernels";
    return;
  }
  if (back.runs.empty()) {
    v.summary = "no output came back";
    return;
  }
  if (c.sets >= 2) {
    if (!back.capture_error.empty()) {
      v.summary = "the launcher could not be captured into a CUDA graph: " + back.capture_error;
      v.details = "Launch every kernel on the stream the launcher is given (kernel<<<grid, block, smem, stream>>>),"
                  " and do not synchronize inside the launcher.";
      return;
    }
    if (back.kernel_nodes == 0) {
      v.summary = "the launcher launched no kernel: the answer must be computed on the GPU";
      return;
    }
    if (back.host_nodes > 0) {
      v.summary = "the launcher enqueued a host function: the answer must be computed on the GPU";
      return;
    }
    if (back.runs.size() < 2) {
      v.summary = "the captured run did not come back";
      return;
    }
    // The exchange the runner must have made: a direct run on set 0, then the captured graph on
    // set 1 (fresh inputs). Anything else is not what was asked, whatever its outputs.
    if (back.runs[0].set != 0 || back.runs[0].captured || back.runs[1].set != 1 || !back.runs[1].captured) {
      v.summary = "the runs came back in the wrong order: expected a direct run on input set 0, then the "
                  "captured graph on input set 1";
      return;
    }
  }
  for (const RunBack& run : back.runs) {
    const std::string when = run.captured ? " (in the captured graph, launched on fresh inputs)" : "";
    if (const std::string bad = check_guards_and_inputs(c, run); !bad.empty()) {
      v.summary = bad + when;
      return;
    }
    const RunView view(c, run.set, &run);
    const std::unique_ptr<Expected> expected = ex.expect(c, view);
    const Finding f = ex.compare(c, *expected, view);
    if (!f.passed) {
      v.summary = "wrong result" + when + ": " + f.summary;
      v.details = f.details;
      return;
    }
    v.summary = f.summary;
  }
  v.passed = true;
}

// ------------------------------------------------------------------------------------------------
// Running the runner

struct Work {
  std::string dir;
  bool keep = false;
  ~Work() {
    if (!keep && !dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  }
};

std::string make_work_dir(const Options& o) {
  std::string base = o.work;
  if (base.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    base = tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp";
  }
  std::filesystem::create_directories(base);
  std::string templ = (std::filesystem::path(base) / "tut-check-XXXXXX").string();
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) throw std::runtime_error("cannot create a work folder under " + base);
  std::string dir = std::filesystem::absolute(buf.data()).string();
  chmod(dir.c_str(), 0755);
  return dir;
}

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string dir; std::getline(ss, dir, ':');) {
      const std::string p = dir + "/" + name;
      if (access(p.c_str(), X_OK) == 0) return p;
    }
  }
  for (const char* root : {static_cast<const char*>(std::getenv("CUDA_HOME")), static_cast<const char*>(std::getenv("CUDA_PATH")), "/usr/local/cuda"}) {
    if (root == nullptr) continue;
    const std::string p = std::string(root) + "/bin/" + name;
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return name;
}

/// Describes how a runner process ended.
std::string describe_end(const IsolatedResult& r, double timeout_s) {
  if (r.timed_out) return "it ran past the time limit (" + std::to_string(static_cast<int>(timeout_s)) + " s) and was killed";
  if (r.signal != 0) return std::string("it was killed by signal ") + std::to_string(r.signal) + " (" + strsignal(r.signal) + ")";
  return "it exited with status " + std::to_string(r.exit_code);
}

struct RunOutcome {
  std::vector<bool> answered;
  std::vector<CaseBack> backs;
  std::vector<std::string> failure;  // per case: why it has no answer
  std::string sandbox;
  bool no_device = false;
};

/// Runs `runner` on every case of the request, restarting it after a case that kills it.
RunOutcome run_cases(const Options& o, const std::string& runner, const std::vector<CaseRequest>& cases,
                     const std::string& work, const std::string& tag) {
  RunOutcome out;
  out.answered.assign(cases.size(), false);
  out.backs.resize(cases.size());
  out.failure.assign(cases.size(), "");
  const std::string request = work + "/" + tag + ".request";
  write_request(request, cases);
  chmod(request.c_str(), 0644);
  std::uint32_t first = 0;
  constexpr int kMostStarts = 4;
  for (int start = 0; start < kMostStarts && first < cases.size(); ++start) {
    const std::string response = work + "/" + tag + ".response." + std::to_string(start);
    const std::string log = work + "/" + tag + ".log." + std::to_string(start);
    IsolatedCommand cmd;
    if (!o.sanitizer.empty()) {
      cmd.argv = {find_program("compute-sanitizer"), "--tool", o.sanitizer, "--error-exitcode", "99",
                  "--print-limit", "20"};
      if (o.sanitizer == "memcheck") cmd.argv.insert(cmd.argv.end(), {"--leak-check", "full"});
    }
    cmd.argv.insert(cmd.argv.end(), {std::filesystem::absolute(runner).string(), request, response, std::to_string(first)});
    cmd.work_dir = work;
    cmd.log_path = log;
    cmd.timeout_s = o.timeout_s;
    cmd.sandbox = o.sandbox;
    const IsolatedResult r = run_isolated(cmd);
    out.sandbox = r.sandbox;
    std::uint32_t last_answered = first;
    bool any = false;
    try {
      ResponseReader reader(response, cases);
      std::uint32_t index = 0;
      CaseBack back;
      while (reader.next(index, back)) {
        if (index < first) throw FormatError("an answer to a case that was not asked for in this run");
        out.answered[index] = true;
        out.backs[index] = std::move(back);
        last_answered = index;
        any = true;
      }
    } catch (const std::exception& e) {
      out.failure[first] = std::string("its response could not be read (") + e.what() + ")";
      for (std::size_t i = first + 1; i < cases.size(); ++i) out.failure[i] = "not run: the runner's response was unreadable";
      return out;
    }
    const std::uint32_t next = any ? last_answered + 1 : first;
    if (r.exit_code == 0 && !r.timed_out && next >= cases.size()) break;
    if (r.exit_code == 3 && !any && !r.timed_out) {
      out.no_device = true;
      for (std::size_t i = first; i < cases.size(); ++i) {
        out.failure[i] = "the runner found no usable CUDA device: " + tail_of_file(log, 400);
      }
      return out;
    }
    if (next >= cases.size()) {
      if (r.exit_code == 99) {
        // The sanitizer found errors after the last case: blame the whole run on the last case.
        out.answered[cases.size() - 1] = false;
        out.failure[cases.size() - 1] = "compute-sanitizer " + o.sanitizer + " reported errors:\n" + tail_of_file(log);
      }
      break;
    }
    std::string why = "the runner stopped in this case: " + describe_end(r, o.timeout_s);
    if (r.exit_code == 99) why = "compute-sanitizer " + o.sanitizer + " reported errors in this case";
    out.failure[next] = why + "\n" + tail_of_file(log);
    first = next + 1;
  }
  for (std::size_t i = first; i < cases.size(); ++i) {
    if (!out.answered[i] && out.failure[i].empty()) out.failure[i] = "not run: the runner failed " + std::to_string(kMostStarts) + " times";
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// The timed case

struct SpeedResult {
  bool ran = false, correct = false;
  std::string problem;
  std::string error;
  TimingStats stats;
  double gbps = 0.0, tflops = 0.0;
};

SpeedResult time_runner(const Options& o, const Exercise& ex, const std::string& runner, const CaseRequest& timed,
                        const std::string& work, const std::string& tag) {
  SpeedResult s;
  s.problem = timed.name;
  const std::vector<CaseRequest> cases = {timed};
  const RunOutcome out = run_cases(o, runner, cases, work, tag);
  if (!out.answered[0]) {
    s.error = out.failure[0];
    return s;
  }
  const CaseBack& back = out.backs[0];
  s.ran = true;
  if (!back.error.empty()) {
    s.error = back.error;
    return s;
  }
  if (const std::string lib = forbidden_library(back.libraries); !lib.empty()) {
    s.error = "the runner loaded " + lib;
    return s;
  }
  if (back.runs.size() != timed.reps) {
    s.error = std::to_string(back.runs.size()) + " of " + std::to_string(timed.reps) + " repetitions came back";
    return s;
  }
  std::map<std::uint32_t, std::unique_ptr<Expected>> expected;
  std::vector<double> ms;
  for (std::size_t r = 0; r < back.runs.size(); ++r) {
    const RunBack& run = back.runs[r];
    if (run.set != timed.order[r]) {
      s.error = "repetition " + std::to_string(r) + " came back for the wrong input set";
      return s;
    }
    const RunView view(timed, run.set, &run);
    auto& e = expected[run.set];
    if (!e) e = ex.expect(timed, view);
    const Finding f = ex.compare(timed, *e, view);
    if (!f.passed) {
      s.error = "repetition " + std::to_string(r + 1) + " of the timed run is wrong: " + f.summary;
      return s;
    }
    if (!(run.ms > 0.0) || !std::isfinite(run.ms)) {
      s.error = "repetition " + std::to_string(r + 1) + " has no valid time";
      return s;
    }
    ms.push_back(run.ms);
  }
  s.correct = true;
  s.stats = summarize(ms);
  const double seconds = s.stats.median_ms * 1e-3;
  s.gbps = ex.bytes(timed) / seconds / 1e9;
  s.tflops = ex.flops(timed) / seconds / 1e12;
  return s;
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

Json speed_json(const SpeedResult& s) {
  Json j = Json::object();
  j.set("correct", s.correct);
  if (!s.error.empty()) j.set("error", s.error);
  if (s.correct) {
    j.set("median_ms", s.stats.median_ms);
    j.set("min_ms", s.stats.min_ms);
    j.set("max_ms", s.stats.max_ms);
    j.set("reps", s.stats.reps);
    j.set("gbps", s.gbps);
    j.set("tflops", s.tflops);
  }
  return j;
}

/// Assigns every case its input sets (two, from its own seed) and returns the seeds' base.
void fill_inputs(const Exercise& ex, std::vector<CaseRequest>& cases, std::uint64_t base) {
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CaseRequest& c = cases[i];
    if (c.reps == 0) c.sets = 2;
    c.data.clear();
    for (std::uint32_t s = 0; s < c.sets; ++s) {
      c.data.push_back(ex.make_inputs(c, tut::derive_seed(tut::derive_seed(base, i), s)));
    }
  }
}

/// The timed case: each runner (the student's, or several with --cases none), and the solution
/// once, in this process's one run. Every repetition's outputs are checked. Returns the exit status.
int run_speed(const Options& o, const Exercise& ex, std::uint64_t base, const std::string& work, Json& report,
              std::string& speed_line) {
  CaseRequest timed = ex.speed_case();
  timed.reps = static_cast<std::uint32_t>(o.reps);
  timed.warmup = 2;
  timed.sets = 3;
  // Which input set each repetition runs on: a pattern the runner cannot know in advance.
  std::uint64_t state = tut::mix64(base ^ 0x71AEDull ^ static_cast<std::uint64_t>(getpid()));
  timed.order.clear();
  for (int r = 0; r < o.reps; ++r) {
    state = tut::mix64(state);
    timed.order.push_back(static_cast<std::uint32_t>(state % timed.sets));
  }
  std::vector<CaseRequest> one = {timed};
  fill_inputs(ex, one, tut::mix64(base ^ 0x7173Dull));
  timed = std::move(one[0]);
  std::cout << "Timing " << timed.name << " (" << o.reps << " repetitions, each on fresh inputs, every output checked)\n"
            << std::flush;

  SpeedResult sol;
  if (!o.solution.empty()) sol = time_runner(o, ex, o.solution, timed, work, "solution");
  double roof = 0.0;
  const double bytes = ex.bytes(timed);
  const bool memory_bound = bytes > 0 && ex.flops(timed) == 0;
  if (memory_bound) {
    TimingOptions t;
    t.reps = 10;
    roof = measure_copy_gbps(std::size_t{256} << 20, t);
  }
  std::vector<std::string> runners = {o.runner};
  runners.insert(runners.end(), o.more_runners.begin(), o.more_runners.end());
  Json all = Json::array();
  int status = kExitPassed;
  for (std::size_t i = 0; i < runners.size(); ++i) {
    const SpeedResult mine = time_runner(o, ex, runners[i], timed, work, "timed" + std::to_string(i));
    Json js = Json::object();
    js.set("problem", timed.name);
    js.set("runner", runners[i]);
    js.set("result", speed_json(mine));
    if (!o.solution.empty()) js.set("solution", speed_json(sol));
    if (roof > 0) js.set("copy_gbps", roof);
    const std::string who = runners.size() > 1 ? runners[i] + ": " : "";
    if (!mine.correct) {
      std::cout << "  " << who << "FAILED: " << mine.error << "\n";
      js.set("verdict", "failed");
      all.push(std::move(js));
      status = kExitFailed;
      speed_line = " The timed run FAILED: " + mine.error;
      continue;
    }
    std::ostringstream line;
    line << "  " << who << "yours:    " << fixed(mine.stats.median_ms, 4) << " ms (min " << fixed(mine.stats.min_ms, 4)
         << ", max " << fixed(mine.stats.max_ms, 4) << ")";
    if (memory_bound) line << "  " << fixed(mine.gbps, 1) << " GB/s";
    if (mine.tflops > 0) line << "  " << fixed(mine.tflops, 2) << " TFLOP/s";
    std::cout << line.str() << "\n";
    std::vector<std::string> flags;
    if (sol.correct) {
      const double ratio = sol.stats.median_ms / mine.stats.median_ms;
      js.set("vs_solution", ratio);
      std::cout << "  " << who << "solution: " << fixed(sol.stats.median_ms, 4) << " ms  -> yours runs at "
                << fixed(ratio, 2) << "x the solution's speed\n";
      speed_line = " Speed: " + fixed(ratio, 2) + "x the solution's.";
      if (ratio > 4.0) flags.push_back("more than 4x faster than the solution: implausible for this exercise");
    } else if (!o.solution.empty()) {
      std::cout << "  solution: " << sol.error << "\n";
    }
    if (memory_bound && mine.gbps > 1.15 * roof) {
      flags.push_back("faster than the GPU's memory allows (" + fixed(mine.gbps, 0) + " GB/s against a copy roof of " +
                      fixed(roof, 0) + " GB/s)");
    }
    Json jf = Json::array();
    for (const std::string& f : flags) {
      std::cout << "  " << who << "FLAG: " << f << "\n";
      jf.push(f);
    }
    js.set("flags", std::move(jf));
    js.set("verdict", "passed");
    if (!flags.empty()) speed_line += " Flagged: " + flags[0] + ".";
    all.push(std::move(js));
  }
  report.set("speed", std::move(all));
  return status;
}

}  // namespace

// ------------------------------------------------------------------------------------------------

int checker_main(int argc, char** argv, const Exercise& ex) {
  Options o;
  try {
    o = parse(argc, argv, ex);
  } catch (const std::exception& e) {
    std::cerr << "check_" << ex.chapter() << ": " << e.what() << "\n";
    return kExitUsage;
  }
  if (o.list) {
    std::cout << ex.chapter() << " exercise (" << ex.file() << "): public cases\n";
    for (const CaseRequest& c : ex.public_cases()) std::cout << "  " << c.name << "\n";
    std::cout << "timed case: " << ex.speed_case().name << "\n"
              << "hidden cases: drawn from the grader's secret seed (every parameter varies)\n";
    return kExitPassed;
  }
  std::vector<std::string> programs = {o.runner};
  programs.insert(programs.end(), o.more_runners.begin(), o.more_runners.end());
  if (!o.solution.empty()) programs.push_back(o.solution);
  for (const std::string& p : programs) {
    if (access(p.c_str(), X_OK) != 0) {
      std::cerr << "check_" << ex.chapter() << ": " << p << " is not an executable (build it first)\n";
      return kExitUsage;
    }
  }
  prepare_checker_process();
  std::cout << "Checking " << ex.file() << " (runner " << o.runner << ")\n" << std::flush;

  Json report = Json::object();
  report.set("chapter", ex.chapter());
  report.set("file", ex.file());
  report.set("runner", o.runner);
  const auto finish = [&](const std::string& verdict, const std::string& line, int status) {
    report.set("verdict", verdict);
    report.set("line", line);
    if (!o.report.empty()) {
      std::ofstream f(o.report);
      f << report.dump(2) << "\n";
    }
    std::cout << line << "\n" << std::flush;
    return status;
  };

  std::string why;
  if (!tut::cuda_device_available(&why)) {
    return finish("not checked",
                  "NOT CHECKED: no usable CUDA device (" + why + "). The " + ex.chapter() +
                      " exercise built, but nothing was run: check it on a machine with an NVIDIA GPU.",
                  kExitNotChecked);
  }
  const std::uint64_t base = o.have_seed ? o.seed : kPublicSeed;
  Work work;
  work.dir = make_work_dir(o);
  work.keep = o.keep;

  std::vector<CaseRequest> cases;
  std::vector<std::string> groups;
  if (o.cases == "public" || o.cases == "all") {
    // Public cases always use the public seed, so a student sees the same failures as the grader.
    std::vector<CaseRequest> pub = ex.public_cases();
    if (!o.sanitizer.empty()) {
      // The sanitizers run kernels 10-100x slower: they get the small cases (the same rule as the
      // ladder's tests under TUTORIAL_SANITIZE=1), which hold every boundary the large ones do.
      const std::size_t before = pub.size();
      pub.erase(std::remove_if(pub.begin(), pub.end(),
                               [&](const CaseRequest& c) { return ex.bytes(c) > 8e6 || ex.flops(c) > 2e8; }),
                pub.end());
      std::cout << "(compute-sanitizer " << o.sanitizer << ": " << pub.size() << " of the " << before
                << " public cases, those under 8 MB and 2e8 flops)\n";
    }
    fill_inputs(ex, pub, kPublicSeed);
    for (CaseRequest& c : pub) {
      cases.push_back(std::move(c));
      groups.push_back("public");
    }
  }
  if (o.cases == "hidden" || o.cases == "all") {
    std::vector<CaseRequest> hid = ex.hidden_cases(o.seed, o.extra_sizes);
    fill_inputs(ex, hid, tut::mix64(base ^ 0x5EC12E7ull));
    for (CaseRequest& c : hid) {
      cases.push_back(std::move(c));
      groups.push_back("hidden");
    }
  }

  if (!cases.empty()) {
    RunOutcome outcome;
    try {
      outcome = run_cases(o, o.runner, cases, work.dir, "cases");
    } catch (const std::exception& e) {
      return finish("error", std::string("ERROR: could not run the runner: ") + e.what(), kExitFailed);
    }
    report.set("isolation", outcome.sandbox);
    if (outcome.no_device) {
      return finish("failed",
                    "FAILED: the runner reported no usable CUDA device, but this machine has one: " + outcome.failure[0],
                    kExitFailed);
    }
    Json jcases = Json::array();
    std::size_t passed = 0;
    std::string first_failure;
    int shown = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      CaseVerdict v;
      v.name = cases[i].name;
      v.group = groups[i];
      if (outcome.answered[i]) {
        try {
          judge(ex, cases[i], outcome.backs[i], v);
        } catch (const std::exception& e) {
          v.passed = false;
          v.summary = std::string("its answer could not be checked: ") + e.what();
        }
      } else {
        v.summary = outcome.failure[i].empty() ? "no answer" : outcome.failure[i];
      }
      if (v.passed) ++passed;
      const std::string label = (v.group == "hidden" ? "hidden " : "") + v.name;
      if (v.passed) {
        std::cout << "  ok    " << label << "\n";
      } else {
        if (first_failure.empty()) first_failure = label + ": " + v.summary.substr(0, v.summary.find('\n'));
        std::cout << "  FAIL  " << label << "\n        " << v.summary << "\n";
        if (shown < 3 && !v.details.empty()) {
          std::istringstream lines(v.details);
          for (std::string line; std::getline(lines, line);) std::cout << "        " << line << "\n";
        }
        ++shown;
      }
      Json jc = Json::object();
      jc.set("name", v.name);
      jc.set("group", v.group);
      jc.set("passed", v.passed);
      jc.set("ran", v.ran);
      jc.set("summary", v.summary);
      if (!v.details.empty()) jc.set("details", v.details);
      jcases.push(std::move(jc));
    }
    std::cout << std::flush;
    report.set("cases", std::move(jcases));
    report.set("passed", static_cast<std::int64_t>(passed));
    report.set("total", static_cast<std::int64_t>(cases.size()));
    if (passed != cases.size()) {
      std::cout << "Hint: " << ex.hint() << "\n";
      return finish("failed",
                    "FAILED: " + std::to_string(cases.size() - passed) + " of " + std::to_string(cases.size()) +
                        " cases failed (first: " + first_failure + ")",
                    kExitFailed);
    }
  }

  std::string speed_line;
  if (o.speed) {
    const int status = run_speed(o, ex, base, work.dir, report, speed_line);
    if (status != kExitPassed) return finish("failed", "FAILED:" + speed_line, status);
  }
  if (cases.empty()) {
    // Only `--cases none` (a timed run alone) may end here with a verdict: any other selection
    // that left no case (a sanitizer's size filter, a chapter without hidden cases) checked nothing.
    if (o.cases == "none") return finish("passed", "TIMED:" + speed_line, kExitPassed);
    return finish("error", "ERROR: no case was left to check (--cases " + o.cases + ")", kExitFailed);
  }
  return finish("passed",
                "PASSED: all " + std::to_string(cases.size()) + " cases of the " + ex.chapter() + " exercise are correct." +
                    speed_line,
                kExitPassed);
}

}  // namespace tut::exercise
