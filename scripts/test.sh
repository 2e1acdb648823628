#!/usr/bin/env bash
# npm test: the static checks (types, Biome, knip) and every vitest suite (unit, HTTP against
# embedded dynalite/s3rver, end-to-end against the local runtime, the site in real Chromium).
# Fails when a check fails or no test ran.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test/artifacts

if [ -x scripts/ensure-test-deps.sh ]; then bash scripts/ensure-test-deps.sh || exit 1; fi

# The checks run beside the tests; their output is printed after the tests'. The tests keep
# both cores busy, so what counts is CPU: TypeScript on one thread spends 9 s of it where its
# checker threads spent 15.6 s, and finished sooner here all the same.
static_checks() {
  npx tsc --noEmit --singleThreaded || { echo "typecheck failed"; return 1; }
  # Format and lint (Biome), and nothing unused: files, exports, dependencies (knip).
  npm run --silent lint || { echo "lint failed: npx biome check --write . formats and fixes; knip lists what is unused"; return 1; }
  # The site's own TypeScript (browser scripts, data loading), with the DOM types.
  npx tsc --noEmit -p site --singleThreaded || { echo "site typecheck failed"; return 1; }
}
static_checks > test/artifacts/static-checks.log 2>&1 &
checks=$!

npx vitest run --reporter=default --reporter=json --outputFile.json=test/artifacts/vitest.json "$@"
status=$?

if wait "$checks"; then
  echo "Static checks: types, Biome and knip clean"
else
  cat test/artifacts/static-checks.log
  status=1
fi
node scripts/test-summary.mjs test/artifacts/vitest.json || status=1
exit $status
