// Golden images, through `fxsim test` itself: every example scene is a scene of
// the suite scenes/suite.json, rendered small and compared with the goldens of
// this device class in golden/<scene>/ (the base set is llvmpipe's; see
// docs/testing.md). The state hashes beside them tell a change in the
// simulation (hash differs) from a change in rasterisation (hash equal, pixels
// differ). Update them with scripts/update-golden, in a commit of its own that
// says why. A failing scene leaves its HTML report under build/tests/golden-report/.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_runner.h"

using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
class GoldenTest : public ::testing::TestWithParam<std::string> {};
}  // namespace

TEST_P(GoldenTest, MatchesItsGoldenImagesAndStateHashes) {
  const std::string name = GetParam();
  const fs::path report = fs::path(FXSIM_TEST_OUTPUT_DIR) / "golden-report" / name;
  fs::remove_all(report);
  const CliResult r = run_fxsim("test '" FXSIM_SOURCE_DIR "/scenes' --scene " + name + " --jobs 1 --report '" +
                                report.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << "(report: " << (report / "index.html").string() << ")";
  if (r.exit_code == 0) fs::remove_all(report);
}

INSTANTIATE_TEST_SUITE_P(Scenes, GoldenTest, ::testing::ValuesIn(example_scene_names()),
                         [](const auto& test_info) {
                           std::string n = test_info.param;
                           for (char& c : n) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });
