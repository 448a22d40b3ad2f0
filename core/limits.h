#pragma once
// The documented limits of fxsim's input (README, "Reliability"; docs/scene-format.md).
// Each exists so that hostile or mistaken input is refused with a clear message
// instead of exhausting memory or time.
#include <cstddef>
#include <cstdint>

namespace fxsim {

// A scene file is read up to this size; a larger one is refused (exit 65).
inline constexpr size_t kMaxSceneBytes = size_t(16) << 20;
// Output images are at most this many pixels a side (the GL may allow less:
// render then refuses the size, naming the GL's limit).
inline constexpr int kMaxImageSide = 16384;
// A scene lists at most this many emitters (each costs a draw and textures per frame).
inline constexpr size_t kMaxEmitters = 4096;
// Particles physical rain or snow fills its box with when max_particles is not given.
inline constexpr int64_t kMaxPhysicalParticles = 20000000;
// Frames a scene may have (and the highest frame a checkpoint may hold).
inline constexpr int kMaxFrames = 10000000;
// Layers of one texture array: an explosion's flipbook frames, a rain or snow
// emitter's textures. Every GL 4.5 has at least this many (llvmpipe and
// NVIDIA's have exactly this); more failed at the first draw with a GL error.
inline constexpr int kMaxTextureLayers = 2048;
// Lights a scene may have (each is a uniform of the sprite and ground shaders).
inline constexpr size_t kMaxLights = 16;
// Problems printed for one scene; the rest are counted.
inline constexpr size_t kMaxProblemsShown = 100;
// A texture PNG may be at most this many pixels a side and this many bytes.
inline constexpr int kMaxTextureSide = 8192;
inline constexpr size_t kMaxTextureBytes = size_t(64) << 20;
// A frame or plate PNG (what fxsim writes, compares and verifies, and a plate
// the frame's size): kMaxImageSide a side, and as many bytes as the decoder
// takes (an int's worth: a 16384² 16-bit RGBA frame can come near it).
inline constexpr size_t kMaxFrameFileBytes = size_t(INT32_MAX);

}  // namespace fxsim
