#!/usr/bin/env bash
# npm test: type-check, then every vitest suite (unit, HTTP against embedded dynalite/s3rver,
# end-to-end against the local runtime, the site in real Chromium). Fails when no test ran.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test/artifacts

if [ -x scripts/ensure-test-deps.sh ]; then bash scripts/ensure-test-deps.sh || exit 1; fi

npx tsc --noEmit || { echo "typecheck failed"; exit 1; }
# Format and lint (Biome), and nothing unused: files, exports, dependencies (knip).
npm run --silent lint || { echo "lint failed: npx biome check --write . formats and fixes; knip lists what is unused"; exit 1; }
# The site's own TypeScript (browser scripts, data loading), with the DOM types.
npx tsc --noEmit -p site || { echo "site typecheck failed"; exit 1; }

npx vitest run --reporter=default --reporter=json --outputFile.json=test/artifacts/vitest.json "$@"
status=$?
node scripts/test-summary.mjs test/artifacts/vitest.json || status=1
exit $status
