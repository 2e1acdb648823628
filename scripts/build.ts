import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCli } from '../cli/bundle.mjs';
import { CLI_VERSION, packCli } from './release/cli-package.ts';
import { buildLambdas } from './lambda-bundles.ts';
import { buildSandboxContext } from './sandbox-bundle.ts';
import { SANDBOX_CONTEXT_DIR } from '../infra/lambdas.ts';
import { buildSite, SITE_DIR } from './site/build-site.ts';

/**
 * `npm run build`: the Lambda bundles under dist/functions and the sandbox image's build context
 * under dist/sandbox (the CDK app deploys both), the CLI's
 * bundle cli/dist/cli.mjs and its launcher cli/dist/skillpress.mjs (what `npm pack` in cli/ ships), then the catalog site
 * under site/dist from SKILLPRESS_DATA (an http(s) origin of a running Skillpress, or
 * s3://<static bucket>; unset builds it without skills, whose pages then render in the browser). `npm start` builds and serves the site by itself; `npm run upload-site` deploys it.
 * `--lambdas-only` skips the CLI and the site (the CDK synth and the bundle tests need only the
 * Lambdas and the sandbox's context); `--cli-only` builds the CLI alone.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const root = fileURLToPath(new URL('..', import.meta.url));

const only = process.argv.includes('--lambdas-only') ? 'lambdas' : process.argv.includes('--cli-only') ? 'cli' : undefined;

if (only !== 'cli') {
  const started = performance.now();
  const reports = await buildLambdas();
  for (const r of reports) {
    console.log(`${r.file.padEnd(40)} ${kb(r.loadedBytes).padStart(8)} loaded at cold start  ${kb(r.totalBytes).padStart(8)} in ${r.files} files`);
  }
  console.log(`built ${reports.length} Lambda bundles in ${Math.round(performance.now() - started)} ms`);
  const sandbox = await buildSandboxContext();
  console.log(`${`${SANDBOX_CONTEXT_DIR}/task.mjs`.padEnd(40)} ${kb(sandbox.bytes).padStart(8)} the sandbox image's runner, with its Dockerfile`);
}

if (only !== 'lambdas') {
  console.log(`${'cli/dist/cli.mjs'.padEnd(40)} ${kb(await bundleCli()).padStart(8)} (run by dist/skillpress.mjs, the skillpress package's bin)`);
  // The package itself, as a release publishes it to the npm registry; a registry serves it with its origin inside (cli-package.ts).
  const tarball = `cli/dist/skillpress-${CLI_VERSION}.tgz`;
  writeFileSync(join(root, tarball), await packCli(process.env.SKILLPRESS_CLI_REGISTRY || undefined));
  console.log(
    `${tarball.padEnd(40)} the skillpress package${process.env.SKILLPRESS_CLI_REGISTRY ? `, defaulting to ${process.env.SKILLPRESS_CLI_REGISTRY}` : ''}`,
  );
}

if (only === undefined) {
  const data = process.env.SKILLPRESS_DATA;
  const outDir = join(SITE_DIR, 'dist');
  const { pages, ms } = await buildSite({ data, outDir, cacheDir: join(SITE_DIR, '.astro', 'cache') });
  console.log(`site: ${pages} pages in ${(ms / 1000).toFixed(1)} s from ${data || 'no data (SKILLPRESS_DATA unset)'} → ${outDir}`);
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
