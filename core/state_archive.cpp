#include "core/state_archive.h"

#include <cmath>
#include <fmt/format.h>

#include "core/exit_codes.h"

namespace fxsim {

namespace {
bool all_finite(const std::vector<float>& field) {
  bool all = true;
  for (const float v : field) all &= std::isfinite(v);
  return all;
}
bool all_finite(const std::vector<uint32_t>&) { return true; }
}  // namespace

void StateWriter::bytes(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  data_.insert(data_.end(), p, p + size);
}

void StateWriter::store(const ParticleStore& store) {
  tag("PSTO");
  value(uint64_t(store.capacity()));
  store.for_each_field(store.capacity(), [&](const void* field, size_t element, size_t count) {
    bytes(field, element * count);
  });
}

void StateReader::bytes(void* out, size_t size) {
  if (size > size_ - at_) mismatch(fmt::format("{} more bytes", size));
  std::memcpy(out, data_ + at_, size);
  at_ += size;
}

void StateReader::tag(const char (&name)[5]) {
  char found[4];
  bytes(found, 4);
  if (std::memcmp(found, name, 4) != 0) mismatch(fmt::format("section {}", name));
}

void StateReader::store(ParticleStore& store) {
  tag("PSTO");
  if (value<uint64_t>() != store.capacity()) mismatch("a particle store's capacity");
#define FXSIM_READ_FIELD(type, name, what) bytes(store.name.data(), store.capacity() * sizeof(type));
  FXSIM_PARTICLE_FIELDS(FXSIM_READ_FIELD)
#undef FXSIM_READ_FIELD
  // Every slot's floats are finite in any state fxsim saves (an empty slot
  // keeps its last particle's): a NaN from a hand-made state stopped the
  // render as "a bug" (70), naming no file.
#define FXSIM_CHECK_FIELD(type, name, what) require(all_finite(store.name), "finite values of every particle's " what);
  FXSIM_PARTICLE_FIELDS(FXSIM_CHECK_FIELD)
#undef FXSIM_CHECK_FIELD
}

size_t StateReader::count(size_t most) {
  const uint64_t n = value<uint64_t>();
  if (n > most) mismatch(fmt::format("a count of at most {}, not {},", most, n));
  return size_t(n);
}

int64_t StateReader::event_count() {
  const int64_t n = value<int64_t>();
  require(n >= 0 && n <= (int64_t(1) << 53), "an event count in 0..2^53");
  return n;
}

void StateReader::presence(bool present, const std::string& what) {
  require(value<uint8_t>() == uint8_t(present), (present ? "" : "no ") + what);
}

double StateReader::fraction(const std::string& what) {
  const double v = value<double>();
  require(v >= 0 && v < 1, what + " in [0, 1)");  // (false for NaN)
  return v;
}

int64_t StateReader::step_or_none(const std::string& what) {
  const int64_t v = value<int64_t>();
  require(v >= -1 && v <= step, what + " of -1 (none yet) up to the state's step");
  return v;
}

void StateReader::mismatch(const std::string& what) const {
  throw FxError(ExitCode::invalid_scene,
                fmt::format("the checkpoint does not fit this scene: expected {} at byte {} of {}", what, at_, size_));
}

}  // namespace fxsim
