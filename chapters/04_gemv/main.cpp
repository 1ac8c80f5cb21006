// Chapter 04 executable: runs every gemv version plus cublasSgemv on the default shapes (or
// one shape, or the size sweep), checks each against the CPU reference, times it, prints the
// tables: one for y = A x and one for y = A^T x per shape.
//
//   gemv                                # the default shapes, both products
//   gemv --m 4096 --k 33 --op ax        # one shape, one product
//   gemv --version v4_float4_ilp --version cublasSgemv_Ax
//   gemv --sweep --json sweep.json
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/harness.hpp"
#include "common/random.hpp"
#include "gemv.hpp"

namespace gemv {

namespace {

/// The default shapes (M, K): the five, plus one with short rows where v5 runs.
const std::vector<std::pair<std::int64_t, std::int64_t>>& default_shapes() {
  static const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {4096, 4096}, {8192, 8192}, {16384, 16384}, {65536, 1024}, {1024, 65536}, {2097152, 32}};
  return shapes;
}

/// Chapter 04 for tut::chapter_main().
class GemvChapter final : public tut::Chapter {
 public:
  std::string name() const override { return "gemv"; }
  std::string description() const override {
    return "Chapter 04: y = A x and y = A^T x (A row-major M x K, fp32) from one thread per row to "
           "cublasSgemv.";
  }

  void add_options(tut::Cli& cli) override {
    cli.add_int("--m", "M", "rows of A (with --k: one shape instead of the default list)", &m_, 1,
                (std::int64_t{1} << 31) - 1);
    cli.add_int("--k", "K", "columns of A (with --m)", &k_, 1, (std::int64_t{1} << 31) - 1);
    cli.add_choice("--op", "which product: ax (y = A x), atx (y = A^T x) or both (default)", &op_,
                   {"ax", "atx", "both"});
  }

  std::vector<tut::VersionInfo> versions() const override { return tut::infos_of(gemv::versions()); }

  std::vector<tut::Problem> problems(bool sweep) const override {
    if ((m_ > 0) != (k_ > 0)) throw tut::UsageError("--m and --k go together (one shape)");
    std::vector<std::pair<std::int64_t, std::int64_t>> shapes = default_shapes();
    if (m_ > 0) shapes = {{m_, k_}};
    if (sweep) {
      shapes.clear();
      for (int e : {10, 12, 13}) {
        for (std::int64_t d : {-1, 0, 1}) shapes.push_back({(std::int64_t{1} << e) + d, (std::int64_t{1} << e) + d});
      }
    }
    std::vector<tut::Problem> list;
    for (const auto& [M, K] : shapes) {
      for (const Op op : {Op::Ax, Op::ATx}) {
        if ((op == Op::Ax && op_ == "atx") || (op == Op::ATx && op_ == "ax")) continue;
        tut::Problem p;
        p.label = std::string(op_name(op)) + " " + std::to_string(M) + "x" + std::to_string(K);
        p.shape = {{"m", M}, {"k", K}, {"transposed", op == Op::ATx ? 1 : 0}};
        const double mk = static_cast<double>(M) * static_cast<double>(K);
        const double nx = static_cast<double>(x_length(op, M, K)), ny = static_cast<double>(y_length(op, M, K));
        p.device_bytes = 4.0 * (mk + nx + ny);
        p.host_bytes = 4.0 * (mk + nx + ny) + 16.0 * ny;  // host copies, plus the reference in double
        list.push_back(p);
      }
    }
    return list;
  }

  void run(const tut::Problem& problem, tut::Session& session) override {
    const Op op = problem.dim("transposed") != 0 ? Op::ATx : Op::Ax;
    const std::int64_t M = problem.dim("m"), K = problem.dim("k");
    bool selected = false;
    for (const auto& v : gemv::versions()) selected = selected || (v.op == op && session.wants(v.info.name));
    if (!selected) return;  // nothing to show in this table

    cublas_handle();  // created once, here, before anything is timed

    // Inputs: seeded uniform [-1, 1) on the GPU; host copies for the reference.
    const std::size_t nx = static_cast<std::size_t>(x_length(op, M, K));
    const std::size_t ny = static_cast<std::size_t>(y_length(op, M, K));
    tut::DeviceBuffer<float> A(static_cast<std::size_t>(M) * static_cast<std::size_t>(K)), x(nx), y(ny);
    tut::fill_random_device(A.data(), A.size(), tut::derive_seed(session.seed(), 0));
    tut::fill_random_device(x.data(), nx, tut::derive_seed(session.seed(), 1));
    Reference ref;
    {
      const std::vector<float> hA = A.to_host(), hx = x.to_host();
      ref = reference(op, hA.data(), hx.data(), M, K);
    }  // the host copy of A (up to 1 GiB) is freed here
    const tut::Tolerance tol = tolerance(ref.length);  // relative to sum_k |a_ik x_k|, per element (check())

    session.begin_problem(problem, tut::Metric::gbps, session.device().copy_gbps,
                          "device-to-device cudaMemcpy, measured at start-up");
    tut::ProblemResult& result = session.current();
    result.baseline = op == Op::Ax ? "v0_thread_per_row" : "t0_thread_per_column";
    result.library = op == Op::Ax ? "cublasSgemv_Ax" : "cublasSgemv_ATx";

    const auto measure = [&](const tut::VersionInfo& info, Launch launch, std::string skip) {
      tut::Candidate c;
      c.info = info;
      c.bytes = bytes_moved(M, K);
      c.flops = flops(M, K);
      c.tolerance = tol;
      c.skip_reason = std::move(skip);
      c.run = [&, launch](cudaStream_t s) { launch(A.data(), x.data(), y.data(), M, K, s); };
      c.poison = [&](cudaStream_t s) { y.poison(s); };
      c.check = [&]() {
        const std::vector<float> got = y.to_host();
        return check(got.data(), ref);
      };
      c.where = [](std::size_t i) { return "y[" + std::to_string(i) + "]"; };
      session.measure(c, name());
    };

    for (const auto& v : gemv::versions()) {
      if (v.op != op) continue;
      measure(v.info, v.launch, v.outside_range != nullptr ? v.outside_range(M, K) : "");
    }
  }

 private:
  std::int64_t m_ = 0;  // 0: the default shapes
  std::int64_t k_ = 0;
  std::string op_ = "both";
};

}  // namespace

}  // namespace gemv

int main(int argc, char** argv) {
  gemv::GemvChapter chapter;
  return tut::chapter_main(chapter, argc, argv);
}
