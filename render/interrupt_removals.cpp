#include "render/interrupt_removals.h"

#include <atomic>
#include <cstring>
#include <unistd.h>

namespace fxsim {

namespace {
constexpr int kSlots = 8;          // a video, a checkpoint, the text outputs of a render (--stats, --state-hashes)…
constexpr int kSlotFolders = 32;  // folders made for one file
struct Slot {
  char path[4096];
  size_t folders[kSlotFolders];  // the lengths of the path's prefixes that are its folders, innermost first
  int folder_count;
  std::atomic<bool> active, taken;
};
Slot g_slots[kSlots];
}  // namespace

int register_removal(const std::string& path, const std::vector<std::filesystem::path>& folders) {
  if (path.size() >= sizeof g_slots[0].path || folders.size() > size_t(kSlotFolders)) return -1;
  for (const auto& f : folders)  // each a prefix of the path, as parent_path() gives it
    if (path.compare(0, f.native().size(), f.native()) != 0) return -1;
  for (int i = 0; i < kSlots; ++i) {
    bool free = false;
    if (!g_slots[i].taken.compare_exchange_strong(free, true)) continue;
    Slot& slot = g_slots[i];
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.folder_count = int(folders.size());
    for (size_t k = 0; k < folders.size(); ++k) slot.folders[k] = folders[folders.size() - 1 - k].native().size();
    slot.active = true;
    return i;
  }
  return -1;
}

void release_removal(int& slot) {
  if (slot < 0) return;
  g_slots[slot].active = false;
  g_slots[slot].taken = false;
  slot = -1;
}

void remove_registered_files() {
  for (Slot& slot : g_slots) {
    if (!slot.active.load()) continue;
    char buffer[sizeof slot.path];
    std::memcpy(buffer, slot.path, sizeof buffer);
    ::unlink(buffer);
    for (int k = 0; k < slot.folder_count; ++k) {
      buffer[slot.folders[k]] = '\0';
      ::rmdir(buffer);
    }
  }
}

}  // namespace fxsim
