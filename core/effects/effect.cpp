#include "core/effects/effect.h"

#include <fmt/format.h>

#include "core/image.h"
#include "core/limits.h"
#include "core/scene_reader.h"

namespace fxsim {

size_t SlotPlan::total() const {
  size_t n = particles;
  for (const auto& pool : pools) n += pool.slots;
  return n;
}

size_t SlotPlan::pool_slots(const std::string& suffix) const {
  for (const auto& pool : pools)
    if (pool.suffix == suffix) return pool.slots;
  return 0;
}

std::filesystem::path ParseContext::texture(ObjectReader& r, const std::string& pointer, const std::string& written,
                                            int* width, int* height) const {
  std::filesystem::path path = written;
  if (path.is_relative()) path = base_dir / path;
  auto found = checked_.find(path);
  if (found == checked_.end()) {
    Checked c;
    c.problem = png_problem(path, &c.width, &c.height);
    found = checked_.emplace(path, std::move(c)).first;
  }
  if (width) *width = found->second.width;
  if (height) *height = found->second.height;
  if (const std::string& why = found->second.problem; !why.empty()) {
    // The names as JSON strings: a NUL in one cut the message short there.
    const auto quoted = [](const std::string& s) { return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace); };
    const std::string message = fmt::format("expected a PNG file of at most {}×{} pixels, got {} ({}), which cannot "
                                            "be used: {}", kMaxTextureSide, kMaxTextureSide, quoted(written),
                                            quoted(path.string()), why);
    if (is_readable_file(path)) r.error(pointer, message);
    else r.missing_file(pointer, message);
  }
  return path;
}

}  // namespace fxsim
