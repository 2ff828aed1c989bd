# Shared by examples/demo.sh and examples/*/demo-part.sh (sourced, not run).
# BIN: where authz is; OUT: where the demo keeps what it writes (reports, credentials), kept after the
# demo so the files it names can be opened. Bold step titles only on a terminal: piped, no escape codes.
BIN=${BIN:-.venv/bin}
OUT=${DEMO_OUT:-demo-out}
if [ -t 1 ]; then _bold=$'\033[1m'; _plain=$'\033[0m'; else _bold=; _plain=; fi
step() { printf '\n%s== %s%s\n$ %s\n' "$_bold" "$1" "$_plain" "$2"; }
# A fresh output directory for one part of the demo: OUT/NAME.
demo_out() { rm -rf "${OUT:?}/$1" && mkdir -p "$OUT/$1" && printf '%s\n' "$OUT/$1"; }
