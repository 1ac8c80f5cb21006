// Chapter 02 executable: runs every reduction version plus CUB (sum, max) and cuBLAS (dot) on
// one problem per operation (or the size sweep), checks each against the CPU reference, times
// it, prints the tables.
//
//   reduce                              # n = 2^28 floats: sum, max and dot tables
//   reduce --op sum --n 4097            # one operation, an odd size
//   reduce --op sum --dist positive     # data with a large mean: watch v0's serial sum drift
//   reduce --version v7_one_pass --version cub --op sum
//   reduce --sweep --json sweep.json
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/harness.hpp"
#include "common/random.hpp"
#include "reduce.hpp"

namespace reduce {

namespace {

/// The operation a value of --op names (one of sum, max, dot: the flag accepts no other).
Operation operation_named(const std::string& op) {
  if (op == "max") return Operation::max;
  if (op == "dot") return Operation::dot;
  return Operation::sum;
}

/// Chapter 02 for tut::chapter_main().
class ReduceChapter final : public tut::Chapter {
 public:
  std::string name() const override { return "reduce"; }
  std::string description() const override {
    return "Chapter 02: reductions (sum, max, dot) from global atomics to one-pass float4 kernels, against CUB and "
           "cuBLAS.";
  }

  void add_options(tut::Cli& cli) override {
    cli.add_int("--n", "N", "elements to reduce (default 2^28)", &n_, 1, std::int64_t{1} << 36);
    cli.add_choice("--op", "the reduction: sum, max, dot, or all (default: all three tables)", &op_,
                   {"all", "sum", "max", "dot"});
    cli.add_choice("--dist", "input values: signed = uniform [-1, 1) (default), positive = uniform [0, 1)", &dist_,
                   {"signed", "positive"});
    cli.add_int("--offset", "K", "start the inputs K floats past a 16-byte boundary (0..3)", &offset_, 0, 3);
  }

  std::vector<tut::VersionInfo> versions() const override { return tut::infos_of(reduce::versions()); }

  std::vector<tut::Problem> problems(bool sweep) const override {
    const std::vector<std::int64_t> sizes = sweep ? tut::around_powers_of_two({10, 14, 18, 22, 26}) : std::vector{n_};
    std::vector<Operation> ops = {Operation::sum, Operation::max, Operation::dot};
    if (op_ != "all") ops = {operation_named(op_)};
    std::vector<tut::Problem> list;
    for (std::int64_t n : sizes) {
      for (Operation op : ops) {
        tut::Problem p;
        p.label = std::string(operation_name(op)) + " n=" + std::to_string(n) +
                  (offset_ ? " offset=" + std::to_string(offset_) : "") + (dist_ != "signed" ? " " + dist_ : "");
        p.shape = {{"n", n}, {"offset", offset_}};
        p.what = op;  // run() reads it back with as<Operation>()
        const double inputs = op == Operation::dot ? 2.0 : 1.0;
        const double elems = static_cast<double>(n + offset_);
        p.device_bytes = inputs * 4.0 * elems + 4.0 * static_cast<double>(workspace_floats(n)) + 64.0 * 1024 * 1024;
        p.host_bytes = inputs * 4.0 * elems;  // host copies of the inputs, for the reference
        list.push_back(p);
      }
    }
    return list;
  }

  void run(const tut::Problem& problem, tut::Session& session) override {
    const Operation op = problem.as<Operation>();
    const std::int64_t n = problem.dim("n");
    const std::int64_t off = problem.dim("offset");
    bool selected = false;
    for (const auto& v : reduce::versions()) {
      selected = selected || ((v.ops & operation_bit(op)) && session.wants(v.info.name));
    }
    if (!selected) return;  // nothing to show in this table

    // Inputs: made on the GPU from the seeded hash, copied back once for the reference.
    const float lo = dist_ == "positive" ? 0.0f : -1.0f, hi = 1.0f;
    const std::size_t total = static_cast<std::size_t>(n + off);
    tut::DeviceBuffer<float> x(total), y(op == Operation::dot ? total : 0), out(1);
    tut::fill_random_device(x.data(), total, tut::derive_seed(session.seed(), 0), lo, hi);
    if (op == Operation::dot) tut::fill_random_device(y.data(), total, tut::derive_seed(session.seed(), 1), lo, hi);
    const std::vector<float> hx = x.to_host(), hy = y.to_host();
    const float* dx = x.data() + off;
    const float* dy = op == Operation::dot ? y.data() + off : nullptr;
    const Reference ref = reference(op, hx.data() + off, op == Operation::dot ? hy.data() + off : nullptr,
                                    static_cast<std::size_t>(n));
    Workspace ws(n);  // allocated once, outside every timed run

    session.begin_problem(problem, tut::Metric::gbps, session.device().copy_gbps,
                          "device-to-device cudaMemcpy, measured at start-up (a reduction reads " +
                              std::string(op == Operation::dot ? "two streams" : "one stream") + ")");
    tut::ProblemResult& result = session.current();
    result.baseline = "v0_atomic";
    result.library = op == Operation::dot ? "cublas" : "cub";

    // Each version is held to the error bound of its own summation order (v0's serial chain of
    // atomics: a bound that grows like n; the trees: like log2 n). The table's error column
    // shows what each order really does on this data.
    const auto measure = [&](const tut::VersionInfo& info, Order order, std::function<void(cudaStream_t)> run_once) {
      const tut::Tolerance tol = tolerance(op, n, order);
      tut::Candidate c;
      c.info = info;
      c.bytes = 4.0 * (op == Operation::dot ? 2.0 : 1.0) * static_cast<double>(n);  // each input read once
      c.tolerance = tol;
      c.run = std::move(run_once);
      c.poison = [&](cudaStream_t s) { out.poison(s); };
      c.check = [&, tol]() {
        tut::ErrorStats stats;
        stats.add(0, out.to_host()[0], ref.value, ref.magnitude, tol);  // relative to sum|term|, not |sum|
        return stats;
      };
      session.measure(c, name());
    };

    for (const auto& v : reduce::versions()) {
      if (!(v.ops & operation_bit(op))) continue;
      const Launch launch = v.launch;
      measure(v.info, v.order, [&, launch](cudaStream_t s) { launch(op, dx, dy, out.data(), n, ws, s); });
    }
  }

 private:
  std::int64_t n_ = std::int64_t{1} << 28;
  std::string op_ = "all";
  std::string dist_ = "signed";
  std::int64_t offset_ = 0;
};

}  // namespace

}  // namespace reduce

int main(int argc, char** argv) {
  reduce::ReduceChapter chapter;
  return tut::chapter_main(chapter, argc, argv);
}
