#include "render/cpu_sprite_path.h"

#include <glm/gtc/type_ptr.hpp>
#include <algorithm>
#include <array>
#include <cmath>

#include "render/frame_layer.h"

namespace fxsim {

namespace {
// GL's decoding of an sRGB byte (the texture's colour; alpha is linear).
const std::array<float, 256>& srgb_to_linear() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (int i = 0; i < 256; ++i) {
      const double c = i / 255.0;
      t[size_t(i)] = float(c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
    }
    return t;
  }();
  return table;
}

SpriteTexels read_texels(GLuint texture) {
  SpriteTexels texels;
  glBindTexture(GL_TEXTURE_2D_ARRAY, texture);
  GLint base_width = 0, base_height = 0, layers = 0;
  glGetTexLevelParameteriv(GL_TEXTURE_2D_ARRAY, 0, GL_TEXTURE_WIDTH, &base_width);
  glGetTexLevelParameteriv(GL_TEXTURE_2D_ARRAY, 0, GL_TEXTURE_HEIGHT, &base_height);
  glGetTexLevelParameteriv(GL_TEXTURE_2D_ARRAY, 0, GL_TEXTURE_DEPTH, &layers);
  texels.layers = layers;
  const auto& decode = srgb_to_linear();
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  std::vector<uint8_t> bytes;
  // Every level of the chain glGenerateMipmap made (the sRGB bytes as stored, decoded here).
  for (int level = 0, w = base_width, h = base_height;; ++level, w = std::max(1, w / 2), h = std::max(1, h / 2)) {
    bytes.resize(size_t(w) * size_t(h) * size_t(layers) * 4);
    glGetTexImage(GL_TEXTURE_2D_ARRAY, level, GL_RGBA, GL_UNSIGNED_BYTE, bytes.data());
    SpriteTexels::Level out;
    out.width = w;
    out.height = h;
    out.texels.resize(size_t(w) * size_t(h) * size_t(layers));
    for (size_t i = 0; i < out.texels.size(); ++i)
      out.texels[i] = glm::vec4(decode[bytes[4 * i]], decode[bytes[4 * i + 1]], decode[bytes[4 * i + 2]],
                                float(bytes[4 * i + 3]) / 255.0f);
    texels.levels.push_back(std::move(out));
    if (w == 1 && h == 1) break;
  }
  return texels;
}
}  // namespace

CpuSpritePath::CpuSpritePath(int threads) : pool_(threads) {}

const SpriteTexels& CpuSpritePath::texels_of(GLuint texture, bool changes) {
  if (changes) {
    changing_ = read_texels(texture);
    return changing_;
  }
  auto found = texels_.find(texture);
  if (found == texels_.end()) found = texels_.emplace(texture, read_texels(texture)).first;
  return found->second;
}

const PlateDepth& CpuSpritePath::plate_depth(GLuint texture) {
  if (plate_read_) return plate_;
  glBindTexture(GL_TEXTURE_2D, texture);
  glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &plate_.width);
  glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, &plate_.height);
  plate_.depth.resize(size_t(plate_.width) * size_t(plate_.height));
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RED, GL_FLOAT, plate_.depth.data());
  plate_read_ = true;
  return plate_;
}

bool CpuSpritePath::draw(const Batch& batch, int width, int height, const Pays& pays, const NearDrawer& draw_near) {
  // Too few sprites for the frame refuses before the plate's depth is read
  // and the batch prepared: the batch's count bounds those drawn, and no
  // quad is smaller than none.
  if (pays && !pays(0.0, batch.sprites.size(), width, height)) return false;
  SpriteDepthLimits limits = batch.limits;
  SpriteShading shading = batch.shading;
  if (batch.plate_depth != 0) {
    limits.plate = &plate_depth(batch.plate_depth);
    shading.plate = limits.plate;
  }
  rasteriser_.prepare(batch.sprites, batch.camera, limits, pool_);
  if (pays && !pays(rasteriser_.mean_quad_pixels(), rasteriser_.drawn(), width, height)) return false;
  GLint bound_texture = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D_ARRAY, &bound_texture);
  const SpriteTexels& texels = texels_of(batch.texture, batch.texture_changes);
  SpriteFrame frame;
  frame.width = width;
  frame.height = height;
  const BoundFrameSamples samples = bound_frame_samples();
  frame.sample_positions = samples.positions;
  frame.clamped = samples.clamped;
  rasteriser_.blend(shading, texels, frame, batch.additive, pool_, pixels_);

  // The layer over the frame.
  glBindTexture(GL_TEXTURE_2D, layer_.texture(width, height));
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_FLOAT, pixels_.data());
  layer_.composite_over_frame();
  glBindTexture(GL_TEXTURE_2D_ARRAY, GLuint(bound_texture));

  if (!rasteriser_.near_sprites().empty()) {
    std::vector<SpriteInstance> near;
    near.reserve(rasteriser_.near_sprites().size());
    for (size_t i : rasteriser_.near_sprites()) near.push_back(batch.sprites[i]);
    draw_near(near);
  }
  return true;
}

}  // namespace fxsim
