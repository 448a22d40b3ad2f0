#include "core/simulation.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "core/exit_codes.h"
#include "core/limits.h"
#include "core/effects/registry.h"
#include "core/particles.h"
#include "core/state_archive.h"

namespace fxsim {


Simulation::Simulation(const Scene& scene, int threads, const SystemFactory& factory)
    : scene_(scene), pool_(threads), wind_(scene.environment.wind, scene.seed), track_motion_(scene.output.motion_layer) {
  for (size_t i = 0; i < scene_.emitters.size(); ++i) {
    std::unique_ptr<ParticleSystem> system;
    if (factory) system = factory(scene_, i, wind_, pool_);
    systems_.push_back(system ? std::move(system) : make_cpu_system(scene_, i, wind_, pool_));
  }
  active_.assign(systems_.size(), false);
  finished_.assign(systems_.size(), false);
  // Effects that start at time 0 are there before the first step.
  for (size_t i = 0; i < systems_.size(); ++i) {
    if (scene_.emitters[i].start <= 0) {
      systems_[i]->begin(0.0, camera_at(scene_.camera, 0.0));
      active_[i] = true;
    }
  }
}

Simulation::~Simulation() = default;

double Simulation::time() const { return double(step_) * scene_.step_seconds(); }

CameraPose Simulation::camera() const { return camera_at(scene_.camera, time()); }

CameraPose Simulation::previous_camera() const {
  return camera_at(scene_.camera, scene_.frame_seconds(frame_ - 1));
}

void Simulation::step_once() {
  const double dt = scene_.step_seconds();
  const double t0 = double(step_) * dt, t1 = double(step_ + 1) * dt;
  const CameraPose camera = camera_at(scene_.camera, t1);
  std::optional<float> ground;
  if (scene_.environment.ground) ground = scene_.environment.ground->height;
  const StepContext ctx{step_, t0, t1, float(dt), wind_, scene_.environment.gravity, ground, camera};
  for (size_t i = 0; i < systems_.size(); ++i) {
    const EmitterSettings& e = scene_.emitters[i];
    if (active_[i]) systems_[i]->step(ctx);
    // Lifetimes are decided at step boundaries: an effect is shown in the frames
    // whose time lies in [start, start + duration).
    if (!active_[i] && !finished_[i] && t1 >= e.start) {
      systems_[i]->begin(t1, camera);
      active_[i] = true;
    }
    if (active_[i] && e.duration && t1 >= e.start + *e.duration) {
      systems_[i]->end();
      active_[i] = false;
      finished_[i] = true;
    }
  }
  ++step_;
}

void Simulation::advance_to_frame(int frame) {
  if (frame < frame_) throw std::logic_error("frames must be simulated in increasing order");
  const int64_t target = int64_t(frame) * scene_.output.substeps;
  if (track_motion_ && frame != frame_) {
    // Remembered one frame before the target, however far the last frame was.
    while (step_ < target - scene_.output.substeps) step_once();
    for (size_t i = 0; i < systems_.size(); ++i)
      if (active_[i]) systems_[i]->remember_positions();
  }
  while (step_ < target) step_once();
  frame_ = frame;
}

std::vector<uint8_t> Simulation::save_state() {
  StateWriter out;
  out.tag("SIMU");
  out.value(step_);
  out.value(int64_t(frame_));
  out.value(uint64_t(systems_.size()));
  for (size_t i = 0; i < systems_.size(); ++i) {
    out.value(uint8_t(active_[i]));
    out.value(uint8_t(finished_[i]));
    systems_[i]->save(out);
  }
  out.tag("END.");
  return out.data();
}

void Simulation::load_state(const std::vector<uint8_t>& state) {
  StateReader in(state.data(), state.size());
  in.tag("SIMU");
  in.value(step_);
  const int64_t frame = in.value<int64_t>();
  in.require(frame >= 0 && frame <= kMaxFrames, fmt::format("a frame in 0..{}", kMaxFrames));
  frame_ = int(frame);
  in.step = step_;
  if (in.value<uint64_t>() != systems_.size()) in.tag("EMIT");  // another scene: says so
  for (size_t i = 0; i < systems_.size(); ++i) {
    active_[i] = in.value<uint8_t>() != 0;
    finished_[i] = in.value<uint8_t>() != 0;
    systems_[i]->load(in);
  }
  in.tag("END.");
  if (step_ != int64_t(frame_) * scene_.output.substeps)
    throw FxError(ExitCode::invalid_scene, "the checkpoint does not fit this scene: its step is not its frame's");
}

FrameStats Simulation::take_stats() {
  FrameStats out;
  out.frame = frame_;
  out.time = time();
  for (size_t i = 0; i < systems_.size(); ++i) {
    systems_[i]->take_stats(out, active_[i]);
  }
  return out;
}

void Simulation::reset_counters() {
  for (const auto& s : systems_) s->reset_counters();
}

void Simulation::capture_state(StateCapture& capture) const {
  for (const auto& s : systems_) s->hash_state(capture);
}

uint64_t Simulation::state_hash() const {
  StateHasher hasher;
  for (const auto& s : systems_) s->hash_state(hasher);
  return hasher.value();
}

std::vector<SpriteBatch> Simulation::sprites() {
  const CameraPose cam = camera();
  std::vector<SpriteBatch> batches;
  for (size_t i = 0; i < systems_.size(); ++i)
    if (active_[i]) systems_[i]->add_sprites(cam, batches);
  // Back to front; ties keep the scene's order, so the result is deterministic.
  std::stable_sort(batches.begin(), batches.end(),
                   [](const SpriteBatch& a, const SpriteBatch& b) { return a.distance > b.distance; });
  return batches;
}

uint64_t most_state_bytes(const Scene& scene) {
  constexpr uint64_t kCountsAndTags = 4096;  // a system's own values: under 200 bytes each today
  uint64_t bytes = kCountsAndTags;
  for (const EmitterSettings& e : scene.emitters) {
    bytes += kCountsAndTags + uint64_t(effect_slots(e, scene.environment).total()) * particle_bytes();
    if (const auto* fire = std::get_if<FireParams>(&e.params))
      bytes += uint64_t(fire->rows) * uint64_t(fire->columns) * sizeof(float);
  }
  return bytes;
}

}  // namespace fxsim
