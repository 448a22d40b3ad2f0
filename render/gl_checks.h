#pragma once
// GL failures are never silent. The driver's debug output (GL 4.3 / KHR_debug)
// is captured from context creation on, and check_gl() — called after each
// allocation that can fail and once per frame — turns anything the GL reported
// (glGetError, or an error or high-severity message of the debug output) into
// an FxError that stops the render before a frame is written from it.
#include <epoxy/gl.h>
#include <string>

namespace fxsim {

// Starts capturing the debug output of the current context (a no-op where the
// GL has none). Called once, right after the context is made current.
void capture_gl_errors();

// Throws when the GL reported an error since the last call: out of memory as
// FxError(invalid_scene) (the scene or image is too large for this GL), any
// other error as FxError(no_gl). `what` says what was being done.
void check_gl(const std::string& what);

// Forgets what the GL has reported so far, for a failure already reported
// another way (a shader that does not compile throws with its own log).
void discard_gl_reports();

// Waits until the GL has finished everything queued so far. NVIDIA's driver
// gives up silently on a single blocking wait (glFinish, or the wait inside
// glReadPixels) that lasts too long: a 1080p frame of 10^9 rain streaks
// (about 18 s of drawing on an H200) then read back as all zeros, with no GL
// error. Waiting on a fence in one-second steps has no such limit.
void wait_for_gl(const std::string& what);
// The same wait for a fence made earlier (deleted here), so work queued after
// it goes on while the caller waits only for what came before.
void wait_for_fence(GLsync fence, const std::string& what);

}  // namespace fxsim
