/// @file
/// @brief The library baselines: cuDNN's convolution forward in fp32 (FMA math, no TF32) and bf16
/// (tensor-op math), in NCHW and NHWC, each with the fastest algorithm cuDNN finds for the shape.
///
/// Compiled everywhere; the cuDNN calls only where CMake found cuDNN (it then defines
/// TUT_HAVE_CUDNN). Without it the rows are skipped with "cuDNN not found".
///
/// The algorithm search (cudnnFindConvolutionForwardAlgorithmEx: cuDNN runs every algorithm it
/// has for the descriptors on our buffers and sorts them by time; we time every candidate
/// again, warm, and keep the fastest) happens once per row and shape, on the first
/// call: in the chapter executable that is the untimed check run, so the timed runs only call
/// cudnnConvolutionForward with the winner and a workspace allocated beforehand.
#include <climits>
#include <cstdint>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "conv2d.hpp"

#if defined(TUT_HAVE_CUDNN)
#include <cudnn.h>

#include "common/cudnn_check.hpp"
#endif

namespace conv2d {

#if defined(TUT_HAVE_CUDNN)

namespace {


/// Workspace offered to the algorithm search; algorithms that want more are not considered.
constexpr std::size_t kSearchWorkspace = std::size_t{1} << 30;

const char* algo_name(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return "?";
  }
}

const char* math_name(cudnnMathType_t m) {
  switch (m) {
    case CUDNN_DEFAULT_MATH: return "DEFAULT_MATH";
    case CUDNN_TENSOR_OP_MATH: return "TENSOR_OP_MATH";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "TENSOR_OP_MATH_ALLOW_CONVERSION";
    case CUDNN_FMA_MATH: return "FMA_MATH";
    default: return "?";
  }
}

/// One row's descriptors and chosen algorithm, for the shape it was last found for.
struct Plan {
  bool ready = false;
  ConvShape shape;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  std::size_t workspace = 0;
  std::string choice;  ///< what the search picked, in words
};

bool same_shape(const ConvShape& a, const ConvShape& b) {
  return a.n == b.n && a.c == b.c && a.h == b.h && a.w == b.w && a.k == b.k && a.r == b.r && a.s == b.s &&
         a.pad_h == b.pad_h && a.pad_w == b.pad_w && a.stride_h == b.stride_h && a.stride_w == b.stride_w;
}

/// The cuDNN handle, one plan per row, and the workspace, created on first use and destroyed
/// at exit (before the CUDA runtime's teardown: the object is created after it started). If
/// cuDNN cannot start (a library it loads is missing, a driver too old), `error` says why and
/// the rows are skipped.
struct CudnnState {
  cudnnHandle_t handle = nullptr;
  std::map<std::string, Plan> plans;
  tut::DeviceBuffer<unsigned char> workspace;
  std::string error;
  CudnnState() {
    const cudnnStatus_t status = cudnnCreate(&handle);
    if (status != CUDNN_STATUS_SUCCESS) {
      error = cudnnGetErrorString(status);
      handle = nullptr;
    }
  }
  ~CudnnState() {
    for (auto& [name, p] : plans) {
      if (p.x != nullptr) cudnnDestroyTensorDescriptor(p.x);
      if (p.y != nullptr) cudnnDestroyTensorDescriptor(p.y);
      if (p.w != nullptr) cudnnDestroyFilterDescriptor(p.w);
      if (p.conv != nullptr) cudnnDestroyConvolutionDescriptor(p.conv);
    }
    if (handle != nullptr) cudnnDestroy(handle);
  }
  CudnnState(const CudnnState&) = delete;
  CudnnState& operator=(const CudnnState&) = delete;
};

CudnnState& state() {
  static CudnnState st;
  return st;
}

/// Makes sure st.workspace holds at least `bytes` (grows only; outside timing).
void reserve_workspace(CudnnState& st, std::size_t bytes) {
  if (st.workspace.size() >= bytes) return;
  st.workspace = tut::DeviceBuffer<unsigned char>();
  st.workspace = tut::DeviceBuffer<unsigned char>(bytes);
}

/// Sets up `row`'s descriptors for `s` and runs the algorithm search on x, w, y (which it
/// overwrites), unless the plan is already for this shape.
// [find]
Plan& plan_for(const std::string& row, const ConvShape& s, Layout layout, Precision prec, const void* x,
               const void* w, void* y) {
  CudnnState& st = state();
  Plan& p = st.plans[row];
  if (p.ready && same_shape(p.shape, s)) return p;
  if (p.x == nullptr) {
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&p.x));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&p.y));
    CUDNN_CHECK(cudnnCreateFilterDescriptor(&p.w));
    CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&p.conv));
  }
  const cudnnTensorFormat_t format = layout == Layout::nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
  const cudnnDataType_t type = prec == Precision::fp32 ? CUDNN_DATA_FLOAT : CUDNN_DATA_BFLOAT16;
  const Dims d = dims_of(s);
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(p.x, format, type, d.n, d.c, d.h, d.w));
  CUDNN_CHECK(cudnnSetFilter4dDescriptor(p.w, type, format, d.k, d.c, d.r, d.s));  // KCRS or KRSC
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(p.y, format, type, d.n, d.k, d.p, d.q));
  // CROSS_CORRELATION: the frameworks' convolution (CUDNN_CONVOLUTION would flip the filter).
  // Accumulation in fp32 for both precisions.
  CUDNN_CHECK(cudnnSetConvolution2dDescriptor(p.conv, d.pad_h, d.pad_w, d.stride_h, d.stride_w, 1, 1,
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  // fp32: FMA math only. DEFAULT_MATH would allow TF32 tensor cores on sm_80+ (10-bit inputs),
  // which is not the fp32 arithmetic our CUDA-core versions do. bf16: tensor cores.
  const cudnnMathType_t math = prec == Precision::fp32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
  CUDNN_CHECK(cudnnSetConvolutionMathType(p.conv, math));
  int on, oc, oh, ow;
  CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(p.conv, p.x, p.w, &on, &oc, &oh, &ow));
  if (on != d.n || oc != d.k || oh != d.p || ow != d.q) {
    throw std::logic_error(row + ": cuDNN's output size differs from P x Q = " + std::to_string(d.p) + " x " +
                           std::to_string(d.q));
  }

  reserve_workspace(st, kSearchWorkspace);
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT * 2];
  int returned = 0;
  CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(st.handle, p.x, x, p.w, w, p.conv, p.y, y,
                                                     CUDNN_CONVOLUTION_FWD_ALGO_COUNT * 2, &returned, perf,
                                                     st.workspace.data(), kSearchWorkspace));
  // perf[] is sorted by the search's times: the candidates are those that ran, in the math this
  // row allows (fp32: FMA algorithms if there are any; DEFAULT_MATH ones otherwise, and the
  // choice says so).
  std::vector<int> candidates;
  for (int pass = 0; pass < 2 && candidates.empty(); ++pass) {
    for (int i = 0; i < returned; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].memory > kSearchWorkspace) continue;
      if (prec == Precision::fp32 && perf[i].mathType != (pass == 0 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH)) continue;
      candidates.push_back(i);
    }
  }
  if (candidates.empty()) throw std::runtime_error(row + ": cuDNN found no algorithm for " + shape_text(s));
  // The search runs each algorithm once, cold, so its order is noisy: on the 28x28 and 14x14
  // layers it put algorithms first that took 1.5-3x longer than another candidate when timed
  // warm. So every candidate is timed again here, warm (2 runs, then the mean of 5), and the
  // row keeps the fastest: the best cuDNN has for the shape, not the luck of one search.
  cudaStream_t stream = nullptr;
  CUDNN_CHECK(cudnnGetStream(st.handle, &stream));
  cudaEvent_t start = nullptr, stop = nullptr;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  int best = candidates[0];
  float best_ms = -1.0f;
  for (std::size_t j = 0; j < candidates.size(); ++j) {
    const cudnnConvolutionFwdAlgoPerf_t& c = perf[candidates[j]];
    CUDNN_CHECK(cudnnSetConvolutionMathType(p.conv, c.mathType));
    const float alpha = 1.0f, beta = 0.0f;
    const auto once = [&] {
      CUDNN_CHECK(cudnnConvolutionForward(st.handle, &alpha, p.x, x, p.w, w, p.conv, c.algo,
                                          c.memory > 0 ? st.workspace.data() : nullptr, c.memory, &beta, p.y, y));
    };
    once();
    once();
    CUDA_CHECK(cudaEventRecord(start, stream));
    for (int r = 0; r < 5; ++r) once();
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    ms /= 5.0f;
    if (best_ms < 0.0f || ms < best_ms) best = candidates[j], best_ms = ms;
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  p.algo = perf[best].algo;
  p.workspace = perf[best].memory;
  CUDNN_CHECK(cudnnSetConvolutionMathType(p.conv, perf[best].mathType));
  std::ostringstream os;
  os << algo_name(p.algo) << " (" << math_name(perf[best].mathType) << ", "
     << static_cast<long long>(p.workspace >> 10) << " KiB workspace; " << perf[best].time << " ms in the search, "
     << best_ms << " ms re-timed, the fastest of " << candidates.size() << " candidates)";
  p.choice = os.str();
  p.shape = s;
  p.ready = true;
  return p;
}
// [find]

void run_cudnn(const std::string& row, const ConvShape& s, Layout layout, Precision prec, const void* x,
               const void* w, void* y, cudaStream_t stream) {
  require_valid(s, row.c_str());
  const std::string why = supports_cudnn(s);
  if (!why.empty()) throw std::invalid_argument(row + ": " + why);
  CudnnState& st = state();
  Plan& p = plan_for(row, s, layout, prec, x, w, y);
  CUDNN_CHECK(cudnnSetStream(st.handle, stream));
  const float alpha = 1.0f, beta = 0.0f;  // y = conv(x, w); y is not read
  CUDNN_CHECK(cudnnConvolutionForward(st.handle, &alpha, p.x, x, p.w, w, p.conv, p.algo,
                                      p.workspace > 0 ? st.workspace.data() : nullptr, p.workspace, &beta, p.y, y));
}

}  // namespace

std::string supports_cudnn(const ConvShape& s) {
  if (s.input_elements() > INT_MAX || s.output_elements() > INT_MAX || s.filter_elements() > INT_MAX) {
    return "cuDNN's 4-D descriptors take tensors of at most 2^31 - 1 elements";
  }
  const CudnnState& st = state();
  if (!st.error.empty()) {
    return "cuDNN " + std::to_string(cudnnGetVersion()) + " was found at build time but could not start: " + st.error;
  }
  return "";
}

std::string cudnn_choice(const std::string& row) {
  const auto& plans = state().plans;
  const auto it = plans.find(row);
  return it != plans.end() && it->second.ready ? it->second.choice : "";
}

#else  // no cuDNN in this build

namespace {
void run_cudnn(const std::string& row, const ConvShape& s, Layout, Precision, const void*, const void*, void*,
               cudaStream_t) {
  require_valid(s, row.c_str());
  throw std::invalid_argument(row + ": " + supports_cudnn(s));
}
}  // namespace

std::string supports_cudnn(const ConvShape& /*s*/) {
  return "cuDNN not found (looked in the CUDA Toolkit and in the nvidia-cudnn Python package at configure time)";
}

std::string cudnn_choice(const std::string& /*row*/) { return ""; }

#endif

/// cuDNN fp32, NCHW / KCRS / NKPQ, FMA math (no TF32), fastest algorithm found.
void launch_cudnn_fp32_nchw(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream) {
  run_cudnn("cudnn_fp32_nchw", s, Layout::nchw, Precision::fp32, x, w, y, stream);
}
/// cuDNN fp32, NHWC / KRSC / NPQK, FMA math (no TF32), fastest algorithm found.
void launch_cudnn_fp32_nhwc(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream) {
  run_cudnn("cudnn_fp32_nhwc", s, Layout::nhwc, Precision::fp32, x, w, y, stream);
}
/// cuDNN bf16 (fp32 accumulation), NCHW, tensor-op math, fastest algorithm found.
void launch_cudnn_bf16_nchw(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
                            cudaStream_t stream) {
  run_cudnn("cudnn_bf16_nchw", s, Layout::nchw, Precision::bf16, x, w, y, stream);
}
/// cuDNN bf16 (fp32 accumulation), NHWC, tensor-op math, fastest algorithm found.
void launch_cudnn_bf16_nhwc(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
                            cudaStream_t stream) {
  run_cudnn("cudnn_bf16_nhwc", s, Layout::nhwc, Precision::bf16, x, w, y, stream);
}

}  // namespace conv2d
