import { execFileSync } from 'node:child_process';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fakeGitHubStartEnv, startFakeGitHub } from './local/fake-github.ts';

/**
 * `npm run fake-github -- [--port 8789] [--owner octo] <git folder>…`: a fake GitHub on loopback
 * (scripts/local/fake-github.ts, the one the tests use) for trying GitHub sign-in and imports
 * with `npm start` and no GitHub account. Each git folder is served as the repository
 * `<owner>/<folder name>`, read with `git` at whatever its branches name when asked (commit and
 * the next import sees it), and the account `<owner>` is the one signed in to this GitHub, so
 * "Sign in with GitHub" signs in as the owner and the import's ownership check passes as it
 * would for the owner on github.com. The app's credentials are fixed, so the command it prints
 * for `npm start` can be written down.
 */

/** The fake's OAuth app: fixed, since only loopback reaches it. */
const DEMO_CLIENT_ID = 'skillpress-demo';
const DEMO_CLIENT_SECRET = 'skillpress-demo-secret';
/** The owner's GitHub id: fixed, so a restarted fake signs in as the same Skillpress user (`gh:<id>`). */
const DEMO_OWNER_ID = 1001;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { port: { type: 'string', default: '8789' }, owner: { type: 'string', default: 'octo' } },
});
if (positionals.length === 0) {
  console.error('Usage: npm run fake-github -- [--port 8789] [--owner octo] <git folder>…');
  process.exit(1);
}
const owner = { login: values.owner, id: DEMO_OWNER_ID };
const folders = positionals.map((folder) => resolve(folder));
for (const folder of folders) {
  try {
    execFileSync('git', ['-C', folder, 'rev-parse', '--git-dir'], { stdio: 'ignore' });
  } catch {
    console.error(`${folder} is not a git repository (git init, add and commit first)`);
    process.exit(1);
  }
}

const github = await startFakeGitHub({ port: Number(values.port), clientId: DEMO_CLIENT_ID, clientSecret: DEMO_CLIENT_SECRET, signedIn: owner });
console.log(`Fake GitHub on ${github.baseUrl}, signed in as ${owner.login} (id ${owner.id}), serving:`);
for (const folder of folders) {
  const repo = `${owner.login}/${basename(folder)}`;
  github.addRepo(repo, folder, { ...owner, type: 'User' });
  console.log(`  ${repo}  ← ${folder} (branch main)`);
}
const env = Object.entries(fakeGitHubStartEnv(github))
  .map(([name, value]) => `${name}=${value}`)
  .join(' ');
console.log(`Start Skillpress against it in another shell:\n  ${env} npm start`);

const stop = () => github.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
