// The size flags, the problems and the run of one table, shared by `attention` (main.cpp) and
// `attention_tune` (tune/main.cpp).
#include "tables.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/random.hpp"

namespace attention {

namespace {

/// Inputs: Q and K uniform in [-sqrt(3), sqrt(3)) (unit variance, so scores have unit variance, as
/// with torch.randn), V uniform in [-1, 1).
const float kQKRange = std::sqrt(3.0f);
constexpr float kVRange = 1.0f;

/// Where a failed lse check is reported in the O statistics (no O element has this index).
constexpr std::size_t kLseFailed = ~std::size_t{0};

/// The device and host inputs of one problem, in the precision of its table.
struct Inputs {
  tut::DeviceBuffer<float> q32, k32, v32;               // fp32 tables
  tut::DeviceBuffer<__nv_bfloat16> q16, k16, v16;       // bf16 tables
  std::vector<float> hq, hk, hv;                        // what the kernels see, as floats
};

std::string format_gflop(double flops) {
  return std::to_string(static_cast<long long>(flops / 1e9 + 0.5)) + " GFLOP";
}

/// Generates the inputs on the device (seeded hash), converts them for the bf16 table, and
/// downloads what the kernels see for the CPU reference.
Inputs make_inputs(const Shape& s, Precision prec, std::uint64_t seed, cudaStream_t stream) {
  Inputs in;
  const std::size_t nq = static_cast<std::size_t>(s.heads() * s.sq * s.d);
  const std::size_t nkv = static_cast<std::size_t>(s.heads() * s.sk * s.d);
  in.q32 = tut::DeviceBuffer<float>(nq);
  in.k32 = tut::DeviceBuffer<float>(nkv);
  in.v32 = tut::DeviceBuffer<float>(nkv);
  tut::fill_random_device(in.q32.data(), nq, tut::derive_seed(seed, 0), -kQKRange, kQKRange, stream);
  tut::fill_random_device(in.k32.data(), nkv, tut::derive_seed(seed, 1), -kQKRange, kQKRange, stream);
  tut::fill_random_device(in.v32.data(), nkv, tut::derive_seed(seed, 2), -kVRange, kVRange, stream);
  if (prec == Precision::bf16) {
    in.q16 = tut::DeviceBuffer<__nv_bfloat16>(nq);
    in.k16 = tut::DeviceBuffer<__nv_bfloat16>(nkv);
    in.v16 = tut::DeviceBuffer<__nv_bfloat16>(nkv);
    convert_to_bf16_device(in.q32.data(), in.q16.data(), static_cast<std::int64_t>(nq), stream);
    convert_to_bf16_device(in.k32.data(), in.k16.data(), static_cast<std::int64_t>(nkv), stream);
    convert_to_bf16_device(in.v32.data(), in.v16.data(), static_cast<std::int64_t>(nkv), stream);
    // The reference sees the bf16 values: convert back on the device (exact), download, free.
    convert_to_float_device(in.q16.data(), in.q32.data(), static_cast<std::int64_t>(nq), stream);
    convert_to_float_device(in.k16.data(), in.k32.data(), static_cast<std::int64_t>(nkv), stream);
    convert_to_float_device(in.v16.data(), in.v32.data(), static_cast<std::int64_t>(nkv), stream);
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  in.hq = in.q32.to_host();
  in.hk = in.k32.to_host();
  in.hv = in.v32.to_host();
  if (prec == Precision::bf16) {
    in.q32 = tut::DeviceBuffer<float>();
    in.k32 = tut::DeviceBuffer<float>();
    in.v32 = tut::DeviceBuffer<float>();
  }
  return in;
}

}  // namespace

void SizeFlags::add_to(tut::Cli& cli) {
  const std::int64_t big = std::int64_t{1} << 30;
  cli.add_int("--b", "B", "batch (with the other size flags: one shape; unset ones: B 4, H 16, S 1024, D 64)", &b,
              1, big);
  cli.add_int("--h", "H", "heads", &h, 1, big);
  cli.add_int("--s", "S", "sequence length: Sq = Sk = S", &s, 1, big);
  cli.add_int("--sq", "SQ", "queries per head (with --sk, instead of --s)", &sq, 1, big);
  cli.add_int("--sk", "SK", "keys per head", &sk, 1, big);
  cli.add_int("--d", "D", "head dimension (v02-v09: 64 or 128; v00 any; v01 up to 256)", &d, 1, 4096);
  cli.add_choice("--mask", "which tables: no mask, causal (bottom-right aligned), or both (default)", &mask,
                 {"both", "none", "causal"});
  cli.add_choice("--dtype", "which tables: fp32 (CUDA cores), bf16 (tensor cores), or all (default)", &dtype,
                 {"all", "fp32", "bf16"});
}

bool SizeFlags::given() const { return b > 0 || h > 0 || s > 0 || sq > 0 || sk > 0 || d > 0; }

std::vector<tut::Problem> SizeFlags::problems(bool sweep) const {
  if (s > 0 && ((sq > 0 && sq != s) || (sk > 0 && sk != s))) {
    throw tut::UsageError("mismatched shapes: --s " + std::to_string(s) + " sets Sq = Sk, but --sq/--sk say otherwise");
  }
  const bool given = this->given();
  if (sweep && given) throw tut::UsageError("--sweep runs its own shapes: drop the size flags");
  std::vector<Shape> shapes;
  if (given) {
    Shape one;
    one.b = b > 0 ? b : 4;
    one.h = h > 0 ? h : 16;
    one.d = d > 0 ? d : 64;
    const std::int64_t base = s > 0 ? s : 1024;
    one.sq = sq > 0 ? sq : (sk > 0 && s <= 0 ? sk : base);
    one.sk = sk > 0 ? sk : (sq > 0 && s <= 0 ? sq : base);
    if (static_cast<double>(one.b) * static_cast<double>(one.h) > 2147483647.0) {
      throw tut::UsageError("B x H must be below 2^31");
    }
    shapes.push_back(one);
  } else if (sweep) {
    // The published lab's list around powers of two, D = 64, 4 x 16 heads, no mask.
    for (std::int64_t n : tut::around_powers_of_two({6, 7, 8, 9, 10, 11, 12, 13})) {
      shapes.push_back({4, 16, n, n, 64, false});
    }
  } else {
    shapes = {{4, 16, 1024, 1024, 64, false}, {4, 16, 4096, 4096, 64, false}, {2, 16, 4096, 4096, 128, false},
              {1, 32, 8192, 8192, 128, false}};
  }
  std::vector<bool> masks;
  if (sweep && !given) {
    masks = {false};
  } else {
    if (mask != "causal") masks.push_back(false);
    if (mask != "none") masks.push_back(true);
  }
  std::vector<Precision> precisions;
  if (dtype != "bf16") precisions.push_back(Precision::fp32);
  if (dtype != "fp32") precisions.push_back(Precision::bf16);

  std::vector<tut::Problem> list;
  for (Shape shape : shapes) {
    for (bool causal : masks) {
      shape.causal = causal;
      for (Precision p : precisions) {
        tut::Problem prob;
        prob.label = std::string(precision_name(p)) + " " + shape_text(shape);
        if (sweep && !given) {
          prob.shape = {{"b", shape.b}, {"h", shape.h}, {"seq", shape.sq}, {"d", shape.d}, {"causal", 0}};
        } else {
          prob.shape = {{"b", shape.b},   {"h", shape.h}, {"sq", shape.sq},
                        {"sk", shape.sk}, {"d", shape.d}, {"causal", shape.causal ? 1 : 0}};
        }
        prob.dtype = precision_name(p);
        prob.what = Case{shape, p};
        const double heads = static_cast<double>(shape.heads());
        const double q_elems = heads * static_cast<double>(shape.sq) * static_cast<double>(shape.d);
        const double kv_elems = heads * static_cast<double>(shape.sk) * static_cast<double>(shape.d);
        const double rows = heads * static_cast<double>(shape.sq);
        // Device: fp32 inputs (made there, then converted for bf16), O, lse; v00's and cuBLAS's S
        // are checked separately (those rows are skipped where S does not fit).
        prob.device_bytes = 4.0 * (q_elems + 2.0 * kv_elems) + 4.0 * q_elems + 4.0 * rows +
                            (p == Precision::bf16 ? 2.0 * (2.0 * q_elems + 2.0 * kv_elems) : 0.0);
        // Host: the inputs as floats, O downloaded (and as floats), lse, the reference (sampled rows).
        prob.host_bytes = 4.0 * (q_elems + 2.0 * kv_elems) + 8.0 * q_elems + 8.0 * rows + 1e8;
        list.push_back(prob);
      }
    }
  }
  return list;
}


void run_rows(const tut::Problem& problem, tut::Session& session, std::vector<Row> rows, const std::string& library,
              bool all_sizes, const std::string& chapter) {
  const Shape& s = problem.as<Case>().shape;
  const Precision prec = problem.as<Case>().precision;
  bool any = false;
  for (const auto& r : rows) any = any || session.wants(r.info.name);
  if (!any) return;

  // Time budget and memory of each row: "too slow at this size", or S does not fit.
  const double flops = attention_flops(s);
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const double in_bytes = prec == Precision::bf16 ? 2.0 : 4.0;
  const double q_elems = static_cast<double>(s.heads()) * static_cast<double>(s.sq) * static_cast<double>(s.d);
  const double kv_elems = static_cast<double>(s.heads()) * static_cast<double>(s.sk) * static_cast<double>(s.d);
  // What this problem allocates besides a workspace (with headroom for the L2 flush and cuBLAS).
  const double own = 4.0 * (q_elems + 2.0 * kv_elems) + in_bytes * (q_elems + 2.0 * kv_elems) + 4.0 * q_elems +
                     4.0 * static_cast<double>(s.heads() * s.sq) + 2.0 * static_cast<double>(session.device().l2_bytes) +
                     (512.0 * 1024 * 1024);
  double workspace_needed = 0.0;
  for (auto& r : rows) {
    if (!r.skip.empty() || !session.wants(r.info.name)) continue;
    if (!all_sizes && r.max_flops > 0.0 && flops > r.max_flops * 1.0001) {
      r.skip = "too slow at this size (runs up to " + format_gflop(r.max_flops) + ": see the smaller tables, or --all-sizes)";
    } else if (r.workspace > 0.0 && r.workspace + own > 0.92 * static_cast<double>(free_bytes)) {
      r.skip = "S = Q K^T of all heads needs " + tut::format_bytes(r.workspace) + " (this GPU has " +
               tut::format_bytes(static_cast<double>(free_bytes)) + " free)";
    } else {
      workspace_needed = std::max(workspace_needed, r.workspace);
    }
  }

  Inputs in = make_inputs(s, prec, session.seed(), session.stream());
  const Reference ref = make_reference(s, in.hq.data(), in.hk.data(), in.hv.data(), session.seed() ^ 0x5eedu);
  const Tolerances tol = tolerances(prec, s, max_abs(in.hq.data(), in.hq.size()), max_abs(in.hk.data(), in.hk.size()),
                                    max_abs(in.hv.data(), in.hv.size()));
  const std::size_t n_o = static_cast<std::size_t>(q_elems), n_lse = static_cast<std::size_t>(s.heads() * s.sq);
  tut::DeviceBuffer<float> o32(prec == Precision::fp32 ? n_o : 0), lse(n_lse);
  tut::DeviceBuffer<__nv_bfloat16> o16(prec == Precision::bf16 ? n_o : 0);
  tut::DeviceBuffer<unsigned char> workspace(static_cast<std::size_t>(workspace_needed));
  std::vector<float> got_o(n_o), got_lse(n_lse);
  std::vector<__nv_bfloat16> got_o16(prec == Precision::bf16 ? n_o : 0);

  const double peak = session.options().check_only ? 0.0 : measured_gemm_tflops(prec, session.stream());
  session.begin_problem(problem, tut::Metric::tflops, peak,
                        prec == Precision::bf16 ? "cuBLAS BF16 GEMM 8192^3 (fp32 accumulate), measured in this run"
                                                : "cuBLAS SGEMM 4096^3, measured in this run");
  session.current().library = library;

  for (const Row& row : rows) {
    tut::Candidate c;
    c.info = row.info;
    c.flops = flops;
    c.bytes = attention_bytes(s, in_bytes);
    c.tolerance = tol.o;
    c.skip_reason = row.skip;
    c.where = [s](std::size_t i) { return i == kLseFailed ? std::string("the lse check (see above)") : format_index(s, i); };
    const Kernel kern = row.kernel;
    void* ws = workspace.size() > 0 ? workspace.data() : nullptr;
    c.run = [&, kern, ws](cudaStream_t st) {
      if (kern.precision == Precision::bf16) {
        kern.bf16(s, in.q16.data(), in.k16.data(), in.v16.data(), o16.data(), lse.data(), ws, st);
      } else {
        kern.f32(s, in.q32.data(), in.k32.data(), in.v32.data(), o32.data(), lse.data(), ws, st);
      }
    };
    c.poison = [&](cudaStream_t st) {
      o32.poison(st);
      o16.poison(st);
      lse.poison(st);
    };
    const std::string version = row.info.name;
    c.check = [&, version]() {
      if (prec == Precision::bf16) {
        CUDA_CHECK(cudaMemcpy(got_o16.data(), o16.data(), o16.bytes(), cudaMemcpyDeviceToHost));
        for (std::size_t i = 0; i < n_o; ++i) got_o[i] = __bfloat162float(got_o16[i]);
      } else {
        CUDA_CHECK(cudaMemcpy(got_o.data(), o32.data(), o32.bytes(), cudaMemcpyDeviceToHost));
      }
      CUDA_CHECK(cudaMemcpy(got_lse.data(), lse.data(), lse.bytes(), cudaMemcpyDeviceToHost));
      const Check chk = check_output(ref, s, got_o.data(), got_lse.data(), tol);
      tut::ErrorStats stats = chk.o;
      if (!chk.lse.passed(tol.lse)) {  // one row for two checks: a failed lse fails the row
        std::cerr << chapter << ": " << version << ": lse is WRONG: "
                  << chk.lse.describe(tol.lse, [&](std::size_t i) {
                       return "head " + std::to_string(i / static_cast<std::size_t>(s.sq)) + ", row " +
                              std::to_string(i % static_cast<std::size_t>(s.sq));
                     })
                  << "\n";
        stats.add(kLseFailed, std::nan(""), 0.0, tol.o);
      }
      return stats;
    };
    session.measure(c, chapter);
  }
  if (!ref.full) {
    std::cout << "(" << problem.label << ": checked on " << ref.rows.size()
              << " sampled query rows, each computed in double on the CPU)\n";
  }
}

}  // namespace attention
