#pragma once
// Draws particles as instanced, textured quads: one instance per SpriteInstance,
// oriented by the emitter's billboard mode, tinted, blended premultiplied
// (alpha: ONE, ONE_MINUS_SRC_ALPHA; additive: ONE, ONE), depth-tested against
// the ground but not writing depth.
#include <optional>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec4.hpp>

#include "core/camera_path.h"
#include "core/depth_of_field.h"
#include "core/particle_system.h"
#include "core/scene.h"
#include "render/gl_objects.h"
#include "core/image.h"
#include "render/compute.h"
#include "render/compute_rasteriser.h"

#include <memory>
#include <string>

namespace fxsim {

class ComputeRasteriser;
class CpuSpritePath;
class ReducedResolutionTarget;
class ScreenCoverage;
struct ComputeStageTimes;

// Sprites and streaks thinner than this many pixels are drawn this wide, with
// their coverage turned into transparency: no flicker, no vanishing drops.
constexpr float kMinSpritePixels = 1.5f;

// A texture array from equally sized premultiplied RGBA images, with mipmaps.
GlTexture make_texture_array(const std::vector<Image>& layers);

// What a draw writes: the frame's colour; a mask (coverage "over", additive
// batches too); the depth layer (the view distance of fragments covering more
// than kDepthCoverage, the nearest kept); or the motion layer (each sprite's
// screen motion since the previous frame, pixels, x right and y down, times
// its coverage, and the coverage, summed: (Σ a·m, Σ a)). Sprites without a
// previous position draw nothing there.
enum class SpriteOutput { colour, mask, depth, motion };
constexpr float kDepthCoverage = 0.05f;

// Which rasteriser draws the frame's sprites (the layers are always drawn by
// GL): the GL pipeline's, the compute rasteriser (render/compute_rasteriser.h),
// the CPU's (core/sprite_rasteriser.h), or, `automatic`, the one that is
// faster (fxsim bench prints them side by side): on a hardware GPU the
// compute one for batches of at least kComputeRasteriserMinSprites; on a
// software GL the CPU's for batches made on the CPU whose quads average at
// most kCpuRasteriserMaxMeanPixels, if they are enough for the frame
// (cpu_rasteriser_pays); GL elsewhere.
enum class SpriteRasteriser { automatic, gl, compute, cpu };
// At which resolution the frame's colour draws a batch: automatic draws
// fill-bound batches (render/screen_coverage.h, measured before each is
// drawn) at half size and composites them back (render/reduced_resolution.h);
// full and half force one for every batch. The layers are always full size.
enum class FillResolution { automatic, full, half };
// Measured on the H200 at 1080p (fxsim bench --compare-rasterisers): compute
// takes 0.95 of GL's time for 50 000 rain streaks, 0.76 for 100 000 and 0.28
// for 700 000; 0.98 for 100 000 snowflakes; 0.19 for 100 000 fountain slots.
constexpr size_t kComputeRasteriserMinSprites = 100000;
// Measured with llvmpipe on 2 cores (fxsim bench prints GL, CPU and auto side by side; the README has the
// figures): the CPU took 0.44-0.55 of GL's time for quads of 2-15 pixels, 0.8-1.3 for 60-240.
constexpr double kCpuRasteriserMaxMeanPixels = 32;
// The CPU rasteriser also pays for its layer over the whole frame, every
// batch (a float RGBA image cleared, blended, uploaded and composited):
// about 30 ns a frame pixel, where it saves 1.2-1.4 µs a small sprite of
// bench's snow, more for lit, defocused ones (llvmpipe, 2 cores; docs/
// performance.md, 6 December 2026, midday). So it draws a batch only when
// it draws a sprite or more for every kCpuRasteriserFramePixelsPerSprite
// pixels of the frame (of the target it draws into: a batch drawn at half
// size, the half-size one): rain.json's 26 500 small sprites drawn at 1920x1080
// (one per 78 pixels) were slower on the CPU, snow.json's 16 300 flakes at
// 1280x720 (one per 57) faster.
constexpr double kCpuRasteriserFramePixelsPerSprite = 64;
// On a software GL, whether the CPU rasteriser draws a batch made on the CPU
// faster than GL: `drawn` quads averaging `mean_quad_pixels` in a frame of
// width × height.
bool cpu_rasteriser_pays(double mean_quad_pixels, size_t drawn, int width, int height);
struct RasteriserChoice {
  SpriteRasteriser rasteriser = SpriteRasteriser::gl;
  bool software = true;  // the GL is a software rasteriser
  FillResolution fill = FillResolution::automatic;
  bool compute_shaders = false;  // the GL has them (automatic's measurement needs them)
  int threads = 0;               // the CPU rasteriser's (0: every hardware thread)
  TileLists tile_lists = TileLists::automatic;  // the compute rasteriser's
  Coverage coverage = Coverage::automatic;      // the compute rasteriser's blend's
  size_t part_sprites = 0;                      // the compute rasteriser's most sprites a part (0: the GL's storage)
};

class SpritePass {
 public:
  SpritePass();  // no look: unlit, sharp, no fog (as the GL tests draw)
  // The scene's look on the colour the sprites draw (not on the layers): fog,
  // lights, the soft ground and plate edges, the shutter's streaks and the
  // lens; the program is compiled with only the parts the scene uses.
  // `choice`: who draws, and at which resolution.
  explicit SpritePass(const Scene& scene, const RasteriserChoice& choice = {});
  ~SpritePass();
  void begin_frame(const CameraPose& camera, int width, int height);
  // The camera of the previous frame, for the motion layer.
  void set_previous_camera(const CameraPose& camera);
  // The plate's depth this frame (PlatePass::depth_texture), for output.plate_soft.
  void set_plate_depth(GLuint texture) { plate_depth_ = texture; }
  // The frame's lights (core/lighting.h frame_lighting); none: unlit.
  void set_lighting(std::optional<Lighting> lighting) { lighting_ = std::move(lighting); }
  // bench: the same pass drawn at another fill resolution (one pass's
  // buffers for both, where two passes of a billion sprites would not fit).
  void set_fill_resolution(FillResolution fill) { choice_.fill = fill; }
  // bench: time the compute rasteriser's stages (render/compute_rasteriser.h); empty until it has drawn.
  void profile_compute(bool on);
  std::optional<ComputeStageTimes> compute_stage_times() const;
  // bench: count the samples the compute rasteriser blends (GL's occlusion
  // queries do not see them); the total since counting began (waits for the GPU).
  void count_compute_samples(bool on);
  uint64_t compute_samples() const;
  // Colour draws of batches so far, and how many of them at half size.
  struct DrawCounts {
    size_t batches = 0, reduced = 0;
    size_t cpu = 0;          // of them drawn by the CPU rasteriser
    size_t cpu_samples = 0;  // samples the CPU rasteriser blended (GL's occlusion queries do not see them)
  };
  DrawCounts draw_counts() const { return counts_; }
  // The batch's own opacity, tint and blend override the emitter's when given.
  void draw(const SpriteBatch& batch, const EmitterSettings& emitter, const GlTexture& texture,
            SpriteOutput output = SpriteOutput::colour);

 private:
  void make_buffers();
  bool uses_compute(size_t count, SpriteOutput output) const;
  // Whether the batch's colour is drawn at half size (measures it if automatic).
  bool draws_reduced(const SpriteBatch& batch, const EmitterSettings& emitter, const GlTexture& texture);
  void draw_reduced(const SpriteBatch& batch, const EmitterSettings& emitter, const GlTexture& texture);
  // Draws at the pixel size of the bound target: width × height, or its half size.
  void draw_at_target_size(const SpriteBatch& batch, const EmitterSettings& emitter, const GlTexture& texture,
                           SpriteOutput output);
  // The instances of a batch made on the CPU, uploaded (once per draw).
  const DeviceBuffer& instances_of(const SpriteBatch& batch);
  // The look's uniforms of a batch on `program` (the GL program or the compute rasteriser's).
  void set_uniforms(const GlProgram& program, const SpriteBatch& batch, const EmitterSettings& emitter,
                    const GlTexture& texture, SpriteOutput output);
  void draw_instances(GLuint instances, size_t count, const SpriteBatch& batch, const EmitterSettings& emitter,
                      const GlTexture& texture, SpriteOutput output);
  bool draw_with_compute(const SpriteBatch& batch, const EmitterSettings& emitter, const GlTexture& texture);
  // The CPU rasteriser: false, having drawn nothing, where automatic finds the batch's sprites too large.
  bool draw_with_cpu(const SpriteBatch& batch, const EmitterSettings& emitter, const GlTexture& texture);

  GlProgram program_;
  GlVertexArray vao_;
  GlBuffer corners_, previous_;
  size_t previous_capacity_ = 0;
  glm::mat4 view_{1}, projection_{1}, previous_view_projection_{1};
  CameraPose camera_{};
  int width_ = 1, height_ = 1;  // the pixels drawn into: the frame's, or half its size
  float min_pixels_ = kMinSpritePixels;  // in those pixels
  std::optional<Fog> fog_;
  std::optional<Lighting> lighting_;
  std::optional<float> f_number_, focus_distance_;
  float plate_soft_ = 0;
  glm::vec2 soft_{0};  // fade distance, ground height
  GLuint plate_depth_ = 0;
  ThinLens lens_;  // of this frame's camera
  std::optional<float> ground_height_;
  RasteriserChoice choice_;
  std::unique_ptr<ComputeRasteriser> compute_;  // made at the first batch it draws
  std::unique_ptr<CpuSpritePath> cpu_;           // made at the first batch it draws
  std::unique_ptr<ScreenCoverage> coverage_;    // made at the first batch it measures
  std::unique_ptr<ReducedResolutionTarget> reduced_;
  DeviceBuffer uploaded_;                       // CPU batches' instances
  const SpriteBatch* uploaded_batch_ = nullptr;  // whose they are, during a draw
  DrawCounts counts_;
  std::string defines_;
  bool profile_compute_ = false, count_compute_samples_ = false;
};

}  // namespace fxsim
