#include "render/screen_coverage.h"

#include "core/particle_system.h"
#include "render/sprite_glsl.h"

namespace fxsim {

namespace {
// Sums are 64-bit as two words (low, high: the carry added to the high word),
// first per invocation, then per work group in shared memory, then globally.
std::string coverage_source(const std::string& defines) {
  return "#version 430\n" + defines + glsl_launch_block() + kSpriteGeometryGlsl + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Instances { vec4 instances[]; };  // SpriteInstance: 3 vec4
layout(std430, binding = 1) buffer Sums { uint sums[]; };  // pixels (low, high word), sprites
uniform uint u_stride;  // sprite i × u_stride is the sample's i-th
shared uint group_sums[3];
void add64(inout uint low, inout uint high, uint value) {
  uint before = low;
  low += value;
  if (low < before) high += 1u;
}
void main() {
  if (gl_LocalInvocationIndex == 0u) group_sums[0] = group_sums[1] = group_sums[2] = 0u;
  barrier();
  uint low = 0u, high = 0u, sprites = 0u;
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) {
    uint s = i * u_stride;
    vec4 a = instances[3u * s], b = instances[3u * s + 1u], c = instances[3u * s + 2u];
    SpriteVertex v0 = sprite_vertex(a, b, c, vec2(-1.0, -1.0)), v1 = sprite_vertex(a, b, c, vec2(1.0, -1.0));
    SpriteVertex v2 = sprite_vertex(a, b, c, vec2(-1.0, 1.0)), v3 = sprite_vertex(a, b, c, vec2(1.0, 1.0));
    if (v0.alpha <= 0.0 || min(min(v0.clip.w, v1.clip.w), min(v2.clip.w, v3.clip.w)) < u_near) continue;
    vec2 p0 = to_pixels(v0.clip), p1 = to_pixels(v1.clip), p2 = to_pixels(v2.clip), p3 = to_pixels(v3.clip);
    // The strip's two triangles, then the share of the quad's bounds inside the frame.
    vec2 e1 = p1 - p0, e2 = p2 - p0, e3 = p3 - p1, e4 = p2 - p1;
    float area = 0.5 * (abs(e1.x * e2.y - e1.y * e2.x) + abs(e3.x * e4.y - e3.y * e4.x));
    vec2 lo = min(min(p0, p1), min(p2, p3)), hi = max(max(p0, p1), max(p2, p3));
    vec2 inside = max(min(hi, u_viewport) - max(lo, vec2(0.0)), vec2(0.0));
    vec2 extent = max(hi - lo, vec2(1e-6));
    float share = inside.x * inside.y / (extent.x * extent.y);
    if (!(area * share > 0.0) || isinf(area)) continue;  // outside the frame, or not finite
    add64(low, high, uint(min(area * share, u_viewport.x * u_viewport.y) + 0.5));
    sprites += 1u;
  }
  uint before = atomicAdd(group_sums[0], low);
  atomicAdd(group_sums[1], high + (before + low < before ? 1u : 0u));
  atomicAdd(group_sums[2], sprites);
  barrier();
  if (gl_LocalInvocationIndex == 0u) {
    uint total = atomicAdd(sums[0], group_sums[0]);
    atomicAdd(sums[1], group_sums[1] + (total + group_sums[0] < total ? 1u : 0u));
    atomicAdd(sums[2], group_sums[2]);
  }
}
)";
}
}  // namespace

bool fill_bound(const SpriteCoverage& coverage, int width, int height) {
  if (coverage.sprites == 0) return false;
  const double pixels = double(coverage.pixels);
  return pixels >= kFillBoundMeanPixels * double(coverage.sprites) &&
         pixels >= kFillBoundFrames * double(width) * double(height);
}

ScreenCoverage::ScreenCoverage(const std::string& defines) : kernel_(coverage_source(defines)), sums_(3) {}

SpriteCoverage ScreenCoverage::measure(const DeviceBuffer& instances, size_t count) {
  if (count == 0) return {};
  const size_t stride = (count + kCoverageSample - 1) / kCoverageSample;
  const size_t sampled = (count + stride - 1) / stride;  // sprites 0, stride, 2 stride, ... below count
  kernel_.bind_range(0, instances, 0, count * sizeof(SpriteInstance));
  kernel_.bind(1, sums_.buffer());
  glProgramUniform1ui(kernel_.program().get(), glGetUniformLocation(kernel_.program().get(), "u_stride"),
                      GLuint(stride));
  kernel_.dispatch(sampled);
  const std::vector<uint32_t> sums = sums_.take();
  const uint64_t pixels = uint64_t(sums[0]) | uint64_t(sums[1]) << 32;
  // The sample's figures for the whole batch (integer arithmetic: the same on every device).
  return {pixels * (count / sampled) + pixels * (count % sampled) / sampled,
          uint64_t(sums[2]) * count / sampled};
}

}  // namespace fxsim
