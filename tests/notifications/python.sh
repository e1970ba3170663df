#!/usr/bin/env bash
# Prints the path of a Python interpreter with tests/notifications/requirements.txt
# installed, making the virtual environment first when it is missing or stale (at
# $NOTIFICATIONS_VENV, default <target>/notifications-venv). The notification tests in
# tests/api call it, so `cargo test` does its own set-up; tests/run.sh needs nothing more.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
VENV="${NOTIFICATIONS_VENV:-$TARGET/notifications-venv}"
mkdir -p "$TARGET"
exec 9>"$TARGET/.notifications-venv.lock"
flock 9
if ! cmp -s "$HERE/requirements.txt" "$VENV/.worp-installed-requirements" 2>/dev/null; then
    rm -rf "$VENV"
    python3 -m venv "$VENV" >&2
    "$VENV/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.txt" >&2
    cp "$HERE/requirements.txt" "$VENV/.worp-installed-requirements"
fi
echo "$VENV/bin/python"
