#include "core/glibc_cosf.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace fxsim {

namespace {
// glibc's __sincosf_table[0] (sysdeps/ieee754/flt-32/sincosf_data.c). The
// second table, used where n & 2, holds the cosine's coefficients negated and
// the same sine coefficients: its cosine is exactly the first's, negated.
constexpr double kHalfPiInverse = 0x1.45f306dc9c883p+23;  // 2/π · 2^24: the quadrant lands in bits 24 to 31
constexpr double kHalfPi = 0x1.921fb54442d18p+0;
constexpr double kC0 = 0x1p0, kC1 = -0x1.ffffffd0c621cp-2, kC2 = 0x1.55553e1068f19p-5,
                 kC3 = -0x1.6c087e89a359dp-10, kC4 = 0x1.99343027bf8c3p-16;
constexpr double kS1 = -0x1.555545995a603p-3, kS2 = 0x1.1107605230bc4p-7, kS3 = -0x1.994eb3774cf24p-13;

// The top 12 bits of |x| (exponent and the mantissa's first three): glibc's abstop12.
uint32_t abstop12(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  return (bits >> 20) & 0x7ff;
}
constexpr uint32_t kTop12Tiny = 0x398;       // 2^-12: cos is 1
constexpr uint32_t kTop12QuarterPi = 0x3f4;  // π/4: no reduction
constexpr uint32_t kTop12Large = 0x42f;      // 120: the fast reduction's limit

// glibc's sinf_poly for an even quadrant (the cosine) and an odd one (the sine),
// each operation as its FMA build does it.
double cosine_poly(double x2) {
  const double x4 = x2 * x2;
  const double c1 = std::fma(x2, kC1, kC0), c2 = std::fma(x2, kC4, kC3);
  const double x6 = x2 * x4;
  const double c = std::fma(x4, kC2, c1);
  return std::fma(x6, c2, c);
}
double sine_poly(double x, double x2) {
  const double s1 = std::fma(x2, kS3, kS2);
  const double x3 = x2 * x, x7 = x2 * x3;
  const double s = std::fma(x3, kS1, x);
  return std::fma(x7, s1, s);
}
}  // namespace

float glibc_cosf(float y) {
  const uint32_t top = abstop12(y);
  if (top >= kTop12Large) return std::cos(y);
  if (top < kTop12Tiny) return 1.0f;
  const double x = y;
  if (top < kTop12QuarterPi) return float(cosine_poly(x * x));
  const int32_t n = (int32_t(x * kHalfPiInverse) + 0x800000) >> 24;
  const double r = std::fma(-double(n), kHalfPi, x);
  // Quadrants 1 and 2 are negative: the sine's sign in 1, the second table's cosine in 2.
  const double sign = ((n + 1) & 2) ? -1.0 : 1.0;
  if (n & 1) return float(sine_poly(r * sign, r * r));
  return float(sign * cosine_poly(r * r));
}

#if defined(__x86_64__) && defined(__GNUC__)
namespace {
// Four at a time, both polynomials for every lane, the quadrant choosing; the
// small-argument path needs no lanes of its own (there n is 0 and the reduction
// leaves x as it is), nor does the tiny one (its polynomial rounds to 1).
// Returns where it stopped; lanes of 120 or more are done by glibc_cosf.
__attribute__((target("avx2,fma"))) size_t cosf_avx2(const float* in, float* out, size_t n) {
  const __m256d inverse = _mm256_set1_pd(kHalfPiInverse), half_pi = _mm256_set1_pd(kHalfPi);
  const __m256d sign_bit = _mm256_set1_pd(-0.0);
  const __m128 magnitude_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  const __m128 large = _mm_set1_ps(120.0f);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128 y = _mm_loadu_ps(in + i);
    const __m256d x = _mm256_cvtps_pd(y);
    const __m128i quadrant = _mm_srai_epi32(
        _mm_add_epi32(_mm256_cvttpd_epi32(_mm256_mul_pd(x, inverse)), _mm_set1_epi32(0x800000)), 24);
    const __m256d r = _mm256_fnmadd_pd(_mm256_cvtepi32_pd(quadrant), half_pi, x);
    const __m256d x2 = _mm256_mul_pd(r, r);
    // cosine_poly
    const __m256d x4 = _mm256_mul_pd(x2, x2);
    const __m256d c1 = _mm256_fmadd_pd(x2, _mm256_set1_pd(kC1), _mm256_set1_pd(kC0));
    const __m256d c2 = _mm256_fmadd_pd(x2, _mm256_set1_pd(kC4), _mm256_set1_pd(kC3));
    const __m256d x6 = _mm256_mul_pd(x2, x4);
    const __m256d cosine = _mm256_fmadd_pd(x6, c2, _mm256_fmadd_pd(x4, _mm256_set1_pd(kC2), c1));
    // sine_poly
    const __m256d s1 = _mm256_fmadd_pd(x2, _mm256_set1_pd(kS3), _mm256_set1_pd(kS2));
    const __m256d x3 = _mm256_mul_pd(x2, r);
    const __m256d x7 = _mm256_mul_pd(x2, x3);
    const __m256d sine = _mm256_fmadd_pd(x7, s1, _mm256_fmadd_pd(x3, _mm256_set1_pd(kS1), r));
    // Odd quadrants take the sine; quadrants 1 and 2 are negated (bit 63 of each lane from bit 31 of the int).
    const __m256d odd = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_slli_epi32(quadrant, 31)));
    const __m256d negative = _mm256_castsi256_pd(
        _mm256_cvtepi32_epi64(_mm_slli_epi32(_mm_add_epi32(quadrant, _mm_set1_epi32(1)), 30)));
    const __m256d value = _mm256_xor_pd(_mm256_blendv_pd(cosine, sine, odd), _mm256_and_pd(negative, sign_bit));
    _mm_storeu_ps(out + i, _mm256_cvtpd_ps(value));
    // |y| of 120 or more, or NaN: the C library's path (rare: the sway's
    // arguments are below 4π), from the arguments as loaded (out may be in).
    const int beyond = _mm_movemask_ps(_mm_cmp_ps(_mm_and_ps(y, magnitude_mask), large, _CMP_NLT_UQ));
    if (beyond) {
      float arguments[4];
      _mm_storeu_ps(arguments, y);
      for (int lane = 0; lane < 4; ++lane)
        if (beyond & (1 << lane)) out[i + size_t(lane)] = glibc_cosf(arguments[lane]);
    }
  }
  return i;
}

// cosf_avx2 eight at a time with AVX-512: the same operations lane by lane
// (snow's sway, a cosine a flake, was a third of its steady step on an AMD
// EPYC with AVX-512: 1 M flakes, one thread). GCC 12's AVX-512 headers start
// vectors from _mm512_undefined: it warns of them once they are inlined.
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
__attribute__((target("avx512f,avx2,fma"))) size_t cosf_avx512(const float* in, float* out, size_t n) {
  const __m512d inverse = _mm512_set1_pd(kHalfPiInverse), half_pi = _mm512_set1_pd(kHalfPi);
  const __m512i sign_bit = _mm512_set1_epi64(int64_t(uint64_t(1) << 63)), one = _mm512_set1_epi64(1),
                two = _mm512_set1_epi64(2);
  const __m256 magnitude_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256 large = _mm256_set1_ps(120.0f);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 y = _mm256_loadu_ps(in + i);
    const __m512d x = _mm512_cvtps_pd(y);
    const __m256i quadrant = _mm256_srai_epi32(
        _mm256_add_epi32(_mm512_cvttpd_epi32(_mm512_mul_pd(x, inverse)), _mm256_set1_epi32(0x800000)), 24);
    const __m512d r = _mm512_fnmadd_pd(_mm512_cvtepi32_pd(quadrant), half_pi, x);
    const __m512d x2 = _mm512_mul_pd(r, r);
    // cosine_poly
    const __m512d x4 = _mm512_mul_pd(x2, x2);
    const __m512d c1 = _mm512_fmadd_pd(x2, _mm512_set1_pd(kC1), _mm512_set1_pd(kC0));
    const __m512d c2 = _mm512_fmadd_pd(x2, _mm512_set1_pd(kC4), _mm512_set1_pd(kC3));
    const __m512d x6 = _mm512_mul_pd(x2, x4);
    const __m512d cosine = _mm512_fmadd_pd(x6, c2, _mm512_fmadd_pd(x4, _mm512_set1_pd(kC2), c1));
    // sine_poly
    const __m512d s1 = _mm512_fmadd_pd(x2, _mm512_set1_pd(kS3), _mm512_set1_pd(kS2));
    const __m512d x3 = _mm512_mul_pd(x2, r);
    const __m512d x7 = _mm512_mul_pd(x2, x3);
    const __m512d sine = _mm512_fmadd_pd(x7, s1, _mm512_fmadd_pd(x3, _mm512_set1_pd(kS1), r));
    // Odd quadrants take the sine; quadrants 1 and 2 ((n + 1) & 2) are negated.
    const __m512i n64 = _mm512_cvtepi32_epi64(quadrant);
    const __mmask8 odd = _mm512_test_epi64_mask(n64, one);
    const __mmask8 negative = _mm512_test_epi64_mask(_mm512_add_epi64(n64, one), two);
    const __m512i picked = _mm512_castpd_si512(_mm512_mask_blend_pd(odd, cosine, sine));
    const __m512d value = _mm512_castsi512_pd(_mm512_mask_xor_epi64(picked, negative, picked, sign_bit));
    _mm256_storeu_ps(out + i, _mm512_cvtpd_ps(value));
    const int beyond = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_and_ps(y, magnitude_mask), large, _CMP_NLT_UQ));
    if (beyond) {
      float arguments[8];
      _mm256_storeu_ps(arguments, y);
      for (int lane = 0; lane < 8; ++lane)
        if (beyond & (1 << lane)) out[i + size_t(lane)] = glibc_cosf(arguments[lane]);
    }
  }
  // The last few four at a time.
  return i + cosf_avx2(in + i, out + i, n - i);
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
}  // namespace
#endif

namespace {
std::atomic<int> g_cosf_lanes{8};  // limit_cosf_vector_width's
}  // namespace

void limit_cosf_vector_width(int lanes) { g_cosf_lanes.store(lanes, std::memory_order_relaxed); }

void glibc_cosf_array(const float* in, float* out, size_t n) {
  size_t first = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  static const bool avx512 = avx2_fma && __builtin_cpu_supports("avx512f");
  const int lanes = g_cosf_lanes.load(std::memory_order_relaxed);
  if (avx512 && lanes >= 8) first = cosf_avx512(in, out, n);
  else if (avx2_fma && lanes >= 4) first = cosf_avx2(in, out, n);
#endif
  for (size_t i = first; i < n; ++i) out[i] = glibc_cosf(in[i]);
}

}  // namespace fxsim
