#include "core/device_class.h"

#include <algorithm>
#include <cctype>

namespace fxsim {

namespace {
std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Lower case, runs of anything but letters and digits as one '-', trimmed.
std::string slug(const std::string& s) {
  std::string out;
  for (const char c : lower(s)) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

// The model: the renderer up to its first '/' or " (" (driver details), without the vendor's name.
std::string model(const std::string& renderer, const std::string& vendor_word) {
  std::string m = renderer.substr(0, std::min(renderer.find('/'), renderer.find(" (")));
  const std::string l = lower(m);
  if (l.rfind(vendor_word + " ", 0) == 0) m = m.substr(vendor_word.size() + 1);
  return slug(m);
}

DeviceClass with_model(const std::string& base, const std::string& m) { return {m.empty() ? base : base + "-" + m, base}; }
}  // namespace

DeviceClass device_class(const std::string& vendor, const std::string& renderer) {
  const std::string v = lower(vendor), r = lower(renderer);
  if (r.find("llvmpipe") != std::string::npos) return {"llvmpipe", "llvmpipe"};
  if (r.find("softpipe") != std::string::npos) return {"softpipe", "softpipe"};
  if (v.find("nvidia") != std::string::npos || r.find("nvidia") != std::string::npos)
    return with_model("nvidia", model(renderer, "nvidia"));
  if (v.find("amd") != std::string::npos || v.find("ati ") != std::string::npos || r.find("radeon") != std::string::npos)
    return with_model("amd", model(renderer, "amd"));
  if (v.find("intel") != std::string::npos || r.find("intel") != std::string::npos)
    return with_model("intel", model(renderer, "intel"));
  const std::string base = slug(vendor).empty() ? "unknown" : slug(vendor);
  return with_model(base, slug(renderer.substr(0, renderer.find(" ("))));
}

}  // namespace fxsim
