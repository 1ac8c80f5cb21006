/// @file
/// @brief Chapter 07 (conv2d): declarations shared by the versions, the executable and the tests.
///
/// Every version computes the forward 2-D convolution of deep-learning frameworks (a
/// cross-correlation: the filter is not flipped), with zero padding, stride, dilation 1 and one
/// group:
///
///     y[n, k, p, q] = sum over c < C, r < R, s < S of
///                     x[n, c, p * stride_h - pad_h + r, q * stride_w - pad_w + s] * w[k, c, r, s]
///
/// (x outside the image reads as 0), for p < P = (H + 2 pad_h - R) / stride_h + 1 and
/// q < Q = (W + 2 pad_w - S) / stride_w + 1. Each version takes one layout: NCHW input, KCRS
/// filter and NKPQ output (the direct versions), or NHWC input, KRSC filter and NPQK output (the
/// GEMM-style versions). The registry, versions(), is the only list of versions: the executable,
/// --list, the tests and the JSON all iterate it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/compare.hpp"
#include "common/report.hpp"

/// Chapter 07: 2-D convolution, from one thread per output to implicit GEMM on tensor cores.
namespace conv2d {

/// The problem: input N x C x H x W, K filters of C x R x S, zero padding and stride per axis.
struct ConvShape {
  std::int64_t n = 1;         ///< images in the batch
  std::int64_t c = 1;         ///< input channels
  std::int64_t h = 1;         ///< input height
  std::int64_t w = 1;         ///< input width
  std::int64_t k = 1;         ///< output channels (filters)
  std::int64_t r = 1;         ///< filter height
  std::int64_t s = 1;         ///< filter width
  std::int64_t pad_h = 0;     ///< zero rows added above and below the image
  std::int64_t pad_w = 0;     ///< zero columns added left and right
  std::int64_t stride_h = 1;  ///< vertical step of the filter
  std::int64_t stride_w = 1;  ///< horizontal step of the filter

  /// Output height: (H + 2 pad_h - R) / stride_h + 1 (valid only when shape_error() is empty).
  std::int64_t p() const { return (h + 2 * pad_h - r) / stride_h + 1; }
  /// Output width: (W + 2 pad_w - S) / stride_w + 1.
  std::int64_t q() const { return (w + 2 * pad_w - s) / stride_w + 1; }
  /// Elements of the input (N C H W).
  std::int64_t input_elements() const { return n * c * h * w; }
  /// Elements of the filter (K C R S).
  std::int64_t filter_elements() const { return k * c * r * s; }
  /// Elements of the output (N K P Q).
  std::int64_t output_elements() const { return n * k * p() * q(); }
  /// The GEMM view's reduction length: C R S products per output.
  std::int64_t reduction() const { return c * r * s; }
};

namespace detail {

/// a * b * ..., or -1 if the product exceeds 2^62 (every factor is positive).
inline std::int64_t checked_product(std::initializer_list<std::int64_t> factors) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 62;
  std::int64_t prod = 1;
  for (std::int64_t f : factors) {
    if (f != 0 && prod > kLimit / f) return -1;
    prod *= f;
  }
  return prod;
}

}  // namespace detail

/// "" if the shape is valid, else one line saying why not: a dimension below 1, a stride below
/// 1, negative padding, a filter larger than the padded input (no output), a dimension above
/// 2^31 - 1 (the kernels' index type), or element counts whose product overflows 64 bits.
/// Inline (like require_valid() and dims_of()): the exercise's runner links no chapter library.
inline std::string shape_error(const ConvShape& s) {
  const std::pair<const char*, std::int64_t> positive[] = {{"N", s.n}, {"C", s.c}, {"H", s.h}, {"W", s.w},
                                                           {"K", s.k}, {"R", s.r}, {"S", s.s}};
  for (const auto& [name, v] : positive) {
    if (v < 1) return std::string(name) + " must be at least 1 (got " + std::to_string(v) + ")";
    if (v > INT_MAX) return std::string(name) + " = " + std::to_string(v) + " is above 2^31 - 1";
  }
  if (s.stride_h < 1 || s.stride_w < 1) {
    return "the stride must be at least 1 (got " + std::to_string(s.stride_h) + " x " + std::to_string(s.stride_w) + ")";
  }
  if (s.pad_h < 0 || s.pad_w < 0) {
    return "the padding must not be negative (got " + std::to_string(s.pad_h) + " x " + std::to_string(s.pad_w) + ")";
  }
  if (s.stride_h > INT_MAX || s.stride_w > INT_MAX || s.pad_h > INT_MAX / 4 || s.pad_w > INT_MAX / 4 ||
      s.h + 2 * s.pad_h > INT_MAX || s.w + 2 * s.pad_w > INT_MAX) {
    return "the padded input (or the stride) is above 2^31 - 1";
  }
  if (s.r > s.h + 2 * s.pad_h || s.s > s.w + 2 * s.pad_w) {
    return "the " + std::to_string(s.r) + "x" + std::to_string(s.s) + " filter is larger than the padded input (" +
           std::to_string(s.h + 2 * s.pad_h) + "x" + std::to_string(s.w + 2 * s.pad_w) + "): there is no output";
  }
  const std::int64_t p = s.p(), q = s.q();
  using detail::checked_product;
  if (checked_product({s.n, s.c, s.h, s.w}) < 0 || checked_product({s.k, s.c, s.r, s.s}) < 0 ||
      checked_product({s.n, s.k, p, q}) < 0 || checked_product({s.n, p, q, s.c, s.r, s.s}) < 0 ||
      checked_product({s.n, s.k, p, q, s.c, s.r, s.s}) < 0) {
    return "the tensor sizes overflow 64-bit integers (N C H W = " + std::to_string(s.n) + " x " +
           std::to_string(s.c) + " x " + std::to_string(s.h) + " x " + std::to_string(s.w) + ", K = " +
           std::to_string(s.k) + ")";
  }
  return "";
}

/// "N32 C64 56x56 K64 3x3 pad1" (stride and asymmetric padding only when they are not 1 / equal).
std::string shape_text(const ConvShape& s);

/// 2 N K P Q C R S: the canonical FLOP count (a multiply and an add per term), whatever the
/// algorithm (Winograd and im2col + GEMM are credited with the direct convolution's count).
double conv_flops(const ConvShape& s);

/// Minimum traffic: read x and w once, write y once, with `in_bytes` per input element and
/// `out_bytes` per output element.
double conv_bytes(const ConvShape& s, double in_bytes, double out_bytes);

/// Which arrangement of the tensors a version takes.
enum class Layout {
  nchw,  ///< x N x C x H x W, w K x C x R x S, y N x K x P x Q (rows of an image contiguous)
  nhwc,  ///< x N x H x W x C, w K x R x S x C, y N x P x Q x K (channels of a pixel contiguous)
};

/// "NCHW" or "NHWC".
const char* layout_name(Layout l);

/// What a version computes in, which decides the table it appears in and its tolerance.
enum class Precision {
  fp32,  ///< fp32 inputs and output, fp32 arithmetic on CUDA cores (FFMA)
  bf16,  ///< bfloat16 inputs and output, fp32 accumulation (tensor cores)
};

/// "fp32" or "bf16" (also the JSON `dtype`).
const char* precision_name(Precision p);

/// Runs one convolution on fp32 tensors of the version's layout, enqueued on `stream`.
using LaunchF32 = void (*)(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream);
/// The same on bfloat16 tensors (fp32 accumulation, bfloat16 output).
using LaunchBF16 = void (*)(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
                            cudaStream_t stream);
/// "" if a version can run `s`, else why not (e.g. "Winograd F(2x2,3x3) needs a 3x3 filter").
using Supports = std::string (*)(const ConvShape& s);

/// Something that computes a convolution: precision, layout and the launcher of that precision.
struct Kernel {
  Precision precision = Precision::fp32;  ///< decides which launcher is set
  Layout layout = Layout::nchw;           ///< the layout of x, w and y
  LaunchF32 f32 = nullptr;                ///< fp32 launcher (else null)
  LaunchBF16 bf16 = nullptr;              ///< bf16 launcher (else null)
  bool winograd = false;                  ///< computes in the Winograd domain (its own tolerance)
};

/// A registered version.
struct Version {
  tut::VersionInfo info;       ///< name, one-line idea, minimum GPU, kind
  Kernel kernel;               ///< how to run it
  Supports supports = nullptr; ///< null: every valid shape
  /// The executable skips problems of more FLOPs than this ("too slow at this size"); 0: no cap.
  /// Only a time budget for the default run: the tests run every version at every size.
  double max_flops = 0.0;
};

/// The registry: every version and library baseline of the chapter, in table order.
const std::vector<Version>& versions();

/// "" if `v` can run `s` (its supports() and the shape's validity), else the reason.
std::string unsupported_reason(const Version& v, const ConvShape& s);

/// Throws std::invalid_argument with shape_error()'s message when the shape is invalid. Every
/// launcher calls it first.
inline void require_valid(const ConvShape& s, const char* who) {
  const std::string why = shape_error(s);
  if (!why.empty()) throw std::invalid_argument(std::string(who) + ": " + why);
}

/// Throws std::invalid_argument naming `who` unless x and w start on 16-byte boundaries (the
/// bf16 versions' 16-byte cp.async of 8 channels).
void require_16_byte_aligned(const void* x, const void* w, const char* who);

/// The number of SMs of the current device (cached): launchers size their grids with it.
int sm_count();

/// The kernels' view of a shape: every dimension as an int (checked by require_valid()).
struct Dims {
  int n;         ///< images
  int c;         ///< input channels
  int h;         ///< input height
  int w;         ///< input width
  int k;         ///< output channels
  int r;         ///< filter height
  int s;         ///< filter width
  int pad_h;     ///< zero rows above and below
  int pad_w;     ///< zero columns left and right
  int stride_h;  ///< vertical stride
  int stride_w;  ///< horizontal stride
  int p;         ///< output height
  int q;         ///< output width
};

/// The Dims of a valid shape.
inline Dims dims_of(const ConvShape& s) {
  const auto i = [](std::int64_t v) { return static_cast<int>(v); };
  return {i(s.n), i(s.c), i(s.h), i(s.w), i(s.k), i(s.r), i(s.s), i(s.pad_h), i(s.pad_w), i(s.stride_h),
          i(s.stride_w), i(s.p()), i(s.q())};
}

/// @name Tolerances (see the chapter page, "Precision and tolerances")
/// @{

/// What a result must match: `reduction` = L = C R S products per output; `winograd` for a
/// version that computes in the Winograd domain. Output element i passes when
/// |got - ref_i| <= atol + rtol * scale_i, and the whole output when
/// ||got - ref|| / ||scale|| <= max_rel_norm, where scale_i = error_scale() of the element: the
/// sum of the magnitudes of its L terms, sum |x w| (a bound relative to |ref| alone would fail
/// an honest rounding error wherever the terms cancel). The reference uses the inputs the kernel
/// saw (bf16-rounded for the bf16 table).
tut::Tolerance tolerance(Precision p, std::int64_t reduction, bool winograd);

/// The scale an output element's error is measured against (the `magnitude` handed to
/// tut::ErrorStats::add): `magnitude` = sum |x w| of its terms in fp32; in bf16, where the output
/// is also rounded to bf16 (an error relative to the result itself), |ref| + kappa * magnitude,
/// with kappa = the accumulation's factor / tolerance(bf16).rtol, so that rtol * scale is the
/// output rounding's 2^-8 |ref| plus the accumulation's bound on sum |x w|.
double error_scale(Precision p, std::int64_t reduction, double ref, double magnitude);
/// @}

/// @name Layouts and conversions (convert.cu; run once per problem, never timed)
/// @{

/// Rounds x to bfloat16 and back (to nearest, ties to even): the value a bf16 kernel sees.
float round_to_bf16(float x);

/// out (N x HW x C) = in (N x C x HW) transposed per image: NCHW -> NHWC, and, with N = K and
/// HW = R S, KCRS -> KRSC.
void to_channels_last_device(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t hw,
                             cudaStream_t stream);
/// Converts `count` floats to bfloat16 on the device (round to nearest even).
void to_bf16_device(const float* in, __nv_bfloat16* out, std::int64_t count, cudaStream_t stream);
/// The host versions: out = in transposed per image (NCHW -> NHWC).
std::vector<float> to_channels_last(const std::vector<float>& in, std::int64_t n, std::int64_t c, std::int64_t hw);
/// @}

/// @name CPU reference (double precision)
/// @{

/// The canonical output index ((n K + k) P + p) Q + q of the NKPQ order; checks and references
/// use it, and output_offset() maps it into a layout.
std::size_t canonical_index(const ConvShape& s, std::int64_t n, std::int64_t k, std::int64_t p, std::int64_t q);

/// Where output element `canonical` (NKPQ order) lives in an output of layout `l`.
std::size_t output_offset(const ConvShape& s, Layout l, std::size_t canonical);

/// "n 3, k 17, p 0, q 55" for a canonical output index.
std::string format_index(const ConvShape& s, std::size_t canonical);

/// One output element in double from NCHW x and KCRS w (the floats the kernel saw); if
/// `magnitude` is given, it receives the sum of |x w| over the element's terms.
double reference_output(const ConvShape& s, const float* x, const float* w, std::int64_t n, std::int64_t k,
                        std::int64_t p, std::int64_t q, double* magnitude = nullptr);

/// Every output element in double, in the canonical NKPQ order, in parallel over (n, k); if
/// `magnitude` is given, it receives each element's sum of |x w| (same order).
std::vector<double> reference_conv(const ConvShape& s, const float* x, const float* w,
                                   std::vector<double>* magnitude = nullptr);

/// The outputs a sampled check looks at (canonical indices, sorted, no duplicates): for 64
/// pixels (the four corners of image 0 and of the last image, the rest random) every output
/// channel; for 32 (n, k) planes (first, last, random) the whole border of the plane (rows 0
/// and P-1, columns 0 and Q-1, where the padding is); and `random_count` random outputs.
std::vector<std::size_t> sample_indices(const ConvShape& s, std::uint64_t seed, std::size_t random_count = 8192);

/// A reference for one problem: every element, or a sample of them when the problem is large.
struct Reference {
  bool full = true;                ///< true: value[i] is canonical element i; false: value[j] is element index[j]
  std::vector<std::size_t> index;  ///< canonical indices checked (sampled reference only)
  std::vector<double> value;       ///< the reference values
  std::vector<double> magnitude;   ///< each value's sum of |x w| over its C R S terms (same order)
};

/// Largest N K P Q C R S computed in full (2^31 multiply-adds: about a second on 16 cores);
/// bigger problems are checked on sample_indices().
constexpr double kFullReferenceMacs = 2147483648.0;

/// The reference of one problem: full up to `full_macs` multiply-adds, else sampled.
Reference make_reference(const ConvShape& s, const float* x, const float* w, std::uint64_t seed,
                         double full_macs = kFullReferenceMacs);

/// Compares a downloaded output `got` (all N K P Q elements, in layout `l`, computed in
/// precision `p`) with `ref`, each element against its error_scale(). On the host, on the CPU's
/// threads: a check needs no device memory beyond the output itself.
tut::ErrorStats check_output(const ConvShape& s, Precision p, Layout l, const Reference& ref, const float* got,
                             const tut::Tolerance& tol);
/// @}

/// @name The fp32 ladder on CUDA cores (one file each)
/// @{

void launch_conv2d_v00_naive(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream);
void launch_conv2d_v01_smem_tile(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream);
void launch_conv2d_v02_register_tile(const ConvShape& s, const float* x, const float* w, float* y,
                                    cudaStream_t stream);
void launch_conv2d_v03_im2col_cublas(const ConvShape& s, const float* x, const float* w, float* y,
                                    cudaStream_t stream);
void launch_conv2d_v04_implicit_gemm(const ConvShape& s, const float* x, const float* w, float* y,
                                    cudaStream_t stream);
void launch_conv2d_v05_winograd(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream);
void launch_conv2d_v06_winograd_fused(const ConvShape& s, const float* x, const float* w, float* y,
                                     cudaStream_t stream);
/// @}

/// @name Tensor cores (sm_80 and later)
/// @{

void launch_conv2d_v07_mma_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                               __nv_bfloat16* y, cudaStream_t stream);
void launch_conv2d_v10_padded_channels(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                       __nv_bfloat16* y, cudaStream_t stream);
/// @}

/// @name Hopper (sm_90a: wgmma; skipped with a reason elsewhere)
/// @{

void launch_conv2d_v08_wgmma_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                 __nv_bfloat16* y, cudaStream_t stream);
void launch_conv2d_v09_lean_wgmma_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                      __nv_bfloat16* y, cudaStream_t stream);
void launch_conv2d_v11_tma_im2col_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                      __nv_bfloat16* y, cudaStream_t stream);
void launch_conv2d_v12_tma_store_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                     __nv_bfloat16* y, cudaStream_t stream);
void launch_conv2d_v13_shared_filters_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                          __nv_bfloat16* y, cudaStream_t stream);
/// v13 with its 128-pixel tiles whatever the shape (the tests run them where v13 would not).
void launch_conv2d_v13_tile128(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                               __nv_bfloat16* y, cudaStream_t stream);
/// v13's tile: 128 output pixels (two consumer warpgroups) where the busiest SM of a persistent
/// grid then computes no more rows than with v12's 64, else 64.
int v13_tile_pixels(const ConvShape& s, int sms);
void launch_conv2d_v14_one_wave_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                     __nv_bfloat16* y, cudaStream_t stream);
/// v14 with its 192-pixel tiles whatever the shape (the tests run them where v14 would not).
void launch_conv2d_v14_tile192(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                               __nv_bfloat16* y, cudaStream_t stream);
/// v14's tile: 192 output pixels (three consumer warpgroups) where one wave of them covers the
/// layer (no more tiles than SMs) and its busiest SM computes no more rows than with
/// v13_tile_pixels()'s tile, else that tile.
int v14_tile_pixels(const ConvShape& s, int sms);
/// @}

/// @name Shape limits of the versions that do not run everything
/// @{

/// v01's input tile with its halo must fit in 48 KiB of shared memory.
std::string supports_v01(const ConvShape& s);
/// v02's tiles must fit in 48 KiB of shared memory.
std::string supports_v02(const ConvShape& s);
/// v03's im2col matrix must fit in a few GiB, and cuBLAS takes int dimensions.
std::string supports_v03(const ConvShape& s);
/// v05: 3x3 filters with stride 1 only; the transformed tensors must fit in a few GiB.
std::string supports_v05(const ConvShape& s);
/// v06: 3x3 filters with stride 1 only (any padding); the transformed filter must fit in 4 GiB.
std::string supports_v06(const ConvShape& s);
/// v07: C a multiple of 8 (16-byte cp.async rows of the input and the filter).
std::string supports_v07(const ConvShape& s);
/// v08 and v09: C a multiple of 64 (a slice is 64 channels of one filter tap, one 128-byte swizzle
/// row), and a GPU and build that can run wgmma (tut::sm90::unavailable(): sm_90a code on an sm_90 GPU).
std::string supports_v08(const ConvShape& s);
/// v11-v14: v08's limits, and those of TMA's im2col map (padding and filter extents within 128
/// of each other, strides up to 8, P Q below 2^31, a driver with cuTensorMapEncodeIm2col).
std::string supports_v11(const ConvShape& s);
/// v10: only C % 8 != 0 (elsewhere v07-v09 run the layer without padding).
std::string supports_v10(const ConvShape& s);
/// The bytes of v03's im2col matrix for `s` (C R S x N P Q floats).
double im2col_bytes(const ConvShape& s);
/// The bytes of v05's transformed input and output (16 tiles' worth of C and of K values per 2x2 tile).
double winograd_bytes(const ConvShape& s);
/// @}

/// @name cuDNN baselines (cudnn_baselines.cpp): the fastest algorithm cuDNN finds for the shape
/// and layout, found once per shape (untimed: on the first call, the check before timing)
/// @{

void launch_cudnn_fp32_nchw(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream);
void launch_cudnn_fp32_nhwc(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream);
void launch_cudnn_bf16_nchw(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
                            cudaStream_t stream);
void launch_cudnn_bf16_nhwc(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
                            cudaStream_t stream);
/// "" if cuDNN can run `s`, else why not ("cuDNN not found", tensors above 2^31 elements, ...).
std::string supports_cudnn(const ConvShape& s);
/// The algorithm cuDNN chose for the last shape of a row ("IMPLICIT_PRECOMP_GEMM, 0 B workspace"),
/// or "" if it has not run. `row` is the version name (e.g. "cudnn_fp32_nhwc").
std::string cudnn_choice(const std::string& row);
/// @}

}  // namespace conv2d
