#!/usr/bin/env bash
# The HTTP API against its specification: Schemathesis (pinned in
# Tests/API/requirements.txt, installed into .build-api/venv) generates requests
# from the OpenAPI document the kiosk serves (docs/api/openapi.yaml) and runs every
# check on the answers of a live headless kiosk on loopback. Any failure fails the
# test, and so does the kiosk not being alive and healthy at the end.
#
#   Tests/API/schemathesis_test.sh [BINARY]
#
# API_FUZZ_EXAMPLES sets the examples per operation (default 25, about 30 s
# on 2 cores); API_FUZZ_FULL=1 makes it 1000 (thousands of cases). API_FUZZ_SEED
# sets the seed (default 1, so that a failure can be replayed), API_FUZZ_WORKERS
# the concurrent workers (default 1: CPython 3.11 before 3.11.8 can fail in
# ast.parse under threads, which Hypothesis calls while describing strategies).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BINARY=${1:-$ROOT/.build/debug/vitrine}
if [ "${API_FUZZ_FULL:-0}" = 1 ]; then EXAMPLES=${API_FUZZ_EXAMPLES:-1000}; else EXAMPLES=${API_FUZZ_EXAMPLES:-25}; fi
SEED=${API_FUZZ_SEED:-1}
WORKERS=${API_FUZZ_WORKERS:-1}
TOKEN=api-fuzz-token-0123456789
VENV=$ROOT/.build-api/venv
REQUIREMENTS=$ROOT/Tests/API/requirements.txt

[ -x "$BINARY" ] || { echo "no kiosk binary at $BINARY (run: swift build)" >&2; exit 1; }

# The pinned Schemathesis, installed again only when the requirements change.
if ! cmp -s "$REQUIREMENTS" "$VENV/requirements.txt"; then
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
    cp "$REQUIREMENTS" "$VENV/requirements.txt"
fi

WORK=$(mktemp -d /tmp/vitrine-api-fuzz-XXXXXX)
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cp "$ROOT/Tests/VM/content/red.jpg" "$ROOT/Tests/VM/content/blue.jpg" "$WORK/"
# Rotating every second, so that the event stream has events to check.
cat > "$WORK/vitrine.yaml" <<EOF
slides: [red.jpg, blue.jpg]
interval: 1s
transition: {type: cut}
output: {display: headless, width: 160, height: 120}
api: {listen: "127.0.0.1:$PORT", token: $TOKEN}
EOF

KIOSK=
cleanup() {
    if [ -n "$KIOSK" ] && kill -0 "$KIOSK" 2>/dev/null; then
        kill "$KIOSK"
        wait "$KIOSK" 2>/dev/null || true
    fi
    if [ "${KEEP:-0}" != 1 ]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT

"$BINARY" run --config "$WORK/vitrine.yaml" --state-dir "$WORK/state" --display headless \
    --preview "$WORK/preview.png" >"$WORK/kiosk.log" 2>&1 &
KIOSK=$!
healthy() { python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' "http://127.0.0.1:$PORT/healthz" 2>/dev/null; }
for _ in $(seq 200); do
    healthy && break
    kill -0 "$KIOSK" 2>/dev/null || { cat "$WORK/kiosk.log" >&2; echo "the kiosk exited before it answered" >&2; exit 1; }
    sleep 0.1
done
healthy || { cat "$WORK/kiosk.log" >&2; echo "the kiosk did not become healthy within 20 s" >&2; exit 1; }

echo "schemathesis: $EXAMPLES examples per operation, seed $SEED, $WORKERS workers, against 127.0.0.1:$PORT"
started=$(date +%s)
status=0
# From the work directory: Schemathesis keeps a cache folder (.schemathesis) in its working directory.
cd "$WORK"
SCHEMATHESIS_HOOKS=hooks PYTHONPATH="$ROOT/Tests/API" VITRINE_CONTENT="$WORK" VITRINE_URL="http://127.0.0.1:$PORT" VITRINE_TOKEN=$TOKEN \
    "$VENV/bin/schemathesis" --config-file "$ROOT/Tests/API/schemathesis.toml" run "http://127.0.0.1:$PORT/openapi.yaml" \
    --url "http://127.0.0.1:$PORT" --header "Authorization: Bearer $TOKEN" \
    --checks all --max-examples "$EXAMPLES" --seed "$SEED" --workers "$WORKERS" \
    --generation-database none --no-color --report junit,ndjson --report-dir "$WORK/report" || status=$?
echo "schemathesis took $(( $(date +%s) - started )) s and exited with $status"

# The run must leave the kiosk alive and its display loop answering.
if ! kill -0 "$KIOSK" 2>/dev/null; then
    tail -n 50 "$WORK/kiosk.log" >&2
    echo "FAIL: the kiosk died during the run" >&2
    exit 1
fi
healthy || { echo "FAIL: the kiosk is not healthy after the run" >&2; exit 1; }
if [ "$status" -ne 0 ]; then
    echo "FAIL: schemathesis found failures (KEEP=1 keeps $WORK with the kiosk log)" >&2
    exit "$status"
fi
echo "api-fuzz-test: passed"
