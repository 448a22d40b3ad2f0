#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <limits>
#include <glm/common.hpp>
#include <nlohmann/json.hpp>

#include "core/exit_codes.h"
#include "core/particles.h"
#include "core/rng.h"

namespace fxsim {

namespace {
EmitterStats stats_over(const ParticleStore& s, size_t count, bool only_live_slots, ThreadPool& pool) {
  struct Partial {
    glm::dvec3 lo{std::numeric_limits<double>::infinity()}, hi{-std::numeric_limits<double>::infinity()};
    glm::dvec3 sum_p{0}, sum_v{0};
    uint64_t n = 0;
  };
  std::vector<Partial> partials(chunk_count(count));
  for_chunks(pool, count, [&](size_t begin, size_t end, size_t chunk) {
    Partial acc;
    for (size_t i = begin; i < end; ++i) {
      if (only_live_slots && s.age[i] < 0) continue;
      ++acc.n;
      const glm::dvec3 p(s.px[i], s.py[i], s.pz[i]);
      acc.lo = glm::min(acc.lo, p);
      acc.hi = glm::max(acc.hi, p);
      acc.sum_p += p;
      acc.sum_v += glm::dvec3(s.vx[i], s.vy[i], s.vz[i]);
    }
    partials[chunk] = acc;
  });
  Partial total;
  for (const auto& p : partials) total.n += p.n;
  EmitterStats out;
  out.live = total.n;
  if (total.n == 0) return out;
  count = total.n;
  for (const auto& p : partials) {
    total.lo = glm::min(total.lo, p.lo);
    total.hi = glm::max(total.hi, p.hi);
    total.sum_p += p.sum_p;
    total.sum_v += p.sum_v;
  }
  out.min = total.lo;
  out.max = total.hi;
  out.mean_position = total.sum_p / double(count);
  out.mean_velocity = total.sum_v / double(count);
  return out;
}
}  // namespace

void label(EmitterStats& stats, std::string name, std::string type, bool active) {
  stats.name = std::move(name);
  stats.type = std::move(type);
  stats.active = active;
}

EmitterStats particle_stats(const ParticleStore& s, size_t count, ThreadPool& pool) {
  return stats_over(s, count, false, pool);
}

EmitterStats particle_stats_of_live_slots(const ParticleStore& s, ThreadPool& pool) {
  return stats_over(s, s.capacity(), true, pool);
}

static nlohmann::json vec_json(glm::dvec3 v) {
  // Six decimals: micrometres, far below anything visible, and stable to read.
  auto round6 = [](double x) { return std::round(x * 1e6) / 1e6 + 0.0; };
  return nlohmann::json::array({round6(v.x), round6(v.y), round6(v.z)});
}

void check_finite(const FrameStats& stats) {
  const auto finite = [](const glm::dvec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); };
  for (const auto& e : stats.emitters) {
    if (e.live == 0 || (finite(e.min) && finite(e.max) && finite(e.mean_position) && finite(e.mean_velocity))) continue;
    throw FxError(ExitCode::internal,
                  fmt::format("the simulation of emitter \"{}\" ({}) reached a non-finite position or velocity at "
                              "frame {} (t = {} s); no frame was written from it. The scene's values are within their "
                              "limits, so this is a bug: please report it with the scene",
                              e.name, e.type, stats.frame, stats.time));
  }
}

std::string to_json_line(const FrameStats& stats) {
  nlohmann::ordered_json line;
  line["frame"] = stats.frame;
  line["time"] = stats.time;
  line["emitters"] = nlohmann::ordered_json::array();
  for (const auto& e : stats.emitters) {
    nlohmann::ordered_json entry;
    entry["name"] = e.name;
    entry["type"] = e.type;
    entry["active"] = e.active;
    entry["live"] = e.live;
    entry["spawned"] = e.spawned;
    entry["died"] = e.died;
    entry["min"] = vec_json(e.min);
    entry["max"] = vec_json(e.max);
    entry["mean_position"] = vec_json(e.mean_position);
    entry["mean_velocity"] = vec_json(e.mean_velocity);
    line["emitters"].push_back(entry);
  }
  return line.dump();
}

void StateHasher::add(const void* data, size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    h_ = mix64(h_ ^ word);
  }
  uint64_t tail = bytes;
  for (; i < bytes; ++i) tail = (tail << 8) | p[i];
  h_ = mix64(h_ ^ tail);
}

void StateHasher::add_later(size_t bytes, Fetch fetch) {
  if (fetched_.size() < bytes) fetched_.resize(bytes);
  fetch(fetched_.data());
  add(fetched_.data(), bytes);
}

void StateSink::add_store(const ParticleStore& store, size_t count) {
  add(&count, sizeof count);
  store.for_each_field(count, [&](const void* data, size_t element, size_t n) { add(data, element * n); });
}

void StateCapture::add(const void* data, size_t bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  items_.push_back({std::vector<uint8_t>(p, p + bytes), 0, {}});
}

void StateCapture::add_later(size_t bytes, Fetch fetch) { items_.push_back({{}, bytes, std::move(fetch)}); }

void StateCapture::fetch() {
  for (Item& item : items_)
    if (item.fetch) {
      item.bytes.resize(item.later_bytes);
      item.fetch(item.bytes.data());
      item.fetch = nullptr;
    }
}

uint64_t StateCapture::hash() const {
  std::call_once(hashed_, [&] {
    StateHasher hasher;
    for (const Item& item : items_) {
      if (item.fetch) throw FxError(ExitCode::internal, "a captured state was hashed before it was fetched");
      hasher.add(item.bytes.data(), item.bytes.size());
    }
    hash_ = hasher.value();
  });
  return hash_;
}

}  // namespace fxsim
