#pragma once
// The only file that knows about EGL: a headless OpenGL core-profile context
// with no window system. It tries the EGL device platform first (one EGLDevice
// per GPU, or Mesa's software device), then Mesa's surfaceless platform.
// Rendering goes to framebuffer objects; there is no default surface.
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fxsim {

struct EglDeviceInfo {
  int index = 0;
  std::string name;        // DRM node or driver name, when the driver gives one
  std::string extensions;  // the device's EGL extensions
  bool software = false;   // Mesa's software device (llvmpipe)
  std::optional<int> cuda_device;  // NVIDIA's CUDA device number (EGL_NV_device_cuda)
};

struct GlInfo {
  std::string platform;  // how the context was made ("EGL device 1 (/dev/dri/renderD128)", …)
  std::string vendor, renderer, version;
  int major = 0, minor = 0;
};

class EglContext {
 public:
  // The devices the EGL device platform enumerates (empty when it is not available).
  static std::vector<EglDeviceInfo> list_devices();

  // Throws FxError(no_gl) naming what failed. `device` picks one of list_devices();
  // without it, hardware devices come first, then the software one, then surfaceless.
  static std::unique_ptr<EglContext> create(std::optional<int> device, int min_major, int min_minor);

  ~EglContext();
  EglContext(const EglContext&) = delete;
  EglContext& operator=(const EglContext&) = delete;

  const GlInfo& info() const { return info_; }
  // True when GL is implemented on the CPU (llvmpipe, softpipe, swrast).
  bool software() const;

 private:
  EglContext() = default;
  void* display_ = nullptr;
  void* context_ = nullptr;
  GlInfo info_;
};

}  // namespace fxsim
