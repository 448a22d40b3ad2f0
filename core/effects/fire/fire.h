#pragma once
// Fire (paper 002 section 2.2): a burning plane of m × n cells. Each update the
// middle `seed_fraction` of the bottom row gets random intensities in
// [0, MAX], and every other cell becomes the mean of itself and the three
// cells below it (cells outside the grid count as 0; intensities are whole
// numbers and the division truncates, as in the paper); intensity maps to colour
// from dark through red, yellow and white, with alpha rising over the first two
// thirds. Updates run `update_rate` times a second whatever the frame rate.
// The plane is drawn as a billboard whose bottom edge stands at `position`,
// its texture made from the grid each frame (flame_texture.h). A fire appears already
// burning: 2 × rows updates are run when it starts. Optional embers: sparks thrown up from the hottest cells,
// rising with the heat, carried by the wind, fading as they cool.
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include <glm/vec4.hpp>

#include "core/particle_pool.h"
#include "core/particle_system.h"
#include "core/scene.h"

namespace fxsim {

// The cellular grid alone, for the simulation and for tests. Row 0 is the top,
// row rows-1 the bottom (the paper's row m).
class FireGrid {
 public:
  FireGrid(int rows, int columns, float seed_fraction);

  int rows() const { return rows_; }
  int columns() const { return columns_; }
  float at(int row, int column) const { return cells_[size_t(row) * size_t(columns_) + size_t(column)]; }
  void set(int row, int column, float value) { cells_[size_t(row) * size_t(columns_) + size_t(column)] = value; }
  // The bottom-row columns [first, last) that are re-seeded each update.
  int first_seed_column() const { return first_seed_; }
  int last_seed_column() const { return last_seed_; }

  // One update; seed(column) gives the new (whole) intensity of each seeded bottom cell.
  template <typename Seed>
  void update(Seed&& seed) {
    next_.assign(cells_.size(), 0.0f);
    for (int i = 0; i < rows_; ++i)
      for (int j = 0; j < columns_; ++j) {
        if (i == rows_ - 1 && j >= first_seed_ && j < last_seed_) {
          next_[index(i, j)] = seed(j);
          continue;
        }
        float below = 0;
        if (i + 1 < rows_) {
          if (j > 0) below += at(i + 1, j - 1);
          below += at(i + 1, j);
          if (j + 1 < columns_) below += at(i + 1, j + 1);
        }
        // Whole intensities, as in the paper: the division truncates, and that
        // loss is what makes the flame cool (fade) as it rises.
        next_[index(i, j)] = std::floor((below + at(i, j)) / 4.0f);
      }
    cells_.swap(next_);
  }

  const std::vector<float>& cells() const { return cells_; }
  void set_cells(std::vector<float> cells) { cells_ = std::move(cells); }  // a checkpoint's, of the same size

 private:
  size_t index(int i, int j) const { return size_t(i) * size_t(columns_) + size_t(j); }
  int rows_, columns_;
  int first_seed_, last_seed_;
  std::vector<float> cells_, next_;
};

// The colour ramp: straight (not premultiplied) sRGB-encoded RGBA for an
// intensity in [0, max]: black → red at max/3 → yellow at 2max/3 → white at
// max; alpha rises from 0 to 1 over [0, 2max/3].
glm::vec4 fire_color(float intensity, float max_intensity);

// Beyond the paper: the outline of a flame (u across, v up, both 0..1) that
// the drawn texture fades out towards, so it does not read as a glowing
// rectangle. The grid itself follows the rule exactly.
float flame_mask(float u, float v);

class FireSystem : public ParticleSystem {
 public:
  FireSystem(const EmitterSettings& settings, size_t emitter_index, const WindField& wind,
             const PoolMaker& make_pool);

  FXSIM_PARTICLE_SYSTEM_OVERRIDES

  const FireGrid& grid() const { return grid_; }
  uint64_t updates() const { return updates_; }
  const ParticlePool& embers() const { return *embers_; }

 private:
  void throw_ember(const StepContext& ctx);
  void update_grid(uint64_t number);  // one update, its random seeds keyed by `number`

  const EmitterSettings& settings_;
  const FireParams& fire_;
  uint32_t emitter_index_;
  const WindField& wind_;
  FireGrid grid_;
  double start_ = 0;
  double now_ = 0;  // the last step's end: the flame's drawn time (not hashed: drawing, not simulation)
  bool remembered_ = false;  // the motion layer's previous frame: the plane does not move
  uint64_t updates_ = 0, embers_thrown_ = 0;  // since the start (not counting the prewarm)
  uint64_t prewarm_updates_ = 0;
  std::unique_ptr<ParticlePool> embers_;
};

}  // namespace fxsim
