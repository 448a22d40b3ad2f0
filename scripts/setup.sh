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
  libgtest-dev libpng-dev libopenexr-dev ffmpeg libssl-dev zlib1g-dev help2man
)
# For making the Debian package (scripts/package): CPack's Depends come from
# dpkg-shlibdeps, which needs `file` to find the binaries.
FXSIM_PACKAGE_PACKAGES=(dpkg-dev file)
# For the tests of what is installed (scripts/test): the package (above), the
# schema check, zsh to load its completion.
FXSIM_CHECK_PACKAGES=("${FXSIM_PACKAGE_PACKAGES[@]}" python3-jsonschema zsh)
# For the sanitizer builds and fuzzing (scripts/test, scripts/sanitize, scripts/fuzz).
FXSIM_TEST_PACKAGES=(clang libclang-rt-14-dev)
# For the cluster test (tests/slurm_cluster_test.sh), which scripts/test runs.
FXSIM_CLUSTER_PACKAGES=(slurm-wlm munge)

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
  echo "fxsim: installing ${#missing[@]} Debian package(s) fxsim needs: ${missing[*]}" >&2
  echo "fxsim: updating the package lists (apt-get update)…" >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  echo "fxsim: installing (apt-get install; a few minutes on a fresh machine)…" >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  echo "fxsim: packages installed" >&2
}

# Shows ninja's [done/total] count on one line (a terminal) or every 10 % (a log),
# and every compiler warning as it comes (the log keeps the whole output, but a
# later build in the same folder, such as scripts/package's, starts it afresh).
fxsim_build_progress() {
  local line last=-1 tty=0
  [ -t 2 ] && tty=1
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$1"
    if [[ "$line" == *"warning:"* ]]; then
      [ "$tty" = 1 ] && printf '\r\033[K' >&2
      printf '%s\n' "$line" >&2
    fi
    if [[ "$line" =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
      local done=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
      if [ "$tty" = 1 ]; then
        printf '\rfxsim: building %s [%d/%d]\033[K' "$2" "$done" "$total" >&2
      elif [ $((done * 10 / total)) -gt "$last" ]; then
        last=$((done * 10 / total))
        echo "fxsim: building $2 [$done/$total]" >&2
      fi
    fi
  done
  [ "$tty" = 1 ] && printf '\r\033[K' >&2
  return 0
}

fxsim_build() {
  local dir="${FXSIM_BUILD_DIR:-$FXSIM_ROOT/build}"
  local log="$dir/build.log"
  mkdir -p "$dir"
  if [ ! -f "$dir/build.ninja" ]; then
    echo "fxsim: configuring the build in ${dir#"$FXSIM_ROOT"/} (first run)" >&2
    # shellcheck disable=SC2086  # FXSIM_CMAKE_ARGS is a list of words
    cmake -S "$FXSIM_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release ${FXSIM_CMAKE_ARGS:-} >"$log" 2>&1 ||
      { cat "$log" >&2; echo "fxsim: cmake configuration failed" >&2; exit 1; }
  fi
  : >"$log"
  local status
  set +e
  NINJA_STATUS="[%f/%t] " cmake --build "$dir" "$@" 2>&1 | fxsim_build_progress "$log" "${dir#"$FXSIM_ROOT"/}"
  status=${PIPESTATUS[0]}
  set -e
  [ "$status" = 0 ] || { cat "$log" >&2; echo "fxsim: build failed" >&2; exit 1; }
}

# The tests ctest lists in the current build folder, a name a line; a
# parameterised test's without the parameter gtest_discover_tests appends
# (`  # GetParam() = …`, which may print an address that changes from run to run).
fxsim_ctest_names() {
  ctest -N | sed -nE 's/^ *Test +#[0-9]+: (.*)$/\1/p' | sed 's/  # GetParam() = .*//'
}

# The sanitizer build (scripts/sanitize, scripts/fuzz): clang, ASan + UBSan, libFuzzer.
fxsim_build_sanitized() {
  fxsim_install_packages "${FXSIM_TEST_PACKAGES[@]}"
  CC=clang CXX=clang++ FXSIM_BUILD_DIR="$FXSIM_ROOT/build-sanitize" FXSIM_CMAKE_ARGS="-DFXSIM_SANITIZE=ON" fxsim_build "$@"
}

fxsim_install_packages "${FXSIM_PACKAGES[@]}"
