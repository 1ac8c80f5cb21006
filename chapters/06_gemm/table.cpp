// One table of chapter 06 (table.hpp): operands, reference, and the rows checked and timed.
#include "table.hpp"

#include <cmath>
#include <iostream>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/random.hpp"

namespace gemm {

namespace {

/// Device and host copies of one problem's operands, in the precision of its table.
struct Operands {
  Shape s;
  tut::DeviceBuffer<float> a32, b32;           // fp32 inputs (TF32-rounded in the tf32 table)
  tut::DeviceBuffer<__nv_bfloat16> a16, b16;   // bf16 inputs (bf16 table only)
  tut::DeviceBuffer<float> c, c0;              // output; C's initial value (beta != 0 only)
  std::vector<float> ha, hb, hc0;              // what the kernels see, as floats, for the reference
};

/// Generates the inputs on the device (seeded hash), converts them to the table's precision,
/// and downloads what the kernels see for the CPU reference.
Operands make_operands(const Shape& s, Precision prec, bool with_c0, std::uint64_t seed, cudaStream_t stream) {
  Operands ops;
  ops.s = s;
  const std::size_t mk = static_cast<std::size_t>(s.m * s.k), kn = static_cast<std::size_t>(s.k * s.n),
                    mn = static_cast<std::size_t>(s.m * s.n);
  ops.a32 = tut::DeviceBuffer<float>(mk);
  ops.b32 = tut::DeviceBuffer<float>(kn);
  ops.c = tut::DeviceBuffer<float>(mn);
  tut::fill_random_device(ops.a32.data(), mk, tut::derive_seed(seed, 0), -1.0f, 1.0f, stream);
  tut::fill_random_device(ops.b32.data(), kn, tut::derive_seed(seed, 1), -1.0f, 1.0f, stream);
  if (with_c0) {
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
  if (with_c0) ops.hc0 = ops.c0.to_host();
  return ops;
}

}  // namespace

tut::Problem table_problem(const Shape& s, const TableProblem& what, const std::string& label) {
  tut::Problem prob;
  prob.label = label;
  prob.shape = {{"m", s.m}, {"n", s.n}, {"k", s.k}};
  prob.dtype = precision_name(what.precision);
  prob.what = what;
  const bool bf16 = what.precision == Precision::bf16;
  const double mk = static_cast<double>(s.m) * s.k, kn = static_cast<double>(s.k) * s.n,
               mn = static_cast<double>(s.m) * s.n;
  const double c_copies = what.beta != 0.0f ? 2.0 : 1.0;
  prob.device_bytes = 4.0 * (mk + kn) + 4.0 * mn * c_copies + (bf16 ? 2.0 * (mk + kn) : 0.0);
  const bool full = mn * s.k <= kFullReferenceMacs && mn <= 67108864.0;  // values and magnitudes in double
  prob.host_bytes = 4.0 * (mk + kn) + 4.0 * mn * c_copies + (full ? 16.0 * mn : 4.0 * kn + 1e6) +
                    (bf16 ? 2.0 * (mk + kn) : 0.0);
  return prob;
}

std::vector<TableRow> registry_rows(Precision p, bool library_only) {
  std::vector<TableRow> rows;
  for (const auto& v : versions()) {
    if (v.kernel.precision != p) continue;
    if (library_only && v.info.kind != tut::Kind::library) continue;
    rows.push_back({v.info, v.kernel, v.max_flops, v.unavailable});
  }
  return rows;
}

void run_table(const tut::Problem& problem, tut::Session& session, const std::vector<TableRow>& rows,
               bool all_sizes, const std::string& chapter) {
  const TableProblem& what = problem.as<TableProblem>();
  const Precision prec = what.precision;
  const float alpha = what.alpha, beta = what.beta;
  const Shape s{problem.dim("m"), problem.dim("n"), problem.dim("k")};

  std::string library;
  bool any = false;
  for (const auto& r : rows) {
    any = any || session.wants(r.info.name);
    if (r.info.kind == tut::Kind::library) library = r.info.name;
  }
  if (!any) return;

  Operands ops = make_operands(s, prec, beta != 0.0f, session.seed(), session.stream());
  const Reference ref = make_reference(s, alpha, ops.ha.data(), ops.hb.data(), beta,
                                       beta != 0.0f ? ops.hc0.data() : nullptr, session.seed() ^ 0x5eed5u);
  const tut::Tolerance tol = tolerance(prec, s.k);
  std::vector<float> got(static_cast<std::size_t>(s.m * s.n));

  session.begin_problem(problem, tut::Metric::tflops, 0.0, library + " in this run (the library's own rate)");
  session.current().library = library;

  const double flops = gemm_flops(s);
  const double in_bytes = prec == Precision::bf16 ? 2.0 : 4.0;
  for (const TableRow& row : rows) {
    tut::Candidate c;
    c.info = row.info;
    c.flops = flops;
    c.bytes = in_bytes * (static_cast<double>(s.m) * s.k + static_cast<double>(s.k) * s.n) +
              4.0 * static_cast<double>(s.m) * s.n * (beta != 0.0f ? 2.0 : 1.0);
    c.tolerance = tol;
    const std::int64_t n_cols = s.n;
    c.where = [n_cols](std::size_t i) { return format_index(i, n_cols); };
    if (!all_sizes && row.max_flops > 0.0 && flops > row.max_flops * 1.0001) {
      const long long side = std::llround(std::cbrt(row.max_flops / 2.0));
      c.skip_reason = "too slow at this size (runs up to " + std::to_string(side) + "^3: see that table, or --all-sizes)";
    }
    if (row.unavailable != nullptr && session.device().cc() >= row.info.min_cc) {
      c.skip_reason = row.unavailable();  // e.g. a build without sm_90a code for the Hopper steps
    }
    const Kernel kern = row.kernel;
    c.run = [&ops, kern, alpha, beta, s](cudaStream_t st) {
      if (kern.precision == Precision::bf16) {
        kern.bf16(s.m, s.n, s.k, alpha, ops.a16.data(), ops.b16.data(), beta, ops.c.data(), st);
      } else {
        kern.f32(s.m, s.n, s.k, alpha, ops.a32.data(), ops.b32.data(), beta, ops.c.data(), st);
      }
    };
    c.poison = [&ops](cudaStream_t st) { ops.c.poison(st); };
    if (beta != 0.0f) {
      // beta != 0 reads C: every run (checked or timed) starts from the same C0, restored untimed.
      c.before_each = [&ops](cudaStream_t st) {
        CUDA_CHECK(cudaMemcpyAsync(ops.c.data(), ops.c0.data(), ops.c.bytes(), cudaMemcpyDeviceToDevice, st));
      };
    }
    c.check = [&ops, &got, &ref, tol]() {
      CUDA_CHECK(cudaMemcpy(got.data(), ops.c.data(), ops.c.bytes(), cudaMemcpyDeviceToHost));
      return check_output(ref, got.data(), tol);
    };
    session.measure(c, chapter);
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

}  // namespace gemm
