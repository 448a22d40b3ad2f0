#pragma once
// Steps every emitter of a scene with the fixed time step, from time 0 to any
// frame, and manages the effects' lifetimes (appear at `start`, removed after
// `duration`). The CPU backend: all state lives in ParticleStores.
#include <functional>
#include <memory>
#include <vector>

#include "core/parallel.h"
#include "core/particle_system.h"
#include "core/scene.h"
#include "core/wind.h"

namespace fxsim {

// Makes the system of emitter `index` for another backend (the GPU), or
// returns null to leave that emitter to the CPU.
using SystemFactory = std::function<std::unique_ptr<ParticleSystem>(const Scene& scene, size_t index,
                                                                     const WindField& wind, ThreadPool& threads)>;

class Simulation {
 public:
  Simulation(const Scene& scene, int threads, const SystemFactory& factory = {});
  ~Simulation();

  // Steps forward until the state is the one of frame `frame` (time frame / fps).
  // Frames must be visited in increasing order.
  void advance_to_frame(int frame);

  int frame() const { return frame_; }
  double time() const;
  CameraPose camera() const;

  // The motion layer (output.layers has "motion"): every system remembers its
  // particles' positions at the previous frame's time (1 / fps before the
  // frame advanced to), so each sprite carries where it was then.
  // The camera at the previous frame's time.
  CameraPose previous_camera() const;

  // Statistics of the current frame: births and deaths since the previous call.
  FrameStats take_stats();
  // Drops the births and deaths counted since take_stats, as it does, without
  // the statistics' pass over the particles (a GPU reduction and read-back).
  void reset_counters();
  uint64_t state_hash() const;
  // The same hash, captured without waiting for the GPU (StateCapture).
  void capture_state(StateCapture& capture) const;
  std::vector<SpriteBatch> sprites();  // back to front

  // The complete state at the current frame (checkpoints), and that state
  // restored into a simulation of the same scene and backend: it then goes on
  // exactly as the saved one would have (throws FxError(invalid_scene) for a
  // state that does not fit the scene).
  std::vector<uint8_t> save_state();
  void load_state(const std::vector<uint8_t>& state);

  const ThreadPool& pool() const { return pool_; }
  const ParticleSystem& system(size_t emitter) const { return *systems_[emitter]; }

 private:
  void step_once();

  Scene scene_;  // a copy: the systems keep references into it
  ThreadPool pool_;
  WindField wind_;
  std::vector<std::unique_ptr<ParticleSystem>> systems_;
  std::vector<bool> active_, finished_;
  int64_t step_ = 0;  // steps taken; time = step_ × dt
  int frame_ = 0;
  bool track_motion_;
};

// The most bytes Simulation::save_state gives for `scene` on either backend
// (its size is fixed by the scene: stores of fixed capacity, fixed grids):
// every particle slot's fields, the fire grids' cells, and room for each
// system's tags and counts. A checkpoint claiming a larger state is not of
// this scene, and is refused before that state is allocated.
uint64_t most_state_bytes(const Scene& scene);

}  // namespace fxsim
