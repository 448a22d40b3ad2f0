#pragma once
// scenes/suite.json's tolerance, for tests that hold two ways of drawing a
// frame to the goldens' standard: a pixel fails beyond 3/255, a frame beyond
// 1 % of such pixels (warnings at 1/255).
#include <limits>

#include "core/image_compare.h"

namespace fxsim::test {

inline const CompareThresholds kGoldenTolerance{0.01177, 1, std::numeric_limits<double>::infinity(),
                                                0.00393, 1, std::numeric_limits<double>::infinity()};

}  // namespace fxsim::test
