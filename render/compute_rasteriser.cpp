#include "render/compute_rasteriser.h"

#include <fmt/format.h>
#include <glm/gtc/type_ptr.hpp>
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <vector>

#include "core/exit_codes.h"
#include "core/particle_system.h"
#include "render/fog_glsl.h"
#include "render/lighting_glsl.h"
#include "render/shader.h"
#include "render/sprite_glsl.h"

namespace fxsim {

namespace {
// Pixels a side; one work group of kTile² invocations per tile. Measured on
// the H200 (rain, 100 M streaks at 1080p): 8-pixel tiles almost double the
// (tile, sprite) pairs and the blend's time (1.14 → 2.61 s).
constexpr int kTile = 16;
static_assert(kTile == 16, "tile_pixel's blocks of 4 x 8 (or 2 x 16) pixels tile a 16 x 16 tile");
static_assert(kTile == PartsFrontToBack::kTile, "a batch in parts marks the tiles the rasteriser lists");
constexpr size_t kPreparedBytes = 96;  // GLSL Prepared
constexpr const char* kPlanesDefine = "#define FXSIM_PLANES\n";  // coverage from edge planes (Coverage)
constexpr const char* kRecordsDefine = "#define FXSIM_RECORDS\n";  // tile lists of records (duplicate_source)
constexpr const char* kTallDefine = "#define FXSIM_TALL\n";        // tile_pixel's blocks for tall sprites
// A tile's list is walked in segments, each by its own work group, and the
// segments' partial results are merged front to back per sample ("over" is
// associative): a fountain's jet lists hundreds of thousands of sprites in a
// few tiles, which one work group each walked alone while the rest of the
// GPU idled (H200, 5 M fountain slots: 115 of the blend's 126 ms were that
// walk). A tile of one segment is blended straight into the layer, as before
// segments. Each cut costs a partial result and its merge, and the segments
// behind a tile's front one cannot stop where its pixels turn opaque, so a
// draw's lists are cut in segments of its pairs / kSegmentsWanted sprites
// (enough work groups to fill the GPU many times over; no fewer than
// kMinSegmentLength): the jet's lists are cut short, and a draw of many
// pairs is cut only where its lists are far longer. Measured on the
// H200 at 1080p: the 5 M fountain's blend, segments of 8192: 34.2 ms; 4096:
// 26.9 (then 27.0); 2048: 28.4; 1024: 32.4; cut at 4096 only where longer than
// four times the mean list, else at 8192 (the mist's lists of 8192 to 19 000
// then cut in two, not four): 29.6; this rule (the mist's 9.9 M pairs over
// 2040 tiles and the drops' 7.1 M over 8160 both cut at 4096): 26.9. Rain 100 M
// (drawn in parts of about 16 M pairs over 8160 tiles, so this rule cuts its
// lists at 4096 too): 866 ms, 787 uncut or at 16 384, 788 at pairs / 2048
// (7900; it would cut the mist at 4838, not measured); 1564 ms with every
// list cut at 4096 at bafcd86 (the same cut: that gap is not understood). Rain
// and snow 10 M the same at 4096 and 8192. Cut on the GPU (draw_part) since
// 9c71901 (measured on 2 December 2026 against the binary before, alternating
// in one session): the fountain's blend 26.1 -> 23.7 ms, rain 100 M's 868 ->
// 899 ms, 10 M's 88.2 -> 89.0. Where loops are limited (llvmpipe:
// 65535 turns of all loops of an invocation; a sprite costs one, plus one per
// light) exactly kLimitedSegmentLength.
constexpr uint32_t kLimitedSegmentLength = 1024;
// Tile lists carry records (duplicate_source) for draws of this many sprites
// or more (a buffer of 128 MiB of Prepared) where at least half the sprites
// lie more than a quarter of the frame from the one before on screen (the
// setup's jumps).
constexpr size_t kRecordsFrom = (size_t(128) << 20) / kPreparedBytes;
constexpr uint32_t kMinSegmentLength = 4096;
constexpr size_t kSegmentsWanted = 4096;

#define FXSIM_TILE_PARAMS(X) X(glm::uvec2, u_tiles) /* tiles across and down */
FXSIM_GPU_PARAMS(TileParams, FXSIM_TILE_PARAMS);
#define FXSIM_CUT_PARAMS(X) X(uint32_t, u_length) /* the most entries a segment holds */
FXSIM_GPU_PARAMS(CutParams, FXSIM_CUT_PARAMS);

// Indirect dispatches (the blend, the merge) in rows of the most work groups
// a dimension allows on every driver; cut_write_source writes the rows and
// group_index() reads them back, both from FXSIM_GROUPS_ACROSS.
constexpr uint32_t kGroupsAcross = 65535;
// Where the launch buffer holds the merge's groups (the blend's at byte 0):
// an offset every driver accepts for binding a range of a storage buffer.
constexpr size_t kMergeLaunchOffset = 256;

// A sprite ready for the tiles: its quad's corners in pixels (window
// coordinates, y up) and their clip w (the view distance), and its look.
constexpr const char* kPreparedGlsl = R"(
struct Prepared {
  vec4 xy01;  // corners 0 and 1: (-1, -1), (1, -1)
  vec4 xy23;  // corners 2 and 3: (-1, 1), (1, 1)
  vec4 w;     // the corners' clip w
  vec4 look;  // alpha, texture layer (streaks: −1 − layer), blur, circle of confusion
  vec4 tail;  // streaks: the world positions the GL path gives their tail and head corners
  vec4 head;  // (those of the drop, even where the streak was cut at the near plane)
};
bool is_streak(Prepared p) { return p.look.y < 0.0; }
float texture_layer(Prepared p) { return p.look.y < 0.0 ? -1.0 - p.look.y : p.look.y; }
// The tiles the quad's bounds touch, (x0, y0, x1, y1) inclusive; empty when x0 > x1.
ivec4 tile_box(Prepared p) {
  vec2 lo = min(min(p.xy01.xy, p.xy01.zw), min(p.xy23.xy, p.xy23.zw));
  vec2 hi = max(max(p.xy01.xy, p.xy01.zw), max(p.xy23.xy, p.xy23.zw));
  vec2 last = vec2(u_tiles) - 1.0;
  const float side = float(FXSIM_TILE);
  if (any(greaterThan(lo, vec2(u_tiles) * side)) || any(lessThan(hi, vec2(0.0)))) return ivec4(1, 1, 0, 0);
  vec2 first = clamp(floor(lo / side), vec2(0.0), last), end = clamp(floor(hi / side), vec2(0.0), last);
  return ivec4(first, end);
}
// The pixel of its tile an invocation draws: each 32 invocations (a subgroup
// on NVIDIA) cover a block 4 wide and 8 high, not two rows of 16, so a small
// sprite or a near-vertical streak reaches fewer subgroups (H200, 1080p:
// rain 10 M blend 95 -> 63 ms, snow 10 M 43 -> 42.6, fountain 5 M 39 -> 36.5;
// 8 wide and 4 high: 73, 43, 36). Where most sprites are tall (FXSIM_TALL:
// rain's streaks), blocks 2 wide and 16 high: a streak fills more of the
// lanes of fewer subgroups (blend, 3 December 2026: rain 10 M 26.1 -> 23.4
// ms, 100 M 100.6 -> 90.3, 1 000 M 1013 -> 909; but snow 100 M 42.3 -> 48.3
// and fountain 5 M 21.1 -> 21.9 had they been drawn so). Those blocks lean
// as the part's streaks do on average (u_shear: sixteenths of a pixel
// across a row, the setup's mean), each row's pixels turned round the tile
// by its share of the lean, so that a slanted streak, too, stays in few
// blocks. Which invocation draws a pixel changes nothing it draws.
// The blend and the merge share it, compiled alike: the partial slots are
// indexed by invocation.
// How far row `row` of a tile is turned round for a lean of `shear`:
// floor(row * shear / 16), the shift's operand kept positive.
int row_lean(int row, int shear) { return ((row * shear + 256) >> 4) - 16; }
#ifdef FXSIM_TALL
uniform int u_shear;  // -8..8
// The column of the leaning blocks an invocation draws in (its pixel's
// column turned back by its row's lean): the tile boxes' columns, where the
// blocks lean (ranges_source).
int leaning_column(uint index) { return int((index / 32u) * 2u + index % 2u); }
#endif
ivec2 tile_pixel(uint index) {
  uint block = index / 32u, lane = index % 32u;
#ifdef FXSIM_TALL
  int row = int(lane / 2u);
  return ivec2((leaning_column(index) + row_lean(row, u_shear)) & 15, row);
#else
  return ivec2((block % 4u) * 4u + lane % 4u, (block / 4u) * 8u + lane / 4u);
#endif
}
// A tile's first pixel.
ivec2 tile_origin(uint tile) { return ivec2(uvec2(tile % u_tiles.x, tile / u_tiles.x) * uint(FXSIM_TILE)); }
)";

// Kernels dispatched indirectly (cut_write_source wrote their groups) in rows
// of the most a dimension allows on every driver: group_index() is this
// group's number, launch.w the groups wanted (those beyond pad the last row).
constexpr const char* kGroupRowsGlsl = R"(
layout(std430, binding = 10) readonly buffer Launch { uvec4 launch; };  // groups x, y, z; groups wanted
uint group_index() { return gl_WorkGroupID.y * FXSIM_GROUPS_ACROSS + gl_WorkGroupID.x; }
)";

// A pixel's samples as the blend and the merge keep them, front to back: the
// light gathered and the transmittance (the light from behind that still
// gets through); where a partial slot keeps them; their mean into the layer.
constexpr const char* kPixelSamplesGlsl = R"(
layout(rgba32f, binding = 0) uniform writeonly image2D u_layer;
vec3 colour[FXSIM_SAMPLES];
float through[FXSIM_SAMPLES];
void clear_samples() {
  for (int k = 0; k < FXSIM_SAMPLES; ++k) {
    colour[k] = vec3(0.0);
    through[k] = 1.0;
  }
}
// This invocation's first sample in partial slot `slot`.
uint partial_at(uint slot) {
  return (slot * uint(FXSIM_TILE * FXSIM_TILE) + gl_LocalInvocationIndex) * uint(FXSIM_SAMPLES);
}
// (colour, 1 − transmittance), averaged over the samples.
void store_mean(ivec2 pixel) {
  vec3 sum = vec3(0.0);
  float passed = 0.0;
  for (int k = 0; k < FXSIM_SAMPLES; ++k) {
    sum += colour[k];
    passed += through[k];
  }
  imageStore(u_layer, pixel, vec4(sum, FXSIM_SAMPLES - passed) / float(FXSIM_SAMPLES));
}
)";

// What may hide part of a sprite (render's occluders: the ground's square, the
// plate's depth, the far plane) and the window-to-world mapping both the setup
// and the blend need. (After the sprite geometry's uniforms.)
constexpr const char* kOccludersGlsl = R"(
uniform vec4 u_ground;         // height, half-extent (0: no ground), centre x, z
uniform bool u_plate_occludes;
uniform mat4 u_inverse_view;
uniform float u_far;
// The world position seen at window position q, `depth` along the view.
vec3 unproject(vec2 q, float depth) {
  vec2 ndc = q / u_viewport * 2.0 - 1.0;
  return (u_inverse_view * vec4(ndc.x * depth / u_projection[0][0], ndc.y * depth / u_projection[1][1], -depth, 1.0)).xyz;
}
)";

constexpr const char* kClosedTilesGlsl = R"(
// A batch drawn in parts front to back (render/parts_front_to_back.h): the
// tiles the parts in front turned opaque take no pairs from the parts
// behind. Only for a sprite over a few tiles: a puff over the whole frame
// would read thousands of flags, for its pairs that the blend skips anyway.
layout(std430, binding = 9) readonly buffer Open { uint open[]; };  // 0: the tile lets nothing more through
uniform bool u_culling;
bool culls(ivec4 box) { return u_culling && (box.z - box.x + 1) * (box.w - box.y + 1) <= 64; }
bool tile_closed(int x, int y) { return open[uint(y) * u_tiles.x + uint(x)] == 0u; }
)";

std::string kernel_header(const std::string& defines) {
  return "#version 430\n" + defines +
         fmt::format("#define FXSIM_TILE {}\n#define FXSIM_GROUPS_ACROSS {}u\n#define FXSIM_MERGE_LAUNCH {}\n", kTile,
                     kGroupsAcross, kMergeLaunchOffset / 16) +
         glsl_launch_block() + TileParams::glsl(1) + kPreparedGlsl;
}

// 1. Each sprite's corners (the GL path's vertex code) and the tiles it touches.
std::string setup_source(const std::string& defines) {
  return kernel_header(defines) + kSpriteGeometryGlsl + kOccludersGlsl + kClosedTilesGlsl + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Instances { vec4 instances[]; };  // SpriteInstance: 3 vec4
layout(std430, binding = 1) writeonly buffer Sprites { Prepared sprites[]; };
layout(std430, binding = 2) writeonly buffer Counts { uint counts[]; };
layout(std430, binding = 3) writeonly buffer Near { uint near[]; };  // 1: crossing the near plane
layout(std430, binding = 4) writeonly buffer Jumps { uint jumps[]; };  // 1: far on screen from the sprite before
layout(std430, binding = 8) writeonly buffer Bounds { vec4 bounds[]; };  // the quad's pixels: lo.xy, hi.xy
// How many sprites are drawn, how many of them are more than twice as tall
// as wide on screen, and those ones' lean, summed (the blend's choice of
// tile_pixel's blocks): summed per work group, then added.
layout(std430, binding = 5) buffer Shapes { uint drawn_total, tall_total; int lean_total; };
shared uint s_drawn, s_tall;
shared int s_lean;
// A tall sprite's lean: how far its axis (the middle of its first edge to
// that of its last) moves across for a row up, in sixteenths of a pixel
// (-8..8: a tall sprite leans less than half a pixel a row).
int lean(Prepared p) {
  vec2 axis = p.xy23.xy + p.xy23.zw - p.xy01.xy - p.xy01.zw;
  return axis.y != 0.0 ? int(clamp(round(16.0 * axis.x / axis.y), -8.0, 8.0)) : 0;
}
// The tile a sprite's centre falls in (far off when behind the eye).
vec2 centre_tile(vec3 centre) {
  vec4 clip = u_projection * (u_view * vec4(centre, 1.0));
  return clip.w > 0.0 ? floor(to_pixels(clip) / float(FXSIM_TILE)) : vec2(-1.0e9);
}
void main() {
  if (gl_LocalInvocationIndex == 0u) {
    s_drawn = s_tall = 0u;
    s_lean = 0;
  }
  barrier();
  uint drawn_here = 0u, tall_here = 0u;
  int lean_here = 0;
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) {
    vec4 a = instances[3u * i], b = instances[3u * i + 1u], c = instances[3u * i + 2u];
    // Whether the tile lists will jump about the sprites (draw_part's choice
    // of records): more than a quarter of the frame's width or height from
    // the sprite before. (Most of the drops of rain or snow, whose slots hold
    // them anywhere: two points taken at random across the frame are that
    // far apart four times in five. More than a tile apart picked the
    // fountain's 5 M slots too, whose lists gained nothing from records:
    // H200, 1080p, 29.9-30.2 -> 36.8-37.3 ms a frame.)
    vec2 apart = i > 0u ? abs(centre_tile(a.xyz) - centre_tile(instances[3u * (i - 1u)].xyz)) : vec2(0.0);
    jumps[i] = all(lessThanEqual(apart, vec2(u_tiles) * 0.25)) ? 0u : 1u;
    SpriteVertex v0 = sprite_vertex(a, b, c, vec2(-1.0, -1.0)), v1 = sprite_vertex(a, b, c, vec2(1.0, -1.0));
    SpriteVertex v2 = sprite_vertex(a, b, c, vec2(-1.0, 1.0)), v3 = sprite_vertex(a, b, c, vec2(1.0, 1.0));
    Prepared p;
    p.xy01 = vec4(to_pixels(v0.clip), to_pixels(v1.clip));
    p.xy23 = vec4(to_pixels(v2.clip), to_pixels(v3.clip));
    p.w = vec4(v0.clip.w, v1.clip.w, v2.clip.w, v3.clip.w);
    p.look = vec4(v0.alpha, dot(b.xyz, b.xyz) > 0.0 ? -1.0 - c.x : c.x, v0.blur, v0.confusion);
    p.tail = vec4(v0.world, 0.0);
    p.head = vec4(v2.world, 0.0);
    // head.w = 1: nothing can hide any of it, so the blend skips the per-sample
    // depth test: well within the near and far planes, no plate, and wholly
    // above a ground the eye is above (the corners' world positions bound
    // every point of the quad; 1 cm spares the rounding).
    float nearest_w = min(min(p.w.x, p.w.y), min(p.w.z, p.w.w)), farthest_w = max(max(p.w.x, p.w.y), max(p.w.z, p.w.w));
    bool clear = !u_plate_occludes && nearest_w >= u_near * 1.001 && farthest_w <= u_far * 0.999;
    if (clear && u_ground.y > 0.0) {
      float lowest = min(min(unproject(p.xy01.xy, p.w.x).y, unproject(p.xy01.zw, p.w.y).y),
                         min(unproject(p.xy23.xy, p.w.z).y, unproject(p.xy23.zw, p.w.w).y));
      clear = u_eye.y > u_ground.x && lowest > u_ground.x + 0.01;
    }
    p.head.w = clear ? 1.0 : 0.0;
    sprites[i] = p;
    vec4 bound = vec4(min(min(p.xy01.xy, p.xy01.zw), min(p.xy23.xy, p.xy23.zw)),
                      max(max(p.xy01.xy, p.xy01.zw), max(p.xy23.xy, p.xy23.zw)));
    bounds[i] = bound;
    // Nothing to draw here: transparent, reaching through the near plane (GL
    // draws it, clipped, if part of it is in front), or not finite.
    float nearest = min(min(p.w.x, p.w.y), min(p.w.z, p.w.w)), farthest = max(max(p.w.x, p.w.y), max(p.w.z, p.w.w));
    bool in_front = nearest >= u_near * 0.999;
    near[i] = v0.alpha > 0.0 && !in_front && farthest > u_near ? 1u : 0u;
    bool drawn = v0.alpha > 0.0 && in_front && !any(isnan(p.xy01)) && !any(isnan(p.xy23)) && !any(isinf(p.xy01)) &&
                 !any(isinf(p.xy23));
    ivec4 box = tile_box(p);
    uint tiles = drawn && box.x <= box.z && box.y <= box.w ? uint((box.z - box.x + 1) * (box.w - box.y + 1)) : 0u;
    if (tiles > 0u && culls(box))
      for (int y = box.y; y <= box.w; ++y)
        for (int x = box.x; x <= box.z; ++x) tiles -= tile_closed(x, y) ? 1u : 0u;
    counts[i] = tiles;
    if (tiles > 0u) {
      ++drawn_here;
      if (bound.w - bound.y > 2.0 * (bound.z - bound.x)) {
        ++tall_here;
        lean_here += lean(p);
      }
    }
  }
  if (drawn_here > 0u) atomicAdd(s_drawn, drawn_here);
  if (tall_here > 0u) atomicAdd(s_tall, tall_here);
  if (lean_here != 0) atomicAdd(s_lean, lean_here);
  barrier();
  if (gl_LocalInvocationIndex == 0u && s_drawn > 0u) {
    atomicAdd(drawn_total, s_drawn);
    atomicAdd(tall_total, s_tall);
    if (s_lean != 0) atomicAdd(lean_total, s_lean);
  }
}
)";
}

// 1b. The sprites crossing the near plane, in order (places: their flags, scanned).
std::string gather_near_source(const std::string& defines) {
  return kernel_header(defines) + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Instances { vec4 instances[]; };
layout(std430, binding = 3) readonly buffer Places { uint places[]; };
layout(std430, binding = 6) writeonly buffer Near { vec4 near[]; };
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) {
    uint place = places[i];
    if (places[i + 1u] == place) continue;
    for (uint k = 0u; k < 3u; ++k) near[3u * place + k] = instances[3u * i + k];
  }
}
)";
}

// 2. Each sprite's (tile, sprite) pairs at its place (offsets: the scanned
// counts), in drawing order: the tile and the sprite's index, or, with
// FXSIM_RECORDS, a copy of its Prepared, which the sort then moves with its
// tile, so that the blend reads each tile's sprites one after another. Read
// through their indices, the sprites of a tile lie all over the buffer where
// the sprites' order is not the screen's (rain, snow: their slots hold drops
// anywhere in the box), and in a buffer of millions of sprites those loads
// cost most of the blend's time. H200, 1080p, blend: rain 10 M 89 -> 25 ms,
// snow 10 M 44 -> 11 ms; the fountain's 5 M, whose slots follow the jet,
// 22.8 either way while its sort took 0.9 -> 6.9 ms; rain 1 M (four batches
// of 250 000) 2.68 -> 2.75 ms. Gathering the records after the sort is the
// same jumping about: 791 ms for rain 10 M's 15.6 M pairs, where the sort's
// passes read and write in order (again on 2 December 2026, the sort moving
// indices and a kernel copying each pair's record after it, six invocations
// a record so that a warp reads whole records and writes in order: rain 10
// M's sort and copy 112 ms against 8.5 for the sort moving records, snow 10
// M 58 against 4.9, rain 100 M 1.2 s against 0.1). Hence records only for draws of many
// sprites (kRecordsFrom) whose order jumps about the screen (the setup's jumps).
std::string duplicate_source(const std::string& defines) {
  return kernel_header(defines) + kClosedTilesGlsl + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Sprites { Prepared sprites[]; };
layout(std430, binding = 2) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 3) writeonly buffer Keys { uint keys[]; };
#ifdef FXSIM_RECORDS
layout(std430, binding = 4) writeonly buffer Records { Prepared records[]; };
#else
layout(std430, binding = 4) writeonly buffer Values { uint values[]; };
#endif
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) {
    uint place = offsets[i];
    if (offsets[i + 1u] == place) continue;
    Prepared p = sprites[i];
    ivec4 box = tile_box(p);
    bool culling = culls(box);  // as the setup counted
    for (int y = box.y; y <= box.w; ++y)
      for (int x = box.x; x <= box.z; ++x) {
        if (culling && tile_closed(x, y)) continue;
        keys[place] = uint(y) * u_tiles.x + uint(x);
#ifdef FXSIM_RECORDS
        records[place] = p;
#else
        values[place] = i;
#endif
        ++place;
      }
  }
}
)";
}

// 3b. Each tile's [first, end) in the sorted pairs (tiles without pairs keep
// [0, 0)), and each pair's box: the pixels of its tile that its sprite's
// bounds reach, packed in a word beside the pair, so that the blend's walk
// reads its lists' boxes in order instead of each sprite's bounds wherever
// they lie (at 100 M sprites a load from memory for every sprite listed).
// H200, 1080p, blend: rain 100 M 1122 -> 917 ms, fountain 5 M 36.5 -> 32.4,
// rain 1 M 5.2 -> 4.4, snow 10 M 44 either way; rain 10 M 64 -> 78 ms (not
// understood: the frames are the same bytes and the walk reads less).
// Where the blend's blocks lean (u_shear), the box's columns are those of
// the leaning blocks that the sprite reaches, row by row, so that a streak
// leaning with them is tested by the few blocks it crosses.
std::string ranges_source(const std::string& defines) {
  return kernel_header(defines) + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 3) readonly buffer Keys { uint keys[]; };
#ifdef FXSIM_RECORDS
layout(std430, binding = 4) readonly buffer Records { Prepared records[]; };
Prepared sprite_of(uint j) { return records[j]; }
#else
layout(std430, binding = 4) readonly buffer Values { uint values[]; };
layout(std430, binding = 8) readonly buffer Bounds { vec4 bounds[]; };
layout(std430, binding = 1) readonly buffer Sprites { Prepared sprites[]; };
Prepared sprite_of(uint j) { return sprites[values[j]]; }
#endif
layout(std430, binding = 5) buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 2) writeonly buffer Boxes { uint boxes[]; };
uniform int u_shear;  // the blend's blocks' lean (tile_pixel); 0: they stand upright
// An edge from a to b, found once for all the rows it is widened in: the
// reciprocal of its rise (0 where the rise is under 1e-30, a cutoff well
// clear of where the reciprocal would overflow: the edge then counts as
// flat, spanning both its ends' x), so that a row costs
// multiplications, not a division an edge and end (leaning_columns made
// the ranges kernel twice as slow: docs/performance.md).
struct Edge {
  vec2 a, b;
  float per_y;  // 1 / (b.y − a.y), or 0 where the edge counts as flat
};
Edge edge_of(vec2 a, vec2 b) {
  float dy = b.y - a.y;
  return Edge(a, b, abs(dy) > 1e-30 ? 1.0 / dy : 0.0);
}
// Edge e within the rows y0..y1 widens the x-extent [lo, hi] found there.
// (per_y bounds |(bottom − a.y) · per_y| near 1: no infinity times 0.)
void widen(Edge e, float y0, float y1, inout vec2 extent) {
  float bottom = max(min(e.a.y, e.b.y), y0), top = min(max(e.a.y, e.b.y), y1);
  if (bottom > top) return;
  float t0 = e.per_y != 0.0 ? clamp((bottom - e.a.y) * e.per_y, 0.0, 1.0) : 0.0;
  float t1 = e.per_y != 0.0 ? clamp((top - e.a.y) * e.per_y, 0.0, 1.0) : 1.0;
  float x0 = e.a.x + (e.b.x - e.a.x) * t0, x1 = e.a.x + (e.b.x - e.a.x) * t1;
  extent = vec2(min(extent.x, min(x0, x1)), max(extent.y, max(x0, x1)));
}
// The columns of the leaning blocks that sprite p reaches in rows first..last
// of the tile at `origin`: row by row, the pixels its two triangles' edges
// span there (as the box's), turned back by the row's lean. Each row's
// band and span are widened by a margin for rounding, both here and in the
// blend's coverage test (which may take a sample a little beyond an edge,
// and beyond a thin triangle's tip by that times its length over its width):
// far corners and long thin quads get more.
uint leaning_columns(Prepared p, vec2 origin, int first, int last) {
  vec2 v0 = p.xy01.xy, v1 = p.xy01.zw, v2 = p.xy23.xy, v3 = p.xy23.zw;
  vec4 far = max(abs(p.xy01), abs(p.xy23));
  float across = length(v1 - v0), along = length(v2 - v0);
  float thin = min(max(across, along) / max(min(across, along), 1e-6), 1e6);
  float margin = 1.0 / 16.0 + 1e-6 * max(max(far.x, far.y), max(far.z, far.w)) * (1.0 + thin);
  Edge edges[5] = Edge[5](edge_of(v0, v1), edge_of(v1, v2), edge_of(v2, v0), edge_of(v1, v3), edge_of(v3, v2));
  uint columns = 0u;
  for (int row = first; row <= last; ++row) {
    float y0 = origin.y + float(row) - margin, y1 = origin.y + float(row) + 1.0 + margin;
    vec2 extent = vec2(3.0e38, -3.0e38);
    for (int k = 0; k < 5; ++k) widen(edges[k], y0, y1, extent);
    if (extent.x > extent.y) continue;
    int from = int(clamp(ceil(extent.x - margin) - 1.0 - origin.x, 0.0, 16.0));
    int to = int(clamp(floor(extent.y + margin) - origin.x, -1.0, 15.0));
    if (to < from) continue;
    uint run = (2u << uint(to)) - (1u << uint(from));
    uint turn = uint(row_lean(row, u_shear) & 15);
    columns |= ((run >> turn) | (run << (16u - turn))) & 0xFFFFu;
  }
  return columns;
}
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint j = gl_GlobalInvocationID.x; j < u_count; j += stride) {
    uint key = keys[j];
    if (j == 0u || keys[j - 1u] != key) ranges[key].x = j;
    if (j + 1u == u_count || keys[j + 1u] != key) ranges[key].y = j + 1u;
    // The pixels p a sprite's bounds reach (p + 1 >= lo and p <= hi): from
    // ceil(lo) - 1 to floor(hi); as masks of the tile's columns (low 16 bits)
    // and rows (high 16 bits).
    // (Clamped as floats: far corners can be beyond any int.)
#ifdef FXSIM_RECORDS
    Prepared p = records[j];  // its bounds as the setup finds them
    vec4 b = vec4(min(min(p.xy01.xy, p.xy01.zw), min(p.xy23.xy, p.xy23.zw)),
                  max(max(p.xy01.xy, p.xy01.zw), max(p.xy23.xy, p.xy23.zw)));
#else
    vec4 b = bounds[values[j]];
#endif
    vec2 origin = vec2(tile_origin(key));
    const float side = float(FXSIM_TILE);
    ivec2 first = ivec2(clamp(ceil(b.xy) - 1.0 - origin, vec2(0.0), vec2(side)));
    ivec2 last = ivec2(clamp(floor(b.zw) - origin, vec2(-1.0), vec2(side - 1.0)));
    uint columns = last.x >= first.x ? (2u << last.x) - (1u << first.x) : 0u;
    uint rows = last.y >= first.y ? (2u << last.y) - (1u << first.y) : 0u;
    if (u_shear != 0 && columns != 0u && rows != 0u) columns = leaning_columns(sprite_of(j), origin, first.y, last.y);
    boxes[j] = columns | (rows << 16);
  }
}
)";
}

// 4. A tile's pixels: its sprites front to back, per sample.
// 4a. Each tile's list cut in segments of u_length, front (newest) first;
// every tile at least one, drawing even an empty tile's pixels clear. First
// each tile's partial slots (its segments where it has several, else 0)
// and whether it is split; their scans then place everything.
std::string cut_count_source(const std::string& defines) {
  return kernel_header(defines) + CutParams::glsl(2) + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 5) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 2) writeonly buffer Slots { uint slots[]; };
layout(std430, binding = 3) writeonly buffer Splits { uint splits[]; };
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint t = gl_GlobalInvocationID.x; t < u_count; t += stride) {
    uint length = ranges[t].y - ranges[t].x;
    bool split = length > u_length;
    slots[t] = split ? (length + u_length - 1u) / u_length : 0u;
    splits[t] = split ? 1u : 0u;
  }
}
)";
}

// Then, from the scanned counts, the segments (tile, first entry, end entry,
// partial slot + 1 or 0), the split tiles (tile, first slot, count) in tile
// order, and the blend's and the merge's work groups (launch[0], launch[FXSIM_MERGE_LAUNCH]).
std::string cut_write_source(const std::string& defines) {
  return kernel_header(defines) + CutParams::glsl(2) + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 5) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 2) readonly buffer Slots { uint slots[]; };    // exclusive scans, one more than tiles
layout(std430, binding = 3) readonly buffer Splits { uint splits[]; };
layout(std430, binding = 6) writeonly buffer Segments { uvec4 segments[]; };
layout(std430, binding = 7) writeonly buffer SplitTiles { uvec4 split_tiles[]; };
layout(std430, binding = 10) writeonly buffer Launch { uvec4 launch[]; };
uvec4 groups(uint wanted) {
  return uvec4(min(wanted, FXSIM_GROUPS_ACROSS), (wanted + FXSIM_GROUPS_ACROSS - 1u) / FXSIM_GROUPS_ACROSS, 1u, wanted);
}
void main() {
  if (gl_GlobalInvocationID.x == 0u) {
    uint split_tiles = splits[u_count];
    launch[0] = groups(slots[u_count] + u_count - split_tiles);
    launch[FXSIM_MERGE_LAUNCH] = groups(split_tiles);
  }
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint t = gl_GlobalInvocationID.x; t < u_count; t += stride) {
    uint bottom = ranges[t].x, end = ranges[t].y, slot = slots[t], split = splits[t];
    uint first = slot + t - split;  // the segments of the tiles before: their slots, one each for the others
    uint count = slots[t + 1u] - slot;
    if (count == 0u) {
      segments[first] = uvec4(t, bottom, end, 0u);
      continue;
    }
    split_tiles[split] = uvec4(t, slot, count, 0u);
    for (uint j = 0u; j < count; ++j) {
      uint top = end - j * u_length;
      segments[first + j] = uvec4(t, top - min(u_length, top - bottom), top, slot + j + 1u);
    }
  }
}
)";
}

std::string blend_source(const std::string& defines, int samples, bool counting) {
  return kernel_header(defines + fmt::format("#define FXSIM_SAMPLES {}\n#define FXSIM_OPAQUE_BELOW {}\n"
                                            "#ifdef FXSIM_PLANES\n#define FXSIM_CHUNK 128u\n#else\n"
                                            "#define FXSIM_CHUNK 256u\n#endif\n#define FXSIM_CHUNK_WORDS (FXSIM_CHUNK / 32u)\n",
                                            samples, kOpaqueBelowGlsl) +
                       (counting ? "#define FXSIM_COUNT_SAMPLES\n" : "")) +
         kSpriteGeometryGlsl +
         kFogGlsl + kLightingGlsl + kSpriteShadingGlsl + kOccludersGlsl + kPixelSamplesGlsl + kGroupRowsGlsl + R"(
layout(local_size_x = FXSIM_TILE, local_size_y = FXSIM_TILE) in;
#ifdef FXSIM_RECORDS
layout(std430, binding = 4) readonly buffer Records { Prepared records[]; };  // sprites, by tile, in drawing order
Prepared entry(uint e) { return records[e]; }
#else
layout(std430, binding = 1) readonly buffer Sprites { Prepared sprites[]; };
layout(std430, binding = 4) readonly buffer Values { uint entries[]; };  // sprites, by tile, in drawing order
Prepared entry(uint e) { return sprites[entries[e]]; }
#endif
layout(std430, binding = 8) readonly buffer Boxes { uint boxes[]; };  // beside entries: ranges_source's
uniform vec2 u_sample_positions[FXSIM_SAMPLES];  // within the pixel, as the frame's multisampling places them
uniform bool u_additive;
uniform bool u_clamp;          // the frame is fixed point: GL clamps each fragment's colour to [0, 1]
// A batch drawn in parts front to back (render/parts_front_to_back.h): the
// parts in front, per pixel (1 − .a: what they let through); a pixel stops
// where its samples' share of that falls below FXSIM_OPAQUE_BELOW, as without parts.
uniform bool u_carrying;
layout(rgba32f, binding = 1) readonly uniform image2D u_carry;
float g_stop = FXSIM_OPAQUE_BELOW;  // the share of this part's light behind below which the pixel stops
// The segments: (tile, first entry, end entry, partial slot + 1, or 0 for a
// tile of one segment, blended straight into the layer), front (newest) first within a tile.
layout(std430, binding = 6) readonly buffer Segments { uvec4 segments[]; };  // one a work group
// Per partial slot, pixel of its tile and sample: colour, transmittance.
layout(std430, binding = 7) writeonly buffer Partials { vec4 partials[]; };
#ifdef FXSIM_COUNT_SAMPLES
// The samples blended (bench's fill line): an invocation's, summed in shared
// memory, then one atomic add a work group to a 64-bit total (low, high).
layout(std430, binding = 9) buffer Blended { uint blended[2]; };
uint g_blended = 0u;
shared uint s_blended;
void count_blended() {  // in uniform control flow: every invocation of the group
  if (gl_LocalInvocationIndex == 0u) s_blended = 0u;
  memoryBarrierShared();
  barrier();
  if (g_blended > 0u) atomicAdd(s_blended, g_blended);
  memoryBarrierShared();
  barrier();
  if (gl_LocalInvocationIndex == 0u && s_blended > 0u) {
    uint before = atomicAdd(blended[0], s_blended);
    if (before + s_blended < before) atomicAdd(blended[1], 1u);
  }
}
#endif

vec2 g_dx = vec2(0.0), g_dy = vec2(0.0);  // the uv's change per pixel, as the GL rasteriser's derivatives
vec4 sample_shape(vec3 uv_layer, float lod_bias) {
  // The level GL picks from the derivatives (the larger footprint), chosen
  // per invocation: a GL may share one level across a 2×2 quad of
  // invocations, which in this kernel draw different sprites.
  vec2 size = vec2(textureSize(u_texture, 0).xy);
  float rho = max(length(g_dx * size), length(g_dy * size));
  return textureLod(u_texture, uv_layer, log2(max(rho, 1e-20)) + lod_bias);
}

// Twice the signed area of (a, b, q), from the corners' offsets to q: a
// streak reaching the near plane can have corners thousands of pixels away.
float edge(vec2 a, vec2 b, vec2 q) {
  vec2 qa = a - q, qb = b - q;
  return qa.x * qb.y - qa.y * qb.x;
}

// The samples inside three edge functions, at_corner at the pixel's corner
// and stepping per_x and per_y a pixel, as bits: six multiply-adds a sample.
uint samples_inside(vec3 at_corner, vec3 per_x, vec3 per_y) {
  uint mask = 0u;
  for (int k = 0; k < FXSIM_SAMPLES; ++k) {
    vec2 o = u_sample_positions[k];
    if (all(greaterThanEqual(at_corner + per_x * o.x + per_y * o.y, vec3(0.0)))) mask |= 1u << k;
  }
  return mask;
}

#ifdef FXSIM_PLANES
// Edge (b, c)'s function edge(b, c, q) as a plane over the tile whose first
// pixel is `origin`: its steps per pixel right and up, and its value there.
vec3 edge_plane(vec2 b, vec2 c, vec2 origin) { return vec3(b.y - c.y, c.x - b.x, edge(b, c, origin)); }

// Each entry's two triangles as three edge planes each, signed so that a
// sample is inside where all three are 0 or more, found once by the
// invocation that marks the entry (walk_in_chunks), not by each block that
// draws it: every lane of a block found both triangles' areas and edge
// functions from the corners for each entry it drew. Kept for one chunk:
// the walk's second barrier a chunk lets the next chunk's marking write
// them once every block has drawn this one. 7.5 KiB (see walk_in_chunks on
// what more shared memory costs).
// Per entry (each edge's step per pixel right and up and its value at the
// tile's first pixel): triangle (0, 1, 2)'s edges (1, 2), (2, 0), (0, 1) in
// .xyz of s_planes[0], [1], [2]; triangle (2, 1, 3)'s edge (1, 3) in
// s_planes[0].w, [2].w and s_plane_ends[1], its edge (3, 2) in
// s_planes[1].w, s_plane_ends[0] and [2]. Its edge (2, 1) is the first
// triangle's (1, 2) negated exactly (the same plane: a sample on the
// diagonal is in both where both have area, and draw_entry gives it to the
// first; the GLSL may contract the two evaluations differently, as it could
// the two edge functions before), or, where the
// two triangles turn opposite ways (the entry's bit in s_turned), not negated.
shared vec4 s_planes[3][FXSIM_CHUNK];
shared float s_plane_ends[3][FXSIM_CHUNK];
shared uint s_turned[2][FXSIM_CHUNK_WORDS];  // by chunk mod 2, as s_marks
void keep_planes(uint now, uint index, Prepared p, vec2 origin) {
  vec2 v0 = p.xy01.xy, v1 = p.xy01.zw, v2 = p.xy23.xy, v3 = p.xy23.zw;
  float s1 = sign(edge(v0, v1, v2)), s2 = sign(edge(v2, v1, v3));  // 0: no area, nothing inside
  float first_turn = s1 < 0.0 ? -1.0 : 1.0;  // the diagonal as kept: the first triangle's, if it has area
  const vec3 never = vec3(0.0, 0.0, -1.0);
  vec3 diagonal = edge_plane(v1, v2, origin) * first_turn;
  vec3 e20 = s1 != 0.0 ? edge_plane(v2, v0, origin) * s1 : never;
  vec3 e01 = s1 != 0.0 ? edge_plane(v0, v1, origin) * s1 : never;
  vec3 e13 = s2 != 0.0 ? edge_plane(v1, v3, origin) * s2 : never;
  vec3 e32 = s2 != 0.0 ? edge_plane(v3, v2, origin) * s2 : never;
  s_planes[0][index] = vec4(diagonal.x, e20.x, e01.x, e13.x);
  s_planes[1][index] = vec4(diagonal.y, e20.y, e01.y, e32.x);
  s_planes[2][index] = vec4(diagonal.z, e20.z, e01.z, e13.y);
  s_plane_ends[0][index] = e32.y;
  s_plane_ends[1][index] = e13.z;
  s_plane_ends[2][index] = e32.z;
  // The second triangle's edge (2, 1) is -s2 times edge (1, 2), the kept
  // diagonal's first_turn times it.
  if (s2 == -first_turn) atomicOr(s_turned[now][index / 32u], 1u << (index % 32u));
}

// The samples of this pixel (`local`: its offset from the tile's first
// pixel) inside the triangle whose edge planes step per_x, per_y and are
// at_origin at the tile's first pixel, as bits: six multiply-adds a sample.
// (The CPU rasteriser finds each sample's edge functions from the corners:
// the two may differ for a sample on an edge.)
uint coverage(vec3 per_x, vec3 per_y, vec3 at_origin, vec2 local) {
  return samples_inside(at_origin + per_x * local.x + per_y * local.y, per_x, per_y);
}

#else
// The samples of this pixel inside triangle (a, b, c), as bits. An edge
// function is linear in window position: found once at the pixel's corner,
// it is stepped to each sample by two multiply-adds (six a sample), where a
// cross product per edge and sample cost the blend an eighth of its time
// (H200, 1080p, 3 December 2026: rain 100 M 90.2 -> 78.8 ms, snow 100 M
// 42.1 -> 37.2; the same bytes as before on llvmpipe in ten example scenes). (The CPU rasteriser still
// finds each sample's own: the two may differ for a sample on an edge.)
uint coverage(vec2 a, vec2 b, vec2 c, vec2 pixel) {
  float area = edge(a, b, c);
  if (area == 0.0) return 0u;
  float s = sign(area);  // inside: every edge function's sign times s is 0 or more
  vec3 at_corner = vec3(edge(b, c, pixel), edge(c, a, pixel), edge(a, b, pixel)) * s;
  vec3 per_x = vec3(b.y - c.y, c.y - a.y, a.y - b.y) * s, per_y = vec3(c.x - b.x, a.x - c.x, b.x - a.x) * s;
  return samples_inside(at_corner, per_x, per_y);
}

#endif

// Per sample of this invocation's pixel, the view depth beyond which a
// sprite is hidden (the far plane, the ground's square where the sample's
// ray meets it, the plate's geometry), kept as its reciprocal: a sample's
// weights sum to 1 / depth, so the test compares sums and divides nothing.
// The same for every sprite, so found once.
float g_hidden_below_sum[FXSIM_SAMPLES];
void find_occluders(vec2 pixel) {
  for (int k = 0; k < FXSIM_SAMPLES; ++k) {
    vec2 q = pixel + u_sample_positions[k];
    float beyond = u_far;
    if (u_ground.y > 0.0) {
      // The ray's step per metre of view depth, and the depth where it meets
      // the ground's plane: a point deeper is on the plane's other side.
      vec3 ray = unproject(q, 1.0) - unproject(q, 0.0);
      float meets = (u_ground.x - u_eye.y) / ray.y;
      if (meets > 0.0 && meets < beyond) {
        vec3 crossing = u_eye + ray * meets;
        if (max(abs(crossing.x - u_ground.z), abs(crossing.z - u_ground.w)) < u_ground.y) beyond = meets;
      }
    }
    if (u_plate_occludes) {
      float plate = plate_depth_at(q);  // 0 or beyond 3e38: nothing there
      if (plate > 0.0) beyond = min(beyond, plate);
    }
    g_hidden_below_sum[k] = 1.0 / beyond;
  }
}

// Triangle (a, b, c) of sprite p over the samples `mask` of this pixel; w:
// the corners' view distances, uva..uvc their uv.
void draw_triangle(Prepared p, vec2 a, vec2 b, vec2 c, vec3 w, vec2 uva, vec2 uvb, vec2 uvc, uint mask, vec2 pixel) {
  // Perspective-correct interpolation: each corner's weight (its edge
  // function over the area, over its w) is linear in window position, so
  // one evaluation at the pixel's centre (kc) and the weights' steps per pixel (kx, ky)
  // give the uv's derivatives (as the GL rasteriser's, which pick the
  // mipmap level) and the depth at every sample. (Three evaluations, at the
  // centre and a pixel right and up, and a fourth per sample for the depth
  // test: the H200's 5 M fountain blend 27.2-27.5 ms a frame, now 26.0-26.4.)
  // kc divides as before rather than multiplying by r: the same bytes.
  vec2 centre = pixel + 0.5;
  float area = edge(a, b, c);
  vec3 kc = vec3(edge(b, c, centre), edge(c, a, centre), edge(a, b, centre)) / area / w;
  vec3 r = 1.0 / area / w;
  vec3 kx = vec3(b.y - c.y, c.y - a.y, a.y - b.y) * r, ky = vec3(c.x - b.x, a.x - c.x, b.x - a.x) * r;
  float sum = kc.x + kc.y + kc.z, sx = kx.x + kx.y + kx.z, sy = ky.x + ky.y + ky.z;
  float depth = 1.0 / sum;
  vec2 along = uva * kc.x + uvb * kc.y + uvc * kc.z;
  vec2 uv = along / sum;
  g_dx = (along + uva * kx.x + uvb * kx.y + uvc * kx.z) / (sum + sx) - uv;
  g_dy = (along + uva * ky.x + uvb * ky.y + uvc * ky.z) / (sum + sy) - uv;
  // The depth test is per sample, as the GL's: the ground or the plate may
  // hide part of a pixel (a drop meeting the ground). Not for a sprite
  // nothing can hide (setup's head.w). On the sums, not depths: a division
  // a covered sample less (H200, 5 M fountain blend 23.7 -> 23.0 ms, rain 10
  // and 100 M unchanged); a sample whose sum is not positive (behind the
  // eye, or not a number) is hidden.
  if (p.head.w == 0.0) {
    for (int k = 0; k < FXSIM_SAMPLES; ++k)
      if ((mask & (1u << k)) != 0u) {
        vec2 o = u_sample_positions[k] - 0.5;
        float at_sum = sum + sx * o.x + sy * o.y;  // 1 / the sample's depth
        if (!(at_sum > 0.0) || at_sum * u_near > 1.0 || at_sum < g_hidden_below_sum[k]) mask &= ~(1u << k);
      }
  }
  if (mask == 0u) return;
#ifdef FXSIM_COUNT_SAMPLES
  g_blended += uint(bitCount(mask));
#endif
  vec3 world = unproject(centre, depth);
  // The GL path gives a streak's corners its tail's and head's world
  // positions (not the corners' own): interpolated, they run along uv.y.
  if (is_streak(p)) world = mix(p.tail.xyz, p.head.xyz, uv.y);
  vec4 c4 = shade_sprite(SpriteFragment(uv, texture_layer(p), p.look.x, depth, world, p.look.z, p.look.w, centre));
  if (u_clamp) c4 = clamp(c4, 0.0, 1.0);
  for (int k = 0; k < FXSIM_SAMPLES; ++k)
    if ((mask & (1u << k)) != 0u) {
      colour[k] += through[k] * c4.rgb;
      if (!u_additive) through[k] *= 1.0 - c4.a;
    }
}

// Sprite p's triangles (0, 1, 2) and (2, 1, 3) over the samples `first`
// and `second` of this pixel; true once (nearly) nothing behind shows.
bool draw_covered(Prepared p, uint first, uint second, vec2 pixel) {
  vec2 v0 = p.xy01.xy, v1 = p.xy01.zw, v2 = p.xy23.xy, v3 = p.xy23.zw;
  if (first != 0u) draw_triangle(p, v0, v1, v2, p.w.xyz, vec2(0, 0), vec2(1, 0), vec2(0, 1), first, pixel);
  if (second != 0u) draw_triangle(p, v2, v1, v3, p.w.zyw, vec2(0, 1), vec2(1, 0), vec2(1, 1), second, pixel);
  if (u_additive) return false;
  for (int k = 0; k < FXSIM_SAMPLES; ++k)
    if (through[k] >= g_stop) return false;
  return true;
}

// Entry e's sprite over this pixel (`mine`: the pixel's column and row bits
// of a box; with planes, `local`: its offset in the tile, and the entry
// `index` of chunk slot `now`, keep_planes'); true once (nearly) nothing
// behind shows. The strip's two triangles (0, 1, 2) and (2, 1, 3); a sample
// on their shared edge counts once.
#ifdef FXSIM_PLANES
bool draw_entry(uint e, uint now, uint index, vec2 pixel, vec2 local, uint mine) {
  // Most of a tile's sprites miss a given pixel: the entry's box (a word, read in order) says so before the rest is read.
  if ((boxes[e] & mine) != mine) return false;
  vec4 q0 = s_planes[0][index], q1 = s_planes[1][index], q2 = s_planes[2][index];
  uint first = coverage(q0.xyz, q1.xyz, q2.xyz, local);
  float turn = (s_turned[now][index / 32u] & (1u << (index % 32u))) != 0u ? 1.0 : -1.0;
  vec3 per_x = vec3(q0.w, q1.w, q0.x * turn), per_y = vec3(q2.w, s_plane_ends[0][index], q1.x * turn);
  vec3 at_origin = vec3(s_plane_ends[1][index], s_plane_ends[2][index], q2.x * turn);
  uint second = coverage(per_x, per_y, at_origin, local) & ~first;
  // Nothing drawn: what lets light through is as it was, so not opaque now
  // either; and the record is loaded only where the sprite covers a sample.
  if ((first | second) == 0u) return false;
  return draw_covered(entry(e), first, second, pixel);
}
#else
bool draw_entry(uint e, vec2 pixel, uint mine) {
  if ((boxes[e] & mine) != mine) return false;  // (as above)
  Prepared p = entry(e);
  vec2 v0 = p.xy01.xy, v1 = p.xy01.zw, v2 = p.xy23.xy, v3 = p.xy23.zw;
  uint first = coverage(v0, v1, v2, pixel), second = coverage(v2, v1, v3, pixel) & ~first;
  return draw_covered(p, first, second, pixel);
}
#endif

// Until 5 December 2026 every invocation walked its tile's list itself,
// newest first: the invocations of a group read the same sprite at once (one
// fetch, broadcast), and each stopped on its own, with no barriers (now
// walk_in_chunks, below). Measured on the H200 and not kept: staging
// batches of the list and their bounds in shared memory, one per
// invocation (rain 100 M 1.14 → 1.34 s), and their whole Prepared too (rain
// 10 M 63 → 107 ms, 100 M 1.12 → 1.47 s); testing the quad's four edges
// before reading Prepared (48 bytes more a sprite: rain 10 M 63 → 138 ms,
// snow 43 → 133 ms); a group shading a batch's (sprite, pixel) pairs side by
// side, an invocation each, then each pixel blending its own in order (the
// same bytes; rain 100 M 916 → 929 ms, fountain 5 M 34.3 → 45.3 ms); a
// tile's front segment blended first and the segments behind it skipping
// the pixels it turned opaque (rain 100 M 921 → 862 ms, fountain 34.1 →
// 47.6 ms: the jet's pixels stay open, and the two dispatches wait on each
// other's longest segment); the boxes of the next 4 or 8 entries read
// together ahead of the tests (rain 10 M 87.7 → 94.7 and 90.9 ms, 100 M
// 865 → 887 ms; fountain 5 M 26.0 → 26.1 and 25.7 ms). Where the time
// went with lists of indices (rain 10 M, blend 89 ms; throw-away builds, 2
// December 2026): a constant colour for every fragment, 93.6 ms; the two
// triangles' coverage and no blend, 91.5 ms; the boxes' test alone, 1.5 ms:
// so the sprites' loads, not the shading, and lists of records (see
// duplicate_source) cut it to 25 ms. Not kept then: each invocation walking
// to its own next sprite and loading it before drawing the one before (101
// ms); a warp finding the next sprite reaching its 4 × 8 block (the same
// test on every lane) and loading it ahead (rain 80.6-81.8 ms, snow 10 M 44.1
// -> 45.7, fountain 5 M 21.8 -> 29.2); both triangles' samples shaded in one
// call where no pixel has both (rain 81-90 ms in two runs against 89-90).
//
// Most of a tile's list reaches one or two of its eight blocks (a streak, a
// small flake), and each block's invocations walked the whole list, a load
// and a test an entry. Now the list is walked in chunks (FXSIM_CHUNK entries): each
// invocation tests one entry's box against the eight blocks and marks the
// blocks it reaches; then each block's invocations draw only the entries
// marked for it, still newest first, each stopping on its own. The group
// stops where none of its invocations still blends. The same bytes; H100,
// 1080p, blend, against the binary before in one session: rain 100 M 94.8
// -> 84.4 ms (tall, leaning blocks), 10 M 25.3 -> 22.7; snow 100 M 37.9 ->
// 34.5, 10 M 10.4 -> 9.6; fountain 5 M 22.7 -> 21.9 (twice).
// Two ways to find an entry's coverage (Coverage): from its corners, by
// every lane of each block that draws it, in chunks of 256 entries; or
// (FXSIM_PLANES) from its six edge planes, found once by the invocation
// that marks it and kept in shared memory for one chunk of 128 (the planes
// 7.5 KiB; with the marks, 7.8 KiB a group). H100, 1080p, blend
// (docs/performance.md, 6 December 2026): the planes take rain's draws of
// millions of sprites in 0.87-0.91 of the time (rain 100 M 85.8 -> 77.7 ms a
// frame; snow 100 M 34.4 -> 31.4) and the 5 M fountain's mist too (15.5 ->
// 13.5 ms a draw), but its drops (tall, in the jet's order) in 1.87 of it
// (6.4 -> 12.0) and small draws in 1.5-1.7 (battlefield's); the example
// scenes at 1080p drew the same or slower. Hence coverage_by_planes.
// Keep the group's shared memory small: 8 KiB more of it cost this blend
// 85.7 -> 112.6 ms on an H200.
// The blocks (tile_pixel's) of which some pixel is in `box` (ranges_source's), as bits.
uint blocks_reached(uint box) {
  uint columns = box & 0xFFFFu, rows = box >> 16;
#ifdef FXSIM_TALL
  uint pairs = (columns | (columns >> 1)) & 0x5555u;  // bit 2b: block b's two columns
  uint reached = 0u;
  for (; pairs != 0u; pairs &= pairs - 1u) reached |= 1u << (uint(findLSB(pairs)) / 2u);
  return rows != 0u ? reached : 0u;
#else
  uint quarters = ((columns & 0xFu) != 0u ? 1u : 0u) | ((columns & 0xF0u) != 0u ? 2u : 0u) |
                  ((columns & 0xF00u) != 0u ? 4u : 0u) | ((columns & 0xF000u) != 0u ? 8u : 0u);
  return ((rows & 0xFFu) != 0u ? quarters : 0u) | ((rows & 0xFF00u) != 0u ? quarters << 4 : 0u);
#endif
}
// The marks of FXSIM_SLOTS chunks in turn: a chunk's are cleared while the
// chunk before it is marked. With corners, three slots and one barrier a
// chunk keep a chunk's marks from being cleared while a block still reads
// them (cleared after every block has drawn the chunk three back); with
// planes, the planes of one chunk only, and a second barrier a chunk, after
// every block has drawn it, before the next chunk's planes are written: two
// slots then suffice.
#ifdef FXSIM_PLANES
#define FXSIM_SLOTS 2u
#else
#define FXSIM_SLOTS 3u
#endif
shared uint s_marks[FXSIM_SLOTS][8][FXSIM_CHUNK_WORDS];  // by chunk mod FXSIM_SLOTS, block, 32 entries of the chunk a word
shared uint s_blending[FXSIM_SLOTS];  // the chunk's invocations still blending when it was marked
void walk_in_chunks(uvec4 s, ivec2 pixel, uint mine, bool blending, float carried) {
#ifdef FXSIM_PLANES
  // The tile's first pixel from the segment, the same for the whole group
  // (as the pixel less its offset in the tile, the same bytes took rain 100
  // M's blend from 77.6 to 177 ms on an H100).
  vec2 origin = vec2(tile_origin(s.x)), local = vec2(pixel) - origin;
#endif
  if (blending && s.z > s.y) {
    g_stop = FXSIM_OPAQUE_BELOW / carried;
    find_occluders(vec2(pixel));
  }
  uint me = gl_LocalInvocationIndex, block = me / 32u;
  const uint words = FXSIM_CHUNK_WORDS;
  if (me < 8u * words) s_marks[0][me / words][me % words] = 0u;
#ifdef FXSIM_PLANES
  if (me < words) s_turned[0][me] = 0u;
#endif
  if (me == 0u) s_blending[0] = 0u;
  barrier();
  uint chunk = 0u;
  for (uint top = s.z; top > s.y; top -= min(FXSIM_CHUNK, top - s.y), ++chunk) {
    uint now = chunk % FXSIM_SLOTS, next = (chunk + 1u) % FXSIM_SLOTS;
    if (me < 8u * words) s_marks[next][me / words][me % words] = 0u;
#ifdef FXSIM_PLANES
    if (me < words) s_turned[next][me] = 0u;
#endif
    if (me == 0u) s_blending[next] = 0u;
    if (blending) atomicAdd(s_blending[now], 1u);
    if (me < min(FXSIM_CHUNK, top - s.y)) {
      uint reached = blocks_reached(boxes[top - 1u - me]);
#ifdef FXSIM_PLANES
      if (reached != 0u) keep_planes(now, me, entry(top - 1u - me), origin);
#endif
      for (; reached != 0u; reached &= reached - 1u)
        atomicOr(s_marks[now][uint(findLSB(reached))][me / 32u], 1u << (me % 32u));
    }
    memoryBarrierShared();
    barrier();
    if (s_blending[now] == 0u) break;
    for (uint word = 0u; blending && word < words; ++word)
      for (uint marks = s_marks[now][block][word]; marks != 0u; marks &= marks - 1u) {
        uint index = word * 32u + uint(findLSB(marks));
#ifdef FXSIM_PLANES
        bool opaque = draw_entry(top - 1u - index, now, index, vec2(pixel), local, mine);
#else
        bool opaque = draw_entry(top - 1u - index, vec2(pixel), mine);
#endif
        if (opaque) {
          blending = false;
          break;
        }
      }
#ifdef FXSIM_PLANES
    barrier();  // every block has drawn the chunk: the next one's planes may be written
#endif
  }
}
void main() {
  uint segment = group_index();
  if (segment >= launch.w) return;
  uvec4 s = segments[segment];
  ivec2 local = tile_pixel(gl_LocalInvocationIndex);
  ivec2 pixel = tile_origin(s.x) + local;
#ifdef FXSIM_TALL
  uint mine = (1u << leaning_column(gl_LocalInvocationIndex)) | (1u << (16 + local.y));  // as ranges_source's boxes
#else
  uint mine = (1u << local.x) | (1u << (16 + local.y));
#endif
  clear_samples();
  bool inside = pixel.x < int(u_viewport.x) && pixel.y < int(u_viewport.y);
  float carried = u_carrying && inside ? 1.0 - imageLoad(u_carry, pixel).a : 1.0;
  walk_in_chunks(s, pixel, mine, inside && carried >= FXSIM_OPAQUE_BELOW, carried);
#ifdef FXSIM_COUNT_SAMPLES
  count_blended();
#endif
  if (s.w == 0u) {  // the whole tile
    if (inside) store_mean(pixel);
    return;
  }
  uint at = partial_at(s.w - 1u);
  for (int k = 0; k < FXSIM_SAMPLES; ++k) partials[at + uint(k)] = vec4(colour[k], through[k]);
}
)";
}

// 4b. The pixels of a tile cut in segments: their partial results, front to
// back per sample, averaged into the layer (colour, 1 − transmittance).
std::string merge_source(const std::string& defines, int samples) {
  return kernel_header(defines + fmt::format("#define FXSIM_SAMPLES {}\n", samples)) + kPixelSamplesGlsl + kGroupRowsGlsl + R"(
layout(local_size_x = FXSIM_TILE, local_size_y = FXSIM_TILE) in;
layout(std430, binding = 5) readonly buffer SplitTiles { uvec4 split_tiles[]; };  // tile, first slot, count, 0; one a work group
layout(std430, binding = 7) readonly buffer Partials { vec4 partials[]; };
uniform vec2 u_viewport;
void main() {
  uint index = group_index();
  if (index >= launch.w) return;
  uvec4 list = split_tiles[index];
  ivec2 pixel = tile_origin(list.x) + tile_pixel(gl_LocalInvocationIndex);
  if (pixel.x >= int(u_viewport.x) || pixel.y >= int(u_viewport.y)) return;
  clear_samples();
  for (uint i = 0u; i < list.z; ++i) {
    uint at = partial_at(list.y + i);
    for (int k = 0; k < FXSIM_SAMPLES; ++k) {
      vec4 part = partials[at + uint(k)];
      colour[k] += through[k] * part.rgb;
      through[k] *= part.a;
    }
  }
  store_mean(pixel);
}
)";
}

// GL timestamps at the stages' boundaries, read once the draw is done.
class StageClock {
 public:
  explicit StageClock(bool on) : on_(on) {
    if (on_) glGenQueries(GLsizei(queries_.size()), queries_.data());
  }
  ~StageClock() {
    if (on_) glDeleteQueries(GLsizei(queries_.size()), queries_.data());
  }
  void mark(size_t i) {
    if (on_) {
      glQueryCounter(queries_[i], GL_TIMESTAMP);
      marked_ = std::max(marked_, i + 1);
    }
  }
  // Seconds between marks i and i + 1 (0 when not both were made).
  std::vector<double> intervals() {
    std::vector<double> seconds(queries_.size() - 1, 0.0);
    if (!on_) return seconds;
    std::vector<GLuint64> t(marked_);
    for (size_t i = 0; i < marked_; ++i) glGetQueryObjectui64v(queries_[i], GL_QUERY_RESULT, &t[i]);
    for (size_t i = 0; i + 1 < marked_; ++i) seconds[i] = double(t[i + 1] - t[i]) * 1e-9;
    return seconds;
  }

 private:
  bool on_;
  std::array<GLuint, 7> queries_{};
  size_t marked_ = 0;
};

int key_bits(size_t tiles) { return std::max(1, int(std::bit_width(tiles - 1))); }

// The tall sprites' mean lean (the setup's sum over their count), rounded
// to the nearest sixteenth, in -8..8.
int mean_lean(int32_t sum, uint32_t tall) {
  if (tall == 0) return 0;
  const double mean = double(sum) / double(tall);
  return std::clamp(int(std::lround(mean)), -8, 8);
}
}  // namespace

// Measured per draw on an H100, 1080p (docs/performance.md, 6 December
// 2026, day), blend with planes against corners: 0.87-0.91 of the time for
// rain's draws of 10 M and 100 M sprites (parts of 0.12 to 6 M drawn; those
// under a million, which gained 0.1 ms, are left to the corners), and for
// the 5 M fountain's mist (3.6 M drawn, in jet order); 1.87 for its drops
// (3.0 M drawn, mostly tall, in jet order); 1.46-1.70 for battlefield's
// draws of up to 3 300 drawn sprites. Whole frames: snow 100 M and 10 M
// 0.91; the example scenes at 1080p (draws of up to 120 000 slots) the same
// or slower (rain-night-drive 4.9 -> 8.3 ms).
bool coverage_by_planes(size_t count, uint32_t drawn, bool tall, uint32_t jumps) {
  constexpr uint32_t kPlanesFromDrawn = 1000000;
  return drawn >= kPlanesFromDrawn && (!tall || size_t(jumps) * 2 >= count);
}

ComputeRasteriser::ComputeRasteriser(const std::string& defines, bool limited_loops)
    : defines_(defines),
      limited_loops_(limited_loops),
      setup_(setup_source(defines)),
      duplicate_(duplicate_source(defines)),
      duplicate_records_(duplicate_source(defines + kRecordsDefine)),
      ranges_(ranges_source(defines)),
      ranges_records_(ranges_source(defines + kRecordsDefine)),
      cut_count_(cut_count_source(defines)),
      cut_write_(cut_write_source(defines)),
      gather_near_(gather_near_source(defines)),
      sort_records_(int(kPreparedBytes / sizeof(uint32_t))) {}

ComputeKernel& ComputeRasteriser::merge_kernel(int samples, bool tall) {
  auto& kernel = merge_[samples * 2 + tall];
  if (!kernel) kernel = std::make_unique<ComputeKernel>(merge_source(defines_ + (tall ? kTallDefine : ""), samples));
  return *kernel;
}

ComputeKernel& ComputeRasteriser::blend_kernel(int samples, bool records, bool tall, bool planes) {
  auto& kernel = blend_[samples * 16 + planes * 8 + tall * 4 + records * 2 + counting_];
  if (!kernel)
    kernel = std::make_unique<ComputeKernel>(
        blend_source(defines_ + (planes ? kPlanesDefine : "") + (records ? kRecordsDefine : "") + (tall ? kTallDefine : ""), samples, counting_));
  return *kernel;
}

uint64_t ComputeRasteriser::samples_blended() const {
  if (blended_.bytes() < 8) return 0;
  uint32_t words[2] = {0, 0};
  blended_.download(words, 8);
  return uint64_t(words[1]) << 32 | words[0];
}

bool ComputeRasteriser::draw(const DeviceBuffer& instances, size_t count, int width, int height, int samples,
                             bool additive, const CameraPose& camera, const SpriteOccluders& occluders,
                             const LookSetter& set_look, const NearDrawer& draw_near) {
  BoundFrameSamples frame = bound_frame_samples();
  frame.positions.resize(size_t(samples), glm::vec2(0.5f));  // (the caller's count picks the blend program)
  // A storage binding holds at most max_storage_block_bytes (2 GiB on NVIDIA's
  // GL): larger batches (or, with set_part_sprites, batches of more than
  // that) are drawn in parts, the newest first, each behind the ones before
  // (render/parts_front_to_back.h), and the whole then composited over the
  // frame. A part whose tile lists would not fit (records: 96 bytes a pair)
  // is tried again at half the size, and so on (the size then holds for the
  // rest of the batch). Parts start at multiples of the size, a multiple of
  // 16 sprites, so that a part's instances start at a multiple of 256 bytes,
  // an offset every GL binds.
  const size_t limit = compute_limits().max_storage_block_bytes;
  size_t part = std::max<size_t>(256, std::min(limit / kPreparedBytes, limit / sizeof(SpriteInstance)) / 256 * 256);
  if (part_sprites_ > 0) part = std::min(part, std::max<size_t>(16, part_sprites_ / 16 * 16));
  bool in_parts = false;
  for (size_t end = count; end > 0;) {
    const size_t first = (end - 1) / part * part;
    if (!in_parts && !(first == 0 && end == count)) {
      parts_.begin(width, height);
      in_parts = true;
    }
    if (draw_part(instances, first, end - first, width, height, frame, additive, camera, occluders, set_look,
                  draw_near, in_parts)) {
      end = first;
      continue;
    }
    if (end - first > 16) {
      part = std::max<size_t>(16, (end - first) / 2 / 16 * 16);
      continue;
    }
    if (end == count) return false;  // nothing drawn yet: the GL path draws it all
    throw FxError(ExitCode::no_gl, fmt::format("the compute rasteriser's tile lists for sprites {}-{} exceed the GL's "
                                               "storage blocks; draw with --rasteriser gl", first, end - 1));
  }
  if (in_parts) {
    // The carried light over the frame (if any part had pairs: else there
    // is none), then the parts' sprites at the near plane, oldest part first.
    StageClock clock(profiling_);
    clock.mark(0);
    if (parts_.started()) parts_.composite_over_frame();
    clock.mark(1);
    if (profiling_) stage_times_.composite += clock.intervals()[0];
    for (auto kept = near_kept_.rbegin(); kept != near_kept_.rend(); ++kept) {
      near_.reserve_growing(kept->count * sizeof(SpriteInstance), DeviceBuffer::Use::kernels,
                            "sprites at the near plane");
      near_.copy_from(near_batch_, kept->count * sizeof(SpriteInstance), kept->offset * sizeof(SpriteInstance), 0);
      draw_near(near_, kept->count);
    }
    near_kept_.clear();
  }
  return true;
}

void ComputeRasteriser::keep_near(size_t count) {
  const size_t kept = near_kept_.empty() ? 0 : near_kept_.back().offset + near_kept_.back().count;
  const size_t bytes = (kept + count) * sizeof(SpriteInstance);
  if (bytes > near_batch_.bytes()) {  // grown, keeping what it holds
    DeviceBuffer grown(2 * bytes, DeviceBuffer::Use::kernels, "a batch's sprites at the near plane");
    if (kept > 0) grown.copy_from(near_batch_, kept * sizeof(SpriteInstance));
    near_batch_ = std::move(grown);
  }
  near_batch_.copy_from(near_, count * sizeof(SpriteInstance), 0, kept * sizeof(SpriteInstance));
  near_kept_.push_back({kept, count});
}

std::optional<size_t> ComputeRasteriser::draw_part(const DeviceBuffer& instances, size_t first, size_t count,
                                                   int width, int height, const BoundFrameSamples& frame, bool additive,
                                                   const CameraPose& camera, const SpriteOccluders& occluders,
                                                   const LookSetter& set_look, const NearDrawer& draw_near,
                                                   bool in_parts) {
  if (count == 0) return 0;
  StageClock clock(profiling_);
  clock.mark(0);
  // Adds this draw's stage times (profiling only; waits for the GPU).
  uint32_t pairs = 0, near = 0;
  bool records = false;  // the tile lists carry the sprites' records
  bool planes = false;   // the blend finds coverage from edge planes
  const auto record = [&] {
    if (!profiling_) return;
    const std::vector<double> s = clock.intervals();
    stage_times_.setup += s[0];
    stage_times_.pairs_time += s[1];
    stage_times_.sort += s[2];
    stage_times_.ranges += s[3];
    stage_times_.blend += s[4];
    stage_times_.composite += s[5];
    stage_times_.sprites += count;
    stage_times_.pairs += pairs;
    ++stage_times_.draws;
    stage_times_.record_draws += records && pairs > 0;
    stage_times_.plane_draws += planes && pairs > 0;
  };
  const int samples = int(frame.positions.size());
  const TileParams tiles{glm::uvec2((width + kTile - 1) / kTile, (height + kTile - 1) / kTile)};
  const size_t tile_count = size_t(tiles.u_tiles.x) * tiles.u_tiles.y;
  prepared_.reserve_growing(count * kPreparedBytes, DeviceBuffer::Use::kernels, "the compute rasteriser's sprites");
  offsets_.reserve_growing((count + 1) * 4, DeviceBuffer::Use::kernels, "the compute rasteriser's tile counts");
  offsets_.fill(0, count * 4, 4);
  // kOccludersGlsl's uniforms, for the setup and the blend.
  const glm::vec4 ground = occluders.ground_height
                               ? glm::vec4(*occluders.ground_height, occluders.ground_extent, camera.position.x,
                                           camera.position.z)
                               : glm::vec4(0);
  const glm::mat4 inverse_view = glm::inverse(camera.view());
  const auto set_occluders = [&](GLuint program) {
    glProgramUniform4fv(program, glGetUniformLocation(program, "u_ground"), 1, glm::value_ptr(ground));
    glProgramUniform1i(program, glGetUniformLocation(program, "u_plate_occludes"), occluders.plate_depth != 0);
    glProgramUniformMatrix4fv(program, glGetUniformLocation(program, "u_inverse_view"), 1, GL_FALSE,
                              glm::value_ptr(inverse_view));
    glProgramUniform1f(program, glGetUniformLocation(program, "u_far"), camera.far_plane);
  };
  set_occluders(setup_.program().get());
  // Behind parts drawn before (in front): their opaque tiles take no pairs.
  const bool culling = in_parts && parts_.started();
  for (ComputeKernel* kernel : {&setup_, &duplicate_, &duplicate_records_}) {
    glProgramUniform1i(kernel->program().get(), glGetUniformLocation(kernel->program().get(), "u_culling"), culling);
    kernel->bind(9, parts_.open());
  }
  setup_.set_params(1, tiles);
  setup_.bind_range(0, instances, first * sizeof(SpriteInstance), count * sizeof(SpriteInstance));
  setup_.bind(1, prepared_);
  setup_.bind(2, offsets_);
  near_places_.reserve_growing((count + 1) * 4, DeviceBuffer::Use::kernels,
                               "the compute rasteriser's near-plane flags");
  near_places_.fill(0, count * 4, 4);
  setup_.bind(3, near_places_);
  jumps_.reserve_growing((count + 1) * 4, DeviceBuffer::Use::kernels, "the compute rasteriser's sprite jumps");
  jumps_.fill(0, count * 4, 4);
  setup_.bind(4, jumps_);
  bounds_.reserve_growing(count * 16, DeviceBuffer::Use::kernels, "the compute rasteriser's sprite bounds");
  setup_.bind(8, bounds_);
  shapes_.reserve(12, DeviceBuffer::Use::kernels, "the compute rasteriser's sprite shapes");
  shapes_.fill(0);
  setup_.bind(5, shapes_);
  setup_.dispatch(count);
  scan_.exclusive(offsets_, count + 1);
  scan_.exclusive(near_places_, count + 1);
  scan_.exclusive(jumps_, count + 1);
  // The pairs', the near sprites', the jumps', the drawn and the tall
  // sprites' totals and the tall ones' lean, read through a buffer made for
  // reading (H200, 5 M fountain slots: 2.8 ms a batch read straight from the
  // scanned counts, 0.04 ms so).
  counts_read_.reserve(24, DeviceBuffer::Use::host_reads, "the compute rasteriser's totals");
  counts_read_.copy_from(offsets_, 4, count * 4, 0);
  counts_read_.copy_from(near_places_, 4, count * 4, 4);
  counts_read_.copy_from(jumps_, 4, count * 4, 8);
  counts_read_.copy_from(shapes_, 12, 0, 12);
  uint32_t totals[6];
  counts_read_.download(totals, 24);
  pairs = totals[0];
  near = totals[1];
  const bool tall = totals[4] * 2u > totals[3];
  const int shear = tall ? mean_lean(int32_t(totals[5]), totals[4]) : 0;
  records = tile_lists_ == TileLists::automatic ? count >= kRecordsFrom && size_t(totals[2]) * 2 >= count
                                               : tile_lists_ == TileLists::records;
  planes = coverage_ == Coverage::automatic ? coverage_by_planes(count, totals[3], tall, totals[2])
                                            : coverage_ == Coverage::planes;
  clock.mark(1);
  // Drawn by GL after this part's tiles (or alone, when nothing else is);
  // for a batch in parts, kept until the whole batch is over the frame.
  const auto finish = [&] {
    if (near == 0) return;
    near_.reserve_growing(size_t(near) * sizeof(SpriteInstance), DeviceBuffer::Use::kernels,
                          "sprites at the near plane");
    gather_near_.bind_range(0, instances, first * sizeof(SpriteInstance), count * sizeof(SpriteInstance));
    gather_near_.bind(3, near_places_);
    gather_near_.bind(6, near_);
    gather_near_.dispatch(count);
    if (in_parts) keep_near(near);
    else draw_near(near_, near);
  };
  if (pairs == 0) {
    finish();
    record();
    return 0;
  }
  // Too many pairs for lists of records: the caller halves the part, also
  // for lists of indices, so that a draw is cut in the same parts (the same
  // bytes) whatever its lists hold.
  if (size_t(pairs) * kPreparedBytes > compute_limits().max_storage_block_bytes) return std::nullopt;
  const size_t entry_bytes = records ? kPreparedBytes : 4;

  keys_.reserve_growing(size_t(pairs) * 4, DeviceBuffer::Use::kernels, "the compute rasteriser's tile keys");
  DeviceBuffer& entries = records ? records_ : values_;
  entries.reserve_growing(size_t(pairs) * entry_bytes, DeviceBuffer::Use::kernels, "the compute rasteriser's tile lists");
  ComputeKernel& duplicate = records ? duplicate_records_ : duplicate_;
  duplicate.set_params(1, tiles);
  duplicate.bind(1, prepared_);
  duplicate.bind(2, offsets_);
  duplicate.bind(3, keys_);
  duplicate.bind(4, entries);
  duplicate.dispatch(count);
  clock.mark(2);
  (records ? sort_records_ : sort_).sort_pairs(keys_, entries, pairs, key_bits(tile_count));
  clock.mark(3);
  tile_ranges_.reserve(tile_count * 8, DeviceBuffer::Use::kernels, "the compute rasteriser's tile ranges");
  tile_ranges_.fill(0, 0, tile_count * 8);
  ComputeKernel& ranges = records ? ranges_records_ : ranges_;
  ranges.set_params(1, tiles);
  glProgramUniform1i(ranges.program().get(), glGetUniformLocation(ranges.program().get(), "u_shear"), shear);
  if (!records) ranges.bind(1, prepared_);
  ranges.bind(3, keys_);
  ranges.bind(4, entries);
  ranges.bind(5, tile_ranges_);
  if (!records) ranges.bind(8, bounds_);
  boxes_.reserve_growing(size_t(pairs) * 4, DeviceBuffer::Use::kernels, "the compute rasteriser's tile boxes");
  ranges.bind(2, boxes_);
  ranges.dispatch(pairs);

  // The lists cut in segments on the GPU (no wait for the ranges). A split
  // tile has more than length entries, so there are at most pairs /
  // (length + 1) of them, and its ceil(entries / length) partial slots are
  // fewer than entries / length + 1: at most pairs / length + the split tiles.
  const uint32_t length =
      limited_loops_ ? kLimitedSegmentLength
                     : std::max(kMinSegmentLength, uint32_t((size_t(pairs) + kSegmentsWanted - 1) / kSegmentsWanted));
  const size_t most_split = std::min(tile_count, size_t(pairs) / (size_t(length) + 1));
  const size_t most_slots = size_t(pairs) / length + most_split;
  const size_t partial_bytes = most_slots * size_t(kTile * kTile) * size_t(samples) * 16;
  if (partial_bytes > compute_limits().max_storage_block_bytes) return std::nullopt;
  partials_.reserve_growing(std::max<size_t>(partial_bytes, 16), DeviceBuffer::Use::kernels,
                            "the compute rasteriser's partial tiles");
  slot_offsets_.reserve_growing((tile_count + 1) * 4, DeviceBuffer::Use::kernels, "the compute rasteriser's tile slots");
  split_offsets_.reserve_growing((tile_count + 1) * 4, DeviceBuffer::Use::kernels,
                                 "the compute rasteriser's split-tile offsets");
  slot_offsets_.fill(0, tile_count * 4, 4);
  split_offsets_.fill(0, tile_count * 4, 4);
  segments_.reserve_growing((tile_count + most_slots) * 16, DeviceBuffer::Use::kernels, "the compute rasteriser's segments");
  split_tiles_.reserve_growing(std::max<size_t>(most_split, 1) * 16, DeviceBuffer::Use::kernels,
                               "the compute rasteriser's split tiles");
  launch_.reserve(kMergeLaunchOffset + 16, DeviceBuffer::Use::kernels, "the compute rasteriser's work groups");
  const CutParams cut{length};
  cut_count_.set_params(2, cut);
  cut_write_.set_params(2, cut);
  cut_count_.bind(5, tile_ranges_);
  cut_count_.bind(2, slot_offsets_);
  cut_count_.bind(3, split_offsets_);
  cut_count_.dispatch(tile_count);
  scan_.exclusive(slot_offsets_, tile_count + 1);
  scan_.exclusive(split_offsets_, tile_count + 1);
  cut_write_.bind(5, tile_ranges_);
  cut_write_.bind(2, slot_offsets_);
  cut_write_.bind(3, split_offsets_);
  cut_write_.bind(6, segments_);
  cut_write_.bind(7, split_tiles_);
  cut_write_.bind(10, launch_);
  cut_write_.dispatch(tile_count);
  clock.mark(4);

  const GLuint layer = layer_.texture(width, height);
  ComputeKernel& blend = blend_kernel(samples, records, tall, planes);
  const GLuint program = blend.program().get();
  set_look(blend.program());
  glUseProgram(program);
  if (tall) glUniform1i(glGetUniformLocation(program, "u_shear"), shear);
  glUniform2fv(glGetUniformLocation(program, "u_sample_positions"), samples, glm::value_ptr(frame.positions[0]));
  glUniform1i(glGetUniformLocation(program, "u_additive"), additive);
  glUniform1i(glGetUniformLocation(program, "u_clamp"), frame.clamped);
  glUniform1i(glGetUniformLocation(program, "u_carrying"), culling);
  set_occluders(program);
  glBindImageTexture(0, layer, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
  // What the parts in front let through (read where culling; bound anyway: the image is declared).
  glBindImageTexture(1, in_parts ? parts_.texture() : layer, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA32F);
  blend.set_params(1, tiles);
  if (!records) blend.bind(1, prepared_);
  blend.bind(4, entries);
  blend.bind(8, boxes_);
  blend.bind(6, segments_);
  blend.bind(7, partials_);
  blend.bind_range(10, launch_, 0, 16);
  if (counting_) {
    if (blended_.bytes() < 8) {
      blended_.reserve(8, DeviceBuffer::Use::kernels, "the compute rasteriser's sample count");
      blended_.fill(0, 0, 8);
    }
    blend.bind(9, blended_);
  }
  blend.dispatch_indirect(launch_, 0);
  ComputeKernel& merge = merge_kernel(samples, tall);
  const GLuint merging = merge.program().get();
  glUseProgram(merging);
  glUniform2f(glGetUniformLocation(merging, "u_viewport"), float(width), float(height));
  if (tall) glUniform1i(glGetUniformLocation(merging, "u_shear"), shear);
  glBindImageTexture(0, layer, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
  merge.set_params(1, tiles);
  merge.bind(5, split_tiles_);
  merge.bind(7, partials_);
  merge.bind_range(10, launch_, kMergeLaunchOffset, 16);
  merge.dispatch_indirect(launch_, kMergeLaunchOffset);
  clock.mark(5);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);

  // 5. The tiles' light over the frame (colour + transmittance × what is
  // there), or, for a part, behind the parts before it.
  if (in_parts) parts_.add_behind(layer);
  else layer_.composite_over_frame();
  clock.mark(6);
  finish();
  record();
  return pairs;
}

}  // namespace fxsim
