/// @file
/// @brief Chapter 05 (transpose): declarations shared by the versions, the executable and the tests.
///
/// B = A^T out of place: A is row-major R x C, B is row-major C x R, B[c][r] = A[r][c]. The
/// registry, versions(), is the only list of versions: the executable, --list, the tests and
/// the JSON all iterate it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "common/report.hpp"

/// Chapter 05: matrix transpose, where reads and writes cannot both be contiguous.
namespace transpose {

/// One run of a version: reads A (R x C, row-major), writes B, enqueued on `stream`.
using Launch = void (*)(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);

/// What a version leaves in B.
enum class Output {
  transposed,  ///< B = A^T (C x R): the ladder and cublasSgeam
  copied,      ///< B = A (R x C): the copy roofs, which move the same bytes without transposing
};

/// A registered version: everything the executable and the tests need to run and check it.
struct Version {
  tut::VersionInfo info;  ///< name, one-line idea, minimum GPU, kind
  Output output;          ///< what B must hold afterwards
  Launch launch;          ///< runs it (correct for every R, C >= 1 and any alignment)
  /// Null if the version runs wherever its min_cc allows; otherwise "" when it can run on the
  /// current GPU and build, or the reason it cannot (reported as skipped, never launched).
  std::string (*unavailable)();
};

/// The registry: every version of the chapter, in table order (roofs, ladder, libraries).
const std::vector<Version>& versions();

/// Minimum bytes moved: A read once and B written once, 2 * 4 * R * C (the same for the copies).
double bytes_moved(std::int64_t R, std::int64_t C);

/// @name Checking (reference.cpp: the CPU reference, which the exercise checker links)
/// @{

/// The element of A that element `i` of B holds: for a transpose B[c][r] (i = c R + r) holds
/// A[r][c], element r C + c of A; for a copy, element i.
__host__ __device__ inline std::uint64_t source_index(std::uint64_t i, std::uint64_t R, std::uint64_t C,
                                                      Output output) {
  return output == Output::copied ? i : (i % R) * C + i / R;
}

/// The CPU reference: B[c * R + r] = A[r * C + c].
std::vector<float> reference_transpose(const std::vector<float>& A, std::int64_t R, std::int64_t C);
/// A transpose or a copy moves bits: the result must be exact (tolerance zero).
const tut::Tolerance& exact_tolerance();
/// Compares the R * C floats `got` with the expected content of B for `output` (exact): element
/// i must equal A[source_index(i)]; a NaN never does. On the CPU's threads.
tut::ErrorStats check(const float* got, const float* A, std::int64_t R, std::int64_t C, Output output);
/// check() of two host vectors of R * C floats.
tut::ErrorStats check(const std::vector<float>& got, const std::vector<float>& A, std::int64_t R, std::int64_t C,
                      Output output);
/// @}

/// @name Checking where B lives (device_check.cu: the executable and the [large] test)
/// @{

/// Floats of B that check_against_hash() downloads at a time, when a check has failed.
constexpr std::int64_t kHostCheckChunk = std::int64_t{1} << 24;

/// Checks the device array B (R * C floats) against the A that
/// `tut::fill_random_device(A, R * C, seed)` made: element i must equal
/// `tut::hash_uniform(seed, source_index(i), -1, 1)` exactly. Each expected value is recomputed
/// from the counter-based hash where it is needed, so nothing is stored: no host copy of A, no
/// reference array, no fp64 copy; a 46341 x 46341 problem (2^31+ elements) needs only A and B on
/// the GPU. One pass counts the wrong elements on the GPU (synchronizes `stream`); only when
/// there are some is B downloaded in chunks of kHostCheckChunk and compared on the CPU's
/// threads, so the report names the wrong elements.
tut::ErrorStats check_against_hash(const float* B, std::int64_t R, std::int64_t C, Output output,
                                   std::uint64_t seed, cudaStream_t stream = nullptr);
/// @}

/// @name The ladder (one file each)
/// @{

void launch_transpose_v00_read_coalesced(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
void launch_transpose_v01_write_coalesced(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
void launch_transpose_v02_smem_tile(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
void launch_transpose_v03_padded_tile(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
void launch_transpose_v04_tile_32x8(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
void launch_transpose_v05_float4_swizzle(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
void launch_transpose_v06_four_tiles(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
void launch_transpose_v07_diagonal(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
void launch_transpose_v08_tma(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
void launch_transpose_v09_tuned_tiles(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
void launch_transpose_v10_tma_tuned(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
/// @}

/// v10's one-line summary, made from its configuration (V10Tiles in v10_tma_tuned.cu).
std::string v10_summary();

/// v09's one-line summary, made from its configuration (V9Tiles in v09_tuned_tiles.cu).
std::string v9_summary();
/// "" if this GPU has the shared memory per block that V9Tiles needs, else why not.
std::string v9_unavailable();

/// Why v08_tma cannot run here ("" if it can): GPU older than sm_90, no sm_90 code in this
/// build, or no cuTensorMapEncodeTiled in the driver.
std::string tma_unavailable();

/// True if v05, v06, v07 (and v08, v09) take their vector path for these arguments: R % 4 == 0, C % 4 == 0
/// and both pointers 16-byte aligned. Otherwise v05-v08 run v04's kernel, v09 its scalar twin.
bool vector_path(const float* A, const float* B, std::int64_t R, std::int64_t C);

/// @name Roofs (roofs.cu): the same bytes moved without a transpose
/// @{

void launch_copy_tile(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
void launch_copy_shared(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
/// @}

/// @name Vendor baselines (baselines.cpp)
/// @{

void launch_copy_memcpy(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
void launch_cublas_geam(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);
/// @}

}  // namespace transpose
