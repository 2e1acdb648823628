import type { FileScan, Hit } from './rule.ts';
import type { LineContext } from '../read/source-text.ts';
import { CREDENTIAL_STORE } from './line-checks.ts';

/**
 * Instructions to the agent that no single command gives away: instructions fetched from a URL
 * that replace the skill's own, a request (however polite) to read secrets and send them
 * somewhere, data carried out in the query of an image the agent is asked to render, and an
 * override of the agent's instructions joined with a harmful ask.
 */

type FileHit = { line: number } & Exclude<Hit, true>;

const URL_PART = String.raw`https?:\/\/[^\s)"'<>\x60]{3,300}`;
const FETCH = String.raw`\b(?:fetch|download|retrieve|load|read|get|curl|wget|open|visit|pull|request)\b`;
/** Words that replace something; an override needs what they replace to be instructions (OVERRIDDEN). */
const REPLACES = String.raw`\b(?:override|overrides|replace|replaces|supersede|supersedes|take\s{1,4}(?:priority|precedence)|takes\s{1,4}(?:priority|precedence)|instead\s{1,4}of)\b`;
/**
 * What an override replaces: the skill's or the user's instructions. "Use the pinned URL instead
 * of `latest`" replaces a link, not an instruction, and is no override.
 */
const OVERRIDDEN = String.raw`\b(?:instructions?|this\s{1,4}(?:skill|file|document)|(?:the\s{1,4})?(?:skill|user)(?:'s)?\b|rules|prompt|guidance|anything|everything)`;
/** Forms that say the fetched text is the agent's instructions, with no object to find. */
const BECOMES_INSTRUCTIONS = String.raw`\b(?:(?:as|are)\s{1,4}(?:your\s{1,4})?(?:system|new|real)\s{1,4}(?:instructions|prompt|rules)|treat\s{1,4}(?:its|the|their)\s{1,4}contents?\s{1,4}as\s{1,4}(?:your\s{1,4})?(?:system\s{1,4})?instructions)\b`;
/**
 * Words without one of which the patterns below cannot match, looked for first: most lines with a
 * URL replace nothing and ask to follow nothing, and the patterns are costly on them.
 */
const REPLACES_WORD = /override|replace|supersede|priority|precedence|instead|instructions|prompt|rules/i;
const FOLLOWS_WORD = /instruction|directive|steps|commands|says/i;
/** A URL, then (in the same or a later sentence) an override whose object, in its own clause, is instructions. */
const REMOTE_OVERRIDE = new RegExp(String.raw`${URL_PART}[^\n]{0,240}?(?:${BECOMES_INSTRUCTIONS}|${REPLACES}[^\n.;!?]{0,60}?${OVERRIDDEN})`, 'i');
const REMOTE_FOLLOW = new RegExp(
  String.raw`${FETCH}[^\n]{0,160}?${URL_PART}[^\n]{0,200}?\b(?:follow|obey|execute|carry\s{1,4}out|do\s{1,4}what)\b[^\n]{0,60}?\b(?:instructions?|directives?|steps|commands|it\s{1,4}says|says)\b`,
  'i',
);

/** Tells the agent to fetch instructions from a URL that replace the skill's or the user's. */
export function remoteOverride(line: LineContext): Hit | null {
  if (!line.text.includes('://') || !REPLACES_WORD.test(line.text)) return null;
  const m = REMOTE_OVERRIDE.exec(line.text);
  return m ? { excerpt: m[0] } : null;
}

/** Tells the agent to fetch a URL and do what it says. */
export function remoteInstructions(line: LineContext): Hit | null {
  if (!line.text.includes('://') || !FOLLOWS_WORD.test(line.text)) return null;
  const m = REMOTE_FOLLOW.exec(line.text);
  return m ? { excerpt: m[0] } : null;
}

const SECRETS = String.raw`(?:(?:the\s{1,4}|your\s{1,4}|all\s{1,4}|any\s{1,4}|every\s{1,4})?(?:api\s{0,2}keys?|access\s{1,4}keys?|tokens?|secrets?|credentials?|passwords?|private\s{1,4}keys?|ssh\s{1,4}keys?|seed\s{1,4}phrases?|environment\s{1,4}variables?|env\s{1,4}vars?|\.env\b|conversation|chat\s{1,4}history|(?:every|all|any)\s{1,4}(?:\w{1,12}\s{1,4})?messages?|cookies?|its\s{1,4}contents?|the\s{1,4}contents?|everything\s{1,4}in\s{1,4}it|the\s{1,4}file))`;
const SEND = String.raw`\b(?:upload|send|post|submit|forward|e-?mail|paste|transmit|share|sync|attach|report)\w{0,3}\b`;
const DESTINATION = String.raw`(?:${URL_PART}|\b[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{2,20}\b|\bour\s{1,4}(?:server|portal|endpoint|team|support|api|service|form)\b|\bwebhook\b)`;
const INSTRUCTED_SEND = new RegExp(String.raw`${SEND}[^\n]{0,120}?${DESTINATION}`, 'i');
const NAMES_SECRET = new RegExp(SECRETS, 'i');

/**
 * Asks the agent, in prose, to read secrets (a credential store, keys, tokens, the environment,
 * the conversation) and send them to a destination it names: the polite form of exfiltration.
 */
export function instructedExfiltration(line: LineContext): Hit | null {
  if (line.code) return null;
  const send = INSTRUCTED_SEND.exec(line.text);
  if (!send) return null;
  const store = CREDENTIAL_STORE.exec(line.text);
  if (store) return { excerpt: store[0] };
  const before = line.text.slice(0, send.index + send[0].length);
  const secret = NAMES_SECRET.exec(before);
  return secret && /\b(?:read|open|copy|collect|gather|include|grab|take|cat|find|fill|list|dump|all|every|any|value)\b/i.test(before)
    ? { excerpt: send[0] }
    : null;
}

const IMAGE_TEMPLATE =
  /!\[[^\]\n]{0,100}\]\(\s{0,4}https?:\/\/[^)\s]{1,300}?[?&/][^)\s]{0,300}?(?:\{[\w .-]{1,60}\}|\$\{?[A-Za-z_]\w{0,60}|<[\w .-]{1,60}>|%s|\[[A-Z_]{2,40}\])/;
const SECRET_WORDS = /\b(?:api\s{0,2}keys?|keys?|tokens?|secrets?|credentials?|passwords?|environment|env|conversation|history|cookies?|ssh|wallet)\b/i;

/** A Markdown image whose URL the agent is told to fill in with secrets: rendering it sends them. */
export function imageExfiltration(file: FileScan): FileHit[] {
  if (file.kind !== 'markdown') return [];
  const hits: FileHit[] = [];
  file.lines.forEach((line, i) => {
    if (!line.text.includes('![')) return;
    const m = IMAGE_TEMPLATE.exec(line.text);
    if (!m) return;
    const context = file.lines.slice(Math.max(0, i - 6), i + 2).map((l) => l.text);
    if (context.some((t) => SECRET_WORDS.test(t))) hits.push({ line: line.number, excerpt: m[0] });
  });
  return hits;
}

/** An override of the agent's instructions, and in the same file a harmful ask: the agent is being taken over. */
export function agentTakeover(file: FileScan): FileHit[] {
  const override = file.findings.find((f) => f.rule.id === 'override-instructions' || f.rule.id === 'system-prompt-claim');
  if (!override) return [];
  const ask = file.findings.find((f) =>
    [
      'data-harvest-instruction',
      'conceal-from-user',
      'instructed-exfiltration',
      'remote-instructions',
      'pipe-to-shell',
      'credential-store-read',
      'agent-permission-change',
    ].includes(f.rule.id),
  );
  return ask ? [{ line: override.line, note: `${override.rule.id} with ${ask.rule.id} on line ${ask.line}` }] : [];
}
