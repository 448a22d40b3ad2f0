#pragma once
// The simulation's complete state as bytes, for checkpoints: each system
// writes its fields in a fixed order (little-endian, as laid out in memory on
// every machine fxsim builds for) and reads them back in the same order. A
// reader that runs out of bytes, or finds a count that does not match the
// scene, throws: a checkpoint of another scene never half-loads silently.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/particles.h"

namespace fxsim {

class StateWriter {
 public:
  void bytes(const void* data, size_t size);
  template <class T>
  void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes(&v, sizeof v);
  }
  template <class T>
  void vector(const std::vector<T>& v) {
    value(uint64_t(v.size()));
    bytes(v.data(), v.size() * sizeof(T));
  }
  // A section tag: a reader checks it, so a misaligned read stops at once.
  void tag(const char (&name)[5]) { bytes(name, 4); }
  // Every field of slots [0, capacity) of a store.
  void store(const ParticleStore& store);
  const std::vector<uint8_t>& data() const { return data_; }

 private:
  std::vector<uint8_t> data_;
};

class StateReader {
 public:
  StateReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  void bytes(void* out, size_t size);
  template <class T>
  T value() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    bytes(&v, sizeof v);
    return v;
  }
  template <class T>
  void value(T& out) { out = value<T>(); }
  // A vector of exactly `expected` elements (the scene decides the size).
  template <class T>
  void vector(std::vector<T>& out, size_t expected) {
    const uint64_t n = value<uint64_t>();
    if (n != expected) mismatch("a vector's length");
    out.resize(expected);
    bytes(out.data(), expected * sizeof(T));
  }
  void tag(const char (&name)[5]);
  // A count of at most `most` (live particles in a store of that capacity).
  size_t count(size_t most);
  // A count of events so far (particles spawned, died): 0 … 2^53, so that
  // adding to it never overflows.
  int64_t event_count();
  // A double in [0, 1) (a carry of a fraction of a particle), named `what` if refused.
  double fraction(const std::string& what);
  // A section's presence flag (StateWriter::value(uint8_t)): refused unless
  // it says what the scene has, `what` present or not.
  void presence(bool present, const std::string& what);
  // A step of this simulation's so far, or -1 for none yet, named `what` if refused.
  int64_t step_or_none(const std::string& what);
  // Refuses the state, naming what was expected, unless `fits`: for values a
  // hand-made state (its digest made to match) could set to anything.
  void require(bool fits, const std::string& expected) const {
    if (!fits) mismatch(expected);
  }
  // The step the state's simulation had reached (Simulation::load_state
  // reads it first): no system's own step may lie beyond it.
  int64_t step = 0;
  // Into a store of the same capacity.
  void store(ParticleStore& store);
  bool done() const { return at_ == size_; }

 private:
  [[noreturn]] void mismatch(const std::string& what) const;
  const uint8_t* data_;
  size_t size_, at_ = 0;
};

}  // namespace fxsim
