#pragma once
// The small compute interface the GPU particle systems are written against:
// device buffers, kernels with their storage bindings and parameter blocks,
// dispatch and read-back. It is the only place the GPU simulation meets the
// graphics API (render/compute.cpp, OpenGL 4.3 compute shaders); a CUDA or
// Vulkan backend would implement these three classes and compile the same
// kernels from its own language.
//
// A kernel is a GLSL compute shader whose invocations loop over `u_count`
// items (i = global id; i < u_count; i += stride). Per-dispatch values (the
// count, the first item, each particle page's capacity and base slot) are the
// launch values declared below; every other parameter is a block declared
// with FXSIM_GPU_PARAMS (render/gpu_params.h). No value is looked up by a
// hand-written name, so none can be misspelt.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "render/gl_objects.h"
#include "render/gpu_params.h"

namespace fxsim {

constexpr unsigned kGroupSize = 256;  // invocations per work group of every kernel

// The launch values: what changes from one dispatch of a kernel to the next.
// P, S and M are the particle pages a kernel may bind (render/gpu_glsl.h):
// X_capacity is the page's particle count (its field stride), X_base the
// global slot of its first particle. They are plain uniforms (like Vulkan's
// push constants: set with the dispatch, no buffer to update), declared in
// GLSL from this list and set through locations the kernel looks up from the
// same list.
#define FXSIM_LAUNCH_PARAMS(X)                                                                       \
  X(u_count) X(u_first) X(P_capacity) X(P_base) X(S_capacity) X(S_base) X(M_capacity) X(M_base)
#define FXSIM_LAUNCH_MEMBER(name) uint32_t name = 0;
struct LaunchParams {
  FXSIM_LAUNCH_PARAMS(FXSIM_LAUNCH_MEMBER)
};
#undef FXSIM_LAUNCH_MEMBER
// The launch values' GLSL declarations (glsl_prelude() includes them).
std::string glsl_launch_block();
// What the device allows.
struct ComputeLimits {
  size_t max_storage_block_bytes = 0;  // one storage binding's size
};
ComputeLimits compute_limits();

// Storage on the device. Allocation failures are reported as out of memory,
// naming what was allocated.
class DeviceBuffer {
 public:
  enum class Use { kernels, host_writes, host_reads };  // who mostly writes it: a hint for the driver
  DeviceBuffer() = default;
  DeviceBuffer(size_t bytes, Use use, const std::string& what);
  // Makes the buffer at least `bytes` long (contents are lost when it grows).
  void reserve(size_t bytes, Use use, const std::string& what);
  // reserve() for sizes that change from call to call (a frame's sprites or
  // tile lists): growing, it takes an eighth more, in whole words (within a
  // storage block where `bytes` is), so that counts creeping up frame after
  // frame do not reallocate every frame. (H200, 1080p, 5 M fountain slots: the mist's
  // pairs grew a little each frame, and the compute rasteriser's tile lists
  // took 7.1-7.7 ms a frame reallocating, 1.6 ms with room to grow.)
  void reserve_growing(size_t bytes, Use use, const std::string& what);
  // Replaces the contents with new storage holding `bytes` of `data`: kernels
  // still reading the old contents are not waited for.
  void assign(const void* data, size_t bytes, Use use);
  template <class T>
  void assign(const std::vector<T>& values, Use use) {
    if (values.empty()) assign(nullptr, sizeof(T), use);  // kernels may bind it, never read it
    else assign(values.data(), values.size() * sizeof(T), use);
  }
  // Copies bytes [offset, offset + bytes) to the host once the kernels that wrote them have finished.
  void download(void* data, size_t bytes, size_t offset = 0) const;
  // Copies `bytes` of `source` from `source_offset` to `offset` here on the GPU
  // (after the kernels that wrote them), without waiting: a later download()
  // of this copy does not stall, and where this buffer is for the host to
  // read (Use::host_reads) the download is quick (H200: a few bytes of a
  // large buffer kernels write take NVIDIA's driver about 1.4 ms to read).
  void copy_from(const DeviceBuffer& source, size_t bytes, size_t source_offset = 0, size_t offset = 0);
  // Sets the 32-bit words of [offset, offset + bytes) to `word`.
  void fill(uint32_t word, size_t offset, size_t bytes);
  void fill(uint32_t word) { fill(word, 0, bytes_); }
  size_t bytes() const { return bytes_; }
  // The GL buffer, for the sprite pass to draw instances where a kernel built them.
  GLuint gl_name() const { return buffer_.get(); }

 private:
  GlBuffer buffer_;
  size_t bytes_ = 0;
};

// Buffers handed back for reuse, for copies made every frame (the particles'
// copies for state hashes): a new buffer is a new allocation, which llvmpipe
// fills with zeros. Keeps at most `most` spare buffers. The list is guarded
// by a mutex, but take() may make a buffer and give_back() drop one: GL
// calls, so on the GL thread.
class DeviceBufferPool {
 public:
  // Buffers of one use, named `what` in GL errors.
  DeviceBufferPool(size_t most, DeviceBuffer::Use use, std::string what)
      : most_(most), use_(use), what_(std::move(what)) {}
  // A spare buffer of exactly `bytes`, else a new one.
  DeviceBuffer take(size_t bytes);
  void give_back(DeviceBuffer buffer);

 private:
  size_t most_;
  DeviceBuffer::Use use_;
  std::string what_;
  std::mutex mutex_;
  std::vector<DeviceBuffer> spare_;
};

// A few 32-bit counters that kernels add to with atomics (births, deaths) and
// the host collects.
class DeviceCounters {
 public:
  explicit DeviceCounters(size_t count);
  // Reads the counters and sets them back to zero.
  std::vector<uint32_t> take();
  const DeviceBuffer& buffer() const { return buffer_; }

 private:
  size_t count_;
  DeviceBuffer buffer_;
};

// A compiled kernel and what its next dispatch binds: storage buffers and
// parameter blocks by binding, and the launch values.
class ComputeKernel {
 public:
  explicit ComputeKernel(const std::string& glsl_source);
  // Binds `storage` at `binding` for the following dispatches (the buffer must outlive them).
  void bind(unsigned binding, const DeviceBuffer& storage);
  // Binds bytes [offset, offset + bytes) of `storage` (offset a multiple of 256).
  void bind_range(unsigned binding, const DeviceBuffer& storage, size_t offset, size_t bytes);
  // Uploads a parameter block for the following dispatches.
  template <class Params>
  void set_params(unsigned binding, const Params& params) { set_params(binding, &params, sizeof params); }
  void set_params(unsigned binding, const void* data, size_t bytes);
  // The launch values of the next dispatch (pages bound by GpuStore::bind, u_first).
  LaunchParams& launch() { return launch_; }
  // Runs the kernel over `count` items: at most 65535 groups (every driver's
  // minimum), each invocation looping over its share; `groups` > 0 runs
  // exactly that many (reductions with one result per group). Measured on the
  // H200: one invocation per item (2^31 groups allowed there) made the
  // 100M-drop rain step slower, 2.51 ms against 2.17.
  void dispatch(size_t count, size_t groups = 0);
  // Runs the work groups a kernel wrote into `groups` at byte `offset` (a
  // multiple of 4; x, y, z: three words, each at most 65535 on every
  // driver), with no wait for the host to read them.
  void dispatch_indirect(const DeviceBuffer& groups, size_t offset);
  // The program, for kernels that also read plain uniforms shared with drawing programs (the sprites' look).
  const GlProgram& program() const { return program_; }

 private:
  struct ParamBlock {
    unsigned binding;
    GlBuffer buffer;
    size_t capacity;
  };
  void upload(ParamBlock& block, const void* data, size_t bytes);
  void prepare();  // uses the program, sets the launch values and binds the buffers
  ParamBlock& block(unsigned binding);

  GlProgram program_;
  std::vector<GLint> launch_locations_;  // in FXSIM_LAUNCH_PARAMS order; -1: unused by this kernel
  struct StorageBinding {
    unsigned binding;
    GLuint buffer;
    size_t offset, bytes;  // bytes 0: the whole buffer
  };
  std::vector<StorageBinding> storage_;
  std::vector<ParamBlock> params_;
  LaunchParams launch_;
};

}  // namespace fxsim
