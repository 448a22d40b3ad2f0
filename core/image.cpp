#include "core/image.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <fmt/format.h>
#include <stb_image.h>
#include <stb_image_resize.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/color.h"
#include "core/exit_codes.h"
#include "core/limits.h"

namespace fxsim {

bool is_readable_file(const std::filesystem::path& path) {
  struct stat st {};
  return path.native().find('\0') == std::string::npos && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         ::access(path.c_str(), R_OK) == 0;
}

namespace {

// The file's bytes, or why they cannot be had.
std::string read_bounded(const std::filesystem::path& path, std::vector<uint8_t>& bytes, size_t most) {
  // (The system would read the name up to the NUL: "a.png\0x" as a.png, "\0.png" as its folder.)
  if (path.native().find('\0') != std::string::npos) return "its name holds a NUL character, which no file's name can";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return fmt::format("cannot open it ({})", std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return "it is a directory";
  if (!S_ISREG(st.st_mode)) return "it is not a regular file";
  if (size_t(st.st_size) > most)
    return fmt::format("it is {} bytes; the most fxsim reads is {} ({} MiB)", st.st_size, most, most >> 20);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return fmt::format("cannot open it ({})", std::strerror(errno));
  bytes.resize(size_t(st.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  ::close(fd);
  bytes.resize(done);
  return {};
}

struct Decoded {
  std::string problem;
  Image image;
  Samples16 samples;  // 16-bit decoding
};
Decoded failed(std::string why) {
  Decoded d;
  d.problem = std::move(why);
  return d;
}

// A PNG's 32-bit big-endian number (a chunk's length, CRC, IHDR's size) at `p`.
uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

// The IHDR chunk, which must come first after the signature: the size and
// the bit depth (0 where the bytes end before it).
struct Ihdr {
  uint32_t width = 0, height = 0;
  int bit_depth = 0;
};
std::optional<Ihdr> ihdr_of(const uint8_t* bytes, size_t size) {
  if (size < 24 || std::memcmp(bytes + 12, "IHDR", 4) != 0) return std::nullopt;
  return Ihdr{be32(bytes + 16), be32(bytes + 20), size > 24 ? int(bytes[24]) : 0};
}

// The first critical chunk (IHDR, PLTE, IDAT, IEND: a capital first letter)
// whose CRC does not match its bytes, as libpng refuses them (stb does not
// look: a damaged file decoded, and compare judged its pixels); "" when none.
// Ancillary chunks are passed over, as libpng does; a chunk cut short is left
// for the decoder to call truncated.
std::string damaged_chunk(const std::vector<uint8_t>& bytes) {
  for (size_t at = 8; at + 12 <= bytes.size();) {
    const uint64_t length = be32(bytes.data() + at);
    if (length > bytes.size() - at - 12) break;
    const uint8_t* type = bytes.data() + at + 4;
    const bool critical = type[0] >= 'A' && type[0] <= 'Z';
    if (critical && uLong(crc32(0L, type, uInt(4 + length))) != be32(type + 4 + size_t(length)))
      return std::string(reinterpret_cast<const char*>(type), 4);
    if (std::memcmp(type, "IEND", 4) == 0) break;
    at += 12 + size_t(length);
  }
  return {};
}

// A file's IHDR from its first bytes alone, nothing decoded.
std::optional<Ihdr> file_ihdr(const std::filesystem::path& path) {
  // A regular file only: opening a FIFO blocked (fxsim compare fifo.png b.png
  // hung); the decode that follows says what else it is.
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  uint8_t header[25] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  const auto got = size_t(in.gcount());
  if (got < 4 || std::memcmp(header + 1, "PNG", 3) != 0) return std::nullopt;
  return ihdr_of(header, got);
}

// Decodes to 8-bit RGBA, or with `sixteen_channels` > 0 to that many 16-bit
// samples a pixel (the file must be a 16-bit PNG).
Decoded decode(const std::filesystem::path& path, PngUse use, int sixteen_channels = 0) {
  const bool frame = use == PngUse::frame;
  const int most_side = frame ? kMaxImageSide : kMaxTextureSide;
  std::vector<uint8_t> bytes;
  if (std::string why = read_bounded(path, bytes, frame ? kMaxFrameFileBytes : kMaxTextureBytes); !why.empty())
    return failed(why);
  static constexpr uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kSignature, 8) != 0) return failed("it is not a PNG file");
  // The size, from the IHDR chunk that must come first, before any decoding.
  const std::optional<Ihdr> ihdr = ihdr_of(bytes.data(), bytes.size());
  if (!ihdr) return failed("its header is missing");
  const uint32_t header_w = ihdr->width, header_h = ihdr->height;
  if (header_w < 1 || header_h < 1 || header_w > uint32_t(most_side) || header_h > uint32_t(most_side))
    return failed(fmt::format("it is {}×{} pixels; {} may be at most {}×{}", header_w, header_h,
                              frame ? "a frame or plate" : "a texture", most_side, most_side));
  if (const std::string chunk = damaged_chunk(bytes); !chunk.empty())
    return failed(fmt::format("its {} chunk is damaged: its CRC does not match its bytes", chunk));
  int w = 0, h = 0, channels = 0;
  if (!stbi_info_from_memory(bytes.data(), int(bytes.size()), &w, &h, &channels))
    return failed(fmt::format("its header cannot be read ({})", stbi_failure_reason()));
  if (sixteen_channels > 0) {
    if (!stbi_is_16_bit_from_memory(bytes.data(), int(bytes.size()))) return failed("it is not a 16-bit PNG");
    stbi_us* samples = stbi_load_16_from_memory(bytes.data(), int(bytes.size()), &w, &h, &channels, sixteen_channels);
    if (!samples) return failed("it cannot be decoded (is it truncated?)");
    Decoded d;
    d.samples = {w, h, sixteen_channels,
                 std::vector<uint16_t>(samples, samples + size_t(w) * size_t(h) * size_t(sixteen_channels)), channels};
    stbi_image_free(samples);
    return d;
  }
  stbi_uc* pixels = stbi_load_from_memory(bytes.data(), int(bytes.size()), &w, &h, &channels, 4);
  if (!pixels) {
    const char* why = stbi_failure_reason();
    return failed(fmt::format("it cannot be decoded ({}; is it truncated?)", why && *why ? why : "no reason given"));
  }
  Decoded d;
  d.image = {w, h, std::vector<uint8_t>(pixels, pixels + size_t(w) * size_t(h) * 4), channels};
  stbi_image_free(pixels);
  return d;
}

}  // namespace

Image read_png(const std::filesystem::path& path, PngUse use) {
  Decoded d = decode(path, use);
  if (!d.problem.empty())
    throw FxError(ExitCode::input_missing, fmt::format("{}: cannot read the image ({})", path.string(), d.problem));
  return std::move(d.image);
}

Samples16 read_png16(const std::filesystem::path& path, int channels, PngUse use) {
  Decoded d = decode(path, use, channels);
  if (!d.problem.empty())
    throw FxError(ExitCode::input_missing, fmt::format("{}: cannot read the image ({})", path.string(), d.problem));
  return std::move(d.samples);
}

int png_bit_depth(const std::filesystem::path& path) {
  const std::optional<Ihdr> ihdr = file_ihdr(path);
  return ihdr ? ihdr->bit_depth : 0;
}

bool png_header_size(const std::filesystem::path& path, int* width, int* height) {
  const std::optional<Ihdr> ihdr = file_ihdr(path);
  if (!ihdr || ihdr->width < 1 || ihdr->height < 1 || ihdr->width > INT32_MAX || ihdr->height > INT32_MAX) return false;
  *width = int(ihdr->width), *height = int(ihdr->height);
  return true;
}

std::string png_problem(const std::filesystem::path& path, int* width, int* height, PngUse use) {
  Decoded d = decode(path, use);
  if (width) *width = d.image.width;
  if (height) *height = d.image.height;
  return d.problem;
}

namespace {
template <class Sample>
bool every_pixel_the_first(const std::vector<Sample>& rgba) {
  if (rgba.size() < 4) return false;
  for (size_t i = 4; i < rgba.size(); i += 4)
    if (std::memcmp(&rgba[i], rgba.data(), 4 * sizeof(Sample)) != 0) return false;
  return true;
}
}  // namespace

bool one_colour(const Image& image) { return every_pixel_the_first(image.rgba); }
bool one_colour(const LinearImage& image) { return every_pixel_the_first(image.rgba); }

Image resize_image(const Image& image, int width, int height) {
  if (image.width == width && image.height == height) return image;
  Image out{width, height, std::vector<uint8_t>(size_t(width) * size_t(height) * 4)};
  stbir_resize_uint8_srgb(image.rgba.data(), image.width, image.height, 0, out.rgba.data(), width, height, 0, 4, 3, 0);
  return out;
}

float straight_channel(float premultiplied, float alpha) {
  const float a = std::clamp(alpha, 0.0f, 1.0f);
  return a > 0 ? std::clamp(premultiplied / a, 0.0f, 1.0f) : 0.0f;
}

Image to_straight_srgb8(const LinearImage& in) {
  Image out{in.width, in.height, std::vector<uint8_t>(in.rgba.size())};
  for (size_t i = 0; i < in.rgba.size(); i += 4) {
    const float a = std::clamp(in.rgba[i + 3], 0.0f, 1.0f);
    for (size_t c = 0; c < 3; ++c)
      out.rgba[i + c] = uint8_t(std::lround(linear_to_srgb(straight_channel(in.rgba[i + c], a)) * 255.0f));
    out.rgba[i + 3] = uint8_t(std::lround(a * 255.0f));
  }
  return out;
}

}  // namespace fxsim
