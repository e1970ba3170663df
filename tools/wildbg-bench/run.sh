#!/usr/bin/env bash
# Worp's move generator against wildbg's: BENCHMARKS.md, "The generator".
#   tools/wildbg-bench/run.sh WILDBG_CHECKOUT [ROUNDS] [kinds]
# WILDBG_CHECKOUT is a clone of github.com/carsten-wenderdel/wildbg (measured at 1ad2c0b):
# its position and dice modules are copied into lite/ unchanged. CORPUS overrides the
# oracle corpus's path (../shared beside the checkout, as for the tests).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source=${1:?usage: run.sh WILDBG_CHECKOUT [ROUNDS] [kinds]}/crates/engine/src
mkdir -p "$here/lite/src/position"
for file in position.rs position/conversion.rs position/double_moves.rs \
    position/mixed_moves.rs dice.rs; do
    cp "$source/$file" "$here/lite/src/$file"
done
cd "$here"
cargo build --release --quiet
exec ./target/release/wildbg-bench "${CORPUS:-$here/../../../shared/oracle/backgammon.jsonl}" "${@:2}"
