// Chapter 07 executable: runs every convolution version plus the cuDNN baselines, one table per
// shape and precision (fp32 on CUDA cores, bf16 on tensor cores), checks each against the CPU
// reference, times it, prints the tables.
//
//   conv2d                                   # the six layers of the chapter, fp32 and bf16
//   conv2d --dtype fp32 --n 32 --c 64 --h 56 --w 56 --k 64 --r 3 --s 3 --pad 1
//   conv2d --h 224 --w 224 --c 3 --k 64 --r 7 --s 7 --stride 2 --pad 3 --n 8
//   conv2d --version v04_implicit_gemm_nhwc --version cudnn_fp32_nhwc
//   conv2d --n 2 --c 64 --h 4100 --w 4100 --k 64 --pad 1   # an input above 2^31 elements (~30 GB)
//   conv2d --sweep --json conv2d_sweep.json  # the 56x56 layer at N = 1 .. 32
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/harness.hpp"
#include "common/random.hpp"
#include "conv2d.hpp"

namespace conv2d {

namespace {

/// The layers of the default run: four ResNet-style layers (3x3 at three depths, 1x1, the 7x7
/// stem) and the 6-channel image a published direct-convolution kernel was measured on.
std::vector<ConvShape> default_shapes() {
  ConvShape a;  // N32 C64 56x56 K64 3x3 pad 1
  a.n = 32, a.c = 64, a.h = 56, a.w = 56, a.k = 64, a.r = 3, a.s = 3, a.pad_h = 1, a.pad_w = 1;
  ConvShape b = a;  // N16 C128 28x28 K128 3x3 pad 1
  b.n = 16, b.c = 128, b.h = 28, b.w = 28, b.k = 128;
  ConvShape c = a;  // N8 C256 14x14 K256 3x3 pad 1
  c.n = 8, c.c = 256, c.h = 14, c.w = 14, c.k = 256;
  ConvShape d = a;  // N32 C256 56x56 K64 1x1
  d.c = 256, d.r = 1, d.s = 1, d.pad_h = 0, d.pad_w = 0;
  ConvShape e;  // N8 C3 224x224 K64 7x7 stride 2 pad 3
  e.n = 8, e.c = 3, e.h = 224, e.w = 224, e.k = 64, e.r = 7, e.s = 7, e.pad_h = 3, e.pad_w = 3, e.stride_h = 2,
  e.stride_w = 2;
  ConvShape f;  // N1 C6 768x512 K6 6x6 pad 0
  f.n = 1, f.c = 6, f.h = 768, f.w = 512, f.k = 6, f.r = 6, f.s = 6;
  return {a, b, c, d, e, f};
}

/// The executable's reference is full up to 2^29 multiply-adds (the 6-channel image), sampled above.
constexpr double kFullReferenceMacsHere = 536870912.0;

/// Device memory the versions keep between problems: v03's im2col matrix, v05's transformed
/// tensors, v06's transformed filter and cuDNN's search workspace each live until exit and only
/// grow, so a problem's estimate carries what earlier problems of the run allocated. A version
/// that refuses a shape allocates nothing for it.
struct Workspaces {
  double im2col = 0.0, winograd = 0.0, filter = 0.0, cudnn = 0.0;

  /// What the rows of the `p` table add for `s`.
  void grow(const ConvShape& s, Precision p) {
    const auto at_least = [](double& have, double need) { have = std::max(have, need); };
    const double c = static_cast<double>(s.c), k = static_cast<double>(s.k);
    if (p == Precision::fp32) {
      if (supports_v03(s).empty()) at_least(im2col, im2col_bytes(s));
      if (supports_v05(s).empty()) at_least(winograd, winograd_bytes(s) + 64.0 * k * c);  // V, M and U
      if (supports_v06(s).empty()) at_least(filter, 64.0 * (c + 7.0) * (k + 63.0));     // U, padded to 8 x 64
    }
    // cuDNN's search is offered 1 GiB; cuDNN refuses tensors of more than 2^31 - 1 elements.
    const double most = 2147483647.0;
    if (static_cast<double>(s.input_elements()) <= most && static_cast<double>(s.output_elements()) <= most) {
      at_least(cudnn, 1073741824.0);
    }
  }
  double total() const { return im2col + winograd + filter + cudnn; }
};

/// What run() needs of a problem, carried in tut::Problem::what (never parsed from its label):
/// the convolution and the precision of its table.
struct ConvProblem {
  ConvShape shape;      ///< the convolution
  Precision precision;  ///< fp32: the fp32 versions and cuDNN rows; bf16: the bf16 ones
};

/// The device tensors of one problem, in both layouts, in the table's precision; and the
/// NCHW / KCRS host copies of what the kernels see, for the reference.
struct Tensors {
  tut::DeviceBuffer<float> x_nchw, w_kcrs, x_nhwc, w_krsc, y;          // fp32 table
  tut::DeviceBuffer<__nv_bfloat16> xb_nchw, wb_kcrs, xb_nhwc, wb_krsc, yb;  // bf16 table
  std::vector<float> hx, hw;  // NCHW x and KCRS w as the kernels see them (bf16-rounded in the bf16 table)
};

/// Seeded inputs made on the device (uniform in [-1, 1), distinct per element), the NHWC / KRSC
/// copies made from them (untimed), and bf16 copies for the bf16 table.
Tensors make_tensors(const ConvShape& s, Precision prec, std::uint64_t seed, cudaStream_t stream) {
  Tensors t;
  const std::size_t nx = static_cast<std::size_t>(s.input_elements()), nw = static_cast<std::size_t>(s.filter_elements()),
                    ny = static_cast<std::size_t>(s.output_elements());
  tut::DeviceBuffer<float> x(nx), w(nw), x_nhwc(nx), w_krsc(nw);
  tut::fill_random_device(x.data(), nx, tut::derive_seed(seed, 0), -1.0f, 1.0f, stream);
  tut::fill_random_device(w.data(), nw, tut::derive_seed(seed, 1), -1.0f, 1.0f, stream);
  to_channels_last_device(x.data(), x_nhwc.data(), s.n, s.c, s.h * s.w, stream);
  to_channels_last_device(w.data(), w_krsc.data(), s.k, s.c, s.r * s.s, stream);
  if (prec == Precision::fp32) {
    t.y = tut::DeviceBuffer<float>(ny);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    t.hx = x.to_host();
    t.hw = w.to_host();
    t.x_nchw = std::move(x), t.w_kcrs = std::move(w), t.x_nhwc = std::move(x_nhwc), t.w_krsc = std::move(w_krsc);
    return t;
  }
  t.xb_nchw = tut::DeviceBuffer<__nv_bfloat16>(nx), t.xb_nhwc = tut::DeviceBuffer<__nv_bfloat16>(nx);
  t.wb_kcrs = tut::DeviceBuffer<__nv_bfloat16>(nw), t.wb_krsc = tut::DeviceBuffer<__nv_bfloat16>(nw);
  t.yb = tut::DeviceBuffer<__nv_bfloat16>(ny);
  to_bf16_device(x.data(), t.xb_nchw.data(), static_cast<std::int64_t>(nx), stream);
  to_bf16_device(x_nhwc.data(), t.xb_nhwc.data(), static_cast<std::int64_t>(nx), stream);
  to_bf16_device(w.data(), t.wb_kcrs.data(), static_cast<std::int64_t>(nw), stream);
  to_bf16_device(w_krsc.data(), t.wb_krsc.data(), static_cast<std::int64_t>(nw), stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto to_float = [](const std::vector<__nv_bfloat16>& v) {
    std::vector<float> f(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) f[i] = __bfloat162float(v[i]);
    return f;
  };
  t.hx = to_float(t.xb_nchw.to_host());
  t.hw = to_float(t.wb_kcrs.to_host());
  return t;
}

/// Chapter 07 for tut::chapter_main().
class Conv2dChapter final : public tut::Chapter {
 public:
  std::string name() const override { return "conv2d"; }
  std::string description() const override {
    return "Chapter 07: 2-D convolution (cross-correlation, NCHW and NHWC), from one thread per output to "
           "implicit GEMM on tensor cores, each against cuDNN of the same precision.";
  }

  void add_options(tut::Cli& cli) override {
    constexpr std::int64_t kMax = std::int64_t{1} << 40;  // shape_error() says what is too large
    cli.add_int("--n", "N", "images (with any size flag: one problem; unset sizes default to the first layer's)",
                &n_, 1, kMax);
    cli.add_int("--c", "C", "input channels", &c_, 1, kMax);
    cli.add_int("--h", "H", "input height", &h_, 1, kMax);
    cli.add_int("--w", "W", "input width", &w_, 1, kMax);
    cli.add_int("--k", "K", "output channels (filters)", &k_, 1, kMax);
    cli.add_int("--r", "R", "filter height", &r_, 1, kMax);
    cli.add_int("--s", "S", "filter width", &s_, 1, kMax);
    cli.add_int("--pad", "P", "zero padding on each side, both axes (default 1 when sizes are given)", &pad_, 0, kMax);
    cli.add_int("--stride", "U", "stride, both axes (default 1)", &stride_, 1, kMax);
    cli.add_choice("--dtype", "which tables: fp32 (CUDA cores), bf16 (tensor cores), or all (default)", &dtype_,
                   {"all", "fp32", "bf16"});
    cli.add_flag("--all-sizes", "run the slow versions at every size instead of skipping large problems", &all_sizes_);
  }

  std::vector<tut::VersionInfo> versions() const override { return tut::infos_of(conv2d::versions()); }

  std::vector<tut::Problem> problems(bool sweep) const override {
    std::vector<ConvShape> shapes;
    const bool given = n_ > 0 || c_ > 0 || h_ > 0 || w_ > 0 || k_ > 0 || r_ > 0 || s_ > 0 || pad_ >= 0 || stride_ > 0;
    if (given) {
      ConvShape s = default_shapes()[0];
      const auto set = [](std::int64_t v, std::int64_t& dst) {
        if (v >= 0) dst = v;
      };
      set(n_, s.n), set(c_, s.c), set(h_, s.h), set(w_, s.w), set(k_, s.k), set(r_, s.r), set(s_, s.s);
      set(pad_, s.pad_h), set(pad_, s.pad_w), set(stride_, s.stride_h), set(stride_, s.stride_w);
      shapes.push_back(s);
    } else if (sweep) {
      for (std::int64_t n : {1, 2, 4, 8, 16, 32}) {
        ConvShape s = default_shapes()[0];
        s.n = n;
        shapes.push_back(s);
      }
    } else {
      shapes = default_shapes();
    }
    std::vector<Precision> precisions;
    if (dtype_ != "bf16") precisions.push_back(Precision::fp32);
    if (dtype_ != "fp32") precisions.push_back(Precision::bf16);

    std::vector<tut::Problem> list;
    Workspaces kept;  // in the order the problems run
    for (const ConvShape& s : shapes) {
      const std::string why = shape_error(s);
      if (!why.empty()) throw tut::UsageError(why);
      for (Precision p : precisions) {
        tut::Problem prob;
        prob.label = std::string(precision_name(p)) + " " + shape_text(s);
        prob.shape = {{"n", s.n},           {"c", s.c},           {"h", s.h},         {"w", s.w},
                      {"k", s.k},           {"r", s.r},           {"s", s.s},         {"pad_h", s.pad_h},
                      {"pad_w", s.pad_w},   {"stride_h", s.stride_h}, {"stride_w", s.stride_w}, {"p", s.p()},
                      {"q", s.q()}};
        prob.dtype = precision_name(p);
        prob.what = ConvProblem{s, p};
        const double x = static_cast<double>(s.input_elements()), w = static_cast<double>(s.filter_elements()),
                     y = static_cast<double>(s.output_elements());
        // Device: x and w in both layouts (fp32; for bf16 also the fp32 copies they are made from,
        // freed before the first row runs), y, and the workspaces kept so far. The check takes no
        // device memory: y comes back to the host and is compared there (check_output()).
        kept.grow(s, p);
        prob.device_bytes = (p == Precision::fp32 ? 8.0 * (x + w) + 4.0 * y : 12.0 * (x + w) + 2.0 * y) + kept.total();
        // Host: the NCHW x and w the reference reads (bf16: and the bf16 download they come from),
        // the downloaded y (bf16: and its bf16 copy), and the reference, full (value and sum |x w|
        // per output) or sampled (about 64 K + 64 (P + Q) + 8192 outputs).
        const bool full = y * static_cast<double>(s.reduction()) <= kFullReferenceMacsHere && y <= 67108864.0;
        const double sampled = 64.0 * static_cast<double>(s.k) + 64.0 * static_cast<double>(s.p() + s.q()) + 8192.0;
        prob.host_bytes = (p == Precision::fp32 ? 4.0 : 6.0) * (x + w + y) + (full ? 16.0 * y : 32.0 * sampled);
        list.push_back(prob);
      }
    }
    return list;
  }

  void run(const tut::Problem& problem, tut::Session& session) override {
    const ConvProblem& what = problem.as<ConvProblem>();
    const Precision prec = what.precision;
    const ConvShape s = what.shape;

    // The rows of this table: the registry's versions of this precision.
    struct Row {
      tut::VersionInfo info;
      Kernel kernel;
      Supports supports;
      double max_flops;
    };
    std::vector<Row> rows;
    for (const auto& v : conv2d::versions()) {
      if (v.kernel.precision == prec) rows.push_back({v.info, v.kernel, v.supports, v.max_flops});
    }
    bool any = false;
    for (const auto& r : rows) any = any || session.wants(r.info.name);
    if (!any) return;

    Tensors t = make_tensors(s, prec, session.seed(), session.stream());
    const Reference ref = make_reference(s, t.hx.data(), t.hw.data(), session.seed() ^ 0x5eed5u, kFullReferenceMacsHere);
    std::vector<float> got(static_cast<std::size_t>(s.output_elements()));
    std::vector<__nv_bfloat16> got16(prec == Precision::bf16 ? got.size() : 0);

    session.begin_problem(problem, tut::Metric::tflops, 0.0, "the fastest cuDNN row of this table (its own rate)");
    const double flops = conv_flops(s);
    const double elem = prec == Precision::bf16 ? 2.0 : 4.0;
    std::vector<std::string> notes;
    for (const Row& row : rows) {
      tut::Candidate c;
      c.info = row.info;
      c.flops = flops;
      c.bytes = conv_bytes(s, elem, elem);
      c.tolerance = tolerance(prec, s.reduction(), row.kernel.winograd);
      c.where = [s](std::size_t i) { return format_index(s, i); };
      c.skip_reason = shape_error(s);
      if (c.skip_reason.empty() && row.supports != nullptr) c.skip_reason = row.supports(s);
      if (c.skip_reason.empty() && !all_sizes_ && row.max_flops > 0.0 && flops > row.max_flops) {
        c.skip_reason = "too slow at this size (runs up to " + std::to_string(static_cast<long long>(row.max_flops / 1e9)) +
                        " GFLOP; --all-sizes runs it)";
      }
      const Kernel kern = row.kernel;
      const bool nchw = kern.layout == Layout::nchw;
      c.run = [&t, kern, nchw, s](cudaStream_t st) {
        if (kern.precision == Precision::bf16) {
          kern.bf16(s, nchw ? t.xb_nchw.data() : t.xb_nhwc.data(), nchw ? t.wb_kcrs.data() : t.wb_krsc.data(),
                    t.yb.data(), st);
        } else {
          kern.f32(s, nchw ? t.x_nchw.data() : t.x_nhwc.data(), nchw ? t.w_kcrs.data() : t.w_krsc.data(), t.y.data(),
                   st);
        }
      };
      c.poison = [&t, prec](cudaStream_t st) {
        if (prec == Precision::bf16) {
          t.yb.poison(st);  // 0xFFFF: a bf16 NaN
        } else {
          t.y.poison(st);
        }
      };
      const Layout layout = kern.layout;
      c.check = [&t, &got, &got16, &ref, s, layout, prec, tol = c.tolerance]() {
        if (prec == Precision::bf16) {
          CUDA_CHECK(cudaMemcpy(got16.data(), t.yb.data(), t.yb.bytes(), cudaMemcpyDeviceToHost));
          for (std::size_t i = 0; i < got.size(); ++i) got[i] = __bfloat162float(got16[i]);
        } else {
          CUDA_CHECK(cudaMemcpy(got.data(), t.y.data(), t.y.bytes(), cudaMemcpyDeviceToHost));
        }
        return check_output(s, prec, layout, ref, got.data(), tol);
      };
      // The library rows search their algorithm on the first call: do it here, untimed, and
      // report a row that cuDNN cannot run as skipped rather than stopping the whole run.
      if (c.skip_reason.empty() && row.info.kind == tut::Kind::library && session.wants(row.info.name)) {
        try {
          c.run(session.stream());
          CUDA_CHECK(cudaStreamSynchronize(session.stream()));
          const std::string choice = cudnn_choice(row.info.name);
          if (!choice.empty()) notes.push_back(row.info.name + ": " + choice);
        } catch (const std::exception& e) {
          c.skip_reason = std::string("cuDNN could not run it: ") + e.what();
        }
      }
      session.measure(c, name());
    }

    // "vs lib" compares with the fastest cuDNN row of this precision, whatever its layout: the
    // one a user would pick. Its rate is also the table's roof.
    tut::ProblemResult& result = session.current();
    const tut::ResultRow* fastest = nullptr;
    for (const auto& r : result.rows) {
      if (r.info.kind != tut::Kind::library || r.skipped || !r.correct || r.time.reps == 0) continue;
      if (fastest == nullptr || r.time.median_ms < fastest->time.median_ms) fastest = &r;
    }
    if (fastest != nullptr) {
      result.library = fastest->info.name;
      result.peak = flops / (fastest->time.median_ms * 1e-3) / 1e12;
    }
    for (const auto& n : notes) std::cout << "(cuDNN chose, " << n << ")\n";
    if (prec == Precision::fp32 && session.wants("v03_im2col_cublas_nchw") && supports_v03(s).empty()) {
      std::cout << "(v03's im2col matrix: " << tut::format_bytes(im2col_bytes(s)) << ", "
                << static_cast<double>(s.reduction() * s.p() * s.q()) / static_cast<double>(s.c * s.h * s.w)
                << "x the input)\n";
    }
    if (!ref.full) {
      std::cout << "(" << problem.label << ": checked on " << ref.index.size()
                << " sampled outputs, each a C R S-long sum in double on the CPU)\n";
    }
  }

 private:
  std::int64_t n_ = -1, c_ = -1, h_ = -1, w_ = -1, k_ = -1, r_ = -1, s_ = -1, pad_ = -1, stride_ = -1;  // -1: not given
  std::string dtype_ = "all";
  bool all_sizes_ = false;
};

}  // namespace

}  // namespace conv2d

int main(int argc, char** argv) {
  conv2d::Conv2dChapter chapter;
  return tut::chapter_main(chapter, argc, argv);
}
