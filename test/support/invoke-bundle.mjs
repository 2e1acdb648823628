// Child process: imports one Lambda bundle the way the Lambda runtime does (a fresh Node, plain
// ESM, no TypeScript loader) and invokes its handler with each event in turn.
// Usage: node invoke-bundle.mjs <bundle/index.mjs> <events.json> <results.json>
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [file, eventsFile, resultsFile] = process.argv.slice(2);
const events = JSON.parse(readFileSync(eventsFile, 'utf8'));
const started = performance.now();
const { handler } = await import(pathToFileURL(file).href);
const importMs = performance.now() - started;
const context = { functionName: 'test', awsRequestId: 'test-request', getRemainingTimeInMillis: () => 10_000 };
const results = [];
for (const event of events) {
  try {
    results.push({ ok: await handler(event, context) });
  } catch (error) {
    results.push({ threw: String(error?.stack ?? error) });
  }
}
writeFileSync(resultsFile, JSON.stringify({ importMs, results }));
