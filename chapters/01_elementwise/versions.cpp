// The registry of chapter 01: the only list of versions (executable, --list, tests, JSON).
#include "elementwise.hpp"

namespace elementwise {

namespace {

/// Adapts a one-input launcher (x, y, n, stream) to the registry's Launch signature.
template <void (*F)(const float*, float*, std::int64_t, cudaStream_t)>
void unary(const float* x, const float* /*unused*/, float* y, std::int64_t n, cudaStream_t stream) {
  F(x, y, n, stream);
}

// Tolerances, and why (see the chapter page, "How results are checked").
const tut::Tolerance kExact{0.0, 0.0, 0.0, "a copy or max(x, 0) must reproduce the input bits exactly"};
const tut::Tolerance& kOneRounding = add_tolerance();
const tut::Tolerance kSigmoid{1e-6, 1e-7, 1e-6,
                              "expf is within 2 ulp; 1 + e and the division add 0.5 ulp each: ~4e-7 relative"};

}  // namespace

const std::vector<Version>& versions() {
  using tut::Kind;
  static const std::vector<Version> list = {
      {{"v0_block32", "one thread per element, 32-thread blocks (the occupancy trap)", 75, Kind::ours},
       kAddTable, 2, 3, launch_add_v0_block32, reference_add, kOneRounding},
      {{"v1_block256", "one thread per element, 256-thread blocks (full occupancy)", 75, Kind::ours},
       kAddTable, 2, 3, launch_add_v1_block256, reference_add, kOneRounding},
      {{"v2_grid_stride", "grid-stride loop over one full wave of blocks", 75, Kind::ours},
       kAddTable, 2, 3, launch_add_v2_grid_stride, reference_add, kOneRounding},
      {{"v3_float4", "16-byte float4 loads/stores, scalar head and tail", 75, Kind::ours},
       kAddTable, 2, 3, launch_add_v3_float4, reference_add, kOneRounding},
      {{"v4_float4_ilp", "4 independent float4 loads per input in flight per thread", 75, Kind::ours},
       kAddTable, 2, 3, launch_add_v4_float4_ilp, reference_add, kOneRounding},
      {{"v5_float4_full_grid", "one float4 per thread, a grid covering the array (no loop)", 75, Kind::ours},
       kAddTable, 2, 3, launch_add_v5_float4_full_grid, reference_add, kOneRounding},
      {{"copy_kernel", "v5's kernel copying x to y: the roof for our kernels", 75, Kind::ours},
       kAddTable | kOpsTable, 1, 2, unary<launch_copy_float4>, reference_copy, kExact},
      {{"cudaMemcpy", "cudaMemcpyAsync device-to-device: the bandwidth roof", 75, Kind::library},
       kAddTable | kOpsTable, 1, 2, unary<launch_copy_memcpy>, reference_copy, kExact},
      {{"relu", "y = max(x, 0) on v5's kernel", 75, Kind::ours},
       kOpsTable, 1, 2, unary<launch_relu>, reference_relu, kExact},
      {{"sigmoid", "y = 1 / (1 + exp(-x)) on v5's kernel", 75, Kind::ours},
       kOpsTable, 1, 2, unary<launch_sigmoid>, reference_sigmoid, kSigmoid},
      {{"axpb_relu_unfused", "y = relu(0.75x - 0.25) as two kernels (t goes through memory)", 75, Kind::ours},
       kOpsTable, 1, 4, unary<launch_axpb_relu_unfused>, reference_axpb_relu, kOneRounding},
      {{"axpb_relu_fused", "y = relu(0.75x - 0.25) as one kernel (t stays in a register)", 75, Kind::ours},
       kOpsTable, 1, 2, unary<launch_axpb_relu_fused>, reference_axpb_relu, kOneRounding},
  };
  return list;
}

}  // namespace elementwise
