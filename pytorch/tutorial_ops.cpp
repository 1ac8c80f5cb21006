// The tutorial's kernels as PyTorch operators (torch.ops.tutorial.*), chapters 01-05: one fast,
// general version of each (named at each operator; a chapter's fastest version can depend on the
// shape and the GPU, see its table). Chapters 06-08 are in matrix_ops.cpp, the exercises in
// exercise_ops.cpp. Each operator checks its inputs (a CUDA device, float32, contiguous, matching
// shapes) and raises a Python RuntimeError with the reason otherwise; it runs on torch's current
// CUDA stream, on the inputs' device. A Meta implementation gives the output's shape without
// running anything, which torch.compile and torch.library.opcheck need.
#include <cstdint>
#include <string>

#include "elementwise.hpp"
#include "gemv.hpp"
#include "op_support.hpp"
#include "reduce.hpp"
#include "softmax.hpp"
#include "transpose.hpp"

namespace {

using namespace tut_torch;

// ------------------------------------------------------------------------------------------
// CUDA implementations
// ------------------------------------------------------------------------------------------

/// out = a + b (chapter 01, v5_float4_full_grid).
at::Tensor add_cuda(const at::Tensor& a, const at::Tensor& b) {
  check_input(a, "tutorial::add", "a");
  check_input(b, "tutorial::add", "b");
  check_same_device(a, b, "tutorial::add");
  require(a.sizes() == b.sizes(),
          "tutorial::add: a and b must have the same shape, got " + shape_of(a) + " and " + shape_of(b));
  const c10::cuda::CUDAGuard guard(a.device());
  at::Tensor out = at::empty_like(a);
  note_version("tutorial::add", "v5_float4_full_grid");
  if (a.numel() > 0) {
    elementwise::launch_add_v5_float4_full_grid(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(),
                                                a.numel(), current_stream());
  }
  return out;
}

/// y = max(x, 0) (chapter 01, the ReLU on the ladder's best kernel).
at::Tensor relu_cuda(const at::Tensor& x) {
  check_input(x, "tutorial::relu", "x");
  const c10::cuda::CUDAGuard guard(x.device());
  at::Tensor y = at::empty_like(x);
  note_version("tutorial::relu", "v5_float4_full_grid (relu)");
  if (x.numel() > 0) elementwise::launch_relu(x.data_ptr<float>(), y.data_ptr<float>(), x.numel(), current_stream());
  return y;
}

/// One reduction of chapter 02 (v7_one_pass) into a 0-dim tensor.
at::Tensor reduce_cuda(reduce::Operation op, const at::Tensor& x, const at::Tensor* y, const char* name) {
  check_input(x, name, "x");
  if (y != nullptr) {
    check_input(*y, name, "y");
    check_same_device(x, *y, name);
    require(x.sizes() == y->sizes(),
            std::string(name) + ": x and y must have the same shape, got " + shape_of(x) + " and " + shape_of(*y));
  }
  require(op != reduce::Operation::max || x.numel() > 0, std::string(name) + ": the max of an empty tensor is undefined");
  const c10::cuda::CUDAGuard guard(x.device());
  at::Tensor out = at::empty({}, x.options());
  // The one-pass kernel's partials and its finished-blocks counter, from torch's allocator on this
  // stream (no cudaMalloc, no synchronization): the partials, then 4 floats whose first holds the
  // counter, which must start at zero (the kernel's last block leaves it at zero again).
  const auto floats = static_cast<std::int64_t>(reduce::workspace_floats(x.numel()));
  at::Tensor scratch = at::empty({floats + 4}, x.options());
  auto* blocks_done = reinterpret_cast<unsigned int*>(scratch.data_ptr<float>() + floats);
  C10_CUDA_CHECK(cudaMemsetAsync(blocks_done, 0, sizeof(unsigned int), current_stream()));
  reduce::Workspace workspace(scratch.data_ptr<float>(), static_cast<std::size_t>(floats), blocks_done);
  note_version(name, "v7_one_pass");
  reduce::launch_reduce_v7_one_pass(op, x.data_ptr<float>(), y != nullptr ? y->data_ptr<float>() : nullptr,
                                    out.data_ptr<float>(), x.numel(), workspace, current_stream());
  return out;
}

at::Tensor sum_cuda(const at::Tensor& x) { return reduce_cuda(reduce::Operation::sum, x, nullptr, "tutorial::sum"); }
at::Tensor max_cuda(const at::Tensor& x) { return reduce_cuda(reduce::Operation::max, x, nullptr, "tutorial::max"); }
at::Tensor dot_cuda(const at::Tensor& x, const at::Tensor& y) {
  return reduce_cuda(reduce::Operation::dot, x, &y, "tutorial::dot");
}

// [softmax_op]
/// Softmax over the last dimension (chapter 03: v7_cluster_rows on sm_90, v6_float4 elsewhere).
at::Tensor softmax_cuda(const at::Tensor& x) {
  check_input(x, "tutorial::softmax", "x");
  require(x.dim() >= 1, "tutorial::softmax: x must have at least one dimension");
  const c10::cuda::CUDAGuard guard(x.device());
  at::Tensor y = at::empty_like(x);
  if (x.numel() == 0) return y;
  const std::int64_t cols = x.size(-1), rows = x.numel() / cols;
  const bool v7 = softmax::v7_unsupported(rows, cols).empty();
  note_version("tutorial::softmax", v7 ? "v7_cluster_rows" : "v6_float4");
  if (v7) {
    softmax::launch_softmax_v7_cluster_rows(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols, current_stream());
  } else {
    softmax::launch_softmax_v6_float4(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols, current_stream());
  }
  return y;
}
// [softmax_op]

/// y = A x for a row-major M x K matrix A and a K-vector x (chapter 04, v4_float4_ilp).
at::Tensor gemv_cuda(const at::Tensor& A, const at::Tensor& x) {
  check_input(A, "tutorial::gemv", "A");
  check_input(x, "tutorial::gemv", "x");
  check_same_device(A, x, "tutorial::gemv");
  require(A.dim() == 2 && x.dim() == 1 && x.size(0) == A.size(1),
          "tutorial::gemv: A must be M x K and x a vector of K, got " + shape_of(A) + " and " + shape_of(x));
  const c10::cuda::CUDAGuard guard(A.device());
  at::Tensor y = at::empty({A.size(0)}, A.options());
  if (A.size(0) == 0) return y;
  if (A.size(1) == 0) return y.zero_();
  note_version("tutorial::gemv", "v4_float4_ilp");
  gemv::launch_gemv_v4_float4_ilp(A.data_ptr<float>(), x.data_ptr<float>(), y.data_ptr<float>(), A.size(0),
                                  A.size(1), current_stream());
  return y;
}

/// B = A^T for a row-major R x C matrix (chapter 05, v09_tuned_tiles).
at::Tensor transpose_cuda(const at::Tensor& A) {
  check_input(A, "tutorial::transpose", "A");
  require(A.dim() == 2, "tutorial::transpose: A must be a matrix, got the shape " + shape_of(A));
  const c10::cuda::CUDAGuard guard(A.device());
  at::Tensor B = at::empty({A.size(1), A.size(0)}, A.options());
  note_version("tutorial::transpose", "v09_tuned_tiles");
  if (A.numel() > 0) {
    transpose::launch_transpose_v09_tuned_tiles(A.data_ptr<float>(), B.data_ptr<float>(), A.size(0), A.size(1),
                                                current_stream());
  }
  return B;
}

// ------------------------------------------------------------------------------------------
// Meta implementations: the output's shape and type only (fake tensors, torch.compile, opcheck)
// ------------------------------------------------------------------------------------------

at::Tensor add_meta(const at::Tensor& a, const at::Tensor& b) {
  require(a.sizes() == b.sizes(),
          "tutorial::add: a and b must have the same shape, got " + shape_of(a) + " and " + shape_of(b));
  return at::empty_like(a);
}
at::Tensor same_as(const at::Tensor& x) { return at::empty_like(x); }
at::Tensor scalar_of(const at::Tensor& x) { return at::empty({}, x.options()); }
at::Tensor scalar_of2(const at::Tensor& x, const at::Tensor& /*y*/) { return at::empty({}, x.options()); }
at::Tensor gemv_meta(const at::Tensor& A, const at::Tensor& x) {
  require(A.dim() == 2 && x.dim() == 1 && x.size(0) == A.size(1),
          "tutorial::gemv: A must be M x K and x a vector of K, got " + shape_of(A) + " and " + shape_of(x));
  return at::empty({A.size(0)}, A.options());
}
at::Tensor transpose_meta(const at::Tensor& A) {
  require(A.dim() == 2, "tutorial::transpose: A must be a matrix, got the shape " + shape_of(A));
  return at::empty({A.size(1), A.size(0)}, A.options());
}

}  // namespace

// [registration]
TORCH_LIBRARY(tutorial, m) {
  m.def("add(Tensor a, Tensor b) -> Tensor");
  m.def("relu(Tensor x) -> Tensor");
  m.def("sum(Tensor x) -> Tensor");
  m.def("max(Tensor x) -> Tensor");
  m.def("dot(Tensor x, Tensor y) -> Tensor");
  m.def("softmax(Tensor x) -> Tensor");
  m.def("gemv(Tensor A, Tensor x) -> Tensor");
  m.def("transpose(Tensor A) -> Tensor");
  // Which of its chapter's versions an operator ran last ("" before its first call).
  m.def("last_version(str op) -> str", [](const std::string& op) { return last_version(op); });
}

TORCH_LIBRARY_IMPL(tutorial, CUDA, m) {
  m.impl("add", &add_cuda);
  m.impl("relu", &relu_cuda);
  m.impl("sum", &sum_cuda);
  m.impl("max", &max_cuda);
  m.impl("dot", &dot_cuda);
  m.impl("softmax", &softmax_cuda);
  m.impl("gemv", &gemv_cuda);
  m.impl("transpose", &transpose_cuda);
}

TORCH_LIBRARY_IMPL(tutorial, Meta, m) {
  m.impl("add", &add_meta);
  m.impl("relu", &same_as);
  m.impl("sum", &scalar_of);
  m.impl("max", &scalar_of);
  m.impl("dot", &scalar_of2);
  m.impl("softmax", &same_as);
  m.impl("gemv", &gemv_meta);
  m.impl("transpose", &transpose_meta);
}
// [registration]

TORCH_LIBRARY_IMPL(tutorial, CPU, m) {
  m.impl("add", [](const at::Tensor&, const at::Tensor&) -> at::Tensor { cpu_refused("tutorial::add"); });
  m.impl("relu", [](const at::Tensor&) -> at::Tensor { cpu_refused("tutorial::relu"); });
  m.impl("sum", [](const at::Tensor&) -> at::Tensor { cpu_refused("tutorial::sum"); });
  m.impl("max", [](const at::Tensor&) -> at::Tensor { cpu_refused("tutorial::max"); });
  m.impl("dot", [](const at::Tensor&, const at::Tensor&) -> at::Tensor { cpu_refused("tutorial::dot"); });
  m.impl("softmax", [](const at::Tensor&) -> at::Tensor { cpu_refused("tutorial::softmax"); });
  m.impl("gemv", [](const at::Tensor&, const at::Tensor&) -> at::Tensor { cpu_refused("tutorial::gemv"); });
  m.impl("transpose", [](const at::Tensor&) -> at::Tensor { cpu_refused("tutorial::transpose"); });
}
