#pragma once
// cos of floats, bit for bit as glibc's cosf computes them on a CPU with FMA
// (__cosf_fma, the variant glibc 2.28 and later pick on every x86-64 CPU with
// AVX2 and FMA; elsewhere these are still that variant's bits), so that a
// loop over many can be vectorised without changing a single result: the
// snow step's sway takes one cosine a flake, and the state hashes were made
// with glibc's.
//
// The algorithm is glibc's (sysdeps/ieee754/flt-32/s_cosf.c, from Arm's
// optimized-routines): the argument in double, reduced by a multiple n of π/2
// (x - n·π/2 in one fused multiply-add), then one of two polynomials in x²,
// evaluated in the order of its FMA build and rounded to float once. |x| of
// 120 or more, infinities and NaN go to the C library's own cosf.
#include <cstddef>

namespace fxsim {

float glibc_cosf(float x);

// out[i] = glibc_cosf(in[i]) for i < n (out may be in); eight at a time with
// AVX-512, four with AVX2 and FMA where the CPU has them, glibc_cosf
// otherwise (the same bits either way).
void glibc_cosf_array(const float* in, float* out, size_t n);

// For the tests: at most this many lanes at a time (8, 4 or 1), so that each
// path is compared on a CPU that has the wider ones.
void limit_cosf_vector_width(int lanes);

}  // namespace fxsim
