import { existsSync, mkdtempSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_CONTEXT_DIR } from '../../infra/lambdas.ts';
import { Sandbox } from '../../infra/sandbox.ts';

/**
 * The sandbox's image on AWS (infra/sandbox.ts): synthesis stages its build context, the folder
 * `npm run build` writes (the test run's global setup built it), and never runs Docker, which
 * only `cdk deploy` needs; the context holds the runner and what it needs.
 */
const context = join(process.cwd(), SANDBOX_CONTEXT_DIR);
const savedDocker = process.env.CDK_DOCKER;
afterEach(() => {
  if (savedDocker === undefined) delete process.env.CDK_DOCKER;
  else process.env.CDK_DOCKER = savedDocker;
});

describe("the sandbox's image", () => {
  it('is staged by synthesis as a directory asset, and Docker is never called', () => {
    // A "docker" that records being called: synthesis must not call it (CDK_DOCKER names the CLI the CDK runs).
    const dir = mkdtempSync(join(tmpdir(), 'no-docker-'));
    const calls = join(dir, 'calls');
    writeFileSync(join(dir, 'docker'), `#!/bin/sh\necho "$@" >> ${calls}\nexit 1\n`);
    chmodSync(join(dir, 'docker'), 0o755);
    process.env.CDK_DOCKER = join(dir, 'docker');
    const app = new App({ outdir: join(dir, 'cdk.out') });
    const parent = new Stack(app, 'Parent', { env: { region: 'us-east-1' } });
    const record = new lambda.Function(parent, 'Record', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler=()=>{}'),
    });
    new Sandbox(parent, 'Sandbox', {
      contextDir: context,
      stateMachineName: 'Parent-observer',
      contentBucket: new s3.Bucket(parent, 'Content'),
      logBucket: new s3.Bucket(parent, 'Logs'),
      record,
    });
    const assembly = app.synth();
    expect(existsSync(calls)).toBe(false);
    // The nested stack's image is listed in its parent's asset manifest: a folder to build, not an image.
    const manifest = JSON.parse(readFileSync(join(assembly.directory, 'Parent.assets.json'), 'utf8')) as {
      dockerImages: Record<string, { source: { directory: string; platform?: string } }>;
    };
    const images = Object.values(manifest.dockerImages);
    expect(images).toHaveLength(1);
    expect(images[0]!.source.platform).toBe('linux/arm64');
    const staged = join(assembly.directory, images[0]!.source.directory);
    for (const file of ['Dockerfile', 'task.mjs', 'inside/orchestrator.py']) expect(existsSync(join(staged, file)), file).toBe(true);
    // A synthesis takes seconds, more on a busy machine.
  }, 120_000);

  it('installs what a pass needs outside the sandbox and runs the bundled task', () => {
    const dockerfile = readFileSync(join(context, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM \S+node:20-bookworm-slim$/m);
    for (const pkg of ['bubblewrap', 'strace', 'nftables', 'iproute2', 'util-linux', 'faketime', 'python3'])
      expect(dockerfile, pkg).toMatch(new RegExp(`\\s${pkg}\\s`));
    expect(dockerfile).toContain('ENTRYPOINT ["node", "/opt/skillpress/task.mjs"]');
    // The runner looks for the sandbox's first process beside its own module.
    expect(readFileSync(join(context, 'inside/orchestrator.py'), 'utf8')).toBe(readFileSync('functions/sandbox/inside/orchestrator.py', 'utf8'));
  });
});
