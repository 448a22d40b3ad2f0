#!/usr/bin/env bash
# The man page and the shell completions the build makes (CMakeLists.txt:
# fxsim.1, fxsim.bash, _fxsim), checked against the binary's own help: the
# man page has a section for every subcommand and the exit codes; bash
# completion, loaded into a real bash, offers every subcommand, every option
# of render, the words an option takes and scene files; the zsh script loads
# in zsh and names every option of render.
#   man_and_completion_test.sh BUILD_DIR
set -euo pipefail
build="$1"
fxsim="$build/fxsim"
fail() { echo "man/completion test: $*" >&2; exit 1; }

subcommands=$("$fxsim" --help | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }')
[ "$(wc -w <<<"$subcommands")" -ge 8 ] || fail "fxsim --help lists too few subcommands: $subcommands"
# render's options as its --help lists them ("-o,--output TEXT", "--frames TEXT", "-q,--quiet").
render_options=$("$fxsim" render --help | grep -oE '^ +-[-a-z0-9,]+' | tr ',' '\n' | tr -d ' ' | sort -u)
[ "$(wc -w <<<"$render_options")" -ge 25 ] || fail "fxsim render --help lists too few options"

# The man page: a section per subcommand, and the exit codes.
for sub in $subcommands; do
  grep -q "^\.SS $sub\$" "$build/fxsim.1" || fail "the man page has no section for $sub"
done
grep -q '^\.SH "EXIT STATUS"' "$build/fxsim.1" || fail "the man page has no exit status"
grep -q '^65$' "$build/fxsim.1" || fail "the man page's exit codes lack 65"
zcat "$build/fxsim.1.gz" | cmp -s - "$build/fxsim.1" || fail "fxsim.1.gz is not fxsim.1"

# bash: complete the way bash does (COMP_WORDS, COMP_CWORD, then the function complete -F names).
scenes="$(mktemp -d)"
trap 'rm -rf "$scenes"' EXIT
touch "$scenes/a.json" "$scenes/b.json" "$scenes/notes.txt"
complete_words() {  # the words bash would offer after "fxsim $*"
  bash --norc -c '
    source "$1"; shift
    cd "$1"; shift
    [ "$(complete -p fxsim)" = "complete -F _fxsim fxsim" ] || exit 3
    COMP_WORDS=(fxsim "$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    _fxsim
    printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$build/fxsim.bash" "$scenes" "$@"
}
offered=$(complete_words "")
for sub in $subcommands; do grep -qx "$sub" <<<"$offered" || fail "bash does not offer the subcommand $sub"; done
offered=$(complete_words render -)
for option in $render_options; do
  grep -qx -- "$option" <<<"$offered" || fail "bash does not offer render's $option"
done
[ "$(complete_words render --backend "")" = "$(printf 'auto\ncpu\ngpu')" ] || fail "bash does not offer --backend's values"
[ "$(complete_words render --fill-resolution h)" = "half" ] || fail "bash does not offer --fill-resolution's values"
[ "$(complete_words render "")" = "$(printf 'a.json\nb.json')" ] || fail "bash does not offer scene files: $(complete_words render "")"
[ -z "$(complete_words render --frames "")" ] || fail "bash offers words for --frames, which takes a list of frames"
[ "$(complete_words completion "")" = "$(printf 'bash\nzsh')" ] || fail "bash does not offer completion's shells"

# zsh: the script loads, and its render case names every option of render.
zsh -n "$build/_fxsim" || fail "zsh cannot read _fxsim"
render_case=$(awk '/^    render\)/ { on = 1 } on && /;;$/ { print; exit } on { print }' "$build/_fxsim")
for option in $render_options; do  # '--video[…]', '*--set[…]' (repeatable), or '(-o --output)'{-o,--output}'[…]'
  grep -qE -- "['{,*]$option[[,}]" <<<"$render_case" || fail "zsh's completion of render lacks $option"
done
grep -qF -- "'*--set[" <<<"$render_case" || fail "zsh's completion does not offer --set again"
grep -qF -- "'1:shell:(bash zsh)'" "$build/_fxsim" || fail "zsh's completion does not offer completion's shells"
# Sourced after compinit (not autoloaded from fpath), the zsh script registers itself.
[ "$(zsh -f -c "autoload -U compinit; compinit -u -D; source '$build/_fxsim'; print -r -- \${_comps[fxsim]}")" = _fxsim ] ||
  fail "zsh's script, sourced, does not register _fxsim"
echo "man/completion test: passed ($(wc -w <<<"$subcommands") subcommands, $(wc -w <<<"$render_options") options of render)"
