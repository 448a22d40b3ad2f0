# Sourced by scripts/fxsim and scripts/test: installs the Debian packages fxsim
# needs when any is missing (apt-get update first, as root or through sudo),
# then configures and builds into build/. Build output is shown only on failure.
set -euo pipefail

FXSIM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FXSIM_PACKAGES=(
  cmake ninja-build g++ pkg-config
  libcli11-dev nlohmann-json3-dev libglm-dev libfmt-dev libstb-dev
  libepoxy-dev libegl-dev libegl1 libegl-mesa0 libgl1-mesa-dri
  libgtest-dev
)

fxsim_install_packages() {
  local missing=() p
  for p in "${FXSIM_PACKAGES[@]}"; do
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
  local log="$FXSIM_ROOT/build/build.log"
  mkdir -p "$FXSIM_ROOT/build"
  if [ ! -f "$FXSIM_ROOT/build/build.ninja" ]; then
    cmake -S "$FXSIM_ROOT" -B "$FXSIM_ROOT/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$log" 2>&1 ||
      { cat "$log" >&2; echo "fxsim: cmake configuration failed" >&2; exit 1; }
  fi
  cmake --build "$FXSIM_ROOT/build" "$@" >"$log" 2>&1 ||
    { cat "$log" >&2; echo "fxsim: build failed" >&2; exit 1; }
}

fxsim_install_packages
