#include "render/compute.h"

#include <algorithm>
#include <stdexcept>
#include <fmt/format.h>

#include "core/exit_codes.h"
#include "core/memory_estimate.h"
#include "render/gl_checks.h"
#include "render/shader.h"

namespace fxsim {

namespace {
GLenum gl_usage(DeviceBuffer::Use use) {
  switch (use) {
    case DeviceBuffer::Use::kernels: return GL_DYNAMIC_COPY;
    case DeviceBuffer::Use::host_writes: return GL_STREAM_DRAW;
    case DeviceBuffer::Use::host_reads: return GL_DYNAMIC_READ;
  }
  return GL_DYNAMIC_COPY;
}
}  // namespace

std::string glsl_launch_block() {
  std::string out;
#define FXSIM_LAUNCH_GLSL(name) out += "uniform uint " #name ";\n";
  FXSIM_LAUNCH_PARAMS(FXSIM_LAUNCH_GLSL)
#undef FXSIM_LAUNCH_GLSL
  return out;
}

ComputeLimits compute_limits() {
  GLint64 block = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
  return {size_t(block)};
}

DeviceBuffer::DeviceBuffer(size_t bytes, Use use, const std::string& what) { reserve(bytes, use, what); }

void DeviceBuffer::reserve(size_t bytes, Use use, const std::string& what) {
  bytes = std::max<size_t>(bytes, 4);
  if (buffer_.get() && bytes <= bytes_) return;
  if (!buffer_.get()) buffer_ = GlBuffer(gl_gen(glGenBuffers));
  glBindBuffer(GL_COPY_WRITE_BUFFER, buffer_.get());
  glBufferData(GL_COPY_WRITE_BUFFER, GLsizeiptr(bytes), nullptr, gl_usage(use));
  check_gl(fmt::format("allocating {} of {}", format_bytes(double(bytes)), what));
  bytes_ = bytes;
}

void DeviceBuffer::reserve_growing(size_t bytes, Use use, const std::string& what) {
  if (buffer_.get() && bytes <= bytes_) return;
  const size_t block = compute_limits().max_storage_block_bytes;
  reserve(bytes <= block ? std::min(bytes + bytes / 32 * 4, block) : bytes, use, what);
}

void DeviceBuffer::assign(const void* data, size_t bytes, Use use) {
  if (!buffer_.get()) buffer_ = GlBuffer(gl_gen(glGenBuffers));
  glBindBuffer(GL_COPY_WRITE_BUFFER, buffer_.get());
  glBufferData(GL_COPY_WRITE_BUFFER, GLsizeiptr(bytes), data, gl_usage(use));
  bytes_ = bytes;
}

void DeviceBuffer::download(void* data, size_t bytes, size_t offset) const {
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glBindBuffer(GL_COPY_READ_BUFFER, buffer_.get());
  glGetBufferSubData(GL_COPY_READ_BUFFER, GLintptr(offset), GLsizeiptr(bytes), data);
}

void DeviceBuffer::copy_from(const DeviceBuffer& source, size_t bytes, size_t source_offset, size_t offset) {
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glBindBuffer(GL_COPY_READ_BUFFER, source.buffer_.get());
  glBindBuffer(GL_COPY_WRITE_BUFFER, buffer_.get());
  glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, GLintptr(source_offset), GLintptr(offset),
                      GLsizeiptr(bytes));
}

void DeviceBuffer::fill(uint32_t word, size_t offset, size_t bytes) {
  if (bytes == 0) return;
  glBindBuffer(GL_COPY_WRITE_BUFFER, buffer_.get());
  glClearBufferSubData(GL_COPY_WRITE_BUFFER, GL_R32UI, GLintptr(offset), GLsizeiptr(bytes), GL_RED_INTEGER,
                       GL_UNSIGNED_INT, &word);
}

DeviceBuffer DeviceBufferPool::take(size_t bytes) {
  {
    std::lock_guard lock(mutex_);
    for (auto it = spare_.begin(); it != spare_.end(); ++it)
      if (it->bytes() == std::max<size_t>(bytes, 4)) {
        DeviceBuffer buffer = std::move(*it);
        spare_.erase(it);
        return buffer;
      }
  }
  return DeviceBuffer(bytes, use_, what_);
}

void DeviceBufferPool::give_back(DeviceBuffer buffer) {
  std::lock_guard lock(mutex_);
  if (spare_.size() < most_) spare_.push_back(std::move(buffer));
}

DeviceCounters::DeviceCounters(size_t count)
    : count_(count), buffer_(count * 4, DeviceBuffer::Use::kernels, "GPU counters") {
  buffer_.fill(0);
}

std::vector<uint32_t> DeviceCounters::take() {
  std::vector<uint32_t> counts(count_);
  buffer_.download(counts.data(), count_ * 4);
  buffer_.fill(0);
  return counts;
}

ComputeKernel::ComputeKernel(const std::string& glsl_source) : program_(link_compute_program(glsl_source)) {
#define FXSIM_LAUNCH_LOCATION(name) launch_locations_.push_back(glGetUniformLocation(program_.get(), #name));
  FXSIM_LAUNCH_PARAMS(FXSIM_LAUNCH_LOCATION)
#undef FXSIM_LAUNCH_LOCATION
}

void ComputeKernel::bind(unsigned binding, const DeviceBuffer& storage) { bind_range(binding, storage, 0, 0); }

void ComputeKernel::bind_range(unsigned binding, const DeviceBuffer& storage, size_t offset, size_t bytes) {
  for (StorageBinding& b : storage_)
    if (b.binding == binding) {
      b = {binding, storage.gl_name(), offset, bytes};
      return;
    }
  storage_.push_back({binding, storage.gl_name(), offset, bytes});
}

ComputeKernel::ParamBlock& ComputeKernel::block(unsigned binding) {
  for (ParamBlock& p : params_)
    if (p.binding == binding) return p;
  params_.push_back({binding, GlBuffer(gl_gen(glGenBuffers)), 0});
  return params_.back();
}

void ComputeKernel::upload(ParamBlock& block, const void* data, size_t bytes) {
  glBindBuffer(GL_UNIFORM_BUFFER, block.buffer.get());
  if (bytes > block.capacity) {
    glBufferData(GL_UNIFORM_BUFFER, GLsizeiptr(bytes), data, GL_DYNAMIC_DRAW);
    block.capacity = bytes;
  } else {
    glBufferSubData(GL_UNIFORM_BUFFER, 0, GLsizeiptr(bytes), data);
  }
}

void ComputeKernel::set_params(unsigned binding, const void* data, size_t bytes) { upload(block(binding), data, bytes); }

void ComputeKernel::dispatch(size_t count, size_t groups) {
  if (count == 0) return;
  launch_.u_count = uint32_t(count);
  prepare();
  if (groups == 0) groups = std::min<size_t>((count + kGroupSize - 1) / kGroupSize, 65535);
  glDispatchCompute(GLuint(groups), 1, 1);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
}

void ComputeKernel::dispatch_indirect(const DeviceBuffer& groups, size_t offset) {
  if (offset % 4 != 0) throw std::invalid_argument("dispatch_indirect: the offset must be a multiple of 4");
  // The group counts may have been written by a kernel: the command barrier
  // makes them visible to the dispatch itself (the storage barrier does not).
  glMemoryBarrier(GL_COMMAND_BARRIER_BIT);
  prepare();
  glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, groups.gl_name());
  glDispatchComputeIndirect(GLintptr(offset));
  glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, 0);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
}

void ComputeKernel::prepare() {
  glUseProgram(program_.get());
  size_t member = 0;
#define FXSIM_SET_LAUNCH(name)                                                       \
  if (const GLint location = launch_locations_[member++]; location >= 0) glUniform1ui(location, launch_.name);
  FXSIM_LAUNCH_PARAMS(FXSIM_SET_LAUNCH)
#undef FXSIM_SET_LAUNCH
  for (const StorageBinding& b : storage_) {
    if (b.bytes == 0) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b.binding, b.buffer);
    else glBindBufferRange(GL_SHADER_STORAGE_BUFFER, b.binding, b.buffer, GLintptr(b.offset), GLsizeiptr(b.bytes));
  }
  for (const ParamBlock& p : params_) glBindBufferBase(GL_UNIFORM_BUFFER, p.binding, p.buffer.get());
}

}  // namespace fxsim
