// The digest of what a frame reads besides its scene (core/input_digest.h).
#include "core/input_digest.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace fxsim {
namespace {

namespace fs = std::filesystem;

class InputDigestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "fxsim_inputs_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }
  fs::path dir_;
};

TEST_F(InputDigestTest, AFrameOfASceneThatReadsNoFilesHasNone) {
  const InputDigest digest{Scene{}};
  EXPECT_FALSE(digest.any());
  EXPECT_EQ(digest.of({}), "");
  EXPECT_EQ(digest.of_frame_now(1), "");
}

TEST_F(InputDigestTest, EachFrameOfAPlateSequenceHasItsOwnFilesDigest) {
  for (int frame = 1; frame <= 3; ++frame) write("p_000" + std::to_string(frame) + ".png", "plate");
  write("p_0002.png", "graded");
  Scene scene;
  scene.output.plate = dir_ / "p_####.png";
  scene.texture_files = {write("t.png", "texture")};
  const InputDigest digest(scene);
  ASSERT_TRUE(digest.any());
  EXPECT_EQ(digest.of_frame_now(1)->size(), 64u);
  EXPECT_EQ(digest.of_frame_now(1), digest.of_frame_now(3));  // the same bytes
  EXPECT_NE(digest.of_frame_now(1), digest.of_frame_now(2));
  // As the plate pass gives a frame's plates, read before drawing.
  EXPECT_EQ(digest.of({InputDigest::file_digest((dir_ / "p_0002.png").string()), ""}), digest.of_frame_now(2));
  // A frame whose plate is gone cannot be checked; an empty one can.
  write("p_0004.png", "");
  EXPECT_TRUE(digest.of_frame_now(4));
  EXPECT_FALSE(digest.of_frame_now(5));
  EXPECT_EQ(InputDigest::file_digest((dir_ / "p_0005.png").string()), "missing");
}

TEST_F(InputDigestTest, TheTexturesAreThoseReadWhenItWasMade) {
  Scene scene;
  scene.texture_files = {write("t.png", "texture")};
  const InputDigest before(scene);
  write("t.png", "painted over");
  EXPECT_NE(before.of({}), InputDigest(scene).of({}));
}

TEST_F(InputDigestTest, ContentsCountNotNamesOrRoles) {
  Scene here;
  here.output.plate = write("a.png", "plate");
  here.texture_files = {write("t.png", "texture")};
  Scene elsewhere;  // the same files under other names
  elsewhere.output.plate = write("b.png", "plate");
  elsewhere.texture_files = {write("u.png", "texture")};
  EXPECT_EQ(InputDigest(here).of_frame_now(1), InputDigest(elsewhere).of_frame_now(1));
  Scene swapped;  // the plate's bytes as the depth plate's
  swapped.output.plate_depth = here.output.plate;
  swapped.texture_files = here.texture_files;
  EXPECT_NE(InputDigest(here).of_frame_now(1), InputDigest(swapped).of_frame_now(1));
}

TEST_F(InputDigestTest, AFifoIsNotOpened) {
  const fs::path fifo = dir_ / "fifo.png";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(InputDigest::file_digest(fifo.string()), "not a regular file");  // returned: its open would block
  Scene scene;
  scene.output.plate = fifo;
  EXPECT_FALSE(InputDigest(scene).of_frame_now(1));
}

}  // namespace
}  // namespace fxsim
