#include "common/harness.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "common/check.hpp"
#include "common/nvtx.hpp"

namespace tut {

std::int64_t Problem::dim(const std::string& name) const {
  for (const auto& [k, v] : shape) {
    if (k == name) return v;
  }
  throw std::out_of_range("Problem '" + label + "' has no dimension '" + name + "'");
}

Session::Session(const CommonOptions& options, const DeviceInfo& device, std::vector<std::string> selected)
    : options_(options), device_(device), selected_(std::move(selected)) {
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  if (!options_.check_only) flusher_ = std::make_unique<L2Flusher>(device_.l2_bytes);
}

Session::~Session() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

bool Session::wants(const std::string& version) const {
  return std::find(selected_.begin(), selected_.end(), version) != selected_.end();
}

namespace {

bool stderr_is_terminal() {
  static const bool tty = isatty(fileno(stderr)) != 0;
  return tty;
}

}  // namespace

void Session::status(const std::string& what) {
  const std::string line = status_prefix_ + what;
  if (stderr_is_terminal()) {
    std::cerr << "\r\033[K" << line << std::flush;  // rewrite the line in place
    status_shown_ = true;
  } else {
    std::cerr << "... " << line << std::endl;
  }
}

void Session::clear_status() {
  if (status_shown_) std::cerr << "\r\033[K" << std::flush;
  status_shown_ = false;
}

void Session::start_problem_status(const Problem& problem, std::size_t index, std::size_t count) {
  status_prefix_ = "[" + std::to_string(index + 1) + "/" + std::to_string(count) + "] " + problem.label + ": ";
  status("inputs and CPU reference");
}

ProblemResult& Session::begin_problem(const Problem& problem, Metric metric, double peak, std::string peak_name) {
  ProblemResult p;
  p.label = problem.label;
  p.shape = problem.shape;
  p.dtype = problem.dtype;
  p.metric = metric;
  p.peak = peak;
  p.peak_name = std::move(peak_name);
  problems_.push_back(std::move(p));
  return problems_.back();
}

ProblemResult& Session::current() {
  if (problems_.empty()) throw std::logic_error("Session: measure() before begin_problem()");
  return problems_.back();
}

bool Session::measure(const Candidate& c, const std::string& chapter) {
  if (!wants(c.info.name)) return true;
  ResultRow row;
  row.info = c.info;
  row.bytes = c.bytes;
  row.flops = c.flops;
  if (!c.skip_reason.empty() || device_.cc() < c.info.min_cc) {
    row.skipped = true;
    row.skip_reason = !c.skip_reason.empty()
                          ? c.skip_reason
                          : "needs sm_" + std::to_string(c.info.min_cc) + ", this GPU is sm_" +
                                std::to_string(device_.cc());
    current().rows.push_back(row);
    return true;
  }

  NvtxRange range(c.info.name);  // nested in the chapter's range: "<chapter>/<version>" for ncu
  status(c.info.name + (options_.check_only ? " (check)" : " (check, time, re-check)"));
  const auto report_failure = [&](const ErrorStats& stats, const char* when) {
    clear_status();
    std::cerr << chapter << ": " << c.info.name << " is WRONG on " << current().label << " (" << when << ")\n  "
              << stats.describe(c.tolerance, c.where) << "\n";
  };

  // 1. Check: poisoned output, one run, compare with the CPU reference.
  c.poison(stream_);
  if (c.before_each) c.before_each(stream_);
  c.run(stream_);
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  const ErrorStats first = c.check();
  row.rel_err = first.rel_norm_error();
  row.max_abs_err = first.max_abs_error();
  row.correct = first.passed(c.tolerance);
  if (!row.correct) report_failure(first, "checked before timing");

  // 2. Time (only what is correct), then re-check what the last timed run left behind.
  if (row.correct && !options_.check_only) {
    TimingOptions t;
    t.warmup = static_cast<int>(options_.warmup);
    t.reps = static_cast<int>(options_.reps);
    t.budget_ms = options_.time_budget_ms;
    row.time = time_on_stream(c.run, t, stream_, flusher_.get(), c.before_each);
    const ErrorStats after = c.check();
    if (!after.passed(c.tolerance)) {
      row.correct = false;
      report_failure(after, "re-checked after timing");
    }
  }
  current().rows.push_back(row);
  return row.correct;
}

namespace {

double available_host_bytes() {
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? static_cast<double>(pages) * static_cast<double>(page_size) : 0.0;
}

void print_versions(const Chapter& chapter, const std::vector<VersionInfo>& versions) {
  std::size_t width = 4;
  for (const auto& v : versions) width = std::max(width, v.name.size());
  std::cout << chapter.name() << ": " << versions.size() << " versions\n";
  for (const auto& v : versions) {
    std::string name = v.name;
    name.resize(width, ' ');
    std::string kind = kind_name(v.kind);
    kind.resize(8, ' ');
    std::cout << "  " << name << "  " << kind << "  sm_" << v.min_cc << "+  " << v.summary << "\n";
  }
  if (!chapter.is_search()) {
    std::cout << "(the exercise has its own check: python3 tools/exercise.py " << chapter.name() << ")\n";
  }
}

std::vector<std::string> select_versions(const std::vector<VersionInfo>& versions,
                                         const std::vector<std::string>& requested) {
  std::vector<std::string> selected;
  if (requested.empty()) {
    for (const auto& v : versions) {
      if (v.kind != Kind::exercise) selected.push_back(v.name);
    }
    return selected;
  }
  for (const auto& name : requested) {
    const bool known = std::any_of(versions.begin(), versions.end(), [&](const VersionInfo& v) { return v.name == name; });
    if (!known) throw UsageError("unknown version '" + name + "' (see --list)");
    selected.push_back(name);
  }
  return selected;
}

void check_writable(const std::string& path, const char* flag) {
  if (path.empty()) return;
  std::ofstream probe(path, std::ios::app);
  if (!probe) throw UsageError(std::string(flag) + ": cannot write '" + path + "'");
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
}

}  // namespace

std::vector<std::int64_t> around_powers_of_two(const std::vector<int>& exponents) {
  std::vector<std::int64_t> sizes;
  for (int e : exponents) {
    for (std::int64_t d : {-1, 0, 1}) sizes.push_back((std::int64_t{1} << e) + d);
  }
  return sizes;
}

int chapter_main(Chapter& chapter, int argc, const char* const* argv) {
  const std::string name = chapter.name();
  try {
    CommonOptions options;
    Cli cli(name, chapter.description());
    add_common_options(cli, options);
    chapter.add_options(cli);
    const std::vector<std::string> given = cli.parse(argc, argv);
    if (std::find(given.begin(), given.end(), "--reps") != given.end() ||
        std::find(given.begin(), given.end(), "--warmup") != given.end()) {
      options.time_budget_ms = 0.0;  // asked for: exactly that many runs
    }
    if (options.help) {
      std::cout << cli.help();
      return kExitOk;
    }
    const std::vector<VersionInfo> versions = chapter.versions();
    if (options.list) {
      print_versions(chapter, versions);
      return kExitOk;
    }
    const std::vector<std::string> selected = select_versions(versions, options.versions);
    const std::vector<Problem> problems = chapter.problems(options.sweep);
    check_writable(options.json, "--json");
    check_writable(options.csv, "--csv");

    std::string why;
    if (!cuda_device_available(&why)) {
      std::cerr << name << ": no usable CUDA device (" << why
                << "). The chapters need an NVIDIA GPU; the CPU tests run without one.\n";
      return kExitNoDevice;
    }
    DeviceInfo device = query_device(0);
    const double host_free = available_host_bytes();
    for (const auto& p : problems) {
      // Leave headroom for the CUDA context, cuBLAS workspaces and the L2 flush buffer.
      const double device_limit = 0.9 * static_cast<double>(device.free_bytes) - 2.0 * device.l2_bytes;
      if (p.device_bytes > device_limit) {
        throw UsageError(p.label + " needs " + format_bytes(p.device_bytes) + " of GPU memory, but " + device.name +
                         " has " + format_bytes(static_cast<double>(device.free_bytes)) + " free");
      }
      if (host_free > 0 && p.host_bytes > 0.9 * host_free) {
        throw UsageError(p.label + " needs " + format_bytes(p.host_bytes) + " of host memory, but only " +
                         format_bytes(host_free) + " is available");
      }
    }

    std::cout << name << " on " << device.name << " (sm_" << device.cc() << ", " << device.sm_count << " SMs, L2 "
              << format_bytes(static_cast<double>(device.l2_bytes)) << ", "
              << format_bytes(static_cast<double>(device.global_bytes)) << ")" << std::endl;
    if (!options.check_only) {
      // The bandwidth roof: a large device-to-device copy, measured now, on this GPU.
      TimingOptions t;
      t.warmup = 3;
      t.reps = 20;
      device.copy_bytes = std::min<std::size_t>(std::size_t{1} << 30, device.free_bytes / 8);
      device.copy_gbps = measure_copy_gbps(device.copy_bytes, t);
      std::cout << "measured device-to-device copy: " << static_cast<long long>(device.copy_gbps + 0.5)
                << " GB/s (read + write, " << format_bytes(static_cast<double>(device.copy_bytes)) << " buffers)"
                << std::endl;
    }

    Session session(options, device, selected);
    NvtxRange chapter_range(name);  // each version's range nests inside this one
    for (std::size_t i = 0; i < problems.size(); ++i) {
      const Problem& p = problems[i];
      const std::size_t before = session.problems().size();
      session.start_problem_status(p, i, problems.size());
      chapter.run(p, session);
      session.clear_status();
      if (session.problems().size() == before) continue;  // no selected version in this problem
      ProblemResult& result = session.current();
      result.finalize();
      print_table(std::cout, result);
      std::cout << std::flush;  // a run stopped later (a timeout, Ctrl-C) keeps every table so far
    }

    RunReport report;
    report.chapter = name;
    report.git = git_commit();
    report.device = device;
    report.problems = session.problems();
    if (!options.json.empty()) write_file(options.json, report.to_json().dump(2) + "\n");
    if (!options.csv.empty()) write_file(options.csv, report.to_csv());

    bool all_correct = true;
    for (const auto& p : report.problems) {
      for (const auto& r : p.rows) all_correct = all_correct && (r.skipped || r.correct);
    }
    std::cout << (all_correct ? "\nall results correct\n" : "\nSOME RESULTS ARE WRONG (details above)\n");
    return all_correct ? kExitOk : kExitWrong;
  } catch (const UsageError& e) {
    std::cerr << name << ": error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const CudaError& e) {
    std::cerr << name << ": CUDA error: " << e.what() << "\n";
    return kExitCudaError;
  } catch (const std::exception& e) {
    std::cerr << name << ": error: " << e.what() << "\n";
    return kExitCudaError;
  }
}

}  // namespace tut
