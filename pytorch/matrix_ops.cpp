// Chapters 06-08 as PyTorch operators (issue 26, second part): tutorial::gemm, tutorial::conv2d
// and tutorial::attention. Each chooses its version from the chapter's registry with the
// chapter's own support checks (pick_version): the fastest general version first, then the
// versions that run where it cannot (an older GPU, an unaligned or unusual shape). Inputs are
// checked and refused with a RuntimeError; the work runs on torch's current stream.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "attention.hpp"
#include "conv2d.hpp"
#include "gemm.hpp"
#include "op_support.hpp"
#include "shapes.hpp"

namespace {

using namespace tut_torch;

// ------------------------------------------------------------------------------------------
// gemm
// ------------------------------------------------------------------------------------------

constexpr const char* kGemm = "tutorial::gemm";

/// A [M, K] and B [K, N], both float32 or both bfloat16; C, when given, float32 [M, N].
void check_gemm(const at::Tensor& A, const at::Tensor& B, const std::optional<at::Tensor>& C, double beta) {
  check_input(A, kGemm, "A", {at::kFloat, at::kBFloat16});
  check_input(B, kGemm, "B", {at::kFloat, at::kBFloat16});
  check_same_device(A, B, kGemm);
  require(A.scalar_type() == B.scalar_type(), std::string(kGemm) + ": A and B must have the same dtype, got " +
                                                  c10::toString(A.scalar_type()) + " and " +
                                                  c10::toString(B.scalar_type()));
  require(A.dim() == 2 && B.dim() == 2 && A.size(1) == B.size(0),
          std::string(kGemm) + ": A must be M x K and B K x N, got " + shape_of(A) + " and " + shape_of(B));
  if (C.has_value()) {
    check_input(*C, kGemm, "C");
    check_same_device(A, *C, kGemm);
    require(C->dim() == 2 && C->size(0) == A.size(0) && C->size(1) == B.size(1),
            std::string(kGemm) + ": C must be M x N = [" + std::to_string(A.size(0)) + ", " +
                std::to_string(B.size(1)) + "], got " + shape_of(*C));
  }
  require(beta == 0.0 || C.has_value(), std::string(kGemm) + ": beta = " + std::to_string(beta) + " needs C");
}

/// alpha * A B + beta * C in float32 (C is not modified; with beta = 0 it is not read): chapter
/// 06's v22_split_tf32 for float32 inputs (fp32 accuracy from TF32 wgmma; v26_serpentine_ffma, FFMA
/// on the CUDA cores, where sm_90a code cannot run), v27_sleeping_waits for bfloat16 (wgmma;
/// v11_mma_bf16 where sm_90a code cannot run). The versions that keep memory between calls (v22's
/// split A, v26's padded B, the Hopper steps' aligned copies) lend it in stream order (tut::Scratch).
at::Tensor gemm_cuda(const at::Tensor& A, const at::Tensor& B, const std::optional<at::Tensor>& C, double alpha,
                     double beta) {
  check_gemm(A, B, C, beta);
  const c10::cuda::CUDAGuard guard(A.device());
  const std::int64_t m = A.size(0), k = A.size(1), n = B.size(1);
  at::Tensor out = beta != 0.0 ? C->clone() : at::empty({m, n}, A.options().dtype(at::kFloat));
  if (m == 0 || n == 0) return out;
  if (k == 0) return beta != 0.0 ? out.mul_(beta) : out.zero_();
  const auto available = [](const gemm::Version& v) { return v.unavailable ? v.unavailable() : std::string(); };
  const cudaStream_t stream = current_stream();
  const bool fp32 = A.scalar_type() == at::kFloat;
  const gemm::Version& v =
      pick_version(gemm::versions(), fp32 ? std::vector<const char*>{"v22_split_tf32", "v26_serpentine_ffma"}
                                          : std::vector<const char*>{"v27_sleeping_waits", "v11_mma_bf16"},
                   available, kGemm);
  run_launcher(kGemm, [&] {
    if (fp32) {
      v.kernel.f32(m, n, k, static_cast<float>(alpha), A.data_ptr<float>(), B.data_ptr<float>(),
                   static_cast<float>(beta), out.data_ptr<float>(), stream);
    } else {
      v.kernel.bf16(m, n, k, static_cast<float>(alpha), reinterpret_cast<const __nv_bfloat16*>(A.data_ptr()),
                    reinterpret_cast<const __nv_bfloat16*>(B.data_ptr()), static_cast<float>(beta),
                    out.data_ptr<float>(), stream);
    }
  });
  return out;
}

at::Tensor gemm_meta(const at::Tensor& A, const at::Tensor& B, const std::optional<at::Tensor>& C, double /*alpha*/,
                     double beta) {
  require(A.dim() == 2 && B.dim() == 2 && A.sym_size(1) == B.sym_size(0),
          std::string(kGemm) + ": A must be M x K and B K x N");
  require(beta == 0.0 || C.has_value(), std::string(kGemm) + ": beta != 0 needs C");
  return at::empty_symint({A.sym_size(0), B.sym_size(1)}, A.options().dtype(at::kFloat));
}

// ------------------------------------------------------------------------------------------
// conv2d
// ------------------------------------------------------------------------------------------

constexpr const char* kConv = "tutorial::conv2d";

/// True for the NHWC versions (x in torch.channels_last), false for the NCHW ones (x
/// contiguous). float32 takes either (contiguous wins where both hold, e.g. C = 1); bfloat16
/// only channels_last, the layout of the chapter's tensor-core versions.
bool conv_is_nhwc(const at::Tensor& x) {
  const bool last = x.is_contiguous(at::MemoryFormat::ChannelsLast);
  if (x.scalar_type() == at::kBFloat16) {
    require(last, std::string(kConv) + ": bfloat16 x must be channels_last (x.to(memory_format=torch.channels_last)): "
                                       "the chapter's bf16 versions are NHWC");
    return true;
  }
  require(x.is_contiguous() || last,
          std::string(kConv) + ": x must be contiguous (NCHW) or channels_last (NHWC) (use .contiguous())");
  return !x.is_contiguous();
}

/// x [N, C, H, W] and w [K, C, R, S] of one dtype; stride and padding of two entries each.
void check_conv(const at::Tensor& x, const at::Tensor& w, at::IntArrayRef stride, at::IntArrayRef padding) {
  check_device_and_dtype(x, std::string(kConv) + ": x", {at::kFloat, at::kBFloat16});
  check_device_and_dtype(w, std::string(kConv) + ": w", {at::kFloat, at::kBFloat16});
  check_same_device(x, w, kConv);
  require(x.scalar_type() == w.scalar_type(), std::string(kConv) + ": x and w must have the same dtype");
  require(x.dim() == 4 && w.dim() == 4 && x.size(1) == w.size(1),
          std::string(kConv) + ": x must be N x C x H x W and w K x C x R x S, got " + shape_of(x) + " and " +
              shape_of(w));
}

/// The forward convolution of chapter 07 (cross-correlation, zero padding, dilation 1, one
/// group). float32 NCHW: v02_register_tile_nchw (v01, v00 where it cannot); float32 channels_last:
/// v06_winograd_fused_nhwc for 3x3 stride 1, else v04_implicit_gemm_nhwc; bfloat16 channels_last:
/// v14_one_wave_bf16_nhwc (v09, v08, v07 where it cannot; v10 where C % 8 != 0). The output has x's
/// memory format; w is used in x's layout (copied if it is in the other one).
at::Tensor conv2d_cuda(const at::Tensor& x, const at::Tensor& w, at::IntArrayRef stride, at::IntArrayRef padding) {
  check_conv(x, w, stride, padding);
  const bool nhwc = conv_is_nhwc(x);
  const conv2d::ConvShape s = conv_shape_of(x, w, stride, padding, kConv);
  const c10::cuda::CUDAGuard guard(x.device());
  const auto format = nhwc ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  const at::Tensor xin = aligned16(x), win = aligned16(w.contiguous(format));
  at::Tensor y = at::empty({s.n, s.k, s.p(), s.q()}, x.options().memory_format(format));
  const bool bf16 = x.scalar_type() == at::kBFloat16;
  std::vector<const char*> names;
  if (bf16) {
    names = {"v14_one_wave_bf16_nhwc", "v09_lean_wgmma_bf16_nhwc", "v08_wgmma_bf16_nhwc", "v07_mma_bf16_nhwc",
             "v10_padded_channels_bf16_nhwc"};
  } else if (nhwc) {
    names = {"v06_winograd_fused_nhwc", "v04_implicit_gemm_nhwc"};
  } else {
    names = {"v02_register_tile_nchw", "v01_smem_tile_nchw", "v00_naive_nchw"};
  }
  const conv2d::Version& v = pick_version(
      conv2d::versions(), names, [&](const conv2d::Version& ver) { return conv2d::unsupported_reason(ver, s); }, kConv);
  const cudaStream_t stream = current_stream();
  run_launcher(kConv, [&] {
    if (bf16) {
      v.kernel.bf16(s, reinterpret_cast<const __nv_bfloat16*>(xin.data_ptr()),
                    reinterpret_cast<const __nv_bfloat16*>(win.data_ptr()),
                    reinterpret_cast<__nv_bfloat16*>(y.data_ptr()), stream);
    } else {
      v.kernel.f32(s, xin.data_ptr<float>(), win.data_ptr<float>(), y.data_ptr<float>(), stream);
    }
  });
  return y;
}

at::Tensor conv2d_meta(const at::Tensor& x, const at::Tensor& w, at::IntArrayRef stride, at::IntArrayRef padding) {
  require(x.dim() == 4 && w.dim() == 4 && stride.size() == 2 && padding.size() == 2,
          std::string(kConv) + ": x must be N x C x H x W and w K x C x R x S");
  const bool nhwc = conv_is_nhwc(x);
  const c10::SymInt p = (x.sym_size(2) + 2 * padding[0] - w.sym_size(2)) / stride[0] + 1;
  const c10::SymInt q = (x.sym_size(3) + 2 * padding[1] - w.sym_size(3)) / stride[1] + 1;
  return at::empty_symint({x.sym_size(0), w.sym_size(0), p, q},
                          x.options().memory_format(nhwc ? at::MemoryFormat::ChannelsLast
                                                         : at::MemoryFormat::Contiguous));
}

// ------------------------------------------------------------------------------------------
// attention
// ------------------------------------------------------------------------------------------

constexpr const char* kAttention = "tutorial::attention";

/// q [B, H, Sq, D], k and v [B, H, Sk, D], contiguous, all float32 or all bfloat16.
void check_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  const at::Tensor* tensors[] = {&q, &k, &v};
  const char* names[] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i) {
    check_input(*tensors[i], kAttention, names[i], {at::kFloat, at::kBFloat16});
    check_same_device(q, *tensors[i], kAttention);
    require(tensors[i]->scalar_type() == q.scalar_type(), std::string(kAttention) + ": q, k and v must have one dtype");
  }
  require(q.dim() == 4 && k.dim() == 4 && v.sizes() == k.sizes() && q.size(0) == k.size(0) &&
              q.size(1) == k.size(1) && q.size(3) == k.size(3),
          std::string(kAttention) + ": q must be B x H x Sq x D and k, v B x H x Sk x D, got " + shape_of(q) + ", " +
              shape_of(k) + " and " + shape_of(v));
  require(q.size(3) > 0, std::string(kAttention) + ": the head dimension D must be at least 1");
}

/// Scaled dot-product attention forward, scale 1 / sqrt(D), the causal mask aligned bottom-right
/// (query i sees key j iff j <= i + Sk - Sq): returns O (q's dtype) and the float32 logsumexp of
/// each row of scores [B, H, Sq] (-inf, with O = 0, for a row that sees no key). bfloat16:
/// v26_straight_epilogue (v06, v05, v04 where it cannot: D = 64 or 128); float32: v08_split_tf32 (fp32 accuracy on
/// the tensor cores, sm_80+; D = 64 or 128), v03_warp_rows where it cannot, else v01_online_row
/// (D <= 256), else v00_naive.
std::tuple<at::Tensor, at::Tensor> attention_cuda(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                                  bool causal) {
  check_attention(q, k, v);
  const c10::cuda::CUDAGuard guard(q.device());
  const attention::Shape s = attention_shape_of(q, k, causal);
  at::Tensor o = at::empty_like(q);
  at::Tensor lse = at::empty({s.b, s.h, s.sq}, q.options().dtype(at::kFloat));
  if (o.numel() == 0) return {o, lse};
  if (s.sk == 0) return {o.zero_(), lse.fill_(-std::numeric_limits<float>::infinity())};
  run_launcher(kAttention, [&] { attention::check_shape(s); });
  const bool bf16 = q.scalar_type() == at::kBFloat16;
  const attention::Version& ver = pick_version(
      attention::versions(),
      bf16 ? std::vector<const char*>{"v26_straight_epilogue", "v06_causal_balance", "v05_cp_async", "v04_mma"}
           : std::vector<const char*>{"v08_split_tf32", "v03_warp_rows", "v01_online_row", "v00_naive"},
      [&](const attention::Version& x) { return x.unsupported ? x.unsupported(s) : std::string(); }, kAttention);
  const double bytes = ver.workspace_bytes ? ver.workspace_bytes(s) : 0.0;
  at::Tensor workspace = at::empty({static_cast<std::int64_t>(bytes) + 16}, q.options().dtype(at::kByte));
  const at::Tensor qa = aligned16(q), ka = aligned16(k), va = aligned16(v);
  const cudaStream_t stream = current_stream();
  run_launcher(kAttention, [&] {
    if (bf16) {
      const auto p = [](const at::Tensor& t) { return reinterpret_cast<const __nv_bfloat16*>(t.data_ptr()); };
      ver.kernel.bf16(s, p(qa), p(ka), p(va), reinterpret_cast<__nv_bfloat16*>(o.data_ptr()), lse.data_ptr<float>(),
                      bytes > 0 ? workspace.data_ptr() : nullptr, stream);
    } else {
      ver.kernel.f32(s, qa.data_ptr<float>(), ka.data_ptr<float>(), va.data_ptr<float>(), o.data_ptr<float>(),
                     lse.data_ptr<float>(), bytes > 0 ? workspace.data_ptr() : nullptr, stream);
    }
  });
  return {o, lse};
}

std::tuple<at::Tensor, at::Tensor> attention_meta(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                                  bool /*causal*/) {
  require(q.dim() == 4 && k.dim() == 4 && v.dim() == 4,
          std::string(kAttention) + ": q must be B x H x Sq x D and k, v B x H x Sk x D");
  return {at::empty_like(q),
          at::empty_symint({q.sym_size(0), q.sym_size(1), q.sym_size(2)}, q.options().dtype(at::kFloat))};
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(tutorial, m) {
  m.def("gemm(Tensor A, Tensor B, Tensor? C=None, float alpha=1.0, float beta=0.0) -> Tensor");
  m.def("conv2d(Tensor x, Tensor w, int[2] stride=[1, 1], int[2] padding=[0, 0]) -> Tensor");
  m.def("attention(Tensor q, Tensor k, Tensor v, bool causal=False) -> (Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(tutorial, CUDA, m) {
  m.impl("gemm", &gemm_cuda);
  m.impl("conv2d", &conv2d_cuda);
  m.impl("attention", &attention_cuda);
}

TORCH_LIBRARY_IMPL(tutorial, Meta, m) {
  m.impl("gemm", &gemm_meta);
  m.impl("conv2d", &conv2d_meta);
  m.impl("attention", &attention_meta);
}

TORCH_LIBRARY_IMPL(tutorial, CPU, m) {
  m.impl("gemm", [](const at::Tensor&, const at::Tensor&, const std::optional<at::Tensor>&, double,
                    double) -> at::Tensor { cpu_refused(kGemm); });
  m.impl("conv2d", [](const at::Tensor&, const at::Tensor&, at::IntArrayRef, at::IntArrayRef) -> at::Tensor {
    cpu_refused(kConv);
  });
  m.impl("attention",
         [](const at::Tensor&, const at::Tensor&, const at::Tensor&, bool) -> std::tuple<at::Tensor, at::Tensor> {
           cpu_refused(kAttention);
         });
}
