#pragma once
// How much memory a render of a scene needs, and how much the machine has
// free: refusing a scene that cannot fit is better than being killed, or
// swapping, halfway through a render.
#include <cstddef>
#include <string>

#include "core/diagnostics.h"
#include "core/scene.h"

namespace fxsim {

// RAM a render takes on the CPU backend: every emitter's particle slots
// (primary and secondary) and the sprites built from them each frame.
size_t cpu_particle_bytes(const Scene& scene);

// Frame images: on the GL, the multisampled float colour and depth buffers
// and the resolved, graded and read-back images; in RAM, the images in flight (read back, queued, being
// encoded) and the PNG being encoded.
// Layers (masks, depth, motion, the plate's copy) and 16-bit or EXR frames
// count too: each frame in flight carries them.
size_t gl_image_bytes(const Scene& scene);
size_t ram_image_bytes(const Scene& scene);

// RAM the scene's textures take (its PNG snowflakes, an explosion's
// flipbook): about 8 times each one's decoded size (measured with llvmpipe:
// a 4096² texture took 500 MB more at the peak, each time it is listed).
size_t texture_ram_bytes(const Scene& scene);

// Memory the system can give a new allocation without swapping (MemAvailable
// of /proc/meminfo; the physical RAM where that cannot be read).
size_t available_ram_bytes();

// A refusal for memory, located as scene errors are ("file:line:column:
// /pointer: message"), at the value to lower: the max_particles of the
// emitter with the most particle slots, or the output's width where its
// images outweigh every emitter's particles ("file: /pointer: message"
// where the file cannot be read again: standard input).
// A scene problem (exit 65), reported as every other: with the count of problems.
SceneError memory_refusal(const Scene& scene, const std::string& message);

// Throws FxError(invalid_scene) when `needed` bytes of RAM are
// more than 90 % of what is available, with `hint` appended to the advice.
void check_ram(const Scene& scene, size_t needed, const std::string& hint = {});

std::string format_bytes(double bytes);

}  // namespace fxsim
