#include "core/wind.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <mutex>
#include <utility>

#include "core/noise.h"
#include "core/rng.h"

namespace fxsim {

namespace {
// Scales the curl of unit gradient noise so that its RMS speed is about 1
// (measured over 4·10^4 random points and eight times of the grid field,
// core/turbulence_grid.h: RMS speed ≈ 1.3 before scaling).
constexpr float kCurlNormalisation = 1.0f / 1.3f;
}  // namespace

WindField::WindField(const WindSettings& settings, uint64_t scene_seed)
    : steady_(settings.velocity), cache_(std::make_shared<TurbulenceCache>()) {
  const uint64_t base = mix64(scene_seed ^ 0x57494E44ull);  // "WIND"
  gust_seed_ = uint32_t(mix64(base + uint64_t(Stream::wind_gust)));
  turbulence_seed_ = uint32_t(mix64(base + uint64_t(Stream::wind_turbulence)));
  if (settings.gust) {
    gust_amplitude_ = settings.gust->amplitude;
    gust_period_ = settings.gust->period;
  }
  if (settings.turbulence && settings.turbulence->strength > 0) {
    turbulence_strength_ = settings.turbulence->strength;
    turbulence_scale_ = settings.turbulence->scale;
    // The pattern renews itself in about the time the air takes to cross two features.
    turbulence_period_ = std::max(0.5, 2.0 * turbulence_scale_ / turbulence_strength_);
  }
}

glm::vec3 WindField::gust(double t) const {
  if (gust_amplitude_ == glm::vec3(0)) return glm::vec3(0);
  const double x = t / gust_period_;
  return {gust_amplitude_.x * value_noise_1d(gust_seed_ + 0, x),
          gust_amplitude_.y * value_noise_1d(gust_seed_ + 1, x + 17.0),
          gust_amplitude_.z * value_noise_1d(gust_seed_ + 2, x + 41.0)};
}

// The last few slices' grids and fields: a step reads the field at its start
// and births read it at its end, which is the next step's start.
struct WindField::TurbulenceCache {
  std::mutex mutex;
  std::deque<std::pair<int64_t, std::shared_ptr<const std::vector<float>>>> slices;
  std::deque<std::pair<double, std::shared_ptr<const TurbulenceField>>> fields;
  // The fields' grids: each step's field takes the one an evicted field gave back.
  std::shared_ptr<TurbulenceFieldGrids> grids = std::make_shared<TurbulenceFieldGrids>();
  static constexpr size_t kSlicesKept = 3, kFieldsKept = 4;
};

std::shared_ptr<const std::vector<float>> WindField::slice_grid(TurbulenceCache& cache, int64_t slice,
                                                                ThreadPool* threads) const {
  for (const auto& [index, grid] : cache.slices)
    if (index == slice) return grid;
  auto grid = std::make_shared<const std::vector<float>>(
      turbulence_slice_grid(hash_u32(turbulence_seed_ ^ uint32_t(slice * 3)), threads));
  if (cache.slices.size() == TurbulenceCache::kSlicesKept) cache.slices.pop_front();
  cache.slices.emplace_back(slice, grid);
  return grid;
}

WindField::TurbulenceMoment WindField::moment_locked(double t, ThreadPool* threads) const {
  const double phase = t / turbulence_period_;
  const double slice = std::floor(phase);
  float blend = float(phase - slice);
  blend = blend * blend * (3.0f - 2.0f * blend);
  return {slice_grid(*cache_, int64_t(slice), threads), slice_grid(*cache_, int64_t(slice) + 1, threads), blend,
          turbulence_strength_ * kCurlNormalisation};
}

WindField::TurbulenceMoment WindField::turbulence_moment(double t, ThreadPool* threads) const {
  if (turbulence_strength_ <= 0) return {};
  std::lock_guard lock(cache_->mutex);
  return moment_locked(t, threads);
}

std::shared_ptr<const TurbulenceField> WindField::turbulence_field(double t, ThreadPool* threads) const {
  if (turbulence_strength_ <= 0) return nullptr;
  std::lock_guard lock(cache_->mutex);
  for (const auto& [time, field] : cache_->fields)
    if (time == t) return field;
  const TurbulenceMoment m = moment_locked(t, threads);
  auto field = std::make_shared<const TurbulenceField>(m.from, m.to, m.blend, m.gain, turbulence_scale_, cache_->grids);
  if (cache_->fields.size() == TurbulenceCache::kFieldsKept) cache_->fields.pop_front();
  cache_->fields.emplace_back(t, field);
  return field;
}

WindField::Moment WindField::moment(double t, ThreadPool* threads) const {
  Moment m;
  m.uniform_ = uniform_part(t);
  m.field_ = turbulence_field(t, threads);
  return m;
}

glm::vec3 WindField::turbulence(glm::vec3 p, double t) const {
  const auto field = turbulence_field(t);
  return field ? field->at(p) : glm::vec3(0);
}

}  // namespace fxsim
