/// @file
/// @brief Finishing a reduction by relaunching the same kernel on its own partial results.
///
/// The kernels of v1..v5 each reduce one tile of the input (256 or 512 elements) to one partial
/// per block. One launch turns n elements into ceil(n / tile) partials; launching the same
/// kernel on those partials turns them into ceil(n / tile^2), and so on until one block is
/// left, which writes the final value. For n = 2^28 and 256-element tiles that is four launches:
///
///     2^28 elements -> 2^20 partials -> 2^12 -> 16 -> 1
///
/// The partials live in the Workspace (allocated once, outside the timed runs).
#pragma once

#include <cstdint>

#include "common/harness.hpp"
#include "reduce.hpp"

namespace reduce {

/// @brief Reduces n elements with `pass` until one value remains in `*out`.
///
/// `pass(op, in_x, in_y, dst, count, stream)` must launch ceil(count / tile) blocks that reduce
/// `count` elements of (in_x, in_y) with operator `op`, block b writing its result to dst[b].
/// The first pass reads the input with `Op`; later passes read partials with `Op::Finish`
/// (for a dot product, the partials are summed). `tile` is the number of elements one block
/// reduces. Each level's partials start at a 16-byte boundary.
template <class Op, class Pass>
void reduce_in_passes(const float* x, const float* y, float* out, std::int64_t n, std::int64_t tile, Workspace& ws,
                      cudaStream_t stream, Pass pass) {
  std::int64_t blocks = tut::ceil_div(n, tile);
  if (blocks == 1) {  // one block covers everything: it writes the result directly
    pass(Op{}, x, y, out, n, stream);
    return;
  }
  float* level = ws.partials(static_cast<std::size_t>(blocks));
  pass(Op{}, x, y, level, n, stream);
  std::size_t used = static_cast<std::size_t>(tut::ceil_div(blocks, 4) * 4);  // keep levels 16-byte aligned
  std::int64_t count = blocks;
  while (true) {
    blocks = tut::ceil_div(count, tile);
    float* dst = out;
    if (blocks > 1) dst = ws.partials(used + static_cast<std::size_t>(blocks)) + used;
    pass(typename Op::Finish{}, level, nullptr, dst, count, stream);
    if (blocks == 1) return;
    level = dst;
    used += static_cast<std::size_t>(tut::ceil_div(blocks, 4) * 4);
    count = blocks;
  }
}

}  // namespace reduce
