import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePeerClients, type PeerClients } from './peer-clients.ts';
import { type ServerProcess, startServer } from './local/server-process.ts';

/**
 * `npx tsx scripts/demo-authoring.ts`: the author's path, walked as a new author would against
 * `npm start`, printing every command and what it answered (the README's "Try it as an author",
 * scripted). A git repository of 15 real skills (one with a block-scalar description, one with a
 * symlinked file) is imported from the fake GitHub (`npm run fake-github`) in one step, a push
 * re-imports only the skill it changed, the same folder publishes with `skillpress publish --all`
 * on a fresh registry, `skills find` (the `skills` CLI) lists ours, and `clawhub install` of the
 * suspicious skill among them warns. It needs the authors' repositories (cloned from GitHub, or a local copy), so it is a demo run by hand, not a test: CI has no network.
 *
 * The skills are read from git repositories of their authors at pinned commits: from
 * `SKILLPRESS_DEMO_SOURCES` (a folder of `<owner>+<name>/repo` git folders, as a bare clone
 * makes them), cloned from GitHub into it when missing.
 */

const root = fileURLToPath(new URL('..', import.meta.url));

/** The repositories the skills come from, at the commit the demo was written against. */
const SOURCES = {
  'obra/superpowers': '44c9b2d6e889982ac18c27d05a19fefe335194e1',
  'anthropics/skills': '9d2f1ae187231d8199c64b5b762e1bdf2244733d',
  'cloudflare/skills': '73070f8d454c534bbc50155dec8f45d1fc7fa7db',
  'vercel-labs/agent-skills': 'b9c8ee0643d87d3c5a953d1e22382ff2ead39229',
  'trailofbits/skills': '293fb74c3151cceda32a85a545fe8acd67f8f5c6',
} as const;

/** The 15 skills: repository and folder. */
const SKILLS: [keyof typeof SOURCES, string][] = [
  ['obra/superpowers', 'skills/brainstorming'],
  ['obra/superpowers', 'skills/executing-plans'],
  ['obra/superpowers', 'skills/finishing-a-development-branch'],
  ['obra/superpowers', 'skills/receiving-code-review'],
  ['obra/superpowers', 'skills/requesting-code-review'],
  ['obra/superpowers', 'skills/systematic-debugging'],
  ['obra/superpowers', 'skills/test-driven-development'],
  ['obra/superpowers', 'skills/verification-before-completion'],
  ['obra/superpowers', 'skills/writing-plans'],
  ['anthropics/skills', 'skills/brand-guidelines'],
  ['anthropics/skills', 'skills/internal-comms'],
  // Its description is a block scalar (`description: |`).
  ['cloudflare/skills', 'building-mcp-server-on-cloudflare'],
  ['vercel-labs/agent-skills', 'skills/web-design-guidelines'],
  ['vercel-labs/agent-skills', 'skills/deploy-to-vercel'],
  // Pipes a download into a shell in a reference: our scan marks it suspicious.
  ['trailofbits/skills', 'plugins/devcontainer-setup/skills/devcontainer-setup'],
];

/**
 * The skill a push changes. Not one whose `metadata.version` names its version (Vercel's do):
 * an import publishes that version, so a change that does not bump it is refused `version_exists`.
 */
export const CHANGED_SKILL = 'writing-plans';
/** The skill whose description is a block scalar. */
export const BLOCK_SCALAR_SKILL = 'building-mcp-server-on-cloudflare';
/** The skill given a symbolic link, `README.md` → `SKILL.md` (so GitHub shows the skill on the folder's page). */
export const LINKED_SKILL = 'systematic-debugging';
/** The skill our scan marks suspicious. */
export const SUSPICIOUS_SKILL = 'devcontainer-setup';
export const SKILL_COUNT = SKILLS.length;

export interface DemoOptions {
  /** Where the skills' repositories are, or are cloned to. */
  sources: string;
  /** A scratch folder for the repository, the registries' data and the clients' homes. */
  work: string;
  clients: PeerClients;
  /** Where the transcript goes. */
  print: (line: string) => void;
}

/** What a command printed. */
export interface Ran {
  code: number | null;
  stdout: string;
  output: string;
}

export interface DemoResult {
  /** The registry the repository was imported into, and the fresh one `publish --all` ran against. */
  origins: { imported: string; published: string };
  /** `POST /api/imports`' answer, and the webhook's after the push. */
  imported: ImportAnswer;
  reimported: ImportAnswer;
  /** The registry document of the block-scalar skill, after the import. */
  blockScalar: { description: string };
  /** The linked skill's files as delivered. */
  linkedFiles: string[];
  publishAll: Ran;
  find: Ran;
  clawhubInstall: Ran;
}

export interface ImportAnswer {
  commit: string;
  folders: { path: string; slug?: string; outcome: string; version?: string; error?: { code: string; message: string } }[];
}

/**
 * The commands' shared definitions: the clients as commands, and two readers of JSON answers.
 * Written to a file that every command's shell sources first, and printed at the start.
 */
function preamble(clients: PeerClients): string {
  return [
    `skillpress() { node "${root}cli/bin.mjs" "$@"; }   # this checkout's CLI`,
    `skills() { "${clients.node}" "${clients.skills}" "$@"; }   # npm skills@${clients.versions.skills}, on Node 22`,
    `clawhub() { "${clients.node}" "${clients.clawhub}" "$@"; }   # npm clawhub@${clients.versions.clawhub}`,
    `field() { node -pe "JSON.parse(require('fs').readFileSync(0)).$1"; }`,
    `folders() { node -e 'const a=JSON.parse(require("fs").readFileSync(0));if(a.error){console.log(JSON.stringify(a));process.exit(1)}const n={};for(const f of a.folders){n[f.outcome]=(n[f.outcome]||0)+1;console.log(f.outcome.padEnd(10),(f.slug||f.path).padEnd(34),f.version||"",f.error?f.error.code+": "+f.error.message:"")}console.log("commit",a.commit.slice(0,7)+":",JSON.stringify(n))'; }`,
  ].join('\n');
}

/** Runs the whole walk-through and gives what each step answered; stops the processes it started, whatever happens. */
export async function runAuthoringDemo(options: DemoOptions): Promise<DemoResult> {
  const { work, clients, print } = options;
  const repo = join(work, 'skills');
  const home = join(work, 'home');
  mkdirSync(home, { recursive: true });
  const envFile = join(work, 'demo.env');
  writeFileSync(envFile, `${preamble(clients)}\n`);
  const vars: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local/share'),
    NO_COLOR: '1',
    CI: '1',
    DO_NOT_TRACK: '1',
    DISABLE_TELEMETRY: '1',
    CLAWHUB_DISABLE_TELEMETRY: '1',
    GIT_AUTHOR_NAME: 'Octo',
    GIT_AUTHOR_EMAIL: 'octo@example.com',
    GIT_COMMITTER_NAME: 'Octo',
    GIT_COMMITTER_EMAIL: 'octo@example.com',
  };

  /** Runs `command` in bash, with the preamble's definitions. */
  const bash = (command: string, cwd: string) =>
    spawnSync('bash', ['-c', `source "${envFile}"\n${command}`], { cwd, env: vars, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
  /** A command's JSON answer, not printed. */
  const json = (command: string): unknown => JSON.parse(bash(command, work).stdout || '{}');

  /** Prints `$ command`, runs it with bash in `cwd`, prints what it printed (long outputs cut to their ends). */
  const sh = (command: string, { cwd = work, shown = 24 }: { cwd?: string; shown?: number } = {}): Ran => {
    print(`$ ${command}`);
    const result = bash(command, cwd);
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    const lines = output
      .trimEnd()
      .split('\n')
      .filter((line, i, all) => line !== '' || i < all.length - 1);
    const cut = lines.length > shown ? [...lines.slice(0, shown - 4), `… (${lines.length - shown + 1} lines)`, ...lines.slice(-3)] : lines;
    for (const line of cut) if (line) print(line);
    if (result.status !== 0) print(`(exit ${result.status})`);
    return { code: result.status, stdout: result.stdout ?? '', output };
  };
  /** `sh` that must succeed. */
  const must = (command: string, opts?: { cwd?: string; shown?: number }): Ran => {
    const ran = sh(command, opts);
    if (ran.code !== 0) throw new Error(`${command} exited with ${ran.code}:\n${ran.output}`);
    return ran;
  };
  /** `NAME=$(command)`: sets the variable for the commands after it. */
  const set = (name: string, command: string): string => {
    print(`$ ${name}=$(${command})`);
    const result = bash(command, work);
    if (result.status !== 0) throw new Error(`${command} exited with ${result.status}:\n${result.stdout}${result.stderr}`);
    vars[name] = result.stdout.trim();
    return vars[name]!;
  };

  const started: { fake?: ChildProcess; servers: ServerProcess[] } = { servers: [] };
  try {
    print('# The commands below run in bash with these definitions:');
    for (const line of preamble(clients).split('\n')) print(`#   ${line.length > 160 ? `${line.slice(0, 157)}…` : line}`);

    print('\n# 1. A git repository of 15 real skills, copied from their authors’ repositories at pinned commits');
    for (const [source, commit] of Object.entries(SOURCES)) ensureSource(options.sources, source, commit);
    print(`$ SOURCES=${options.sources}   # git folders of the authors' repositories, <owner>+<name>/repo`);
    vars.SOURCES = options.sources;
    must('git init -q -b main skills');
    const list = SKILLS.map(([source, path]) => `${source.replace('/', '+')} ${SOURCES[source]} ${path}`).join('\n');
    must(
      `while read -r src commit path; do mkdir -p "skills/\${path##*/}"; git -C "$SOURCES/$src/repo" archive "$commit" "$path" | tar -x -C "skills/\${path##*/}" --strip-components=$(tr -cd / <<<"$path" | wc -c | xargs expr 1 +); done <<'EOF'\n${list}\nEOF`,
    );
    must(`ln -s SKILL.md ${LINKED_SKILL}/README.md && ls -l ${LINKED_SKILL}/README.md | sed 's/.* ${LINKED_SKILL}/${LINKED_SKILL}/'`, { cwd: repo });
    must(`sed -n 1,5p ${BLOCK_SCALAR_SKILL}/SKILL.md`, { cwd: repo });
    must("git add -A && git commit -qm 'Fifteen skills' && git ls-files | grep -c /SKILL.md", { cwd: repo });

    print('\n# 2. The fake GitHub serving it, and npm start signing in with it');
    const fakePort = await freePort();
    print(`$ npm run fake-github -- --port ${fakePort} ${repo} &`);
    // A process group of its own: npm, tsx and the fake stop together.
    const fake = spawn('npm', ['run', '--silent', 'fake-github', '--', '--port', String(fakePort), repo], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    started.fake = fake;
    const fakeOutput = await printedUntil(fake, /npm start\n/);
    for (const line of fakeOutput.trimEnd().split('\n')) print(line);
    const startEnv = Object.fromEntries(
      [.../(SKILLPRESS_GITHUB_API|GITHUB_CLIENT_ID|GITHUB_CLIENT_SECRET)=(\S+)/g[Symbol.matchAll](fakeOutput)].map((m) => [m[1]!, m[2]!]),
    );

    print('\n# 3. octo signed up eight days ago: a first run of the registry with its clock 8 days back (faketime), where octo signs in');
    print('#    with GitHub (the fake approves at once). A newer account would have its flagged versions held for review (step 6 shows it).');
    const aged = await startRegistry(started, print, { ...startEnv, DATA_DIR: join(work, 'data') }, { eightDaysAgo: true });
    vars.B = aged;
    print(`$ B=${aged}`);
    must('curl -s -c jar -b jar -L -o /dev/null -w "%{url_effective}\\n" $B/api/auth/github');
    must('curl -s -b jar $B/api/me; echo');
    await started.servers.pop()!.stop('SIGINT');
    print('$ kill -INT %2   # that registry stops; today it starts again on the same data');
    const imported = await startRegistry(started, print, { ...startEnv, DATA_DIR: join(work, 'data') });
    print(`$ B=${imported}`);
    vars.B = imported;
    print('# Signed in again, today, and an API key');
    must('curl -s -c jar -b jar -L -o /dev/null -w "%{url_effective}\\n" $B/api/auth/github');
    set('KEY', `curl -s -b jar -H "origin: $B" -H 'content-type: application/json' -d '{"name":"demo"}' $B/api/api-keys | field key`);

    print('\n# 4. Import the repository: every skill folder in one step (the suspicious one published flagged: octo is no new publisher)');
    const importRan = must(
      `curl -s -H "authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"repo":"octo/skills"}' $B/api/imports | tee import.json | folders`,
    );
    const importAnswer = readJson(work, 'import.json') as ImportAnswer;
    if (importRan.code !== 0) throw new Error('the import failed');
    // Each write is followed by a rebuild of the registry's files, a moment later.
    await until(json, (catalog) => catalog.skills?.length === SKILLS.length);
    print("# Versions with anything to run are run in the registry's sandbox before anyone installs them (seconds each):");
    print(`#   the registry documents are full once each is cleared (until then: {"status":"pending"})`);
    await untilCleared(
      json,
      '$B',
      importAnswer.folders.flatMap((f) => (f.slug ? [f.slug] : [])),
    );
    must(
      `for s in $(curl -s $B/.well-known/skills.json | node -pe "JSON.parse(require('fs').readFileSync(0)).skills.map(s => s.slug).join(' ')"); do printf '%-34s %s\\n' $s "$(curl -s $B/api/registry/$s/versions | node -pe "const v = JSON.parse(require('fs').readFileSync(0)).versions[0]; v.behaviour + ' · runs: ' + (v.effects ? ['reads','writes','network','executes'].map(k => k + ' ' + v.effects[k].length).join(', ') : 'nothing')")"; done`,
    );
    must(`curl -s $B/api/registry/${BLOCK_SCALAR_SKILL} | field description`);
    const blockScalar = json(`curl -s $B/api/registry/${BLOCK_SCALAR_SKILL}`) as { description: string; id: string };
    const linked = json(`curl -s $B/api/registry/${LINKED_SKILL}`) as { id: string };
    must(`curl -s "$B/api/deliver/${linked.id}" | node -pe "JSON.parse(require('fs').readFileSync(0)).files.map(f => f.filename).join(' ')"`);
    const linkedFiles = (json(`curl -s "$B/api/deliver/${linked.id}"`) as { files: { filename: string }[] }).files.map((f) => f.filename);

    print('\n# 5. A push that changes one skill: GitHub delivers the push to the import’s webhook, which imports again');
    must(`echo '- Name the files each task touches.' >> ${CHANGED_SKILL}/SKILL.md && git commit -qam 'Plans name their files' && git log --oneline -1`, {
      cwd: repo,
    });
    set('HOOK', 'field webhookUrl < import.json');
    set('SECRET', 'field webhookSecret < import.json');
    set('BODY', `printf '{"ref":"refs/heads/main","after":"%s"}' $(git -C skills rev-parse HEAD)`);
    must(
      `curl -s -H 'X-GitHub-Event: push' -H "X-Hub-Signature-256: sha256=$(printf %s "$BODY" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/.* //')" -H 'content-type: application/json' -d "$BODY" "$HOOK" | tee reimport.json | folders`,
    );
    const reimported = readJson(work, 'reimport.json') as ImportAnswer;

    print('\n# 6. The same folder with skillpress publish --all, in one run, on a fresh registry (the names are taken on the first),');
    print('#    by ada, whose account is new: the suspicious skill is held for review (an appeal the admins see), the rest published');
    const published = await startRegistry(started, print, { DATA_DIR: join(work, 'data-fresh') });
    print(`$ B2=${published}`);
    vars.B2 = published;
    must('curl -s -c jar2 -H "origin: $B2" -H \'content-type: application/json\' -d \'{"login":"ada"}\' $B2/api/auth/dev-login; echo');
    set('KEY2', `curl -s -b jar2 -H "origin: $B2" -H 'content-type: application/json' -d '{"name":"cli"}' $B2/api/api-keys | field key`);
    const publishAll = sh('SKILLPRESS_REGISTRY=$B2 SKILLPRESS_API_KEY=$KEY2 skillpress publish --all . --changelog "First"', { cwd: repo, shown: 80 });
    print('# Run again: nothing to send, but the held skill, which waits in the appeal it is already in (no second appeal is filed)');
    sh('SKILLPRESS_REGISTRY=$B2 SKILLPRESS_API_KEY=$KEY2 skillpress publish --all .', { cwd: repo, shown: 24 });
    must(
      `curl -s -H "authorization: Bearer $KEY2" $B2/api/appeals | node -pe "JSON.parse(require('fs').readFileSync(0)).appeals.map(a => a.slug + ' ' + a.version + ' ' + a.status).join('\\n')"`,
    );

    print('\n# 7. Other clients: skills find lists ours, clawhub install of the suspicious skill warns');
    await until(json, (catalog) => catalog.skills?.some((s) => s.slug === CHANGED_SKILL && s.currentVersion !== '1.0.0'));
    const find = must('SKILLS_API_URL=$B skills find debugging');
    const clawhubInstall = sh(`mkdir -p project && clawhub --registry $B --workdir project --no-input install ${SUSPICIOUS_SKILL}`);
    return {
      origins: { imported, published },
      imported: importAnswer,
      reimported,
      blockScalar,
      linkedFiles,
      publishAll,
      find,
      clawhubInstall,
    };
  } finally {
    for (const server of started.servers) await server.stop('SIGINT');
    if (started.fake?.pid !== undefined && started.fake.exitCode === null) process.kill(-started.fake.pid, 'SIGTERM');
  }
}

/** What `faketime -f -8d` sets: the registry's clock eight days back, and everything it runs with it. */
const EIGHT_DAYS_AGO = { LD_PRELOAD: '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', FAKETIME: '-8d' };

/**
 * Starts `npm start` (as scripts/local/server-process.ts does) on `env`, with its clock eight days
 * back if asked (faketime), and prints the command a reader would type.
 */
async function startRegistry(
  started: { servers: ServerProcess[] },
  print: (line: string) => void,
  env: Record<string, string>,
  { eightDaysAgo = false } = {},
): Promise<string> {
  const port = await freePort();
  // The site build costs CPU the demo does not look at.
  const shown = { ...env, PORT: String(port), SKILLPRESS_SITE: '0' };
  print(
    `$ ${Object.entries(shown)
      .map(([name, value]) => `${name}=${value}`)
      .join(' ')} ${eightDaysAgo ? 'faketime -f -8d ' : ''}npm start &`,
  );
  const server = await startServer(eightDaysAgo ? { ...shown, ...EIGHT_DAYS_AGO } : shown);
  started.servers.push(server);
  print(`Skillpress listening on ${server.baseUrl}`);
  return server.baseUrl;
}

/** The catalog (`/.well-known/skills.json`) as far as the demo reads it. */
interface Catalog {
  skills?: { slug: string; currentVersion: string }[];
}

/** Waits (a minute at most) until the registry's catalog shows what `done` looks for. */
async function until(json: (command: string) => unknown, done: (catalog: Catalog) => boolean | undefined): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && !done(json('curl -s $B/.well-known/skills.json') as Catalog)) await new Promise((resolve) => setTimeout(resolve, 500));
  // The ClawHub-compatible list reads the catalog at most once a second.
  await new Promise((resolve) => setTimeout(resolve, 1100));
}

/** Waits (five minutes at most: runs in the sandbox take seconds each on a quiet machine) until every slug's registry document on `origin` is full. */
async function untilCleared(json: (command: string) => unknown, origin: string, slugs: string[]): Promise<void> {
  const deadline = Date.now() + 300_000;
  let pending = slugs;
  while (pending.length > 0 && Date.now() < deadline) {
    pending = pending.filter((slug) => (json(`curl -s ${origin}/api/registry/${slug}`) as { status?: string }).status !== undefined);
    if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  if (pending.length > 0) throw new Error(`still being observed after five minutes: ${pending.join(', ')}`);
}

/** Clones `owner/name` (bare) into `sources` when it is not there; one that is there must hold `commit`. */
function ensureSource(sources: string, source: string, commit: string): void {
  const dir = join(sources, source.replace('/', '+'), 'repo');
  if (!existsSync(dir)) {
    mkdirSync(join(dir, '..'), { recursive: true });
    spawnSync('git', ['clone', '--quiet', '--bare', `https://github.com/${source}`, dir], { stdio: 'inherit' });
  }
  if (spawnSync('git', ['-C', dir, 'cat-file', '-e', `${commit}^{commit}`]).status !== 0)
    throw new Error(`${dir} does not hold ${source} at ${commit} (fetch it there, or set SKILLPRESS_DEMO_SOURCES to a folder it can be cloned into)`);
}

function readJson(work: string, file: string): unknown {
  return JSON.parse(readFileSync(join(work, file), 'utf8'));
}

/** Output of `child` until `until` matches it. */
function printedUntil(child: ChildProcess, until: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no match for ${until} in:\n${output}`)), 120_000);
    const take = (chunk: Buffer) => {
      output += chunk;
      if (until.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
}

/** A port free on loopback now. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const work = mkdtempSync(join(tmpdir(), 'skillpress-demo-'));
  const sources = process.env.SKILLPRESS_DEMO_SOURCES ?? join(tmpdir(), 'skillpress-demo-sources');
  const clients = ensurePeerClients(process.env.PEER_CLIENTS_DIR ?? join(tmpdir(), 'skillpress-peer-clients'));
  try {
    await runAuthoringDemo({ sources, work, clients, print: (line) => console.log(line) });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
