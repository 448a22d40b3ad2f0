#pragma once
// The pieces every GPU particle system uses: storage for a ParticleStore's
// fields (the layout of render/gpu_glsl.cpp), compute dispatch, the wind's
// uniforms, statistics by parallel reduction, sprite instances built on the
// GPU, and reading a store back (tests, state hashes).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/camera_path.h"
#include "core/particle_pool.h"
#include "core/particle_system.h"
#include "core/particles.h"
#include "core/previous_positions.h"
#include "core/stats.h"
#include "core/wind.h"
#include "render/compute.h"
#include "render/device_instances.h"
#include "render/gpu_turbulence.h"

namespace fxsim {

// Field-major storage for `capacity` particles, one 32-bit word per field, in
// pages small enough for one storage block each (drivers limit a block's
// size: 128 MiB on llvmpipe, 2 GiB on NVIDIA). Page p holds the slots
// [p × page_capacity, …); kernels run page by page and key their random draws
// by the global slot, so the result does not depend on the paging.
struct GpuStore {
  GpuStore(size_t capacity, size_t page_capacity);
  size_t capacity, page_capacity;
  std::vector<DeviceBuffer> pages;
  size_t page_count() const { return pages.size(); }
  size_t page_size(size_t page) const { return std::min(page_capacity, capacity - page * page_capacity); }
  size_t bytes() const { return capacity * particle_words() * 4; }
  static size_t particle_words();
  // The largest page the driver's storage blocks allow for particles that
  // bring `companions` more particles each in a paged companion store (splash
  // droplets), rounded down to a whole number of work groups.
  static size_t max_page_capacity(size_t companions = 0);
  // Binds page `page` at `binding` as the kernel's particle block `name`
  // (P, S or M), its capacity and base slot in the launch values.
  void bind(ComputeKernel& kernel, char name, unsigned binding, size_t page) const;
  // Copies back into a CPU store of the same capacity (a readback: tests, hashes, checkpoints).
  void read(ParticleStore& out) const;
  // Uploads a CPU store of the same capacity (a checkpoint's particles).
  void write(const ParticleStore& in);
  // Slots [0, count) into a state hash, as StateSink::add_store of a CPU copy
  // would: the pages are copied on the GPU now and read when the sink asks.
  void hash_into(StateSink& sink, size_t count) const;
  // hash_into's copies, reused once fetched: a render keeps a few frames'
  // copies in flight (llvmpipe: allocating them every frame took a third of
  // a GPU render of scenes/fountain-ring.json). The spare ones stay on the
  // GPU until the store goes: about two copies of its pages.
  std::shared_ptr<DeviceBufferPool> hash_copies;
  // The store through a CPU copy, for checkpoints.
  void save(StateWriter& out) const;
  // `check` sees the slots as read, before they go to the GPU (a loaded state's refusals).
  void load(StateReader& in, const std::function<void(const ParticleStore&)>& check = {});
  // Sets every slot's age to `age` (-1: empty) and everything else to 0.
  void clear(float age);
};

// GLSL for the step of a short-lived particle in block P (ParticlePool::step):
// `int aging_step(uint i)` moves slot i by the drag step, ages it and kills it
// past its lifetime or below the ground; it returns -1 for an empty slot, 0 for
// a death, 1 for a particle that lives on. Its parameters are set by
// set_aging_params.
std::string glsl_aging_step();
void set_aging_params(ComputeKernel& kernel, const StepContext& ctx, const WindField& wind, const PoolRules& rules,
                      GpuTurbulence& turbulence, ThreadPool& threads);


// Builds sprite instances (render's SpriteInstance layout) for slots [0, count)
// into `instances`: empty slots (age < 0 when `only_live`) become zero-sized.
struct SpriteBuild {
  float exposure = 0;          // streaks: travel over this many seconds (0: square sprites)
  glm::vec3 eye_velocity{0};
  bool spin_with_phase = false;
  bool only_live = false;
  float lifetime = 0;          // > 0: alpha fades as (1 - age/lifetime)², fade_in and growth as ParticlePool
  float fade_in = 0;
  float grown_size = 0;
  // Paper 000's depth factor (snow with depth_scale "exp").
  bool exp_depth = false;
  glm::vec3 region_center{0}, forward{0};
  float reach = 1, depth_k = 0;
};
// Where each slot's particle was at the previous frame, per page (the motion
// layer, as core/previous_positions.h on the CPU): its position and its
// generation + 1, 0 where no particle was.
struct GpuPrevious {
  std::vector<DeviceBuffer> pages;
  bool remembered = false;
  void forget() { remembered = false; }
};
// A previous frame for build_sprites: the positions remembered and the box
// across which a particle wraps (no previous position then).
struct PreviousFrame {
  PreviousFrame() = default;
  PreviousFrame(const GpuPrevious* remembered, const WrapBox& wrap = {}) : positions(remembered), box(wrap) {}
  const GpuPrevious* positions = nullptr;
  WrapBox box;
};

// Instance buffers for a store's pages, kept from frame to frame.
struct SpriteBuffers {
  std::vector<DeviceInstances> pages;
};

// The shared kernels, compiled once per context.
class GpuKernels {
 public:
  GpuKernels();
  // Statistics over slots [0, count) (`only_live`: those with age >= 0), reduced
  // on the GPU in fixed groups and summed in group order on the CPU: only the
  // group partials are read back, never the particles.
  EmitterStats stats(const GpuStore& store, size_t count, bool only_live);  // over slots [0, count)
  // Sprite instances (render's SpriteInstance layout) for the first `count`
  // slots of one page: empty slots (age < 0 when `only_live`) become
  // zero-sized and draw nothing.
  // With a remembered previous frame, also each instance's previous centre.
  void build_sprites(const GpuStore& store, size_t page, size_t count, const SpriteBuild& how,
                     DeviceInstances& instances, const PreviousFrame& previous = {});
  // Builds the sprites of slots [0, count) page by page and appends one batch
  // per page, each a copy of `like` drawing from that page's instances.
  void add_sprite_batches(const GpuStore& store, size_t count, const SpriteBuild& how, SpriteBuffers& buffers,
                          const SpriteBatch& like, std::vector<SpriteBatch>& out, const PreviousFrame& previous = {});
  // Remembers slots [0, count) of the store (those with age >= 0 when `only_live`).
  void remember(const GpuStore& store, size_t count, bool only_live, GpuPrevious& into);
  // The wind's turbulence fields on the device, shared by every system.
  GpuTurbulence& turbulence() { return turbulence_; }

 private:
  ComputeKernel stats_, sprites_, remember_, previous_;
  DeviceBuffer partials_;
  GpuTurbulence turbulence_;
};

}  // namespace fxsim
