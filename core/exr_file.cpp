#include "core/exr_file.h"

#include <Imath/half.h>
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfIO.h>
#include <OpenEXR/ImfInputFile.h>
#include <OpenEXR/ImfOutputFile.h>
#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "core/exit_codes.h"

namespace fxsim {

namespace {
// An OpenEXR output stream into memory.
class MemoryStream : public Imf::OStream {
 public:
  MemoryStream() : Imf::OStream("memory") {}
  void write(const char c[], int n) override {
    if (position_ + size_t(n) > bytes_.size()) bytes_.resize(position_ + size_t(n));
    std::memcpy(bytes_.data() + position_, c, size_t(n));
    position_ += size_t(n);
  }
  uint64_t tellp() override { return position_; }
  void seekp(uint64_t pos) override { position_ = size_t(pos); }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
  size_t position_ = 0;
};
// A half of the value, the largest half (65504) for any larger: light that
// bright (a lamp's core at 100 000 candela) became +infinity, which a
// compositor's blur or resize turns into NaN.
constexpr float kHalfMax = 65504.0f;
Imath::half to_half(float v) { return Imath::half(std::clamp(v, -kHalfMax, kHalfMax)); }
}  // namespace

float exr_stored(float v) { return float(to_half(v)); }

std::vector<uint8_t> encode_exr(const LinearImage& color, const std::vector<ExrLayer>& layers) {
  const size_t pixels = size_t(color.width) * size_t(color.height);
  if (color.width <= 0 || color.height <= 0 || color.rgba.size() != pixels * 4)
    throw FxError(ExitCode::internal, "EXR encoding: the image's size does not match its pixels");
  Imf::Header header(color.width, color.height);
  header.compression() = Imf::ZIP_COMPRESSION;
  // Half floats, interleaved per channel: R, G, B, A from the colour, then
  // each layer (in 32-bit float where it asks).
  std::vector<std::pair<std::string, std::vector<Imath::half>>> planes;
  std::vector<std::pair<std::string, const std::vector<float>*>> float_planes;
  for (int c = 0; c < 4; ++c) {
    std::vector<Imath::half> plane(pixels);
    for (size_t i = 0; i < pixels; ++i) plane[i] = to_half(color.rgba[i * 4 + size_t(c)]);
    planes.emplace_back(std::string(1, "RGBA"[c]), std::move(plane));
  }
  for (const ExrLayer& layer : layers) {
    if (layer.values.size() != pixels) throw FxError(ExitCode::internal, "EXR encoding: a layer's size differs");
    if (layer.full_float) {
      float_planes.emplace_back(layer.name, &layer.values);
      continue;
    }
    std::vector<Imath::half> plane(pixels);
    for (size_t i = 0; i < pixels; ++i) plane[i] = to_half(layer.values[i]);
    planes.emplace_back(layer.name, std::move(plane));
  }
  Imf::FrameBuffer buffer;
  for (auto& [name, plane] : planes) {
    header.channels().insert(name, Imf::Channel(Imf::HALF));
    buffer.insert(name, Imf::Slice(Imf::HALF, reinterpret_cast<char*>(plane.data()), sizeof(Imath::half),
                                   sizeof(Imath::half) * size_t(color.width)));
  }
  for (auto& [name, values] : float_planes) {
    header.channels().insert(name, Imf::Channel(Imf::FLOAT));
    buffer.insert(name, Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(const_cast<float*>(values->data())),
                                   sizeof(float), sizeof(float) * size_t(color.width)));
  }
  MemoryStream stream;
  try {
    Imf::OutputFile file(stream, header);
    file.setFrameBuffer(buffer);
    file.writePixels(color.height);
  } catch (const std::exception& e) {
    throw FxError(ExitCode::internal, std::string("EXR encoding: ") + e.what());
  }
  return std::move(stream.bytes());
}

ExrChannels read_exr(const std::filesystem::path& path) {
  ExrChannels out;
  try {
    Imf::InputFile file(path.c_str());
    const Imath::Box2i window = file.header().dataWindow();
    out.width = window.max.x - window.min.x + 1;
    out.height = window.max.y - window.min.y + 1;
    const size_t pixels = size_t(out.width) * size_t(out.height);
    Imf::FrameBuffer buffer;
    for (auto c = file.header().channels().begin(); c != file.header().channels().end(); ++c) {
      std::vector<float>& plane = out.channels[c.name()];
      plane.resize(pixels);
      char* origin = reinterpret_cast<char*>(plane.data()) -
                     (ptrdiff_t(window.min.x) + ptrdiff_t(window.min.y) * out.width) * ptrdiff_t(sizeof(float));
      buffer.insert(c.name(), Imf::Slice(Imf::FLOAT, origin, sizeof(float), sizeof(float) * size_t(out.width)));
    }
    file.setFrameBuffer(buffer);
    file.readPixels(window.min.y, window.max.y);
  } catch (const std::exception& e) {
    throw FxError(ExitCode::input_missing, fmt::format("{}: cannot read the EXR file ({})", path.string(), e.what()));
  }
  return out;
}

}  // namespace fxsim
