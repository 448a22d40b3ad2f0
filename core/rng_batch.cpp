#include "core/rng_batch.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace fxsim {

#if defined(__x86_64__) && defined(__GNUC__)
namespace {
// The high 32 bits of each lane's product with m (AVX2 multiplies the even
// lanes; the odd ones are shifted down into even places first).
__attribute__((target("avx2"))) inline __m256i mul_high(__m256i x, __m256i m) {
  const __m256i even = _mm256_mul_epu32(x, m), odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);
  return _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}
// Eight indices' 64 bits split into their low and high 32-bit halves.
__attribute__((target("avx2"))) inline void split(const uint64_t* index, __m256i& low, __m256i& high) {
  const __m256i order = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  const __m256i a = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(index)), order);
  const __m256i b =
      _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(index + 4)), order);
  low = _mm256_permute2x128_si256(a, b, 0x20);
  high = _mm256_permute2x128_si256(a, b, 0x31);
}
// philox4x32 of rng.h, round for round, on eight counters; returns where it stopped.
__attribute__((target("avx2"))) size_t unit_draws_avx2(uint64_t seed, uint32_t emitter, Stream stream,
                                                       const uint64_t* index, uint32_t draw, float* out, size_t n) {
  const __m256i mul0 = _mm256_set1_epi32(int(kPhiloxMul0)), mul1 = _mm256_set1_epi32(int(kPhiloxMul1));
  const __m256i block = _mm256_set1_epi32(int(draw >> 2));
  const __m256i tag = _mm256_set1_epi32(int(draw_tag(emitter, stream)));
  __m256i key0[kPhiloxRounds], key1[kPhiloxRounds];
  uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  for (int round = 0; round < kPhiloxRounds; ++round, k0 += kPhiloxWeyl0, k1 += kPhiloxWeyl1)
    key0[round] = _mm256_set1_epi32(int(k0)), key1[round] = _mm256_set1_epi32(int(k1));
  const __m256 scale = _mm256_set1_ps(kUnitStep);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i c[4];
    split(index + i, c[0], c[1]);
    c[2] = block;
    c[3] = tag;
    for (int round = 0; round < kPhiloxRounds; ++round) {
      const __m256i hi0 = mul_high(c[0], mul0), lo0 = _mm256_mullo_epi32(c[0], mul0);
      const __m256i hi1 = mul_high(c[2], mul1), lo1 = _mm256_mullo_epi32(c[2], mul1);
      c[0] = _mm256_xor_si256(_mm256_xor_si256(hi1, c[1]), key0[round]);
      c[1] = lo1;
      c[2] = _mm256_xor_si256(_mm256_xor_si256(hi0, c[3]), key1[round]);
      c[3] = lo0;
    }
    // to_unit: the top 24 bits, exactly a float, times 2^-24.
    const __m256i bits = _mm256_srli_epi32(c[draw & 3u], 8);
    _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_cvtepi32_ps(bits), scale));
  }
  return i;
}
}  // namespace
#endif

void unit_draws(uint64_t seed, uint32_t emitter, Stream stream, const uint64_t* index, uint32_t draw, float* out,
                size_t n) {
  size_t first = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) first = unit_draws_avx2(seed, emitter, stream, index, draw, out, n);
#endif
  for (size_t k = first; k < n; ++k) out[k] = RandomDraws(seed, emitter, stream, index[k]).unit(draw);
}

}  // namespace fxsim
