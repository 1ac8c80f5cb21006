// Chapter 06 executable: runs every GEMM version plus the cuBLAS baselines, one table per size and
// precision (fp32, tf32, bf16), checks each against the CPU reference, times it, prints the tables.
//
//   gemm                                     # 1024^3 .. 8192^3 and 4095 x 4097 x 1023, all precisions
//   gemm --m 4095 --n 4097 --k 1023 --dtype fp32
//   gemm --alpha 1.5 --beta -0.5 --m 1000 --n 1000 --k 1000   # beta != 0: C is restored before each run
//   gemm --tune --json gemm_tune.json        # the tuning search of v8 at 4096^3
//   gemm --tune --dtype bf16 --json gemm_tune_bf16.json   # the search of v10 (BF16 mma.sync) at 8192^3
//   gemm --version v8_tuned --version cublas_sgemm
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/harness.hpp"
#include "common/random.hpp"
#include "gemm.hpp"

namespace gemm {

namespace {

/// The tuning search's candidates, as rows of the `--tune` table: v8's and v11's (fp32) or
/// v10's (bf16). v10's candidates are sized for Hopper's shared memory (up to 192 KiB per
/// block): sm_90 only.
std::vector<tut::ExtraRow<Kernel>> tune_rows(Precision p) {
  std::vector<tut::ExtraRow<Kernel>> rows;
  if (p == Precision::bf16) {
    for (const auto& cand : tune_candidates_bf16()) {
      rows.push_back({{cand.name, cand.summary + (cand.is_tuned ? " (v10_mma_bf16)" : ""), 90, tut::Kind::ours},
                      {Precision::bf16, nullptr, cand.launch}});
    }
    return rows;
  }
  for (const auto& cand : tune_candidates()) {
    rows.push_back({{cand.name, cand.summary + (cand.is_tuned ? " (v8_tuned)" : ""), 80, tut::Kind::ours},
                    {Precision::fp32, cand.launch, nullptr}});
  }
  for (const auto& cand : shape_candidates()) {
    rows.push_back({{cand.name, cand.summary, 80, tut::Kind::ours}, {Precision::fp32, cand.launch, nullptr}});
  }
  return rows;
}

/// Parses --alpha / --beta.
float parse_scalar(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0' || !std::isfinite(v) || std::fabs(v) > 1e30) {
    throw tut::UsageError(flag + ": expected a finite number (got '" + text + "')");
  }
  return static_cast<float>(v);
}

std::string shape_text(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

/// Device and host copies of one problem's operands, in the precision of its table.
struct Operands {
  Shape s;
  tut::DeviceBuffer<float> a32, b32;           // fp32 inputs (TF32-rounded in the tf32 table)
  tut::DeviceBuffer<__nv_bfloat16> a16, b16;   // bf16 inputs (bf16 table only)
  tut::DeviceBuffer<float> c, c0;              // output; C's initial value (beta != 0 only)
  std::vector<float> ha, hb, hc0;              // what the kernels see, as floats, for the reference
};

/// Chapter 06 for tut::chapter_main().
class GemmChapter final : public tut::Chapter {
 public:
  std::string name() const override { return "gemm"; }
  std::string description() const override {
    return "Chapter 06: GEMM (C = alpha A B + beta C, row-major), from a naive kernel to cuBLAS-class SGEMM, "
           "then TF32 and BF16 tensor cores, each against cuBLAS of the same precision.";
  }

  void add_options(tut::Cli& cli) override {
    cli.add_int("--m", "M", "rows of A and C (with --n/--k: one problem; unset ones default to 4096)", &m_, 1,
                std::int64_t{1} << 20);
    cli.add_int("--n", "N", "columns of B and C", &n_, 1, std::int64_t{1} << 20);
    cli.add_int("--k", "K", "inner dimension", &k_, 1, std::int64_t{1} << 20);
    cli.add_choice("--dtype", "which tables: fp32 (CUDA cores), tf32, bf16 (tensor cores), or all (default)",
                   &dtype_, {"all", "fp32", "tf32", "bf16"});
    cli.add_string("--alpha", "X", "alpha (default 1)", &alpha_text_);
    cli.add_string("--beta", "X", "beta (default 0; nonzero: C is read, and restored before every run)", &beta_text_);
    cli.add_flag("--tune",
                 "the tuning search: v8's candidates at 4096^3, or with --dtype bf16 v10's at 8192^3 (or --m/--n/--k)",
                 &tune_);
    cli.add_flag("--all-sizes", "run the slow versions (v0-v2) at every size instead of skipping large ones",
                 &all_sizes_);
  }

  std::vector<tut::VersionInfo> versions() const override {
    std::vector<tut::VersionInfo> all;
    for (const auto& v : gemm::versions()) all.push_back(v.info);
    if (tune_) {
      for (Precision p : {Precision::fp32, Precision::bf16}) {
        for (const auto& r : tune_rows(p)) all.push_back(r.info);
      }
    }
    return all;
  }

  std::vector<tut::Problem> problems(bool sweep) const override {
    alpha_ = alpha_text_.empty() ? 1.0f : parse_scalar("--alpha", alpha_text_);
    beta_ = beta_text_.empty() ? 0.0f : parse_scalar("--beta", beta_text_);
    const bool given = m_ > 0 || n_ > 0 || k_ > 0;
    const auto dim = [](std::int64_t v) { return v > 0 ? v : 4096; };
    std::vector<Shape> shapes;
    if (given) {
      shapes.push_back({dim(m_), dim(n_), dim(k_)});
    } else if (tune_) {
      // v8's search at 4096^3; v10's at 8192^3, the size its target (half of cuBLAS BF16) is set at.
      shapes.push_back(dtype_ == "bf16" ? Shape{8192, 8192, 8192} : Shape{4096, 4096, 4096});
    } else if (sweep) {
      for (std::int64_t p : {128, 256, 512, 1024, 2048}) {
        for (std::int64_t d : {-1, 0, 1}) shapes.push_back({p + d, p + d, p + d});
      }
      shapes.push_back({1000, 1000, 1000});
      shapes.push_back({4095, 4097, 1023});
    } else {
      shapes = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}, {4095, 4097, 1023}};
    }
    std::vector<Precision> precisions;
    // --tune: v8's search (fp32) unless --dtype bf16 asks for v10's; --dtype tf32 has no search.
    if (tune_ && dtype_ == "tf32") throw tut::UsageError("--tune: there is no tf32 search (use --dtype fp32 or bf16)");
    if (dtype_ == "fp32" || dtype_ == "all") precisions.push_back(Precision::fp32);
    if (!tune_ && (dtype_ == "tf32" || dtype_ == "all")) precisions.push_back(Precision::tf32);
    if (dtype_ == "bf16" || (!tune_ && dtype_ == "all")) precisions.push_back(Precision::bf16);

    std::vector<tut::Problem> list;
    for (const Shape& s : shapes) {
      for (Precision p : precisions) {
        tut::Problem prob;
        prob.label = std::string(tune_ ? "tune " : "") + precision_name(p) + " " + shape_text(s);
        if (alpha_ != 1.0f || beta_ != 0.0f) {
          prob.label += " alpha=" + alpha_text_ + " beta=" + (beta_text_.empty() ? "0" : beta_text_);
        }
        prob.shape = {{"m", s.m}, {"n", s.n}, {"k", s.k}};
        prob.dtype = precision_name(p);
        const double mk = static_cast<double>(s.m) * s.k, kn = static_cast<double>(s.k) * s.n,
                     mn = static_cast<double>(s.m) * s.n;
        const double c_copies = beta_ != 0.0f ? 2.0 : 1.0;
        prob.device_bytes = 4.0 * (mk + kn) + 4.0 * mn * c_copies + (p == Precision::bf16 ? 2.0 * (mk + kn) : 0.0);
        const bool full = mn * s.k <= kFullReferenceMacs && mn <= 67108864.0;  // values and magnitudes in double
        prob.host_bytes = 4.0 * (mk + kn) + 4.0 * mn * c_copies + (full ? 16.0 * mn : 4.0 * kn + 1e6) +
                          (p == Precision::bf16 ? 2.0 * (mk + kn) : 0.0);
        list.push_back(prob);
      }
    }
    return list;
  }

  void run(const tut::Problem& problem, tut::Session& session) override {
    const Precision prec = problem.dtype == "bf16" ? Precision::bf16
                           : problem.dtype == "tf32" ? Precision::tf32
                                                     : Precision::fp32;
    const bool tuning = problem.label.rfind("tune ", 0) == 0;
    const Shape s{problem.dim("m"), problem.dim("n"), problem.dim("k")};

    // The rows of this table: the registry's versions of this precision, or, when tuning, the
    // candidates plus cuBLAS SGEMM.
    struct Row {
      tut::VersionInfo info;
      Kernel kernel;
      double max_flops;
      std::string (*unavailable)();
    };
    std::vector<Row> rows;
    std::string library;
    if (tuning) {
      for (const auto& r : tune_rows(prec)) rows.push_back({r.info, r.run, 0.0, nullptr});
    }
    for (const auto& v : gemm::versions()) {
      if (v.kernel.precision != prec) continue;
      if (tuning && v.info.kind != tut::Kind::library) continue;
      rows.push_back({v.info, v.kernel, v.max_flops, v.unavailable});
      if (v.info.kind == tut::Kind::library) library = v.info.name;
    }
    bool any = false;
    for (const auto& r : rows) any = any || session.wants(r.info.name);
    if (!any) return;

    Operands ops = make_operands(s, prec, session.seed(), session.stream());
    const Reference ref = make_reference(s, alpha_, ops.ha.data(), ops.hb.data(), beta_,
                                         beta_ != 0.0f ? ops.hc0.data() : nullptr, session.seed() ^ 0x5eed5u);
    const tut::Tolerance tol = tolerance(prec, s.k);
    std::vector<float> got(static_cast<std::size_t>(s.m * s.n));

    session.begin_problem(problem, tut::Metric::tflops, 0.0, library + " in this run (the library's own rate)");
    session.current().library = library;

    const double flops = gemm_flops(s);
    const double in_bytes = prec == Precision::bf16 ? 2.0 : 4.0;
    for (const Row& row : rows) {
      tut::Candidate c;
      c.info = row.info;
      c.flops = flops;
      c.bytes = in_bytes * (static_cast<double>(s.m) * s.k + static_cast<double>(s.k) * s.n) +
                4.0 * static_cast<double>(s.m) * s.n * (beta_ != 0.0f ? 2.0 : 1.0);
      c.tolerance = tol;
      const std::int64_t n_cols = s.n;
      c.where = [n_cols](std::size_t i) { return format_index(i, n_cols); };
      if (!all_sizes_ && row.max_flops > 0.0 && flops > row.max_flops * 1.0001) {
        const long long side = std::llround(std::cbrt(row.max_flops / 2.0));
        c.skip_reason = "too slow at this size (runs up to " + std::to_string(side) + "^3: see that table, or --all-sizes)";
      }
      if (row.unavailable != nullptr && session.device().cc() >= row.info.min_cc) {
        c.skip_reason = row.unavailable();  // e.g. a build without sm_90a code for the Hopper steps
      }
      const Kernel kern = row.kernel;
      const float alpha = alpha_, beta = beta_;
      c.run = [&ops, kern, alpha, beta, s](cudaStream_t st) {
        if (kern.precision == Precision::bf16) {
          kern.bf16(s.m, s.n, s.k, alpha, ops.a16.data(), ops.b16.data(), beta, ops.c.data(), st);
        } else {
          kern.f32(s.m, s.n, s.k, alpha, ops.a32.data(), ops.b32.data(), beta, ops.c.data(), st);
        }
      };
      c.poison = [&ops](cudaStream_t st) { ops.c.poison(st); };
      if (beta_ != 0.0f) {
        // beta != 0 reads C: every run (checked or timed) starts from the same C0, restored untimed.
        c.before_each = [&ops](cudaStream_t st) {
          CUDA_CHECK(cudaMemcpyAsync(ops.c.data(), ops.c0.data(), ops.c.bytes(), cudaMemcpyDeviceToDevice, st));
        };
      }
      c.check = [&ops, &got, &ref, tol]() {
        CUDA_CHECK(cudaMemcpy(got.data(), ops.c.data(), ops.c.bytes(), cudaMemcpyDeviceToHost));
        return check_output(ref, got.data(), tol);
      };
      session.measure(c, name());
    }

    // The peak of this table is the library's measured rate: % of peak = % of cuBLAS.
    tut::ProblemResult& result = session.current();
    if (const tut::ResultRow* lib = result.find(library); lib != nullptr && lib->time.reps > 0 && lib->time.median_ms > 0) {
      result.peak = flops / (lib->time.median_ms * 1e-3) / 1e12;
    }
    if (!ref.full) {
      std::cout << "(" << problem.label << ": checked on " << ref.index.size()
                << " sampled elements, each a K-long dot product in double on the CPU)\n";
    }
  }

 private:
  /// Generates the inputs on the device (seeded hash), converts them to the table's precision,
  /// and downloads what the kernels see for the CPU reference.
  Operands make_operands(const Shape& s, Precision prec, std::uint64_t seed, cudaStream_t stream) const {
    Operands ops;
    ops.s = s;
    const std::size_t mk = static_cast<std::size_t>(s.m * s.k), kn = static_cast<std::size_t>(s.k * s.n),
                      mn = static_cast<std::size_t>(s.m * s.n);
    ops.a32 = tut::DeviceBuffer<float>(mk);
    ops.b32 = tut::DeviceBuffer<float>(kn);
    ops.c = tut::DeviceBuffer<float>(mn);
    tut::fill_random_device(ops.a32.data(), mk, tut::derive_seed(seed, 0), -1.0f, 1.0f, stream);
    tut::fill_random_device(ops.b32.data(), kn, tut::derive_seed(seed, 1), -1.0f, 1.0f, stream);
    if (beta_ != 0.0f) {
      ops.c0 = tut::DeviceBuffer<float>(mn);
      tut::fill_random_device(ops.c0.data(), mn, tut::derive_seed(seed, 2), -1.0f, 1.0f, stream);
    }
    if (prec == Precision::tf32) {  // once, outside timing; in place
      round_to_tf32_device(ops.a32.data(), ops.a32.data(), static_cast<std::int64_t>(mk), stream);
      round_to_tf32_device(ops.b32.data(), ops.b32.data(), static_cast<std::int64_t>(kn), stream);
    }
    if (prec == Precision::bf16) {
      ops.a16 = tut::DeviceBuffer<__nv_bfloat16>(mk);
      ops.b16 = tut::DeviceBuffer<__nv_bfloat16>(kn);
      convert_to_bf16_device(ops.a32.data(), ops.a16.data(), static_cast<std::int64_t>(mk), stream);
      convert_to_bf16_device(ops.b32.data(), ops.b16.data(), static_cast<std::int64_t>(kn), stream);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (prec == Precision::bf16) {
      const auto to_float = [](const std::vector<__nv_bfloat16>& v) {
        std::vector<float> f(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) f[i] = __bfloat162float(v[i]);
        return f;
      };
      ops.ha = to_float(ops.a16.to_host());
      ops.hb = to_float(ops.b16.to_host());
      ops.a32 = tut::DeviceBuffer<float>();  // not needed any more
      ops.b32 = tut::DeviceBuffer<float>();
    } else {
      ops.ha = ops.a32.to_host();
      ops.hb = ops.b32.to_host();
    }
    if (beta_ != 0.0f) ops.hc0 = ops.c0.to_host();
    return ops;
  }

  std::int64_t m_ = -1, n_ = -1, k_ = -1;  // -1: not given
  std::string dtype_ = "all";
  std::string alpha_text_, beta_text_;
  bool tune_ = false;
  bool all_sizes_ = false;
  mutable float alpha_ = 1.0f, beta_ = 0.0f;  // parsed from the text flags in problems()
};

}  // namespace

}  // namespace gemm

int main(int argc, char** argv) {
  gemm::GemmChapter chapter;
  return tut::chapter_main(chapter, argc, argv);
}
