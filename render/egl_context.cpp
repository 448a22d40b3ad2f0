#include "render/egl_context.h"

#include <dlfcn.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <fmt/format.h>

#include "core/exit_codes.h"
#include "render/gl_checks.h"

namespace fxsim {

namespace {

bool has_extension(const char* list, std::string_view name) {
  if (!list) return false;
  std::string_view all(list);
  for (size_t pos = 0; (pos = all.find(name, pos)) != std::string_view::npos; pos += name.size()) {
    const bool starts = pos == 0 || all[pos - 1] == ' ';
    const bool ends = pos + name.size() == all.size() || all[pos + name.size()] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

// libepoxy loads libEGL, and libOpenGL or libGL, itself at the first call and
// aborts the process when it cannot: found missing before, the user is told
// which package gives the library, with exit 69 (a fresh Debian 12 with Mesa
// but without libopengl0 did abort).
void check_gl_libraries() {
  static const char* missing = [] {
    const auto loadable = [](const char* name) {
      void* handle = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
      if (handle) dlclose(handle);
      return handle != nullptr;
    };
    if (!loadable("libEGL.so.1"))
      return "libEGL.so.1 cannot be loaded: install libegl1 (Debian) and an EGL vendor, Mesa's libegl-mesa0 or a GPU's driver";
    if (!loadable("libOpenGL.so.0") && !loadable("libGL.so.1"))
      return "neither libOpenGL.so.0 nor libGL.so.1 can be loaded, and OpenGL is called through one of them: install libopengl0 (Debian)";
    return static_cast<const char*>(nullptr);
  }();
  if (missing) throw FxError(ExitCode::no_gl, missing);
}

const char* client_extensions() { return eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS); }

std::vector<EGLDeviceEXT> query_devices() {
  const char* ext = client_extensions();
  if (!has_extension(ext, "EGL_EXT_device_enumeration") && !has_extension(ext, "EGL_EXT_device_base")) return {};
  EGLint count = 0;
  if (!eglQueryDevicesEXT(0, nullptr, &count) || count <= 0) return {};
  std::vector<EGLDeviceEXT> devices(static_cast<size_t>(count), EGLDeviceEXT{});
  eglQueryDevicesEXT(count, devices.data(), &count);
  devices.resize(size_t(count));
  return devices;
}

std::string egl_error_name(EGLint code) {
  switch (code) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    default: return fmt::format("EGL error 0x{:x}", code);
  }
}

// Makes a core context of the newest version the display offers, at least min.
EGLContext make_context(EGLDisplay display, int min_major, int min_minor, std::string& why) {
  if (!eglBindAPI(EGL_OPENGL_API)) {
    why = "the display has no desktop OpenGL";
    return EGL_NO_CONTEXT;
  }
  if (!has_extension(eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context")) {
    why = "the display lacks EGL_KHR_surfaceless_context";
    return EGL_NO_CONTEXT;
  }
  EGLConfig config = EGL_NO_CONFIG_KHR;
  if (!has_extension(eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_no_config_context")) {
    const EGLint wanted[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLint n = 0;
    if (!eglChooseConfig(display, wanted, &config, 1, &n) || n < 1) {
      why = "no EGL config renders desktop OpenGL";
      return EGL_NO_CONTEXT;
    }
  }
  static constexpr int kVersions[][2] = {{4, 6}, {4, 5}, {4, 3}, {4, 1}, {3, 3}};
  for (const auto& v : kVersions) {
    if (v[0] < min_major || (v[0] == min_major && v[1] < min_minor)) break;
    const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION, v[0], EGL_CONTEXT_MINOR_VERSION, v[1],
                                 EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, attributes);
    if (context != EGL_NO_CONTEXT) return context;
  }
  why = fmt::format("no OpenGL {}.{} core context ({})", min_major, min_minor, egl_error_name(eglGetError()));
  return EGL_NO_CONTEXT;
}

std::string device_name(EGLDeviceEXT device) {
  const char* ext = eglQueryDeviceStringEXT(device, EGL_EXTENSIONS);
  if (has_extension(ext, "EGL_EXT_device_drm"))
    if (const char* node = eglQueryDeviceStringEXT(device, EGL_DRM_DEVICE_FILE_EXT)) return node;
  if (has_extension(ext, "EGL_MESA_device_software")) return "software rasteriser";
  return "unnamed device";
}

}  // namespace

std::vector<EglDeviceInfo> EglContext::list_devices() {
  check_gl_libraries();
  std::vector<EglDeviceInfo> out;
  const auto devices = query_devices();
  for (size_t i = 0; i < devices.size(); ++i) {
    const char* ext = eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS);
    EglDeviceInfo info{int(i), device_name(devices[i]), ext ? ext : "", has_extension(ext, "EGL_MESA_device_software"), {}};
    EGLAttrib cuda = -1;
    if (has_extension(ext, "EGL_NV_device_cuda") && eglQueryDeviceAttribEXT(devices[i], 0x323A /* EGL_CUDA_DEVICE_NV */, &cuda))
      info.cuda_device = int(cuda);
    if (has_extension(ext, "EGL_NV_device_cuda") && info.name == "unnamed device") info.name = "NVIDIA GPU";
    out.push_back(info);
  }
  return out;
}

std::unique_ptr<EglContext> EglContext::create(std::optional<int> device, int min_major, int min_minor) {
  struct Candidate {
    EGLenum platform;
    void* native;
    std::string label;
  };
  std::vector<Candidate> candidates;
  check_gl_libraries();
  const auto devices = query_devices();
  const auto infos = list_devices();
  const char* ext = client_extensions();
  const bool device_platform = has_extension(ext, "EGL_EXT_platform_device");
  if (device) {
    if (*device < 0 || size_t(*device) >= devices.size())
      throw FxError(ExitCode::no_gl, fmt::format("--device {}: there is no such EGL device ({} found; see `fxsim info`)",
                                                 *device, devices.size()));
    if (!device_platform) throw FxError(ExitCode::no_gl, "--device: this EGL has no EGL_EXT_platform_device");
    candidates.push_back({EGL_PLATFORM_DEVICE_EXT, devices[size_t(*device)],
                          fmt::format("EGL device {} ({})", *device, infos[size_t(*device)].name)});
  } else {
    if (device_platform) {
      for (int pass = 0; pass < 2; ++pass)  // hardware first, then software
        for (const auto& info : infos)
          if (info.software == (pass == 1))
            candidates.push_back({EGL_PLATFORM_DEVICE_EXT, devices[size_t(info.index)],
                                  fmt::format("EGL device {} ({})", info.index, info.name)});
    }
    if (has_extension(ext, "EGL_MESA_platform_surfaceless"))
      candidates.push_back({EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, "Mesa surfaceless platform"});
  }
  std::string failures;
  for (const auto& c : candidates) {
    EGLDisplay display = eglGetPlatformDisplayEXT(c.platform, c.native, nullptr);
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) {
      failures += fmt::format("\n  {}: cannot initialise the display ({})", c.label, egl_error_name(eglGetError()));
      continue;
    }
    std::string why;
    EGLContext context = make_context(display, min_major, min_minor, why);
    if (context == EGL_NO_CONTEXT || !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
      if (context != EGL_NO_CONTEXT) eglDestroyContext(display, context);
      eglTerminate(display);
      failures += fmt::format("\n  {}: {}", c.label, why.empty() ? "cannot make the context current" : why);
      continue;
    }
    std::unique_ptr<EglContext> out(new EglContext());
    out->display_ = display;
    out->context_ = context;
    out->info_.platform = c.label;
    out->info_.vendor = reinterpret_cast<const char*>(glGetString(GL_VENDOR));
    out->info_.renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    out->info_.version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    glGetIntegerv(GL_MAJOR_VERSION, &out->info_.major);
    glGetIntegerv(GL_MINOR_VERSION, &out->info_.minor);
    capture_gl_errors();
    return out;
  }
  if (candidates.empty())
    throw FxError(ExitCode::no_gl,
                  "no headless OpenGL: EGL offers neither the device platform nor Mesa's surfaceless platform "
                  "(install libegl1 and libegl-mesa0, or an NVIDIA driver with EGL)");
  throw FxError(ExitCode::no_gl,
                fmt::format("no usable OpenGL {}.{} core context{}:{}", min_major, min_minor,
                            min_major * 10 + min_minor >= 43
                                ? " (the GPU backend needs OpenGL 4.3 compute shaders: an older driver or GPU, or a "
                                  "device whose EGL offers only OpenGL ES, cannot run it; try --backend cpu)"
                                : " (is Mesa's libgl1-mesa-dri installed, or the GPU driver's EGL?)",
                            failures));
}

EglContext::~EglContext() {
  if (display_) {
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (context_) eglDestroyContext(display_, context_);
    eglTerminate(display_);
  }
}

bool EglContext::software() const {
  const std::string& r = info_.renderer;
  return r.find("llvmpipe") != std::string::npos || r.find("softpipe") != std::string::npos ||
         r.find("swrast") != std::string::npos;
}

}  // namespace fxsim
