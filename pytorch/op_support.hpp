// What every operator file of the PyTorch part shares: input checks that raise a Python
// RuntimeError naming the operator and the argument, the current stream, running a chapter's
// launcher with its C++ exceptions turned into Python errors, and choosing a version from a
// chapter's registry.
#pragma once

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <cstdint>
#include <exception>
#include <initializer_list>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tut_torch {

/// Throws a RuntimeError (c10::Error) with `message` unless `ok`. The messages are built as
/// strings first: in this build (torch 2.11, g++ 13) TORCH_CHECK with integer or shape arguments
/// in the message crashed the process instead of raising.
inline void require(bool ok, const std::string& message) { TORCH_CHECK(ok, message); }

/// "[4, 5]": a tensor's shape for an error message.
inline std::string shape_of(const at::Tensor& t) {
  std::string text = "[";
  for (std::int64_t d = 0; d < t.dim(); ++d) text += (d ? ", " : "") + std::to_string(t.size(d));
  return text + "]";
}

/// A CUDA tensor of one of `dtypes`, or a RuntimeError naming the operator and the argument.
/// Contiguity is checked by the caller (some operators also take channels_last tensors).
inline void check_device_and_dtype(const at::Tensor& t, const std::string& who,
                                   std::initializer_list<at::ScalarType> dtypes) {
  require(t.is_cuda(), who + " must be a CUDA tensor, got one on " + t.device().str() + " (use .cuda())");
  std::string names;
  bool ok = false;
  for (at::ScalarType d : dtypes) {
    ok = ok || t.scalar_type() == d;
    names += std::string(names.empty() ? "" : " or ") + (d == at::kFloat ? "float32" : c10::toString(d));
  }
  require(ok, who + " must be " + names + ", got " + c10::toString(t.scalar_type()));
}

/// A CUDA, contiguous tensor of one of `dtypes` (float32 by default), or a RuntimeError.
inline void check_input(const at::Tensor& t, const char* op, const char* name,
                        std::initializer_list<at::ScalarType> dtypes = {at::kFloat}) {
  const std::string who = std::string(op) + ": " + name;
  check_device_and_dtype(t, who, dtypes);
  require(t.is_contiguous(), who + " must be contiguous (use .contiguous())");
}

/// Both on the same device, or a RuntimeError.
inline void check_same_device(const at::Tensor& a, const at::Tensor& b, const char* op) {
  require(a.device() == b.device(), std::string(op) + ": the inputs are on different devices (" + a.device().str() +
                                        " and " + b.device().str() + ")");
}

/// The stream torch runs on for the current device (set by the caller's CUDAGuard).
inline cudaStream_t current_stream() { return at::cuda::getCurrentCUDAStream().stream(); }

/// The compute capability of the current device, as 90 for 9.0.
inline int current_cc() {
  const cudaDeviceProp* p = at::cuda::getCurrentDeviceProperties();
  return 10 * p->major + p->minor;
}

/// `t` when its data starts on a 16-byte boundary (TMA, cp.async and float4 paths need it), else
/// an aligned copy (torch's allocator aligns every new block): a view such as x[1:] still works.
inline at::Tensor aligned16(const at::Tensor& t) {
  return reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16 == 0 ? t : t.clone();
}

/// Runs `launch`, a chapter's launcher: its C++ exceptions (std::invalid_argument for a shape it
/// refuses, tut::CudaError) become RuntimeErrors that name the operator.
template <class F>
void run_launcher(const char* op, F&& launch) {
  try {
    launch();
  } catch (const c10::Error&) {
    throw;
  } catch (const std::exception& e) {
    require(false, std::string(op) + ": " + e.what());
  }
}

/// Which version each operator ran last (torch.ops.tutorial.last_version("tutorial::gemm")): the
/// benchmark's table names it, and a reader can ask which kernel answered a call.
inline std::map<std::string, std::string>& last_versions(std::mutex*& mutex) {
  static std::mutex m;
  static std::map<std::string, std::string> versions;
  mutex = &m;
  return versions;
}
inline void note_version(const std::string& op, const std::string& version) {
  std::mutex* mutex = nullptr;
  auto& versions = last_versions(mutex);
  const std::lock_guard<std::mutex> lock(*mutex);
  versions[op] = version;
}
inline std::string last_version(const std::string& op) {
  std::mutex* mutex = nullptr;
  auto& versions = last_versions(mutex);
  const std::lock_guard<std::mutex> lock(*mutex);
  const auto it = versions.find(op);
  return it == versions.end() ? std::string() : it->second;
}

// [pick_version]
/// The first of `names` in `registry` (a chapter's versions()) whose `why_not(version)` is empty
/// and whose minimum compute capability this GPU meets; else a RuntimeError listing each name
/// with its reason. This is how the operators choose: the chapter's own support checks decide.
template <class Version, class WhyNot>
const Version& pick_version(const std::vector<Version>& registry, const std::vector<const char*>& names,
                            WhyNot why_not, const char* op) {
  const int cc = current_cc();
  std::string reasons;
  for (const char* name : names) {
    for (const Version& v : registry) {
      if (v.info.name != name) continue;
      std::string why = v.info.min_cc > cc ? "needs compute capability " + std::to_string(v.info.min_cc / 10) + "." +
                                                 std::to_string(v.info.min_cc % 10)
                                           : std::string(why_not(v));
      if (why.empty()) {
        note_version(op, v.info.name);
        return v;
      }
      reasons += std::string(reasons.empty() ? "" : "; ") + name + ": " + why;
    }
  }
  require(false, std::string(op) + ": no version of the chapter runs this problem (" + reasons + ")");
  throw std::logic_error("unreachable");
}
// [pick_version]

/// The CPU "implementation": a clear error instead of the dispatcher's "could not run".
[[noreturn]] inline void cpu_refused(const char* op) {
  C10_THROW_ERROR(Error, std::string(op) + " runs on CUDA tensors only, got CPU tensors (use .cuda())");
}

}  // namespace tut_torch
