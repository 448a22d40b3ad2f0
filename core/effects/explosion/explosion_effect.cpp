// Explosions as an effect type: their keys, slots, CPU system and textures.
#include <fmt/format.h>

#include "core/effects/explosion/explosion.h"
#include "core/effects/explosion/fireball_images.h"
#include "core/limits.h"
#include "core/particle_images.h"
#include "core/scene.h"
#include "core/scene_reader.h"
#include "core/value_ranges.h"

namespace fxsim {

void Effect<ExplosionParams>::parse(ObjectReader& r, EmitterSettings& e, ExplosionParams& x, const ParseContext& ctx) {
  int texture_width = 0, texture_height = 0;
  if (!e.duration) {
    if (const Json* d = r.raw("duration"); d && d->is_null())
      r.error(r.child("duration"), "expected a finite duration in seconds (> 0) for an explosion, got null");
    e.duration = ExplosionParams::default_duration;
  }
  x.position = r.vector("position", x.position, kCoordinate);
  x.scale = float(r.number("scale", x.scale, kExtent));
  r.accepts("texture", Json{{"type", "string"}});
  if (const Json* t = r.raw("texture")) {
    if (!t->is_string()) {
      r.error(r.child("texture"), "expected a PNG file path, " + describe_json(*t));
    } else {
      x.texture = ctx.texture(r, r.child("texture"), t->get<std::string>(), &texture_width, &texture_height);
    }
  }
  r.accepts("flipbook", Json{{"type", "array"}, {"items", Json{{"type", "integer"}, {"minimum", 1}, {"maximum", 64}}},
                             {"minItems", 2}, {"maxItems", 2}});
  if (const Json* book = r.raw("flipbook")) {
    const bool ok = book->is_array() && book->size() == 2 && (*book)[0].is_number_integer() &&
                    (*book)[1].is_number_integer() && (*book)[0].get<int64_t>() >= 1 &&
                    (*book)[0].get<int64_t>() <= 64 && (*book)[1].get<int64_t>() >= 1 &&
                    (*book)[1].get<int64_t>() <= 64;
    if (ok) {
      x.flipbook_rows = (*book)[0].get<int>();
      x.flipbook_columns = (*book)[1].get<int>();
    } else {
      r.error(r.child("flipbook"), "expected [rows, columns] of frames, each in 1..64, " + describe_json(*book));
    }
  }
  if (x.flipbook_rows * x.flipbook_columns > kMaxTextureLayers)
    r.error(r.child("flipbook"), fmt::format("expected at most {} frames in all (a GL's texture array holds that "
                                             "many), got [{}, {}]: {} frames", kMaxTextureLayers, x.flipbook_rows,
                                             x.flipbook_columns, x.flipbook_rows * x.flipbook_columns));
  else if (texture_width > 0 && (texture_width < x.flipbook_columns || texture_height < x.flipbook_rows))
    r.error(r.child("flipbook"), fmt::format("expected at most one frame per pixel of the {}×{} texture, got [{}, {}]",
                                             texture_width, texture_height, x.flipbook_rows, x.flipbook_columns));
  x.key_color = r.color("key_color", x.key_color);
  x.debris = int(r.integer("debris", x.debris, IntRange{0, 10000000}));
  if (!r.present("max_particles")) e.max_particles = x.debris;
}

SlotPlan Effect<ExplosionParams>::slots(const EmitterSettings& e, const Environment&) {
  // The fireball has no particles; its debris is a pool (of at least one slot).
  return {0, {{"debris", size_t(std::max<int64_t>(1, e.max_particles))}}};
}

std::unique_ptr<ParticleSystem> Effect<ExplosionParams>::make_cpu(const Scene& scene, size_t index,
                                                                  const WindField& wind, ThreadPool& threads) {
  return std::make_unique<ExplosionSystem>(scene.emitters[index], index, wind, cpu_pool_maker(threads));
}

namespace {
constexpr int kDebrisTexels = 32, kFireballTexels = 96;
}  // namespace

std::vector<Image> Effect<ExplosionParams>::looks(const EmitterSettings& e, SpriteLook look) {
  if (look == SpriteLook::secondary) return {droplet_image(kDebrisTexels)};  // debris
  const ExplosionParams& x = e.as<ExplosionParams>();
  if (x.texture) return keyed_flipbook(read_png(*x.texture), x.flipbook_rows, x.flipbook_columns, x.key_color);
  return fireball_flipbook(kFireballFrames, kFireballTexels, e.seed);
}

size_t Effect<ExplosionParams>::procedural_look_bytes(const EmitterSettings& e) {
  // (A keyed flipbook is the scene's PNG cut up: counted with the file.)
  const size_t fireball = e.as<ExplosionParams>().texture ? 0 : size_t(kFireballFrames) * kFireballTexels * kFireballTexels;
  return (fireball + size_t(kDebrisTexels) * kDebrisTexels) * 4;
}

}  // namespace fxsim
