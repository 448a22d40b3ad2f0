#pragma once
// Counter-based random numbers: Philox4x32-10 (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC'11). A draw is a pure function of
// (seed, emitter, stream, spawn index, draw number), so results never depend on
// the order in which threads run, and a GLSL port can produce the same bits.
#include <array>
#include <cstdint>

namespace fxsim {

using Philox4 = std::array<uint32_t, 4>;

// The rounds' multipliers and the key's increments (core/rng_batch.cpp runs
// the same rounds eight counters at a time).
constexpr uint32_t kPhiloxMul0 = 0xD2511F53u, kPhiloxMul1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxWeyl0 = 0x9E3779B9u, kPhiloxWeyl1 = 0xBB67AE85u;
constexpr int kPhiloxRounds = 10;

constexpr Philox4 philox4x32(Philox4 ctr, std::array<uint32_t, 2> key) {
  for (int round = 0; round < kPhiloxRounds; ++round) {
    const uint64_t p0 = uint64_t(kPhiloxMul0) * ctr[0];
    const uint64_t p1 = uint64_t(kPhiloxMul1) * ctr[2];
    const uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
    const uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
    key[0] += kPhiloxWeyl0;
    key[1] += kPhiloxWeyl1;
  }
  return ctr;
}

// A mixing function for deriving seeds (splitmix64's finaliser).
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// What a particle-less random draw is for; kept apart so that, say, adding gusts
// to a scene does not change a single snowflake.
enum class Stream : uint32_t {
  birth = 0,       // a particle's start values
  secondary = 1,   // splashes, mist, debris, embers
  transition = 2,  // per-step chances, such as a drop turning into mist
  grid = 3,        // cellular grids (fire): one index per update
  wind_gust = 16,
  wind_turbulence = 17,
  texture = 32,    // procedural texture shapes
};

// The counter's last word: which emitter and stream the draws are for.
constexpr uint32_t draw_tag(uint32_t emitter, Stream stream) { return (emitter << 8) ^ uint32_t(stream); }
// Uniform [0,1) from the top 24 bits (exactly representable as float), in steps of 2^-24.
constexpr float kUnitStep = 1.0f / 16777216.0f;
constexpr float to_unit(uint32_t bits) { return float(bits >> 8) * kUnitStep; }
// Uniform in the open interval (-1, 1), symmetric about 0 (23 bits, so that
// the half-step offset stays exactly representable).
constexpr float to_signed(uint32_t bits) { return (float(bits >> 9) + 0.5f) * (1.0f / 4194304.0f) - 1.0f; }

// The draws of one (seed, emitter, stream, index): draw d is lane d%4 of block d/4.
class RandomDraws {
 public:
  constexpr RandomDraws(uint64_t seed, uint32_t emitter, Stream stream, uint64_t index)
      : key_{uint32_t(seed), uint32_t(seed >> 32)},
        index_lo_(uint32_t(index)), index_hi_(uint32_t(index >> 32)),
        tag_(draw_tag(emitter, stream)) {}

  constexpr uint32_t bits(uint32_t draw) {
    const uint32_t block = draw >> 2;
    if (block != block_) {
      block_ = block;
      out_ = philox4x32({index_lo_, index_hi_, block, tag_}, key_);
    }
    return out_[draw & 3u];
  }
  constexpr float unit(uint32_t draw) { return to_unit(bits(draw)); }
  constexpr float signed_unit(uint32_t draw) { return to_signed(bits(draw)); }

 private:
  std::array<uint32_t, 2> key_;
  uint32_t index_lo_, index_hi_, tag_;
  uint32_t block_ = 0xFFFFFFFFu;
  Philox4 out_{};
};

}  // namespace fxsim
