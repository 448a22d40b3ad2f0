#include "core/sprite_rasteriser.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/matrix.hpp>

#include "core/window_position.h"

namespace fxsim {

namespace {
using glm::vec2;
using glm::vec3;
using glm::vec4;

// Twice the signed area of (a, b, q), from the corners' offsets to q (as the
// compute rasteriser's edge(): far corners of a streak stay exact near q).
inline float edge(vec2 a, vec2 b, vec2 q) {
  const vec2 qa = a - q, qb = b - q;
  return qa.x * qb.y - qa.y * qb.x;
}

bool finite(vec2 v) { return std::isfinite(v.x) && std::isfinite(v.y); }

// One triangle of a quad, with what interpolating over it needs.
struct Triangle {
  Triangle(vec2 a_, vec2 b_, vec2 c_, vec3 w, vec2 uva_, vec2 uvb_, vec2 uvc_)
      : a(a_), b(b_), c(c_), uva(uva_), uvb(uvb_), uvc(uvc_), area(edge(a_, b_, c_)) {
    weight = 1.0f / (area * w);
  }
  vec2 a, b, c;
  vec2 uva, uvb, uvc;
  float area;
  vec3 weight;  // 1 / (area × the corners' clip w): barycentrics to perspective weights
};

// Perspective-correct interpolation of the uv over the triangle at q; depth: the view distance there.
vec2 interpolate(const Triangle& t, vec2 q, float& depth) {
  const vec3 k = vec3(edge(t.b, t.c, q), edge(t.c, t.a, q), edge(t.a, t.b, q)) * t.weight;
  const float sum = k.x + k.y + k.z;
  depth = 1.0f / sum;
  return (t.uva * k.x + t.uvb * k.y + t.uvc * k.z) * depth;
}

// Four samples side by side (GCC's vector extension: SSE on x86-64, the
// same operations as one sample at a time).
typedef float Float4 __attribute__((vector_size(16)));
typedef int Int4 __attribute__((vector_size(16)));

// The frame's sample positions within a pixel.
struct SamplePattern {
  int count = 1;
  vec2 at[32];
  Float4 x4[8], y4[8];  // the same, four at a time
};

// Samples 4j … 4j + 3 of the pixel at `pixel` the triangle covers, as bits 0-3.
unsigned coverage4(const Triangle& t, vec2 pixel, Float4 x, Float4 y) {
  const Float4 qx = pixel.x + x, qy = pixel.y + y;
  const auto edge4 = [&](vec2 a, vec2 b) {
    const Float4 ax = a.x - qx, ay = a.y - qy, bx = b.x - qx, by = b.y - qy;
    return ax * by - ay * bx;
  };
  const float s = t.area > 0 ? 1.0f : -1.0f;
  const Int4 inside = (edge4(t.b, t.c) * s >= 0) & (edge4(t.c, t.a) * s >= 0) & (edge4(t.a, t.b) * s >= 0);
  return unsigned(inside[0] & 1) | unsigned(inside[1] & 2) | unsigned(inside[2] & 4) | unsigned(inside[3] & 8);
}

unsigned coverage(const Triangle& t, vec2 pixel, const SamplePattern& samples) {
  if (t.area == 0) return 0;
  if (samples.count % 4 == 0) {
    unsigned mask = 0;
    for (int j = 0; j < samples.count / 4; ++j) mask |= coverage4(t, pixel, samples.x4[j], samples.y4[j]) << (4 * j);
    return mask;
  }
  const float s = t.area > 0 ? 1.0f : -1.0f;
  unsigned mask = 0;
  for (int k = 0; k < samples.count; ++k) {
    const vec2 q = pixel + samples.at[k];
    if (edge(t.b, t.c, q) * s >= 0 && edge(t.c, t.a, q) * s >= 0 && edge(t.a, t.b, q) * s >= 0) mask |= 1u << k;
  }
  return mask;
}

// A band's pixels, each sample's light gathered and transmittance, front to back.
struct BandSamples {
  int samples = 1;
  std::vector<vec3> colour;
  std::vector<float> through;
  std::vector<unsigned char> done;  // nothing behind shows any more
  void clear(size_t pixels) {
    colour.assign(pixels * size_t(samples), vec3(0));
    through.assign(pixels * size_t(samples), 1.0f);
    done.assign(pixels, 0);
  }
};

class BandBlender {
 public:
  BandBlender(const SpriteCamera& camera, const SpriteDepthLimits& limits, const glm::mat4& inverse_view,
              const SpriteShading& shading, const SpriteTexels& texels, const SpriteFrame& frame, bool additive)
      : camera_(camera),
        limits_(limits),
        inverse_view_(inverse_view),
        shading_(shading),
        texels_(texels),
        frame_(frame),
        additive_(additive),
        texture_size_(float(texels.levels.front().width), float(texels.levels.front().height)) {
    samples_.count = int(std::min<size_t>(frame.sample_positions.size(), 32));
    for (int k = 0; k < samples_.count; ++k) {
      samples_.at[k] = frame.sample_positions[size_t(k)];
      samples_.x4[k / 4][k % 4] = samples_.at[k].x;
      samples_.y4[k / 4][k % 4] = samples_.at[k].y;
    }
  }

  // Sprite p over the pixels [x0, x1] × [y0, y1] of the band starting at row `band_y`.
  void draw(const CpuSpriteRasteriser::Prepared& p, int x0, int x1, int y0, int y1, int band_y, int width,
            BandSamples& band) {
    // The strip's two triangles (0, 1, 2) and (2, 1, 3); a sample on their shared edge counts once.
    const Triangle t0(p.corner[0], p.corner[1], p.corner[2], vec3(p.w.x, p.w.y, p.w.z), vec2(0, 0), vec2(1, 0),
                      vec2(0, 1));
    const Triangle t1(p.corner[2], p.corner[1], p.corner[3], vec3(p.w.z, p.w.y, p.w.w), vec2(0, 1), vec2(1, 0),
                      vec2(1, 1));
    // The quad's outline (0, 1, 3, 2): each row visits only the pixels its
    // slab of the quad reaches (a slanted streak's bounds are mostly empty).
    const vec2 outline[4] = {p.corner[0], p.corner[1], p.corner[3], p.corner[2]};
    for (int y = y0; y <= y1; ++y) {
      const float bottom = float(y), top = float(y + 1);
      float lo = 3.0e38f, hi = -3.0e38f;
      for (int i = 0; i < 4; ++i) {
        const vec2 a = outline[i], b = outline[(i + 1) % 4];
        if (std::max(a.y, b.y) < bottom || std::min(a.y, b.y) > top) continue;
        // The edge's x where it enters and leaves the slab.
        const float dy = b.y - a.y;
        const float ta = dy != 0 ? std::clamp((bottom - a.y) / dy, 0.0f, 1.0f) : 0.0f;
        const float tb = dy != 0 ? std::clamp((top - a.y) / dy, 0.0f, 1.0f) : 1.0f;
        const float xa = a.x + (b.x - a.x) * ta, xb = a.x + (b.x - a.x) * tb;
        lo = std::min(lo, std::min(xa, xb));
        hi = std::max(hi, std::max(xa, xb));
      }
      if (lo > hi) continue;
      // Pixels x whose [x, x + 1] meets [lo, hi], a pixel of slack for the rounding.
      const int first = std::max(x0, int(std::max(lo, float(x0) + 1.0f)) - 2);
      const int last = std::min(x1, int(std::min(hi, float(x1))) + 1);
      for (int x = first; x <= last; ++x) {
        const size_t pixel = size_t(y - band_y) * size_t(width) + size_t(x);
        if (band.done[pixel]) continue;
        const vec2 at{float(x), float(y)};
        const unsigned m0 = coverage(t0, at, samples_);
        const unsigned m1 = coverage(t1, at, samples_) & ~m0;
        if ((m0 | m1) == 0) continue;
        if (m0 != 0) draw_triangle(p, t0, m0, at, band, pixel);
        if (m1 != 0) draw_triangle(p, t1, m1, at, band, pixel);
        if (!additive_) mark_if_done(band, pixel);
      }
    }
  }

  // The samples (covered, not hidden) shaded so far.
  size_t samples_blended() const { return samples_blended_; }

 private:
  void mark_if_done(BandSamples& band, size_t pixel) const {
    const size_t n = size_t(band.samples);
    for (size_t k = 0; k < n; ++k)
      if (band.through[pixel * n + k] >= 1.0f / 4096.0f) return;
    band.done[pixel] = 1;
  }

  vec3 unproject(vec2 q, float depth) const {
    const vec2 ndc = q / camera_.viewport * 2.0f - 1.0f;
    return vec3(inverse_view_ * vec4(ndc.x * depth / camera_.projection[0][0],
                                     ndc.y * depth / camera_.projection[1][1], -depth, 1.0f));
  }

  bool hidden(vec3 world, float depth, vec2 q) const {
    if (depth < camera_.near_plane || depth > limits_.far_plane) return true;
    if (limits_.ground_height && limits_.ground_extent > 0) {
      const float eye = camera_.eye.y - *limits_.ground_height, point = world.y - *limits_.ground_height;
      if (eye * point < 0) {  // the ray to it crosses the ground's plane: inside the ground's square?
        const vec3 crossing = camera_.eye + (world - camera_.eye) * (eye / (eye - point));
        if (std::max(std::fabs(crossing.x - limits_.ground_centre.x), std::fabs(crossing.z - limits_.ground_centre.y)) <
            limits_.ground_extent)
          return true;
      }
    }
    if (limits_.plate) {
      const float plate = limits_.plate->at(q, camera_.viewport);  // 0 or beyond 3e38: nothing there
      if (plate > 0 && plate < depth) return true;
    }
    return false;
  }

  void draw_triangle(const CpuSpriteRasteriser::Prepared& p, const Triangle& t, unsigned mask, vec2 pixel,
                     BandSamples& band, size_t index) {
    const vec2 centre = pixel + 0.5f;
    float depth = 0, ignored = 0;
    const vec2 uv = interpolate(t, centre, depth);
    const vec2 dx = interpolate(t, centre + vec2(1, 0), ignored) - uv;
    const vec2 dy = interpolate(t, centre + vec2(0, 1), ignored) - uv;
    if (!p.clear)
      for (int k = 0; k < samples_.count; ++k)
        if ((mask & (1u << k)) != 0) {
          const vec2 q = pixel + samples_.at[k];
          float at = 0;
          interpolate(t, q, at);
          if (hidden(unproject(q, at), at, q)) mask &= ~(1u << k);
        }
    if (mask == 0) return;
    vec3 world = unproject(centre, depth);
    // The GL path gives a streak's corners its tail's and head's world
    // positions (not the corners' own): interpolated, they run along uv.y.
    if (p.streak) world = p.tail + (p.head - p.tail) * uv.y;
    // The level of detail GL picks from the derivatives (the larger footprint).
    const float rho = std::max(glm::length(dx * texture_size_), glm::length(dy * texture_size_));
    const float lod = std::log2(std::max(rho, 1e-20f));
    vec4 c = shade_sprite(shading_, texels_,
                          SpriteFragment{uv, p.layer, p.alpha, depth, world, p.blur, p.confusion, centre}, lod,
                          camera_.viewport);
    if (frame_.clamped) c = glm::clamp(c, 0.0f, 1.0f);
    samples_blended_ += size_t(std::popcount(mask));
    const size_t n = size_t(band.samples);
    for (size_t k = 0; k < n; ++k)
      if ((mask & (1u << k)) != 0) {
        float& through = band.through[index * n + k];
        band.colour[index * n + k] += through * vec3(c);
        if (!additive_) through *= 1.0f - c.a;
      }
  }

  const SpriteCamera& camera_;
  const SpriteDepthLimits& limits_;
  const glm::mat4& inverse_view_;
  const SpriteShading& shading_;
  const SpriteTexels& texels_;
  const SpriteFrame& frame_;
  bool additive_;
  vec2 texture_size_;
  SamplePattern samples_;
  size_t samples_blended_ = 0;
};
}  // namespace

void CpuSpriteRasteriser::prepare(std::span<const SpriteInstance> sprites, const SpriteCamera& camera,
                               const SpriteDepthLimits& limits, ThreadPool& pool) {
  sprites_ = sprites;
  camera_ = camera;
  limits_ = limits;
  inverse_view_ = glm::inverse(camera.view);
  prepared_.resize(sprites.size());
  std::vector<unsigned char> near(sprites.size());
  std::vector<double> area(chunk_count(sprites.size()), 0.0);
  std::vector<size_t> drawn(area.size(), 0);
  const float near_plane = camera.near_plane, far_plane = limits.far_plane;
  const auto unproject = [&](vec2 q, float depth) {
    const vec2 ndc = q / camera.viewport * 2.0f - 1.0f;
    return vec3(inverse_view_ * vec4(ndc.x * depth / camera.projection[0][0],
                                     ndc.y * depth / camera.projection[1][1], -depth, 1.0f));
  };
  for_chunks(pool, sprites.size(), [&](size_t begin, size_t end, size_t chunk) {
    for (size_t i = begin; i < end; ++i) {
      const SpriteInstance& s = sprites[i];
      SpriteVertex v[4];
      sprite_corners(camera, s, v);
      const SpriteVertex &v0 = v[0], &v1 = v[1], &v2 = v[2], &v3 = v[3];
      Prepared& p = prepared_[i];
      p.corner[0] = window_position(v0.clip, camera.viewport);
      p.corner[1] = window_position(v1.clip, camera.viewport);
      p.corner[2] = window_position(v2.clip, camera.viewport);
      p.corner[3] = window_position(v3.clip, camera.viewport);
      p.w = vec4(v0.clip.w, v1.clip.w, v2.clip.w, v3.clip.w);
      p.alpha = v0.alpha;
      p.streak = glm::dot(s.stretch, s.stretch) > 0;
      p.layer = s.layer;
      p.blur = v0.blur;
      p.confusion = v0.confusion;
      p.tail = v0.world;
      p.head = v2.world;
      const float nearest = std::min(std::min(p.w.x, p.w.y), std::min(p.w.z, p.w.w));
      const float farthest = std::max(std::max(p.w.x, p.w.y), std::max(p.w.z, p.w.w));
      // Nothing can hide any of it: well within the near and far planes, no
      // plate, and wholly above a ground the eye is above (1 cm spares the rounding).
      bool clear = !limits.plate && nearest >= near_plane * 1.001f && farthest <= far_plane * 0.999f;
      if (clear && limits.ground_height && limits.ground_extent > 0) {
        const float lowest = std::min(
            std::min(unproject(p.corner[0], p.w.x).y, unproject(p.corner[1], p.w.y).y),
            std::min(unproject(p.corner[2], p.w.z).y, unproject(p.corner[3], p.w.w).y));
        clear = camera.eye.y > *limits.ground_height && lowest > *limits.ground_height + 0.01f;
      }
      p.clear = clear;
      p.lo = glm::min(glm::min(p.corner[0], p.corner[1]), glm::min(p.corner[2], p.corner[3]));
      p.hi = glm::max(glm::max(p.corner[0], p.corner[1]), glm::max(p.corner[2], p.corner[3]));
      const bool in_front = nearest >= near_plane * 0.999f;
      near[i] = v0.alpha > 0 && !in_front && farthest > near_plane;
      const bool inside = p.lo.x <= camera.viewport.x && p.lo.y <= camera.viewport.y && p.hi.x >= 0 && p.hi.y >= 0;
      p.drawn = v0.alpha > 0 && in_front && finite(p.corner[0]) && finite(p.corner[1]) && finite(p.corner[2]) &&
                finite(p.corner[3]) && inside;
      if (p.drawn) {
        // The quad's area (shoelace over 0, 1, 3, 2).
        const vec2 q[4] = {p.corner[0], p.corner[1], p.corner[3], p.corner[2]};
        double twice = 0;
        for (int k = 0; k < 4; ++k) twice += double(q[k].x) * q[(k + 1) % 4].y - double(q[(k + 1) % 4].x) * q[k].y;
        area[chunk] += std::fabs(twice) * 0.5;
        ++drawn[chunk];
      }
    }
  });
  near_.clear();
  for (size_t i = 0; i < near.size(); ++i)
    if (near[i]) near_.push_back(i);
  double total = 0;
  drawn_ = 0;
  for (size_t c = 0; c < area.size(); ++c) {
    total += area[c];
    drawn_ += drawn[c];
  }
  mean_quad_pixels_ = drawn_ > 0 ? total / double(drawn_) : 0.0;
}

void CpuSpriteRasteriser::blend(const SpriteShading& shading, const SpriteTexels& texels, const SpriteFrame& frame,
                             bool additive, ThreadPool& pool, std::vector<glm::vec4>& layer) {
  const int width = frame.width, height = frame.height;
  layer.assign(size_t(width) * size_t(height), vec4(0));
  const int bands = (height + kSpriteBandRows - 1) / kSpriteBandRows;
  // Each band's sprites, in drawing order (a count, then the lists).
  std::vector<size_t> starts(size_t(bands) + 1, 0);
  const auto band_range = [&](const Prepared& p, int& first, int& last) {
    // The rows a sprite's bounds reach: a pixel y is reached when y + 1 >= lo and y <= hi.
    first = int(std::clamp(std::ceil(p.lo.y) - 1.0f, 0.0f, float(height))) / kSpriteBandRows;
    last = int(std::clamp(std::floor(p.hi.y), -1.0f, float(height - 1)));
    last = last < 0 ? -1 : last / kSpriteBandRows;
  };
  for (const Prepared& p : prepared_) {
    if (!p.drawn) continue;
    int first = 0, last = 0;
    band_range(p, first, last);
    for (int b = first; b <= last; ++b) ++starts[size_t(b) + 1];
  }
  for (size_t b = 0; b < size_t(bands); ++b) starts[b + 1] += starts[b];
  // Copies, band after band: each band then reads its sprites in order
  // (indices into the prepared sprites had every band miss the cache on each).
  banded_.resize(starts.back());
  {
    std::vector<size_t> fill(starts.begin(), starts.end() - 1);
    for (const Prepared& p : prepared_) {
      if (!p.drawn) continue;
      int first = 0, last = 0;
      band_range(p, first, last);
      for (int b = first; b <= last; ++b) banded_[fill[size_t(b)]++] = p;
    }
  }
  const int samples = int(frame.sample_positions.size());
  std::vector<size_t> blended(size_t(bands), 0);
  pool.run(size_t(bands), [&](size_t b) {
    thread_local BandSamples band;
    band.samples = samples;
    const int y0 = int(b) * kSpriteBandRows, y1 = std::min(height, y0 + kSpriteBandRows);
    band.clear(size_t(width) * size_t(y1 - y0));
    BandBlender blender(camera_, limits_, inverse_view_, shading, texels, frame, additive);
    for (size_t e = starts[b + 1]; e > starts[b]; --e) {  // newest first
      const Prepared& p = banded_[e - 1];
      const int x_first = int(std::clamp(std::ceil(p.lo.x) - 1.0f, 0.0f, float(width)));
      const int x_last = int(std::clamp(std::floor(p.hi.x), -1.0f, float(width - 1)));
      const int y_first = std::max(y0, int(std::clamp(std::ceil(p.lo.y) - 1.0f, 0.0f, float(height))));
      const int y_last = std::min(y1 - 1, int(std::clamp(std::floor(p.hi.y), -1.0f, float(height - 1))));
      if (x_first <= x_last && y_first <= y_last) blender.draw(p, x_first, x_last, y_first, y_last, y0, width, band);
    }
    blended[b] = blender.samples_blended();
    // The samples' mean into the layer: (colour, 1 − transmittance).
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < width; ++x) {
        const size_t pixel = size_t(y - y0) * size_t(width) + size_t(x);
        vec3 sum(0);
        float passed = 0;
        for (int k = 0; k < samples; ++k) {
          sum += band.colour[pixel * size_t(samples) + size_t(k)];
          passed += band.through[pixel * size_t(samples) + size_t(k)];
        }
        layer[size_t(y) * size_t(width) + size_t(x)] = vec4(sum, float(samples) - passed) / float(samples);
      }
  });
  samples_blended_ = 0;
  for (size_t n : blended) samples_blended_ += n;
}

}  // namespace fxsim
