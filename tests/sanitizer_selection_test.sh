#!/usr/bin/env bash
# The sanitized run's list of tests left out (tests/sanitizer/covered-elsewhere.txt)
# names only tests this build has, and the choosing (scripts/sanitize_selection.py)
# passes its own test.
#   sanitizer_selection_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
python3 "$source/scripts/sanitize_selection.py" --self-test
known=$(mktemp)
trap 'rm -f "$known"' EXIT
# Names as scripts/sanitize_selection.py writes them: a parameterised test's
# without the parameter gtest_discover_tests appends (`  # GetParam() = …`).
ctest --test-dir "$build" -N | sed -nE 's/^ *Test +#[0-9]+: (.*)$/\1/p' | sed 's/  # GetParam() = .*//' >"$known"
[ -s "$known" ] || { echo "no tests listed in $build" >&2; exit 1; }
unknown=$(grep -v '^#' "$source/tests/sanitizer/covered-elsewhere.txt" | grep -vxF -f "$known" || true)
if [ -n "$unknown" ]; then
  echo "tests/sanitizer/covered-elsewhere.txt names tests this build does not have (run scripts/sanitize-selection):" >&2
  echo "$unknown" >&2
  exit 1
fi
echo "$(grep -vc '^#' "$source/tests/sanitizer/covered-elsewhere.txt") left-out tests, all known"
