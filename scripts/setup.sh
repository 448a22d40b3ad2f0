# Sourced by scripts/fxsim, scripts/test, scripts/sanitize and scripts/fuzz:
# installs the Debian packages fxsim needs when any is missing (apt-get update
# first, as root or through sudo), then configures and builds into build/ (or
# $FXSIM_BUILD_DIR with $FXSIM_CMAKE_ARGS). Build output is shown only on failure.
set -euo pipefail

FXSIM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FXSIM_PACKAGES=(
  cmake ninja-build g++ pkg-config
  libcli11-dev nlohmann-json3-dev libglm-dev libfmt-dev libstb-dev
  libepoxy-dev libegl-dev libegl1 libegl-mesa0 libgl1-mesa-dri
  libgtest-dev libpng-dev ffmpeg
)
# For the sanitizer builds and fuzzing (scripts/test, scripts/sanitize, scripts/fuzz).
FXSIM_TEST_PACKAGES=(clang libclang-rt-14-dev)

fxsim_install_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "fxsim: missing packages (${missing[*]}); run as root or install sudo" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "fxsim: installing ${missing[*]}" >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

fxsim_build() {
  local dir="${FXSIM_BUILD_DIR:-$FXSIM_ROOT/build}"
  local log="$dir/build.log"
  mkdir -p "$dir"
  if [ ! -f "$dir/build.ninja" ]; then
    # shellcheck disable=SC2086  # FXSIM_CMAKE_ARGS is a list of words
    cmake -S "$FXSIM_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release ${FXSIM_CMAKE_ARGS:-} >"$log" 2>&1 ||
      { cat "$log" >&2; echo "fxsim: cmake configuration failed" >&2; exit 1; }
  fi
  cmake --build "$dir" "$@" >"$log" 2>&1 ||
    { cat "$log" >&2; echo "fxsim: build failed" >&2; exit 1; }
}

# The sanitizer build (scripts/sanitize, scripts/fuzz): clang, ASan + UBSan, libFuzzer.
fxsim_build_sanitized() {
  fxsim_install_packages "${FXSIM_TEST_PACKAGES[@]}"
  CC=clang CXX=clang++ FXSIM_BUILD_DIR="$FXSIM_ROOT/build-sanitize" FXSIM_CMAKE_ARGS="-DFXSIM_SANITIZE=ON" fxsim_build "$@"
}

fxsim_install_packages "${FXSIM_PACKAGES[@]}"
