#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/exit_codes.h"
#include "core/stats.h"

using namespace fxsim;

TEST(Stats, ANonFiniteParticleStopsTheRenderNamingEmitterAndFrame) {
  FrameStats stats;
  stats.frame = 12;
  stats.time = 0.5;
  EmitterStats fine;
  fine.name = "snow";
  fine.type = "snow";
  fine.live = 10;
  stats.emitters.push_back(fine);
  EXPECT_NO_THROW(check_finite(stats));
  EmitterStats broken = fine;
  broken.name = "rain";
  broken.type = "rain";
  broken.mean_velocity.y = std::numeric_limits<double>::quiet_NaN();
  stats.emitters.push_back(broken);
  try {
    check_finite(stats);
    FAIL() << "a NaN velocity passed";
  } catch (const FxError& e) {
    EXPECT_EQ(e.code(), ExitCode::internal);
    EXPECT_NE(std::string(e.what()).find("emitter \"rain\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("frame 12"), std::string::npos) << e.what();
  }
  // An emitter with no live particle has nothing to check (its means are undefined).
  stats.emitters.back().live = 0;
  EXPECT_NO_THROW(check_finite(stats));
  stats.emitters.back().live = 1;
  stats.emitters.back().mean_velocity.y = 0;
  stats.emitters.back().max.x = std::numeric_limits<double>::infinity();
  EXPECT_THROW(check_finite(stats), FxError);
}
