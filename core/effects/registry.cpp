#include "core/effects/registry.h"

#include <utility>

#include "core/image.h"
#include "core/particle_system.h"
#include "core/scene.h"

namespace fxsim {

namespace {
// The alternatives of EmitterParams, default-constructed, in order.
template <size_t... I>
std::vector<EmitterParams> all_defaults(std::index_sequence<I...>) {
  return {EmitterParams(std::in_place_index<I>)...};
}
const std::vector<EmitterParams>& every_type() {
  static const std::vector<EmitterParams> types =
      all_defaults(std::make_index_sequence<std::variant_size_v<EmitterParams>>());
  return types;
}
}  // namespace

const std::vector<std::string>& effect_type_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& params : every_type()) out.push_back(effect_name(params));
    return out;
  }();
  return names;
}

std::optional<EmitterParams> effect_params_named(const std::string& name) {
  for (const auto& params : every_type())
    if (name == effect_name(params)) return params;
  return std::nullopt;
}

const char* effect_name(const EmitterParams& params) {
  return std::visit([](const auto& p) { return Effect<std::decay_t<decltype(p)>>::name; }, params);
}

const CommonDefaults& effect_defaults(const EmitterParams& params) {
  return std::visit([](const auto& p) -> const CommonDefaults& { return Effect<std::decay_t<decltype(p)>>::defaults; },
                    params);
}

void parse_effect_keys(ObjectReader& r, EmitterSettings& e, const ParseContext& ctx) {
  std::visit([&](auto& p) { Effect<std::decay_t<decltype(p)>>::parse(r, e, p, ctx); }, e.params);
}

SlotPlan effect_slots(const EmitterSettings& e, const Environment& environment) {
  return std::visit([&](const auto& p) { return Effect<std::decay_t<decltype(p)>>::slots(e, environment); }, e.params);
}

std::unique_ptr<ParticleSystem> make_cpu_system(const Scene& scene, size_t index, const WindField& wind,
                                                ThreadPool& threads) {
  return std::visit(
      [&](const auto& p) { return Effect<std::decay_t<decltype(p)>>::make_cpu(scene, index, wind, threads); },
      scene.emitters[index].params);
}

std::vector<Image> effect_looks(const EmitterSettings& e, SpriteLook look) {
  return std::visit([&](const auto& p) { return Effect<std::decay_t<decltype(p)>>::looks(e, look); }, e.params);
}

size_t effect_procedural_look_bytes(const EmitterSettings& e) {
  return std::visit([&](const auto& p) { return Effect<std::decay_t<decltype(p)>>::procedural_look_bytes(e); }, e.params);
}

const PrecipitationParams& EmitterSettings::precipitation() const {
  if (const auto* snow = std::get_if<SnowParams>(&params)) return *snow;
  return std::get<RainParams>(params);
}

const char* EmitterSettings::type_name() const { return effect_name(params); }

}  // namespace fxsim
