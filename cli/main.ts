import { createRequire } from 'node:module';
import type * as Util from 'node:util';
import { CliError, EXIT, type ExitCode, usage } from './cli-error.ts';
import { deprecate } from './commands/deprecate.ts';
import { info } from './commands/info.ts';
import { init } from './commands/init.ts';
import { install } from './commands/install.ts';
import { list } from './commands/list.ts';
import { login, logout } from './commands/login.ts';
import { publish } from './commands/publish.ts';
import { publishAll } from './commands/publish-all.ts';
import { isBump } from './publish-plan.ts';
import { scan } from './commands/scan.ts';
import { search } from './commands/search.ts';
import { uninstall } from './commands/uninstall.ts';
import { update } from './commands/update.ts';
import { verify } from './commands/verify.ts';
import { version } from './commands/version.ts';
import { whoami } from './commands/whoami.ts';
import { yank } from './commands/yank.ts';
import { CLI_VERSION, cacheWritesSettled } from './http.ts';
import { settlePendingSync } from './install-tree.ts';
import { type Io, processIo } from './io.ts';
import { didYouMean } from './did-you-mean.ts';
import { DEFAULT_REGISTRY, registryNamed, registryUrl } from './registry-client.ts';
import { terminalJson, terminalLine, terminalText } from './terminal-text.ts';
import { type CommandIo, createUi, type Ui } from './ui.ts';
import { fromDomainError } from './validated.ts';
import { findingDetailLines } from './scan-findings.ts';

/**
 * The `skillpress` command: parses arguments (node:util parseArgs), runs one command function,
 * prints its result (as JSON with `--json`) or its error, and turns the outcome into the exit
 * code. The only place that ends the process.
 */

// Required, not imported: the ES module face of node:util reads every export, and its getters
// load util's diff and terminal-colour machinery, which no command uses (about a tenth of a
// command's start, as the face of node:http was, cli/http-transport.ts).
const { parseArgs } = createRequire(import.meta.url)('node:util') as typeof Util;

type Options = NonNullable<Util.ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface Context {
  io: CommandIo;
  values: Values;
  positionals: string[];
  registry: () => string;
  registryChosen: boolean;
}

interface Command {
  usage: string;
  summary: string;
  /** Shorter usage for the command list, when `usage` is long. */
  synopsis?: string;
  /** Longer text for `skillpress <command> --help`; the summary when absent. */
  description?: string;
  options: Options;
  optionHelp: [string, string][];
  run(ctx: Context): Promise<unknown>;
}

const str = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);

const globalOption: Options = { global: { type: 'boolean', short: 'g' } };

/** A lockfile's own roots are not trusted (cli/lockfile.ts): the user names one with --dir. */
const dirConfirmHelp: [string, string] = ['--dir <folder>', 'allow the skills the lockfile keeps in <folder>, a folder you chose with install --dir'];

/** What install and update share about effects beyond a skill's folder (cli/effects-consent.ts) and versions still observed. */
const consentOptions: Options = { yes: { type: 'boolean', short: 'y' }, strict: { type: 'boolean' }, 'allow-pending': { type: 'boolean' } };

const consentHelp = (verb: 'install' | 'update'): [string, string][] => [
  [
    '-y, --yes',
    `accept the effects beyond the skills' folders without being asked (${verb === 'update' ? 'only new effects are shown' : 'they are still printed'})`,
  ],
  ['--strict', 'with no terminal to ask on, refuse a skill with effects beyond its folder (consent_required) instead of going ahead'],
  ['--allow-pending', `${verb} versions the registry is still observing (by default the newest cleared one)`],
];

const consentValues = (values: Values) => ({
  consent: { yes: values.yes === true, strict: values.strict === true },
  allowPending: values['allow-pending'] === true,
});

const registryHelp: [string, string] = ['--registry <url>', `registry to use (else SKILLPRESS_REGISTRY, the one login saved, ${DEFAULT_REGISTRY})`];

/** `version`, and `publish --oidc`, which is the same from CI. */
function versionCommand({ io, values, positionals, registry }: Pick<Context, 'io' | 'values' | 'positionals' | 'registry'>, shape: string): Promise<unknown> {
  if (positionals.length < 1 || positionals.length > 2) throw usage(`usage: skillpress ${shape}`);
  const [dir, semver] = positionals.length === 2 ? positionals : ['.', positionals[0]!];
  return version(
    {
      registry: registry(),
      dir: dir!,
      version: semver!,
      changelog: str(values.changelog),
      slug: str(values.slug),
      dryRun: values['dry-run'] === true,
      oidc: values.oidc === true,
      appeal: str(values.appeal),
    },
    io,
  );
}

const publishAllOptions: Options = {
  all: { type: 'boolean' },
  bump: { type: 'string' },
  changelog: { type: 'string' },
  org: { type: 'string' },
  private: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
};

/** `publish --all [dir]` and `sync [dir]`. */
function runPublishAll({ io, values, positionals, registry }: Context): Promise<unknown> {
  if (positionals.length > 1) throw usage('name one folder: every skill folder under it is published');
  const bump = str(values.bump) ?? 'patch';
  if (!isBump(bump)) throw usage('--bump must be patch, minor or major');
  return publishAll(
    {
      registry: registry(),
      dir: positionals[0] ?? '.',
      category: str(values.category),
      bump,
      changelog: str(values.changelog),
      org: str(values.org),
      private: values.private === true,
      dryRun: values['dry-run'] === true,
    },
    io,
  );
}

const commands: Record<string, Command> = {
  search: {
    usage: 'search [words...]',
    summary: 'Search the catalog (names, descriptions, SKILL.md texts; typos and synonyms too)',
    options: { limit: { type: 'string' }, category: { type: 'string' }, sort: { type: 'string' } },
    optionHelp: [
      ['--limit <n>', 'show at most n results (1-100, default 20)'],
      ['--category <name>', 'only skills of this category'],
      ['--sort <order>', 'relevance (default), installs or newest'],
      registryHelp,
    ],
    run: ({ io, values, positionals, registry }) => {
      const limit = Number(str(values.limit) ?? 20);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw usage('--limit must be a whole number from 1 to 100');
      const sort = str(values.sort);
      if (sort !== undefined && !['relevance', 'installs', 'newest'].includes(sort)) throw usage('--sort must be relevance, installs or newest');
      const category = str(values.category);
      return search({ registry: registry(), words: positionals, limit, ...(category ? { category } : {}), ...(sort ? { sort } : {}) }, io);
    },
  },
  info: {
    usage: 'info <slug>',
    summary: 'Show a skill: versions and changelogs, files, dependencies',
    options: {},
    optionHelp: [registryHelp],
    run: ({ io, positionals, registry }) => {
      if (positionals.length !== 1) throw usage('name one skill: skillpress info <slug>');
      return info({ registry: registry(), slug: positionals[0]! }, io);
    },
  },
  install: {
    usage: 'install [slug[@version|@range]...]',
    summary: 'Install skills and their dependencies; no names: reproduce skillpress-lock.json',
    description: `Install skills (the latest version by default, or the highest match of a range) and
the dependencies they declare. Every file's SHA-256 and the bundle integrity are checked against
the registry before anything is written, and each folder is swapped in whole, so a failed install
leaves the previous one as it was. With no names, reproduce skillpress-lock.json exactly.
Skills go to .agents/skills/<slug>, the folder Codex, Cursor, Gemini CLI, GitHub Copilot,
OpenCode, Amp and others read; --agent claude-code puts them where Claude Code reads them.`,
    options: {
      ...globalOption,
      dir: { type: 'string' },
      agent: { type: 'string', multiple: true },
      token: { type: 'string' },
      force: { type: 'boolean' },
      'allow-suspicious': { type: 'boolean' },
      'require-provenance': { type: 'boolean' },
      ...consentOptions,
    },
    optionHelp: [
      ['--dir <folder>', 'install into <folder>/<slug> (default .agents/skills); with no names, allow the skills the lockfile keeps in <folder>'],
      [
        '--agent <id>',
        'install where that agent reads skills, ids as the skills CLI names them: claude-code (or claude) → .claude/skills, windsurf → .windsurf/skills, codex, cursor, gemini-cli, github-copilot, opencode, amp → .agents/skills, …; repeat it or give a comma list for several agents: the skill goes to .agents/skills once and is linked into the others',
      ],
      ['--token <token>', 'download token for a paid skill (from its author)'],
      [
        '-g, --global',
        'install for your user, into the folders agents read for every project (~/.agents/skills, ~/.claude/skills with --agent claude-code, …, as skills add -g does); pinned in $XDG_DATA_HOME/skillpress/skillpress-lock.json',
      ],
      ['--force', 'replace a folder that skillpress did not install, or whose files changed since'],
      ['--allow-suspicious', "install versions the registry's scan flags as suspicious"],
      ['--require-provenance', 'install only versions published from CI by a trusted publisher (dependencies too)'],
      ...consentHelp('install'),
      registryHelp,
    ],
    run: ({ io, values, positionals, registry, registryChosen }) =>
      install(
        {
          registry: registry(),
          registryChosen,
          specs: positionals,
          dir: str(values.dir),
          agents: Array.isArray(values.agent)
            ? values.agent
                .flatMap((a) => String(a).split(','))
                .map((a) => a.trim())
                .filter(Boolean)
            : [],
          token: str(values.token),
          force: values.force === true,
          allowSuspicious: values['allow-suspicious'] === true,
          requireProvenance: values['require-provenance'] === true,
          global: values.global === true,
          ...consentValues(values),
        },
        io,
      ),
  },
  update: {
    usage: 'update [slug...]',
    summary: 'Show the changelogs up to the newest allowed versions, then update',
    options: {
      ...globalOption,
      'dry-run': { type: 'boolean' },
      token: { type: 'string' },
      'allow-suspicious': { type: 'boolean' },
      dir: { type: 'string' },
      ...consentOptions,
    },
    optionHelp: [
      ['-g, --global', 'the skills installed for your user (install -g)'],
      dirConfirmHelp,
      ['--dry-run', 'show the changelogs, change nothing'],
      ['--token <token>', 'download token for a paid skill'],
      ['--allow-suspicious', "update to versions the registry's scan flags as suspicious"],
      ...consentHelp('update'),
      registryHelp,
    ],
    run: ({ io, values, positionals, registry, registryChosen }) =>
      update(
        {
          registry: registry(),
          registryChosen,
          slugs: positionals,
          token: str(values.token),
          dryRun: values['dry-run'] === true,
          allowSuspicious: values['allow-suspicious'] === true,
          global: values.global === true,
          dir: str(values.dir),
          ...consentValues(values),
        },
        io,
      ),
  },
  uninstall: {
    usage: 'uninstall <slug...>',
    summary: 'Remove skills, and the dependencies nothing else needs',
    options: { ...globalOption, dir: { type: 'string' } },
    optionHelp: [['-g, --global', 'the skills installed for your user (install -g)'], dirConfirmHelp],
    run: ({ io, values, positionals }) => uninstall({ slugs: positionals, global: values.global === true, dir: str(values.dir) }, io),
  },
  list: {
    usage: 'list',
    summary: 'Installed skills, marked when outdated or changed on disk',
    options: { ...globalOption, offline: { type: 'boolean' } },
    optionHelp: [
      ['-g, --global', 'the skills installed for your user (install -g)'],
      ['--offline', 'do not ask the registry for newer versions'],
      registryHelp,
    ],
    run: ({ io, values, positionals, registry, registryChosen }) => {
      if (positionals.length > 0) throw usage('list takes no arguments');
      return list({ registry: registry(), registryChosen, offline: values.offline === true, global: values.global === true }, io);
    },
  },
  verify: {
    usage: 'verify',
    summary: "Recheck installed skills against the lockfile and the registry's signatures (exit 3 on any mismatch)",
    options: {},
    optionHelp: [registryHelp],
    run: ({ io, positionals, registry, registryChosen }) => {
      if (positionals.length > 0) throw usage('verify takes no arguments');
      return verify({ registry: registry(), registryChosen }, io);
    },
  },
  login: {
    usage: 'login',
    summary: 'Store an API key (stdin or a hidden prompt) and use this registry from now on',
    options: { key: { type: 'string' } },
    optionHelp: [['--key <sk_...>', 'the key itself (shells keep it in their history; prefer stdin)'], registryHelp],
    run: ({ io, values, registry }) => login({ registry: registry(), key: str(values.key) }, io),
  },
  whoami: {
    usage: 'whoami',
    summary: 'Show the account your API key belongs to',
    options: {},
    optionHelp: [registryHelp],
    run: ({ io, positionals, registry }) => {
      if (positionals.length > 0) throw usage('whoami takes no arguments');
      return whoami({ registry: registry() }, io);
    },
  },
  logout: {
    usage: 'logout',
    summary: 'Forget the stored API key for the registry',
    options: {},
    optionHelp: [registryHelp],
    run: ({ io, registry }) => logout({ registry: registry() }, io),
  },
  init: {
    usage: 'init [name]',
    summary: 'Start a skill: write a SKILL.md (in ./<name>/, or here) ready to fill in',
    description: `Write a SKILL.md that is a valid Agent Skill, named after its folder: ./<name>/ (created
when missing; <name> may be a path, its last part naming the skill), or the current folder
without one. An existing SKILL.md is never overwritten. Fill in its description and instructions,
then check it with skillpress scan and publish it with skillpress publish.`,
    options: { description: { type: 'string' }, category: { type: 'string' } },
    optionHelp: [
      ['--description <text>', 'what the skill does and when to use it (else a placeholder publish refuses)'],
      ['--category <label>', 'written under metadata, where publish reads it'],
    ],
    run: ({ io, values, positionals }) => {
      if (positionals.length > 1) throw usage('init takes one name: skillpress init <name>');
      return init({ name: positionals[0], description: str(values.description), category: str(values.category) }, io);
    },
  },
  publish: {
    usage: 'publish [dir] | publish --all [dir]',
    synopsis: 'publish [dir]',
    summary: 'Publish a folder with a SKILL.md as a new skill (1.0.0); --all: every skill under a folder',
    description: `Publish a folder as a new skill at 1.0.0. The SKILL.md front matter names it (name is
the slug) and describes it, and must be a valid Agent Skill: the folder is checked as the
registry checks it before anything is sent. Also read, under metadata: category, dependencies
("pdf-tools@^1.2.0, other@1.0.0"). The display name is the first "# heading". The files are the
folder's minus what .gitignore and .skillignore exclude, and never .git, node_modules, .agents or
.skills; links inside the folder are followed (one leading outside it is refused); binary files
are sent as base64, executable ones as executable. For later versions use
skillpress version.

With --all (or skillpress sync), every skill folder under [dir] is published: a new one at 1.0.0,
one whose files differ from its newest version as that version bumped (--bump, patch by
default), and one that has not changed is left alone, so running it again sends nothing. Every
folder is checked before anything is sent. A publish the registry's rate limit refuses is sent
again once its Retry-After has passed; the exit code is 0 only when every folder is published or
unchanged.`,
    options: {
      ...publishAllOptions,
      category: { type: 'string' },
      slug: { type: 'string' },
      paid: { type: 'boolean' },
      oidc: { type: 'boolean' },
      appeal: { type: 'string' },
    },
    optionHelp: [
      ['--all', 'every skill folder under [dir] that is new or changed (see above)'],
      ['--category <label>', 'category (else "category:" under metadata in the SKILL.md, else general; with --all, only for those naming none)'],
      ['--slug <slug>', 'the slug you mean to publish: must be the SKILL.md name'],
      ['--paid', 'a paid skill: delivered only with a download token or a grant'],
      ['--org <login>', 'publish into an organisation you maintain or own'],
      ['--private', "with --org: only the organisation's members see and install it"],
      ['--changelog <text>', 'notes for 1.0.0 (with --all: for every version published)'],
      ['--bump <part>', 'with --all: patch (default), minor or major, for changed skills'],
      ['--appeal <message>', "the registry's scan refuses it and you believe it wrong: send it for an admin's review instead"],
      ['--dry-run', 'list what would be sent, send nothing'],
      ['--oidc', 'from CI, with no key (a trusted publisher): publish [dir] <semver> --oidc adds that version to the existing skill'],
      registryHelp,
    ],
    run: (ctx) => {
      const { io, values, positionals, registry } = ctx;
      if (values.all === true) {
        if (values.paid === true || values.slug !== undefined) throw usage('--paid and --slug name one skill: publish it alone, or leave them out with --all');
        if (values.appeal !== undefined) throw usage('--appeal sends one skill for review: publish it alone with --appeal');
        return runPublishAll(ctx);
      }
      // CI creates no skills: with --oidc, publish is `version` of the skill the folder names.
      if (values.oidc === true) return versionCommand({ io, values, positionals, registry }, 'publish [dir] <semver> --oidc');
      if (values.bump !== undefined) throw usage('--bump goes with --all; one skill takes skillpress version [dir] patch|minor|major');
      if (positionals.length > 1) throw usage('publish takes one folder');
      return publish(
        {
          registry: registry(),
          dir: positionals[0] ?? '.',
          category: str(values.category),
          slug: str(values.slug),
          paid: values.paid === true,
          changelog: str(values.changelog),
          org: str(values.org),
          private: values.private === true,
          dryRun: values['dry-run'] === true,
          appeal: str(values.appeal),
        },
        io,
      );
    },
  },
  sync: {
    usage: 'sync [dir]',
    summary: 'Publish every skill folder under dir that is new or changed (publish --all)',
    description: `The same as skillpress publish --all [dir]: every skill folder under [dir] (a folder with
a SKILL.md) that is not in the registry is published at 1.0.0, every one whose files differ
from its newest version gets that version bumped (--bump, patch by default), and the others
are left alone. Every folder is checked before anything is sent. A publish the registry's rate
limit refuses is sent again once its Retry-After has passed; the exit code is 0 only when every
folder is published or unchanged.`,
    options: { ...publishAllOptions, category: { type: 'string' } },
    optionHelp: [
      ['--category <label>', 'for new skills whose SKILL.md names none (else general)'],
      ['--org <login>', 'publish new skills into an organisation you maintain or own'],
      ['--private', "with --org: only the organisation's members see and install them"],
      ['--changelog <text>', 'notes for every version published'],
      ['--bump <part>', 'patch (default), minor or major, for changed skills'],
      ['--dry-run', 'list what would be sent, send nothing'],
      registryHelp,
    ],
    run: runPublishAll,
  },
  scan: {
    usage: 'scan [dir]',
    summary: "Check a skill folder with the registry's scanner before publishing",
    description: `Scan the files skillpress publish would send with the same rules the registry applies
at publish. Exit 0: clean. Exit 1: suspicious (code suspicious_skill: the registry would publish
it, and installers must pass --allow-suspicious) or malicious (code content_rejected: the
registry would refuse it). The findings name the rule, file, line and reason.`,
    options: {},
    optionHelp: [],
    run: ({ io, positionals }) => {
      if (positionals.length > 1) throw usage('scan takes one folder');
      return scan({ dir: positionals[0] ?? '.' }, io);
    },
  },
  version: {
    usage: 'version [dir] <semver|patch|minor|major> --changelog <text>',
    synopsis: 'version [dir] <semver|patch|minor|major>',
    summary: 'Publish the folder as a new version of its skill',
    description: `Publish the folder as a new version of the skill its SKILL.md names. Give the version
(1.4.0, 2.0.0-rc.1), or patch, minor or major to bump the highest version the registry has
(1.3.2 → 1.3.3, 1.4.0, 2.0.0); a bump refuses files identical to that version's. Versions are
immutable.`,
    options: { changelog: { type: 'string' }, slug: { type: 'string' }, 'dry-run': { type: 'boolean' }, oidc: { type: 'boolean' }, appeal: { type: 'string' } },
    optionHelp: [
      ['--changelog <text>', 'what changed; shown by skillpress update and info'],
      ['--slug <slug>', 'the skill you mean to publish to: must be the SKILL.md name'],
      ['--appeal <message>', "the registry's scan refuses it and you believe it wrong: send it for an admin's review instead"],
      ['--dry-run', 'list the files that would be sent, send nothing'],
      ['--oidc', "from CI, with the runner's OIDC token instead of a key (the skill must trust the workflow)"],
      registryHelp,
    ],
    run: (ctx) => versionCommand(ctx, 'version [dir] <semver|patch|minor|major> --changelog <text>'),
  },
  yank: {
    usage: 'yank <slug>@<version> [--reason <text>]',
    synopsis: 'yank <slug>@<version>',
    summary: 'Withdraw a version: ranges and "latest" skip it, pinned installs keep it',
    description: `Yank a version of your skill. A range or "latest" never picks it again, and yanking the
current version makes the highest other release current; installs whose lockfile pins it keep
working, with a warning. Nothing is deleted: skillpress yank <slug>@<version> --undo restores it.`,
    options: { reason: { type: 'string' }, undo: { type: 'boolean' } },
    optionHelp: [['--reason <text>', 'why, shown beside the version in the registry and on its page'], ['--undo', 'restore a yanked version'], registryHelp],
    run: ({ io, values, positionals, registry }) => {
      if (positionals.length !== 1) throw usage('name one version: skillpress yank <slug>@<version> --reason <text>');
      return yank({ registry: registry(), target: positionals[0]!, reason: str(values.reason), undo: values.undo === true }, io);
    },
  },
  deprecate: {
    usage: 'deprecate <slug> --message <text>',
    synopsis: 'deprecate <slug>',
    summary: 'Mark your skill deprecated; its page, install, update and list show why',
    options: { message: { type: 'string' }, undo: { type: 'boolean' } },
    optionHelp: [['--message <text>', 'what to use instead, or why'], ['--undo', 'take the deprecation back'], registryHelp],
    run: ({ io, values, positionals, registry }) => {
      if (positionals.length !== 1) throw usage('name one skill: skillpress deprecate <slug> --message <text>');
      return deprecate({ registry: registry(), slug: positionals[0]!, message: str(values.message), undo: values.undo === true }, io);
    },
  },
};

const globalOptions: Options = {
  registry: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
};

const allOptions: Options = Object.assign({}, globalOptions, ...Object.values(commands).map((c) => c.options));

export const EXIT_CODES_HELP = `Exit codes:
  0  success
  1  user error: bad arguments, unknown skill or version, paid skill without a valid token,
     missing API key, rejected publish (the server's error code is printed), a suspicious
     version without --allow-suspicious (suspicious_skill), a quarantined skill, effects
     beyond a skill's folder declined (consent_declined) or, with --strict and no terminal,
     not accepted with --yes (consent_required)
  2  network or server error: registry unreachable, 5xx, rate limited (429), malformed answer
  3  integrity failure: the download differs from the registry's or the lockfile's digests,
     or names an unsafe path; nothing was written`;

function topHelp(): string {
  const synopsis = (c: Command) => c.synopsis ?? c.usage;
  const width = Math.max(...Object.values(commands).map((c) => synopsis(c).length));
  const lines = Object.values(commands).map((c) => `  ${synopsis(c).padEnd(width)}  ${c.summary}`);
  return `skillpress ${CLI_VERSION} — find, install and publish agent skills

Usage: skillpress <command> [options]

Commands:
${lines.join('\n')}

Options for every command:
  --registry <url>  registry (else SKILLPRESS_REGISTRY, else the one login saved, else
                    ${DEFAULT_REGISTRY})
  --json            print one JSON document on stdout; errors as {"error":{code,message,hint?,details?}}
  -h, --help        help for a command: skillpress <command> --help
  -v, --version     print the client version

Skills install into ./.agents/skills/<slug>/ (--dir, --agent <id>) and are pinned in
skillpress-lock.json; with -g, for your user into ~/.agents/skills/<slug>/ (or the agent's own
user-level folder), pinned in $XDG_DATA_HOME/skillpress/skillpress-lock.json.

${EXIT_CODES_HELP}

Environment: SKILLPRESS_REGISTRY, SKILLPRESS_API_KEY (instead of login), NO_COLOR, FORCE_COLOR,
XDG_CONFIG_HOME (credentials.json, config.json), XDG_CACHE_HOME (registry metadata cache),
XDG_DATA_HOME (the lockfile of -g installs).
`;
}

function commandHelp(name: string, command: Command): string {
  const rows: [string, string][] = [...command.optionHelp, ['--json', 'print the result as JSON']];
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return `Usage: skillpress ${command.usage}

${command.description ?? command.summary}

Options:
${rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`).join('\n')}
${name === 'install' || name === 'update' ? `\n${EXIT_CODES_HELP}\n` : ''}`;
}

/** Runs the client with `argv` (without the node and script paths) and returns the exit code. */
export async function main(argv: string[], io: Io): Promise<ExitCode> {
  const json = argv.includes('--json');
  const ui = createUi(io, json);
  try {
    const first = parseArgs({ args: argv, options: allOptions, allowPositionals: true, strict: false });
    const name = first.positionals[0];
    if (first.values.version === true && name === undefined) {
      io.stdout.write(json ? `${JSON.stringify({ version: CLI_VERSION })}\n` : `${CLI_VERSION}\n`);
      return EXIT.ok;
    }
    if (name === undefined || (name === 'help' && first.positionals.length === 1)) {
      io.stdout.write(topHelp());
      return first.values.help === true || name === 'help' ? EXIT.ok : EXIT.user;
    }
    const helpFor = name === 'help' ? first.positionals[1]! : name;
    const command = Object.hasOwn(commands, helpFor) ? commands[helpFor]! : undefined;
    if (!command) {
      const suggestion = didYouMean(helpFor, Object.keys(commands));
      throw usage(`unknown command "${helpFor}"${suggestion ? `: ${suggestion}` : ''}`, `commands: ${Object.keys(commands).join(', ')}`);
    }
    if (name === 'help' || first.values.help === true) {
      io.stdout.write(commandHelp(helpFor, command));
      return EXIT.ok;
    }

    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({ args: argv, options: { ...globalOptions, ...command.options }, allowPositionals: true, strict: true });
    } catch (error) {
      throw usage(
        (error as Error).message
          .split('\n')[0]!
          .replace(/\. To specify a positional.*$/, '')
          .replace(/^Unknown option/, 'unknown option'),
        `see skillpress ${name} --help`,
      );
    }
    const values = parsed.values as Values;
    let registry: string | undefined;
    const result = await command.run({
      io: { ...io, ui },
      values,
      positionals: parsed.positionals.slice(1),
      registry: () => (registry ??= registryUrl(str(values.registry), io.env)),
      registryChosen: registryNamed(str(values.registry), io.env),
    });
    if (json) io.stdout.write(`${terminalJson(result)}\n`);
    return EXIT.ok;
  } catch (error) {
    return reportError(fromDomainError(error), io, ui);
  } finally {
    // No command leaves a registry document half-written in the cache.
    await cacheWritesSettled();
  }
}

function reportError(error: unknown, io: Io, ui: Ui): ExitCode {
  ui.endProgress();
  const known = error instanceof CliError ? error : undefined;
  const code = known?.code ?? 'internal';
  const message = known?.message ?? `unexpected failure: ${(error as Error)?.message ?? String(error)}`;
  const { hint, details } = known?.options ?? {};
  if (ui.json) {
    io.stdout.write(`${terminalJson({ error: { code, message, ...(hint ? { hint } : {}), ...(details === undefined ? {} : { details }) } })}\n`);
  } else {
    // Code, message and details may be a registry's words: cleaned before the colours go on.
    const { e } = ui;
    io.stderr.write(`${e.red('error')} ${e.bold(terminalLine(code))}: ${terminalText(message)}\n`);
    for (const line of detailLines(details)) io.stderr.write(`  ${terminalText(line)}\n`);
    if (hint) io.stderr.write(`  ${e.dim('hint:')} ${terminalText(hint).replace(/\n/g, '\n        ')}\n`);
    if (!known && io.env.SKILLPRESS_DEBUG) io.stderr.write(`${terminalText((error as Error)?.stack ?? '')}\n`);
  }
  return known?.exitCode ?? EXIT.user;
}

/**
 * Server `details` made readable: zod issues as `path: message`, a skill's issues as
 * `file (path): message`, flat objects as `key: value`.
 */
function detailLines(details: unknown): string[] {
  const findings = findingDetailLines(details);
  if (findings) return findings;
  if (details === null || typeof details !== 'object') return [];
  const issues = (details as { issues?: unknown }).issues;
  if (Array.isArray(issues)) {
    return issues.map((i: { file?: unknown; path?: unknown[]; message?: string }) => {
      const path = (i.path ?? []).join('.');
      const where = typeof i.file === 'string' ? `${i.file}${path ? ` (${path})` : ''}` : path || '(body)';
      return `- ${where}: ${i.message ?? ''}`;
    });
  }
  return Object.entries(details).map(
    ([key, value]) => `${key}: ${Array.isArray(value) ? value.join(', ') || '(none)' : typeof value === 'object' ? JSON.stringify(value) : String(value)}`,
  );
}

/** The process entry used by `cli/bin.mjs`: runs `main` and exits with its code. */
export async function runFromProcess(): Promise<never> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      // Leave no half-staged folder behind and put back a folder caught mid-swap.
      settlePendingSync();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
  const code = await main(process.argv.slice(2), processIo());
  process.exit(code);
}
