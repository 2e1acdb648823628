import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { decodeFile } from '#core/bundle';
import { skillArchive } from '#core/skill-archive';

/**
 * Verdaccio, the npm registry people run for themselves, as the peer of the comparison
 * benchmark: installed into a throw-away folder (never a project dependency), started on
 * loopback with no uplinks, written to through the npm publish HTTP API.
 */

export const VERDACCIO_VERSION = '6.8.0';

/** Installs Verdaccio into `dir` unless that version is already there; returns its bin script. */
export function ensureVerdaccio(dir: string): string {
  const installed = join(dir, 'node_modules/verdaccio/package.json');
  const bin = join(dir, 'node_modules/verdaccio/bin/verdaccio');
  if (existsSync(installed) && JSON.parse(readFileSync(installed, 'utf8')).version === VERDACCIO_VERSION) return bin;
  mkdirSync(dir, { recursive: true });
  // What `npm init -y` writes, with a name npm accepts whatever the folder is called.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'skillpress-bench-verdaccio', version: '0.0.0', private: true }, null, 2));
  const npm = (args: string[]) => execFileSync('npm', args, { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
  // Verdaccio 6.8.0's node-fetch 3 does not load on Node 20 here; 2.7.0 does (docs/architecture.md, "Production parts and local stand-ins").
  npm(['pkg', 'set', 'overrides.node-fetch=2.7.0']);
  npm(['install', '--no-audit', '--no-fund', `verdaccio@${VERDACCIO_VERSION}`]);
  return bin;
}

export interface VerdaccioServer {
  baseUrl: string;
  /** A token of the registered user `bench`, for `Authorization: Bearer`. */
  token: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts Verdaccio with its storage, config and users under `runDir`, and registers `bench`. */
export async function startVerdaccio(bin: string, runDir: string): Promise<VerdaccioServer> {
  mkdirSync(runDir, { recursive: true });
  const config = join(runDir, 'config.yaml');
  writeFileSync(
    config,
    [
      'storage: ./storage',
      'auth:',
      '  htpasswd:',
      '    file: ./htpasswd',
      '    max_users: 1000',
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      '    unpublish: $authenticated',
      'web:',
      '  enable: false',
      'server:',
      '  keepAliveTimeout: 65',
      'max_body_size: 100mb',
      'log: { type: stdout, format: json, level: error }',
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const child = spawn(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], { cwd: runDir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/-/ping`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`verdaccio did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const user = await fetch(`${baseUrl}/-/user/org.couchdb.user:bench`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', password: 'bench-password' }),
  });
  const { token } = (await user.json()) as { token?: string };
  if (!token) throw new Error(`verdaccio did not register the bench user: ${user.status}`);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    baseUrl,
    token,
    child,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The tarball path Verdaccio serves a version at. */
export const tarballPath = (name: string, version: string) => `/${name}/-/${name}-${version}.tgz`;

/**
 * The body of `npm publish` for one version (`PUT /<name>`): the packument with just this
 * version and its tarball as a base64 attachment. Verdaccio merges it into the stored one.
 */
export function publishBody(baseUrl: string, name: string, version: string, files: readonly { filename: string; content: string }[]): string {
  const manifest = { name, version, description: `${name} for the benchmark`, main: 'SKILL.md' };
  const tgz = Buffer.from(
    skillArchive(
      [{ filename: 'package.json', content: JSON.stringify(manifest, null, 2) }, ...files].map(
        (f) => decodeFile({ filename: `package/${f.filename}`, content: f.content })!,
      ),
    ),
  );
  return JSON.stringify({
    _id: name,
    name,
    description: manifest.description,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        ...manifest,
        _id: `${name}@${version}`,
        dist: {
          shasum: createHash('sha1').update(tgz).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
          tarball: `${baseUrl}${tarballPath(name, version)}`,
        },
      },
    },
    readme: files.find((f) => f.filename === 'SKILL.md')?.content ?? '',
    _attachments: { [`${name}-${version}.tgz`]: { content_type: 'application/octet-stream', data: tgz.toString('base64'), length: tgz.byteLength } },
  });
}

/** Publishes one version; throws unless Verdaccio answers 201. */
export async function npmPublish(
  server: VerdaccioServer,
  name: string,
  version: string,
  files: readonly { filename: string; content: string }[],
): Promise<void> {
  const res = await fetch(`${server.baseUrl}/${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
    body: publishBody(server.baseUrl, name, version, files),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`verdaccio publish ${name}@${version} → ${res.status} ${text.slice(0, 200)}`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
