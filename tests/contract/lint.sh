#!/usr/bin/env bash
# Lints the committed OpenAPI document with Redocly's recommended rules: any error fails.
# Installs the pinned @redocly/cli with npm under target/ the first time.
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR="${CARGO_TARGET_DIR:-target}/redocly"
if [ ! -x "$DIR/node_modules/.bin/redocly" ]; then
    mkdir -p "$DIR"
    npm install --prefix "$DIR" --no-audit --no-fund --silent @redocly/cli@2.77.0
fi
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true "$DIR/node_modules/.bin/redocly" lint openapi/openapi.json --config openapi/redocly.yaml --format=stylish
