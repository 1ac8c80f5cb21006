/// @file
/// @brief Chapter 01 (elementwise): declarations shared by the versions, the executable and the tests.
///
/// The registry, versions(), is the only list of versions: the executable, --list, the tests
/// and the JSON all iterate it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "common/compare.hpp"
#include "common/report.hpp"

/// Chapter 01: elementwise operations, the simplest memory-bound kernels.
namespace elementwise {

/// One run of a version: `in0` (and `in1` for binary operations; null for unary ones) -> `out`,
/// `n` elements, enqueued on `stream`.
using Launch = void (*)(const float* in0, const float* in1, float* out, std::int64_t n, cudaStream_t stream);

/// The tables a version is shown in (a bit set: the copy roofs are in both).
enum Tables : unsigned {
  kAddTable = 1,  ///< the ladder: out = a + b, one idea per version, plus the copy roofs
  kOpsTable = 2,  ///< other operations on the best ladder kernel, and what fusion saves
};

/// A registered version: everything the executable and the tests need to run and check it.
struct Version {
  tut::VersionInfo info;               ///< name, one-line idea, minimum GPU, kind
  unsigned tables;                     ///< Tables it is shown in
  int inputs;                          ///< 1 (unary) or 2 (binary)
  int streams;                         ///< float arrays read or written once per run: bytes = 4 * streams * n
  Launch launch;                       ///< runs it
  double (*reference)(double, double); ///< CPU reference of one element (second argument unused if unary)
  tut::Tolerance tolerance;            ///< how close `out` must be to the reference, and why
};

/// The registry: every version of the chapter, in table order.
const std::vector<Version>& versions();

/// The tolerance of out = a + b (one fp32 rounding), shared by the ladder and the exercise.
const tut::Tolerance& add_tolerance();

/// Number of elements to peel, one at a time, before every pointer is 16-byte aligned, so that
/// float4 accesses can start; `n` when no common peel exists (the pointers are misaligned
/// differently) and the whole range must be done with scalar accesses.
std::int64_t float4_peel(std::int64_t n, const float* a, const float* b, const float* out);

/// @name CPU references (one element, in double precision)
/// @{
double reference_add(double a, double b);         ///< a + b
double reference_copy(double x, double unused);   ///< x
double reference_relu(double x, double unused);   ///< max(x, 0)
double reference_sigmoid(double x, double unused); ///< 1 / (1 + e^-x)
double reference_axpb_relu(double x, double unused); ///< max(kAlpha * x + kBeta, 0)
/// @}

/// Scale of the fused operation y = relu(kAlpha * x + kBeta) (a typical scale + bias + activation).
constexpr float kAlpha = 0.75f;
/// Bias of the fused operation.
constexpr float kBeta = -0.25f;

/// @name The add ladder (one file each: v0_block32.cu ... v5_float4_full_grid.cu)
/// @{
void launch_add_v0_block32(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream);
void launch_add_v1_block256(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream);
void launch_add_v2_grid_stride(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream);
void launch_add_v3_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream);
void launch_add_v4_float4_ilp(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream);
void launch_add_v5_float4_full_grid(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream);
/// @}

/// @name Roofs (unary_ops.cu): what moving the bytes alone costs
/// @{
void launch_copy_float4(const float* in, float* out, std::int64_t n, cudaStream_t stream);
void launch_copy_memcpy(const float* in, float* out, std::int64_t n, cudaStream_t stream);
/// @}

/// @name Other operations on the v5 kernel, and fusion (unary_ops.cu)
/// @{
void launch_relu(const float* x, float* y, std::int64_t n, cudaStream_t stream);
void launch_sigmoid(const float* x, float* y, std::int64_t n, cudaStream_t stream);
void launch_axpb_relu_unfused(const float* x, float* y, std::int64_t n, cudaStream_t stream);
void launch_axpb_relu_fused(const float* x, float* y, std::int64_t n, cudaStream_t stream);
/// @}

}  // namespace elementwise
