#pragma once
// Many particles' draws at once: RandomDraws(seed, emitter, stream, index[k])
// for a list of indices and one draw number, eight Philox blocks at a time in
// AVX2 where the CPU has it (the same integer arithmetic, so the same bits).
// A per-step chance for every particle (a fountain drop turning into mist)
// is one such draw a particle a step.
#include <cstddef>
#include <cstdint>

#include "core/rng.h"

namespace fxsim {

// out[k] = RandomDraws(seed, emitter, stream, index[k]).unit(draw) for k < n.
void unit_draws(uint64_t seed, uint32_t emitter, Stream stream, const uint64_t* index, uint32_t draw, float* out,
                size_t n);

}  // namespace fxsim
