/// @file
/// @brief v26: v09's two configurations with each thread's FFMAs in a serpentine order over its
/// thread tile (fp32, CUDA cores).
#include <cstdint>

#include "fp32/ffma_configs.hpp"
#include "fp32/ffma_pipeline.cuh"
#include "fp32/padded_b.cuh"
#include "gemm.hpp"

namespace gemm {

// v26's configurations: v09's two, with the serpentine switched on.
// [config]
/// v09's Large (v08's 128 x 256 tile), FFMAs in a serpentine.
struct V26Large : by_shape::Large {
  static constexpr bool serpentine = true;  ///< (v09: false)
};
/// v09's SmallFatDeep (64 x 128), FFMAs in a serpentine.
struct V26Small : by_shape::SmallFatDeep {
  static constexpr bool serpentine = true;  ///< (v09: false)
};
// [config]

/// @brief v26: v09, with each thread's FFMAs in a serpentine order.
///
/// **Idea.** A k-step of v07-v09's kernel is TM x TN FFMAs per thread, acc[i][j] += ra[i] rb[j]
/// (outer_product()), issued row by row, each row left to right. An FFMA reads three registers;
/// the SM's register file serves them through a few banks, and each operand slot of the FFMA unit
/// keeps the value it read last (the operand reuse cache, which ptxas marks with `.reuse`), so a
/// source that repeats in its slot costs no bank read. Within a row ra[i] repeats, but where one
/// row ends (rb[TN - 1]) and the next begins (rb[0]) both operands change. Walking every other
/// row right to left (a serpentine, as hand-scheduled SGEMMs do, e.g. maxas's) makes the next row
/// start on the rb[j] the last one ended on. ptxas still schedules and allocates the registers;
/// the order we write is what it starts from.
///
/// **Changed since v09.** One switch of the configuration (`serpentine`, kSerpentine in
/// ffma_pipeline.cuh: the loop `[serpentine]`), on in both of v09's configurations; v09's choice
/// between them (launch_chosen_config()), unchanged.
///
/// **What is still wrong.** The order is a hint: ptxas reorders FFMAs and chooses registers, so
/// what a source order gains is measured, not derived, and may move with the compiler.
///
/// **Measured first in a development call** (H200, on top of commit 1ff7015; the order as a
/// switch of v08's configuration, four runs of 20 repetitions in both orders, cuBLAS SGEMM in the
/// same runs): 4096^3 2.799-2.800 ms against v08's 2.899-2.902 (1.036x), 0.956 of cuBLAS SGEMM
/// (2.675 ms); 8192^3 22.05-22.06 against 22.82-22.84 (1.035x), 0.972 of cuBLAS (21.43-21.45).
/// The other order that keeps an operand in its slot, column by column (rb[j] repeated, ra[i]
/// changing), ran 0.92x of v08 (3.139 and 24.62 ms). ptxas gives v08's kernel 255 registers, the
/// serpentine 236, the column order 234.
///
/// **Predicted** (for the chapter's recorded run, written before it): 1.03-1.04x v09 where it runs
/// Large (2048^3 to 8192^3), 0.95-0.97 of cuBLAS SGEMM at 4096^3 and 8192^3; the small
/// configuration (1024^3, 4095 x 4097 x 1023, 1024 x 1024 x 4096) not measured before: 1.00-1.03x.
///
/// **Measured** (the chapter's recorded run, H200, commit 50fd319, cuBLAS SGEMM in the same run):
/// as predicted. 1.027-1.034x v09 where Large runs, **0.955 of cuBLAS SGEMM at 4096^3** (2.821 ms
/// against 2.695) and **0.969 at 8192^3** (22.14 against 21.44); 0.949 at 2048^3. On the small
/// tile 1.014-1.032x v09: 1.009 of cuBLAS at 1024^3, 0.954 at 4095 x 4097 x 1023, 0.779 at
/// 1024 x 1024 x 4096. In the SASS, 1894 of the Large kernel's 2400 FFMAs carry a `.reuse` flag
/// (v09: 1752), 902 of the small one's 1141 (825).
void launch_gemm_v26_serpentine_ffma(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                     const float* b, float beta, float* c, cudaStream_t stream) {
  launch_chosen_config<FfmaConfig<V26Large>, FfmaConfig<V26Small>>(m, n, k, alpha, a, b, beta, c, stream);
}

}  // namespace gemm
