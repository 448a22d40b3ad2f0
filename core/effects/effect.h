#pragma once
// What an effect type is, declared in its own folder (pbrt's one Create per
// family, Mitsuba's plugin-per-file): its parameters (a struct, defaults in its
// initialisers), and an Effect<Params> descriptor with its name, the defaults
// of the keys every emitter has, how its own keys are parsed, the slots it
// needs, its CPU system and its textures. core/effects/registry.h lists every
// type once; everything else dispatches through it.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fxsim {

enum class BlendMode { alpha, additive };
enum class BillboardMode { screen, viewpoint, axial };

// Which of an emitter's looks a batch is drawn with: its own particles, or its
// secondary ones (splashes, mist, debris, embers) with their own texture.
enum class SpriteLook { primary, secondary };

// The defaults of the keys every emitter has, per type.
struct CommonDefaults {
  int64_t max_particles;
  const char* color;
  double opacity;
  double size;
  BlendMode blend;
  BillboardMode billboard;
  bool sprite_size = true;  // false: `size` is the effect's own key (a fire's [width, height])
  // false: no `size_variation` (the particles it would vary, `secondaries`, vary on their own)
  bool size_varies = true;
  const char* secondaries = "";
  bool endless = true;  // `duration` may be null (forever); false: it must be a number
};

// The particle slots an emitter takes: its own, and each pool of secondary
// particles (splashes, mist, embers, debris). Memory estimates for both
// backends and the pools' capacities derive from it.
struct SlotPlan {
  struct Pool {
    std::string suffix;  // statistics name: "<emitter>.<suffix>"
    size_t slots = 0;
  };
  size_t particles = 0;
  std::vector<Pool> pools;
  size_t total() const;
  size_t pool_slots(const std::string& suffix) const;  // 0 when there is no such pool
};

class ObjectReader;
class ParticleSystem;
class ThreadPool;
class WindField;
struct EmitterSettings;
struct Environment;
struct Image;
struct Scene;

// What an effect's parser may need besides the object it reads.
struct ParseContext {
  explicit ParseContext(std::filesystem::path base) : base_dir(std::move(base)) {}
  std::filesystem::path base_dir;  // relative texture paths resolve against it
  // Checks a texture file as render will read it (regular, PNG, size, decodes);
  // reports a problem at `pointer` and returns the resolved path.
  std::filesystem::path texture(ObjectReader& r, const std::string& pointer, const std::string& written,
                                int* width = nullptr, int* height = nullptr) const;
  // Every texture file named so far, resolved, each once (in path order).
  std::vector<std::filesystem::path> files() const {
    std::vector<std::filesystem::path> out;
    for (const auto& [path, checked] : checked_) out.push_back(path);
    return out;
  }

 private:
  // Each file checked once (decoding it is the check): a texture listed 30
  // times took 30 decodes, 2 s each at 8192².
  struct Checked {
    std::string problem;
    int width = 0, height = 0;
  };
  mutable std::map<std::filesystem::path, Checked> checked_;
};

// Specialised by each effect type next to its parameters, through
// FXSIM_EFFECT(Params, "name", {common defaults}); its .cpp defines the five
// functions.
template <class Params>
struct Effect;

#define FXSIM_EFFECT(PARAMS, NAME, ...)                                                             \
  template <>                                                                                       \
  struct Effect<PARAMS> {                                                                           \
    static constexpr const char* name = NAME;                                                       \
    static constexpr CommonDefaults defaults __VA_ARGS__;                                           \
    /* Reads the type's own keys (the common ones are read already). */                            \
    static void parse(ObjectReader& r, EmitterSettings& e, PARAMS& p, const ParseContext& ctx);     \
    static SlotPlan slots(const EmitterSettings& e, const Environment& environment);                \
    static std::unique_ptr<ParticleSystem> make_cpu(const Scene& scene, size_t index, const WindField& wind, \
                                                    ThreadPool& threads);                           \
    /* The texture layers of the primary and secondary looks (premultiplied, equal sizes). */     \
    static std::vector<Image> looks(const EmitterSettings& e, SpriteLook look);                    \
    /* The bytes of the layers looks() makes itself (not from the scene's PNGs), known without */ \
    /* making them: the memory estimate's share of its textures. */                               \
    static size_t procedural_look_bytes(const EmitterSettings& e);                                 \
  }

}  // namespace fxsim
