#pragma once
// A test suite that shares one headless EGL context of at least GL Major.Minor
// (llvmpipe in CI), made before its first test and destroyed after its last.
#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "render/egl_context.h"

template <int Major, int Minor>
class GlContextTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { context_ = fxsim::EglContext::create(std::nullopt, Major, Minor); }
  static void TearDownTestSuite() { context_.reset(); }
  inline static std::unique_ptr<fxsim::EglContext> context_;
};
