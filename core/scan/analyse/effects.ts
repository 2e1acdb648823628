import { describeEvidence, type Effects, type StaticEvidence, type WriteEffect } from '../../effects/effect.ts';
import { effectsOfLines } from '../../effects/static-effects.ts';
import type { FlowFile } from './flows.ts';

/**
 * The static engine's reading of effects (`core/effects/static-effects.ts`, driven by the
 * sensitive-classes table) judged as the sandbox's are (docs/scanning.md, "Behaviour"): a write to
 * the agent's configuration, developer tools, system persistence or a privilege grant is listed
 * (honest skills set up hooks, cron jobs and git hooks; the install shows the effect and asks);
 * the same write whose entry itself talks to a host or runs a download (within a few
 * lines of one command: the hook, the task, the `LocalCommand`, the unit) is refused. A foreign
 * package index is worth a warning. Only the lines the flows read are judged: code, and the
 * commands of prose, with documentation left out.
 */

type Hit = { file: string; line: number; note: string };

/** How far apart the write and what its entry runs may be: the lines of one command or here-document. */
const REACH = 3;
const PERSISTENT = new Set<WriteEffect['class']>(['agent-config', 'developer-tools', 'system-persistence', 'privilege-grant']);

/** One reading per version, shared by the rules below (the flows are the same object for each). */
const read = new WeakMap<readonly FlowFile[], Effects>();
function effectsOf(files: readonly FlowFile[]): Effects {
  const known = read.get(files);
  if (known) return known;
  const effects = effectsOfLines(files);
  read.set(files, effects);
  return effects;
}

const at = (e: { evidence: unknown }) => e.evidence as StaticEvidence;

const HEREDOC = /<<-?\s{0,4}(["']?)([A-Za-z_]\w{0,30})\1/;

/** The last line of a write's entry: the end of the here-document the writing line opens, else a few lines on. */
function entryEnd(files: readonly FlowFile[], write: StaticEvidence): number {
  const lines = files.find((f) => f.filename === write.file)?.lines ?? [];
  const i = lines.findIndex((l) => l.line === write.line);
  const opens = i < 0 ? null : HEREDOC.exec(lines[i]!.text);
  if (!opens) return write.line + REACH;
  const end = lines.slice(i + 1).find((l) => l.text.trim() === opens[2]);
  return end ? end.line : write.line + REACH;
}

/** What, near a write, makes its entry call out: a host that is not a package registry, or a download that runs. */
function callsOut(files: readonly FlowFile[], effects: Effects, write: WriteEffect): string | undefined {
  const end = entryEnd(files, at(write));
  const near = (e: { evidence: unknown }) => at(e).file === at(write).file && at(e).line >= at(write).line - REACH && at(e).line <= end;
  // A host the written key itself names is where the setting points (`url.git@github.com:.insteadOf`), not a call-out of the entry.
  const host = effects.network.find((n) => n.class === 'host' && near(n) && !write.target.includes(n.host));
  if (host) return `talks to ${host.host} (${describeEvidence(host.evidence)})`;
  const run = effects.executes.find((e) => e.class === 'downloaded-content' && near(e));
  return run ? `runs a download (${describeEvidence(run.evidence)})` : undefined;
}

const describe = (w: WriteEffect) => `${w.target}: ${w.class}, ${w.row ?? ''} (${w.reason})`;

/** Writes to a persistent class whose entry does not call out. */
export function sensitiveWrites(files: readonly FlowFile[]): Hit[] {
  const effects = effectsOf(files);
  return effects.writes
    .filter((w) => PERSISTENT.has(w.class) && !callsOut(files, effects, w))
    .map((w) => ({ file: at(w).file, line: at(w).line, note: describe(w) }));
}

/** Writes to a persistent class whose entry talks to a host or runs a download. */
export function sensitiveWritesThatCallOut(files: readonly FlowFile[]): Hit[] {
  const effects = effectsOf(files);
  return effects.writes.flatMap((w) => {
    const out = PERSISTENT.has(w.class) ? callsOut(files, effects, w) : undefined;
    return out ? [{ file: at(w).file, line: at(w).line, note: `${describe(w)}, and ${out}` }] : [];
  });
}

/** Packages installed from an index or registry other than the package manager's own. */
export function foreignIndex(files: readonly FlowFile[]): Hit[] {
  return effectsOf(files)
    .executes.filter((e) => e.class === 'foreign-index')
    .map((e) => ({ file: at(e).file, line: at(e).line, note: e.target }));
}

/** How far below a request for a secret the line that sends it may be: the steps of one procedure. */
const ASK_REACH = 12;
/** A line that carries a secret: it names one, or holds a placeholder for it (`<github token>`). */
const CARRIES_SECRET = /\b(?:tokens?|api[\s_-]{0,2}keys?|keys?|passwords?|passphrases?|secrets?|credentials?|pat)\b/i;
/** The service a secret is for, as the request names it: the word before "token", "API key", "password"… */
const SECRET_OF =
  /\b([a-z][\w.-]{1,30})\s{1,4}(?:(?:personal\s{1,4})?access\s{1,4}|api\s{0,2}|auth\s{1,4}|deploy\s{1,4}|publish(?:ing)?\s{1,4}|account\s{1,4})?(?:tokens?|keys?|passwords?|secrets?|credentials?)\b/gi;
/** Words that stand before a secret's name without naming a service. */
const NOT_A_SERVICE = new Set([
  'their',
  'your',
  'the',
  'a',
  'an',
  'any',
  'all',
  'every',
  'each',
  'user',
  "user's",
  'own',
  'new',
  'valid',
  'secret',
  'private',
  'personal',
  'access',
  'api',
  'auth',
  'and',
  'or',
  'with',
  'for',
  'of',
  'this',
  'that',
  'its',
  'our',
  'both',
  'them',
  'his',
  'her',
]);

/**
 * The name a host is registered under: `github` for api.github.com, `npmjs` for registry.npmjs.org,
 * `evil` for github.com.evil.app (a service's name elsewhere in a host is no claim to it). A
 * second-level label of two or three letters is a country's (`example.co.uk`), and the label before it is the name.
 */
function ownerOf(host: string): string {
  const labels = host.toLowerCase().split('.');
  const second = labels.at(-2) ?? '';
  return (second.length <= 3 && labels.length > 2 ? labels.at(-3)! : second).replace(/[^a-z0-9]/g, '');
}

/** The services a request for a secret names ("your GitHub token and npm token": github, npm). */
function servicesNamed(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(SECRET_OF)) {
    const word = m[1]!.toLowerCase();
    if (!NOT_A_SERVICE.has(word)) out.add(word.replace(/[^a-z0-9]/g, ''));
  }
  return [...out].filter((w) => w.length > 1);
}

/**
 * A secret the user is asked for, then sent to a host that is not the service it is for: an
 * imperative addressed to the agent (ask, then post the token to a third party), whatever sends
 * it. The request must name whose secret it is ("your GitHub token"); the secret's own service
 * (api.github.com for a GitHub token) is where such a secret honestly goes.
 */
export function askedSecretSentElsewhere(files: readonly FlowFile[]): Hit[] {
  const asked = files.flatMap((f) => (f.asks ?? []).map((a) => ({ file: f.filename, ...a })));
  if (asked.length === 0) return [];
  const effects = effectsOf(files);
  const text = (file: string, line: number) => files.find((f) => f.filename === file)?.lines.find((l) => l.line === line)?.text ?? '';
  const hits: Hit[] = [];
  for (const ask of asked) {
    const services = servicesNamed(ask.text);
    if (services.length === 0) continue;
    const sent = effects.network.find((n) => {
      const where = at(n);
      if (n.class !== 'host' || where.file !== ask.file || where.line < ask.line || where.line > ask.line + ASK_REACH) return false;
      // A host of any of the services named is where such a secret honestly goes.
      return CARRIES_SECRET.test(text(where.file, where.line)) && !services.some((s) => ownerOf(n.host).startsWith(s));
    });
    if (sent)
      hits.push({
        file: ask.file,
        line: ask.line,
        note: `asks for a ${services.join(' and ')} secret and sends it to ${sent.host} (${describeEvidence(sent.evidence)})`,
      });
  }
  return hits;
}
