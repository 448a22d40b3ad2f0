#pragma once
// The registry: every effect type, listed once. An emitter's parameters are a
// std::variant over the types' parameter structs, so a dispatch that forgets a
// type is a compile error, not a silent default. Everything that depends on
// the type (parsing, defaults, slots, the CPU system, textures, the name) goes
// through the type's Effect<Params> descriptor in its own folder.
//
// Adding an effect type: a folder core/effects/<name>/ with <name>_params.h
// (parameters, defaults, descriptor) and its .cpp files, one line in
// EmitterParams below with its #include, its files in CMakeLists.txt, and its
// keys in docs/scene-format.md. A GPU counterpart is optional
// (render/gpu_backend.cpp; without one the GPU backend runs it on the CPU).
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/effects/explosion/explosion_params.h"
#include "core/effects/fire/fire_params.h"
#include "core/effects/fountain/fountain_params.h"
#include "core/effects/precipitation/precipitation_params.h"

namespace fxsim {

using EmitterParams = std::variant<SnowParams, RainParams, FountainParams, FireParams, ExplosionParams>;

// The names of the types, in registry order ("snow", "rain", …).
const std::vector<std::string>& effect_type_names();

// The default parameters of the type called `name`, or nothing.
std::optional<EmitterParams> effect_params_named(const std::string& name);

// Dispatch to the emitter's type (its Effect<Params> descriptor).
const char* effect_name(const EmitterParams& params);
const CommonDefaults& effect_defaults(const EmitterParams& params);
void parse_effect_keys(ObjectReader& r, EmitterSettings& e, const ParseContext& ctx);
SlotPlan effect_slots(const EmitterSettings& e, const Environment& environment);
std::unique_ptr<ParticleSystem> make_cpu_system(const Scene& scene, size_t index, const WindField& wind,
                                                ThreadPool& threads);
// The texture layers of an emitter's look (premultiplied RGBA, equal sizes).
std::vector<Image> effect_looks(const EmitterSettings& e, SpriteLook look);
// The bytes of the layers of both looks that fxsim makes itself (not the scene's PNGs).
size_t effect_procedural_look_bytes(const EmitterSettings& e);

}  // namespace fxsim
