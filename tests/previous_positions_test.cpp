// The motion layer's previous positions: a slot keeps its previous position
// only while it holds the same particle, and a wrap across the box is no motion.
#include <gtest/gtest.h>

#include "core/parallel.h"
#include "core/previous_positions.h"

using namespace fxsim;

namespace {
ParticleStore three_particles() {
  ParticleStore store(3);
  for (size_t i = 0; i < 3; ++i) {
    store.set_position(i, {float(i), 1, 2});
    store.generation[i] = 7;
    store.age[i] = 0.5f;
  }
  store.age[2] = -1;  // empty
  return store;
}
}  // namespace

TEST(PreviousPositions, NothingRememberedGivesNoPreviousPosition) {
  const ParticleStore store = three_particles();
  PreviousPositions previous;
  EXPECT_FALSE(previous.remembered());
  EXPECT_EQ(previous.of(store, 0).w, 0.0f);
}

TEST(PreviousPositions, TheSameParticleKeepsWhereItWasAndANewOneHasNone) {
  ThreadPool threads(2);
  ParticleStore store = three_particles();
  PreviousPositions previous;
  previous.remember(store, 3, true, threads);
  store.set_position(0, {0.25f, 1, 2});  // moved
  store.set_position(1, {5, 5, 5});
  ++store.generation[1];                 // reborn in its slot
  store.age[2] = 0;                      // born in an empty slot
  EXPECT_EQ(previous.of(store, 0), glm::vec4(0, 1, 2, 1));
  EXPECT_EQ(previous.of(store, 1).w, 0.0f);
  EXPECT_EQ(previous.of(store, 2).w, 0.0f);
  store.age[0] = -1;  // died
  EXPECT_EQ(previous.of(store, 0).w, 0.0f);
  previous.forget();
  EXPECT_EQ(previous.of(store, 1).w, 0.0f);
}

TEST(PreviousPositions, SlotsBeyondTheRememberedCountHaveNone) {
  ThreadPool threads(1);
  ParticleStore store = three_particles();
  PreviousPositions previous;
  previous.remember(store, 1, false, threads);  // slots [0, 1) held particles then
  EXPECT_EQ(previous.of(store, 0).w, 1.0f);
  EXPECT_EQ(previous.of(store, 1).w, 0.0f);
}

TEST(PreviousPositions, ATravelOfMoreThanHalfTheBoxAlongOneAxisIsAWrap) {
  ThreadPool threads(1);
  ParticleStore store = three_particles();
  PreviousPositions previous;
  previous.remember(store, 2, true, threads);
  const WrapBox box{glm::mat3(1), {4, 0.5f, 4}};
  store.set_position(0, {0.3f, 1.4f, 2});  // 0.4 m down the thin axis: a motion
  EXPECT_EQ(previous.of(store, 0, box).w, 1.0f);
  store.set_position(0, {0.3f, 0.4f, 2});  // 0.6 m: it wrapped
  EXPECT_EQ(previous.of(store, 0, box).w, 0.0f);
  // The box's own axes: rotated 90° about y, its thin axis is still y; x and z swap.
  const WrapBox turned{glm::mat3(glm::vec3(0, 0, -1), glm::vec3(0, 1, 0), glm::vec3(1, 0, 0)), {4, 0.5f, 1}};
  store.set_position(0, {1.5f, 1, 2});  // 1.5 m along world x: the box's z, half 1
  EXPECT_EQ(previous.of(store, 0, turned).w, 0.0f);
  store.set_position(0, {0, 1, 5});  // 3 m along world z: the box's x, half 4
  EXPECT_EQ(previous.of(store, 0, turned).w, 1.0f);
  EXPECT_EQ(previous.of(store, 0).w, 1.0f);  // no box: any travel is a motion
}
