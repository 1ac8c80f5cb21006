// Each chapter's exercise as a PyTorch operator, so that a student can call their own kernel from
// torch: tutorial::exercise_<chapter> in libtutorial_torch_exercises.so, built from the student's
// files (exercises/, or TUTORIAL_EXERCISES_DIR), and the same operators built from solutions/ as
// tutorial::solution_<chapter> in libtutorial_torch_solutions.so. This file is compiled once for
// each: TUT_TORCH_PREFIX is "exercise_" or "solution_". The operators check what the exercise's
// contract (chapters/NN/exercise.hpp) requires and raise a RuntimeError otherwise; a launcher's
// own refusal (std::invalid_argument) raises too.
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>

#include "chapters/01_elementwise/exercise.hpp"
#include "chapters/02_reduce/exercise.hpp"
#include "chapters/03_softmax/exercise.hpp"
#include "chapters/04_gemv/exercise.hpp"
#include "chapters/05_transpose/exercise.hpp"
#include "chapters/06_gemm/exercise.hpp"
#include "chapters/07_conv2d/exercise.hpp"
#include "chapters/08_attention/exercise.hpp"
#include "op_support.hpp"
#include "shapes.hpp"

#ifndef TUT_TORCH_PREFIX
#error "compile with TUT_TORCH_PREFIX=\"exercise_\" or \"solution_\""
#endif

namespace {

using namespace tut_torch;

/// "tutorial::exercise_gemm" (or solution_...), for error messages.
std::string op_name(const char* chapter) { return std::string("tutorial::") + TUT_TORCH_PREFIX + chapter; }

at::Tensor elementwise_op(const at::Tensor& a, const at::Tensor& b) {
  const std::string op = op_name("elementwise");
  check_input(a, op.c_str(), "a");
  check_input(b, op.c_str(), "b");
  check_same_device(a, b, op.c_str());
  require(a.sizes() == b.sizes(), op + ": a and b must have the same shape, got " + shape_of(a) + " and " + shape_of(b));
  const c10::cuda::CUDAGuard guard(a.device());
  const at::Tensor a16 = aligned16(a), b16 = aligned16(b);  // the exercise's float4 loads need 16-byte bases
  at::Tensor out = at::empty_like(a);
  run_launcher(op.c_str(), [&] {
    elementwise::exercise_add_float4(a16.data_ptr<float>(), b16.data_ptr<float>(), out.data_ptr<float>(), a.numel(),
                                     current_stream());
  });
  return out;
}

at::Tensor reduce_op(const at::Tensor& x, int64_t threads) {
  const std::string op = op_name("reduce");
  check_input(x, op.c_str(), "x");
  const c10::cuda::CUDAGuard guard(x.device());
  at::Tensor out = at::empty({}, x.options());
  run_launcher(op.c_str(), [&] {
    reduce::exercise_reduce_sum(x.data_ptr<float>(), out.data_ptr<float>(), x.numel(), static_cast<int>(threads),
                                current_stream());
  });
  return out;
}

at::Tensor softmax_op(const at::Tensor& x) {
  const std::string op = op_name("softmax");
  check_input(x, op.c_str(), "x");
  require(x.dim() >= 1, op + ": x must have at least one dimension");
  const c10::cuda::CUDAGuard guard(x.device());
  at::Tensor y = at::empty_like(x);
  if (x.numel() == 0) return y;
  const std::int64_t cols = x.size(-1), rows = x.numel() / cols;
  run_launcher(op.c_str(), [&] {
    softmax::exercise_softmax_warp_online(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols, current_stream());
  });
  return y;
}

at::Tensor gemv_op(const at::Tensor& A, const at::Tensor& x) {
  const std::string op = op_name("gemv");
  check_input(A, op.c_str(), "A");
  check_input(x, op.c_str(), "x");
  check_same_device(A, x, op.c_str());
  require(A.dim() == 2 && x.dim() == 1 && x.size(0) == A.size(1) && A.numel() > 0,
          op + ": A must be M x K (M, K >= 1) and x a vector of K, got " + shape_of(A) + " and " + shape_of(x));
  const c10::cuda::CUDAGuard guard(A.device());
  at::Tensor y = at::empty({A.size(0)}, A.options());
  run_launcher(op.c_str(), [&] {
    gemv::exercise_gemv_warp_float4(A.data_ptr<float>(), x.data_ptr<float>(), y.data_ptr<float>(), A.size(0),
                                    A.size(1), current_stream());
  });
  return y;
}

at::Tensor transpose_op(const at::Tensor& A) {
  const std::string op = op_name("transpose");
  check_input(A, op.c_str(), "A");
  require(A.dim() == 2 && A.numel() > 0, op + ": A must be a matrix of R, C >= 1, got the shape " + shape_of(A));
  const c10::cuda::CUDAGuard guard(A.device());
  at::Tensor B = at::empty({A.size(1), A.size(0)}, A.options());
  run_launcher(op.c_str(), [&] {
    transpose::exercise_transpose_padded(A.data_ptr<float>(), B.data_ptr<float>(), A.size(0), A.size(1),
                                         current_stream());
  });
  return B;
}

at::Tensor gemm_op(const at::Tensor& A, const at::Tensor& B, const std::optional<at::Tensor>& C, double alpha,
                   double beta) {
  const std::string op = op_name("gemm");
  check_input(A, op.c_str(), "A");
  check_input(B, op.c_str(), "B");
  check_same_device(A, B, op.c_str());
  require(A.dim() == 2 && B.dim() == 2 && A.size(1) == B.size(0) && A.size(0) > 0 && B.size(1) > 0,
          op + ": A must be M x K and B K x N (M, N >= 1), got " + shape_of(A) + " and " + shape_of(B));
  if (C.has_value()) {
    check_input(*C, op.c_str(), "C");
    require(C->dim() == 2 && C->size(0) == A.size(0) && C->size(1) == B.size(1), op + ": C must be M x N, got " + shape_of(*C));
  }
  require(beta == 0.0 || C.has_value(), op + ": beta != 0 needs C");
  const c10::cuda::CUDAGuard guard(A.device());
  at::Tensor out = beta != 0.0 ? C->clone() : at::empty({A.size(0), B.size(1)}, A.options());
  run_launcher(op.c_str(), [&] {
    gemm::exercise_gemm_2d_blocktile(A.size(0), B.size(1), A.size(1), static_cast<float>(alpha), A.data_ptr<float>(),
                                     B.data_ptr<float>(), static_cast<float>(beta), out.data_ptr<float>(),
                                     current_stream());
  });
  return out;
}

at::Tensor conv2d_op(const at::Tensor& x, const at::Tensor& w, at::IntArrayRef stride, at::IntArrayRef padding) {
  const std::string op = op_name("conv2d");
  check_input(x, op.c_str(), "x");  // the exercise is NCHW, fp32
  check_input(w, op.c_str(), "w");
  check_same_device(x, w, op.c_str());
  require(x.dim() == 4 && w.dim() == 4 && x.size(1) == w.size(1),
          op + ": x must be N x C x H x W and w K x C x R x S, got " + shape_of(x) + " and " + shape_of(w));
  const conv2d::ConvShape s = conv_shape_of(x, w, stride, padding, op);
  const c10::cuda::CUDAGuard guard(x.device());
  at::Tensor y = at::empty({s.n, s.k, s.p(), s.q()}, x.options());
  run_launcher(op.c_str(), [&] {
    conv2d::exercise_conv2d_smem_tile(s, x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(),
                                      current_stream());
  });
  return y;
}

std::tuple<at::Tensor, at::Tensor> attention_op(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                                bool causal) {
  const std::string op = op_name("attention");
  check_input(q, op.c_str(), "q");  // the exercise is fp32
  check_input(k, op.c_str(), "k");
  check_input(v, op.c_str(), "v");
  check_same_device(q, k, op.c_str());
  check_same_device(q, v, op.c_str());
  require(q.dim() == 4 && k.dim() == 4 && v.sizes() == k.sizes() && q.size(0) == k.size(0) &&
              q.size(1) == k.size(1) && q.size(3) == k.size(3) && q.numel() > 0 && k.numel() > 0,
          op + ": q must be B x H x Sq x D and k, v B x H x Sk x D (each >= 1), got " + shape_of(q) + ", " +
              shape_of(k) + " and " + shape_of(v));
  const c10::cuda::CUDAGuard guard(q.device());
  const attention::Shape s = attention_shape_of(q, k, causal);
  const at::Tensor qa = aligned16(q), ka = aligned16(k), va = aligned16(v);  // the contract: 16-byte bases
  at::Tensor o = at::empty_like(q);
  at::Tensor lse = at::empty({s.b, s.h, s.sq}, q.options());
  run_launcher(op.c_str(), [&] {
    attention::exercise_attention_tiled(s, qa.data_ptr<float>(), ka.data_ptr<float>(), va.data_ptr<float>(),
                                        o.data_ptr<float>(), lse.data_ptr<float>(), nullptr, current_stream());
  });
  return {o, lse};
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(tutorial, m) {
  m.def(TUT_TORCH_PREFIX "elementwise(Tensor a, Tensor b) -> Tensor");
  m.def(TUT_TORCH_PREFIX "reduce(Tensor x, int threads=256) -> Tensor");
  m.def(TUT_TORCH_PREFIX "softmax(Tensor x) -> Tensor");
  m.def(TUT_TORCH_PREFIX "gemv(Tensor A, Tensor x) -> Tensor");
  m.def(TUT_TORCH_PREFIX "transpose(Tensor A) -> Tensor");
  m.def(TUT_TORCH_PREFIX "gemm(Tensor A, Tensor B, Tensor? C=None, float alpha=1.0, float beta=0.0) -> Tensor");
  m.def(TUT_TORCH_PREFIX "conv2d(Tensor x, Tensor w, int[2] stride=[1, 1], int[2] padding=[0, 0]) -> Tensor");
  m.def(TUT_TORCH_PREFIX "attention(Tensor q, Tensor k, Tensor v, bool causal=False) -> (Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(tutorial, CUDA, m) {
  m.impl(TUT_TORCH_PREFIX "elementwise", &elementwise_op);
  m.impl(TUT_TORCH_PREFIX "reduce", &reduce_op);
  m.impl(TUT_TORCH_PREFIX "softmax", &softmax_op);
  m.impl(TUT_TORCH_PREFIX "gemv", &gemv_op);
  m.impl(TUT_TORCH_PREFIX "transpose", &transpose_op);
  m.impl(TUT_TORCH_PREFIX "gemm", &gemm_op);
  m.impl(TUT_TORCH_PREFIX "conv2d", &conv2d_op);
  m.impl(TUT_TORCH_PREFIX "attention", &attention_op);
}
