// Known-wrong submission (grader corpus): door 3 of issue 23, a vendor library reached at run
// time. The runner does not link cuBLAS (a direct call would not link), so this opens it with
// dlopen() and finds cublasSaxpy with dlsym(): out = a, then out += 1 * b. It computes the right
// answer with cuBLAS's kernel instead of its own. The object-file check refuses dlopen and dlsym;
// were it run, the checker refuses a runner that loaded libcublas (it reads the runner's list of
// loaded libraries), and the captured graph would hold cuBLAS's kernel, not the student's.
#include <dlfcn.h>

#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "exercise.hpp"

namespace elementwise {

namespace {

using Handle = void*;
using CreateFn = int (*)(Handle*);
using SetStreamFn = int (*)(Handle, cudaStream_t);
using SaxpyFn = int (*)(Handle, int, const float*, const float*, int, float*, int);

struct Cublas {
  Handle handle = nullptr;
  SetStreamFn set_stream = nullptr;
  SaxpyFn saxpy = nullptr;
};

Cublas& cublas() {
  static Cublas c = [] {
    Cublas r;
    void* lib = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) lib = dlopen("libcublas.so.12", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) throw std::runtime_error("no cuBLAS here");
    auto create = reinterpret_cast<CreateFn>(dlsym(lib, "cublasCreate_v2"));
    r.set_stream = reinterpret_cast<SetStreamFn>(dlsym(lib, "cublasSetStream_v2"));
    r.saxpy = reinterpret_cast<SaxpyFn>(dlsym(lib, "cublasSaxpy_v2"));
    if (create == nullptr || r.set_stream == nullptr || r.saxpy == nullptr || create(&r.handle) != 0) {
      throw std::runtime_error("cuBLAS did not load");
    }
    return r;
  }();
  return c;
}

}  // namespace

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  Cublas& c = cublas();
  CUDA_CHECK(cudaMemcpyAsync(out, a, static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  const float one = 1.0f;
  c.set_stream(c.handle, stream);
  if (c.saxpy(c.handle, static_cast<int>(n), &one, b, 1, out, 1) != 0) throw std::runtime_error("saxpy failed");
}

}  // namespace elementwise
