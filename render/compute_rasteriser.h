#pragma once
// Draws a batch of sprites with compute shaders instead of the GL rasteriser:
// the path for millions of small particles, where a GPU's few raster units
// and its blending are the limit (issue 16; Schütz et al. 2021 draw points in
// compute, the 3-D Gaussian splatting rasteriser splats by sorted tiles).
//
//   1. setup     each sprite's quad (render/sprite_glsl.h's sprite_vertex,
//                the GL path's own code) projected to pixels, and how many
//                16×16-pixel tiles its bounds touch;
//   2. scan      those counts become each sprite's first place in a list of
//                (tile, sprite) pairs, written in drawing order: the
//                sprite's index, or a copy of the sprite (TileLists);
//   3. sort      a stable radix sort by tile (render/device_sort.h): each
//                tile's sprites in the order the GL path draws them; beside
//                each pair, the pixels of its tile its sprite's bounds reach
//                (column and row masks);
//   4. blend     a work group per tile, an invocation per pixel, walks the
//                tile's list newest first and blends front to back in 32-bit
//                float: per sample (the frame's own sample positions), the
//                triangles' coverage and the depth test, one shading at the
//                pixel centre per triangle (shade_sprite, with the mip level
//                the GL would pick), colour and transmittance kept per
//                sample. A pixel stops once less than 1/4096 of the light
//                behind gets through. Lists longer than a draw's pairs / 4096
//                (at least 4096 sprites; 1024 where the GL limits loops:
//                llvmpipe) are walked in segments by work groups of their
//                own, merged front to back per sample.
//   5. composite the samples' mean (colour, 1 − transmittance) over the
//                frame: premultiplied "over", so alpha and additive batches
//                compose as the GL path's blending does.
// Depth: the ground (a plane) and the plate's depth hide what is behind
// them, as the depth buffer does for the GL path. Sprites reaching through
// the near plane (a flake brushing the lens) need clipping: they are
// gathered in order and handed back to be drawn by GL after the rest (of
// their part, or of the batch where it is drawn in parts).
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glm/mat4x4.hpp>

#include "core/camera_path.h"
#include "render/compute.h"
#include "render/device_scan.h"
#include "render/device_sort.h"
#include "render/frame_layer.h"
#include "render/gl_objects.h"
#include "render/parts_front_to_back.h"

namespace fxsim {

// What the depth buffer holds for the GL path: the ground plane (a square of
// this half-extent around the point under the eye) and the plate's depth.
struct SpriteOccluders {
  std::optional<float> ground_height;
  float ground_extent = 0;
  GLuint plate_depth = 0;  // metres along the view; 0: no plate
};

// Where a profiled draw's GPU time went (GL timestamps), summed over draws.
struct ComputeStageTimes {
  double setup = 0;       // corners, bounds and tile counts; the scans; the count read back
  double pairs_time = 0;  // the tile lists: the (tile, sprite) pairs,
  double sort = 0;        // their sort by tile,
  double ranges = 0;      // and the tiles' ranges and the pairs' boxes, and the lists cut in segments
  double lists() const { return pairs_time + sort + ranges; }
  double blend = 0;       // the tiles' pixels
  double composite = 0;   // over the frame (a batch in parts: each part behind the ones before, and the whole over the frame)
  size_t sprites = 0, pairs = 0, draws = 0;
  size_t record_draws = 0;  // draws whose tile lists carried the sprites' records
  size_t plane_draws = 0;   // draws whose blend found coverage from edge planes (Coverage)
};

// What the tile lists hold (compute_rasteriser.cpp's duplicate_source): each
// sprite's index, or a copy of its record, read in order by the blend;
// automatic picks records for draws of many sprites whose order jumps about
// the screen. The frames are the same bytes either way (--tile-lists).
enum class TileLists { automatic, indices, records };

// How the blend finds the samples of a pixel a sprite covers (compute_rasteriser.cpp's
// walk_in_chunks): from the sprite's corners at each pixel, or from its edge
// planes, found once by the invocation that marks the entry and kept in
// shared memory for every pixel of the tile. Planes are faster for draws of
// millions of sprites and slower for small ones and for a fountain's jet;
// automatic picks by the draw (coverage_by_planes). A sample on an edge may
// be rounded differently by the two (--coverage).
enum class Coverage { automatic, corners, planes };

// Coverage::automatic's choice for a draw (a part, for a batch in parts) of
// `count` sprites of which `drawn` reach a tile, mostly `tall` or not,
// `jumps` of them far on screen from the one before: the setup's totals,
// the same whatever the tile lists hold, so the frames are too. Planes for
// a million drawn sprites or more, unless most are tall and in screen order.
bool coverage_by_planes(size_t count, uint32_t drawn, bool tall, uint32_t jumps);

class ComputeRasteriser {
 public:
  // `defines`: the sprite program's #define lines (the look's parts).
  // `limited_loops`: the GL ends long loops (llvmpipe): segments hold exactly kLimitedSegmentLength sprites.
  ComputeRasteriser(const std::string& defines, bool limited_loops);
  // The setup's program: the caller sets the look's uniforms on it (the
  // same names as the GL sprite program's), then calls draw().
  const GlProgram& setup_program() const { return setup_.program(); }
  // Draws `count` SpriteInstances from `instances` into the bound draw
  // framebuffer (width × height, `samples` per pixel). False, having drawn
  // nothing, when not even 16 sprites' tile lists fit the device's storage
  // blocks: the caller draws the batch with the GL path. `set_look` sets the look's
  // uniforms on the blend program a part draws with (it depends on what its
  // tile lists hold); `draw_near` draws the sprites crossing the near plane
  // (SpriteInstances, in order) with GL, after the tiles of their part (of
  // the whole batch, for a batch drawn in parts).
  using LookSetter = std::function<void(const GlProgram& blend)>;
  using NearDrawer = std::function<void(const DeviceBuffer& near, size_t count)>;
  bool draw(const DeviceBuffer& instances, size_t count, int width, int height, int samples, bool additive,
            const CameraPose& camera, const SpriteOccluders& occluders, const LookSetter& set_look,
            const NearDrawer& draw_near);
  // Profiling (bench): each draw then waits for the GPU and adds its stages' times.
  void set_profiling(bool on) { profiling_ = on; }
  // Counting (bench): the blend adds the samples it blends (covered and not
  // hidden; a pixel stops counting where it stops blending) on the GPU;
  // samples_blended() reads the total since counting began (waits for the GPU).
  void set_counting(bool on) { counting_ = on; }
  uint64_t samples_blended() const;
  const ComputeStageTimes& stage_times() const { return stage_times_; }
  void set_tile_lists(TileLists form) { tile_lists_ = form; }
  void set_coverage(Coverage walk) { coverage_ = walk; }
  // Draw in parts of at most `sprites` sprites, rounded down to a multiple
  // of 16 (at least 16); 0: as many as the GL's storage blocks hold
  // (--part-sprites: less memory, and the tests' way to draw in parts).
  void set_part_sprites(size_t sprites) { part_sprites_ = sprites; }

 private:
  // One part of a draw; its (tile, sprite) pairs, or nothing when they do not fit a storage block.
  std::optional<size_t> draw_part(const DeviceBuffer& instances, size_t first, size_t count, int width, int height,
                                  const BoundFrameSamples& frame, bool additive, const CameraPose& camera,
                                  const SpriteOccluders& occluders, const LookSetter& set_look,
                                  const NearDrawer& draw_near, bool in_parts);
  // Keeps the `count` sprites at the near plane that near_ holds, for the
  // end of a batch in parts.
  void keep_near(size_t count);

  std::string defines_;
  // `tall`: tile_pixel's blocks for a part whose sprites are mostly tall on screen.
  ComputeKernel& blend_kernel(int samples, bool records, bool tall, bool planes);  // for the counting_ in force
  ComputeKernel& merge_kernel(int samples, bool tall);

  bool limited_loops_;  // llvmpipe: segments of exactly kLimitedSegmentLength
  ComputeKernel setup_, duplicate_, duplicate_records_, ranges_, ranges_records_, cut_count_, cut_write_, gather_near_;
  // By samples per pixel (blend_: × 16, + 8 planes, + 4 tall, + 2 with records, + 1 counting; merge_: × 2, + 1 tall).
  std::map<int, std::unique_ptr<ComputeKernel>> blend_, merge_;
  DeviceScan scan_;
  DeviceSort sort_, sort_records_;
  DeviceBuffer prepared_, offsets_, keys_, values_, records_, tile_ranges_, near_places_, near_, bounds_, boxes_;
  DeviceBuffer jumps_;  // the setup's: 1 where a sprite is far on screen from the one before, scanned
  DeviceBuffer slot_offsets_, split_offsets_, segments_, split_tiles_, partials_;
  DeviceBuffer launch_;       // the blend's and the merge's work groups (indirect dispatch), at 0 and kMergeLaunchOffset
  DeviceBuffer shapes_;       // the setup's: sprites drawn, and those much taller than wide on screen
  DeviceBuffer counts_read_;  // what the host reads, copied where it reads it quickly
  DeviceBuffer blended_;                    // counting: samples blended, 64 bits as two words (low, high)
  FrameLayer layer_;
  PartsFrontToBack parts_;  // a batch drawn in parts
  // Its parts' sprites at the near plane (SpriteInstances), in the order
  // the parts were drawn (newest first): where each part's start and how many.
  DeviceBuffer near_batch_;
  struct KeptNear {
    size_t offset, count;
  };
  std::vector<KeptNear> near_kept_;
  size_t part_sprites_ = 0;
  bool profiling_ = false, counting_ = false;
  TileLists tile_lists_ = TileLists::automatic;
  Coverage coverage_ = Coverage::automatic;
  ComputeStageTimes stage_times_;
};

}  // namespace fxsim
