#!/usr/bin/env bash
# The install rules and the Debian package, as a user gets them.
# `cmake --install BUILD --prefix P` puts the binary, man page, completions,
# schema and example scenes under P, and P's fxsim runs from there.
# scripts/package builds the package from this
# build (the same command the Containerfile runs); its Depends name the
# libraries the binary loads and resolve on this Debian (apt-get --simulate);
# unpacked into a temporary root (dpkg-deb -x), far from the source tree, its
# fxsim prints its version, its man page, completions, schema and example
# scenes lie where Debian looks for them, and it renders a small frame of an
# installed example scene: the same bytes as the build's fxsim.
#   package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1" source="$2"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
fail() { echo "package test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$root/prefix" >"$root/install.log" || { cat "$root/install.log" >&2; fail "cmake --install failed"; }
for file in bin/fxsim share/man/man1/fxsim.1.gz share/bash-completion/completions/fxsim \
            share/zsh/vendor-completions/_fxsim share/fxsim/scene.schema.json share/fxsim/scenes/fountain.json; do
  [ -s "$root/prefix/$file" ] || fail "cmake --install put no $file under the prefix"
done
(cd "$root" && "$root/prefix/bin/fxsim" validate "$root/prefix/share/fxsim/scenes/fountain.json" >/dev/null) ||
  fail "the installed fxsim does not accept its own example scene"

deb="$(FXSIM_BUILD_DIR="$build" "$source/scripts/package" | tail -1)"
[ -f "$deb" ] || fail "scripts/package made no package ($deb)"
echo "package: $deb"
depends="$(dpkg-deb -f "$deb" Depends)"
echo "Depends: $depends"
for package in libegl1 libopengl0 libegl-mesa0 libgl1-mesa-dri libepoxy0 libfmt9 libpng16-16 libopenexr libssl3 libstdc++6; do
  grep -q "$package" <<<"$depends" || fail "Depends lacks $package"
done
apt-get install --simulate --no-install-recommends "$deb" >"$root/apt.log" 2>&1 ||
  { cat "$root/apt.log" >&2; fail "apt cannot install $deb here"; }

dpkg-deb -x "$deb" "$root/fs"
fxsim="$root/fs/usr/bin/fxsim"
version="$("$fxsim" --version)"
[[ "$version" =~ ^fxsim\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "fxsim --version said '$version'"
echo "$version"
for file in usr/share/man/man1/fxsim.1.gz usr/share/bash-completion/completions/fxsim \
            usr/share/zsh/vendor-completions/_fxsim usr/share/fxsim/scene.schema.json \
            usr/share/fxsim/scenes/snow.json usr/share/fxsim/scenes/plates/street.png \
            usr/share/doc/fxsim/README.md usr/share/doc/fxsim/docs/scene-format.md; do
  [ -s "$root/fs/$file" ] || fail "the package lacks /$file"
done
cmp -s <("$fxsim" schema) "$root/fs/usr/share/fxsim/scene.schema.json" || fail "the installed schema is not fxsim schema's"
zcat "$root/fs/usr/share/man/man1/fxsim.1.gz" | grep -q '^\.SS render' || fail "the installed man page has no render section"

# A frame of an installed example scene, rendered from an empty folder.
mkdir "$root/work"
cd "$root/work"
scene="$root/fs/usr/share/fxsim/scenes/rain-over-plate.json"  # with a plate beside it: paths resolve from the scene
"$fxsim" render "$scene" --width 320 --height 180 --frames 6 -q -o installed_#.png
"$build/fxsim" render "$scene" --width 320 --height 180 --frames 6 -q -o built_#.png
for layer in png mask.rain.png depth.png; do  # the frame and two of its layers
  [ -s "installed_6.$layer" ] || fail "the installed fxsim wrote no installed_6.$layer"
  cmp -s "installed_6.$layer" "built_6.$layer" || fail "the installed fxsim's installed_6.$layer differs from the build's"
done
echo "package test: passed"
