import { buildLambdas } from './lambda-bundles.ts';

/**
 * `npm run build`: the Lambda bundles under dist/functions (the CDK app deploys them). The site
 * is built by its own workflow.
 */
const started = performance.now();
const reports = await buildLambdas();
for (const r of reports) {
  console.log(`${r.file.padEnd(40)} ${kb(r.loadedBytes).padStart(8)} loaded at cold start  ${kb(r.totalBytes).padStart(8)} in ${r.files} files`);
}
console.log(`built ${reports.length} Lambda bundles in ${Math.round(performance.now() - started)} ms`);

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
