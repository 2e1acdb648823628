import { pathMentions } from '../../effects/classify.ts';
import { READ_CLASSES } from '../../effects/effect.ts';
import { untrustedHost } from './hosts.ts';
import { codePointNames, invisibleMarks } from '../normalise/invisible.ts';
import type { Hit, LineFile } from './rule.ts';
import { isPlaceholder } from './secrets.ts';
import type { LineContext } from '../read/source-text.ts';

/**
 * The line rules that need more than one regular expression. Every pattern here is anchored on
 * a literal or bounded (`{0,300}`), so a line of a megabyte costs a bounded amount per
 * character whatever it contains.
 */

const excerpt = (m: RegExpExecArray | RegExpMatchArray | null): Hit | null => (m ? { excerpt: m[0] } : null);

/** The first match of any of the patterns. */
export function firstMatch(text: string, patterns: readonly RegExp[]): RegExpExecArray | null {
  for (const p of patterns) {
    const m = p.exec(text);
    if (m) return m;
  }
  return null;
}

const SUDO = String.raw`(?:sudo\s{1,4}(?:-[\w-]{1,12}\s{1,4}){0,3})?`;
/**
 * A download command with something to download: a URL, a host name or a variable. Prose that
 * names the pattern ("never `curl | bash`") has no argument and is not a download.
 */
const DOWNLOADER = String.raw`\b(?:curl|wget|fetch|aria2c|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|DownloadString|Net\.WebClient)\b(?=[^\n|]{0,200}?(?:[a-z]{2,8}:\/\/|\$\{?\w|[\w-]\.[a-z]{2,}\b))`;
const SHELL = String.raw`(?:(?:ba|da|z|k|c|tc|fi|a|mk)?sh|pwsh|powershell(?:\.exe)?|iex|Invoke-Expression|osascript)\b`;

/** Download piped into a shell, or a shell running a download's output. */
const PIPE_TO_SHELL: readonly RegExp[] = [
  new RegExp(String.raw`${DOWNLOADER}[^\n]{0,300}?\|\s{0,4}${SUDO}${SHELL}`, 'i'),
  // An interpreter reading the program from standard input (`| python3 -`), not one filtering data (`| python -m json.tool`).
  new RegExp(
    String.raw`${DOWNLOADER}[^\n]{0,300}?\|\s{0,4}${SUDO}(?:python[23]?(?:\.\d{1,2})?|perl|ruby|node|php)(?:\s{1,4}-)?\s{0,4}(?:$|[;&|)>'"\x60])`,
    'i',
  ),
  /(?:\b(?:(?:ba|z|da|k)?sh|source|eval)|(?:^|[;&|]\s{0,4})\.)\s{1,4}(?:-[a-z]{1,4}\s{1,4}){0,3}["']?(?:<\(|\$\()\s{0,4}(?:curl|wget|fetch|iwr|irm)\b/i,
  /\b(?:iex|Invoke-Expression)\b[^\n]{0,120}?(?:\bDownloadString\b|\bDownloadData\b|\biwr\b|\birm\b|\bInvoke-WebRequest\b|\bInvoke-RestMethod\b|\bNet\.WebClient\b)/i,
  // Windows programs that fetch and run a remote script or package in one step.
  /\b(?:mshta(?:\.exe)?|msiexec(?:\.exe)?\s{1,4}\/[iq]\w{0,10}|regsvr32\b[^\n]{0,60}\/i:|rundll32\b[^\n]{0,60}javascript:|certutil\b[^\n]{0,60}-urlcache)[^\n]{0,80}?https?:\/\//i,
];

/** What each pattern of PIPE_TO_SHELL cannot match without, checked first so a long line of `curl curl …` stays cheap. */
const PIPE_TO_SHELL_NEEDS: ReadonlyArray<(text: string) => boolean> = [
  (t) => t.includes('|'),
  (t) => t.includes('|'),
  (t) => t.includes('<(') || t.includes('$('),
  (t) => /iex|invoke-expression/i.test(t),
  (t) => t.includes('://'),
];

function pipeToShellMatch(text: string): RegExpExecArray | null {
  for (let i = 0; i < PIPE_TO_SHELL.length; i++) {
    if (!PIPE_TO_SHELL_NEEDS[i]!(text)) continue;
    const m = PIPE_TO_SHELL[i]!.exec(text);
    if (m) return m;
  }
  return null;
}

export function pipeToShell(line: LineContext): Hit | null {
  return excerpt(pipeToShellMatch(line.text));
}

export const EXEC_DOWNLOADED =
  /\b(?:exec|eval|compile|execfile|Function|instance_eval|class_eval|runInThisContext|runInNewContext)\s{0,4}\([^\n]{0,200}?\b(?:urlopen|urlretrieve|requests\.get|httpx\.get|urllib\.request|http\.client|fetch|axios|got|https?\.get|Net::HTTP|URI\.open|open-uri|DownloadString)\b|\b(?:fetch|axios\.get|got)\([^\n]{0,200}?\.then\([^\n]{0,200}?\b(?:eval|Function|runInThisContext|runInNewContext)\s{0,4}\(/i;

/** Downloaded code run from a host nobody should run code from (a paste site, a tunnel, a bare IP). */
export function pipeFromUntrustedHost(line: LineContext): Hit | null {
  const run = pipeToShellMatch(line.text) ?? EXEC_DOWNLOADED.exec(line.text);
  const host = run && untrustedHost(line.text);
  return host ? { excerpt: host } : null;
}

const DECODER =
  /\bbase64\s{1,4}(?:-\w{1,3}\s{1,4}){0,2}(?:-[a-zA-Z]{0,2}[dD]\b|--decode\b)|\bb64decode\b|\bxxd\s{1,4}(?:-\w{1,3}\s{1,4}){0,2}-r|\bopenssl\s{1,4}(?:enc\s{1,4})?(?:-base64|base64|-a)\b[^\n|]{0,40}\s-d\b|\bbase32\s{1,4}(?:-d|--decode)\b|\bcertutil(?:\.exe)?\s{1,4}-decode\b|\buudecode\b|FromBase64String|\batob\b|\bgunzip\b|\bzcat\b/i;
const TO_SHELL = new RegExp(
  String.raw`\|\s{0,4}${SUDO}(?:(?:ba|da|z|k|a)?sh|python[23]?|perl|ruby|node|php|pwsh|powershell|iex|Invoke-Expression|osascript)\b`,
  'i',
);
const RUN_SUBSTITUTION = /(?:\beval|\b(?:ba|z|da|k)?sh\s{1,4}-c|\bsource|(?:^|[;&|]\s{0,4})\.|\bexec|\bpython[23]?\s{1,4}-c)\s{1,4}["']?\$\(/i;
const SAVED_TO = />\s{0,4}["']?([^\s"';&|<>]{1,200})/;

/** The decoded output is written to a file that the same line then runs. */
function runsSavedOutput(after: string): boolean {
  const saved = SAVED_TO.exec(after);
  if (!saved) return false;
  const name = saved[1]!.slice(saved[1]!.lastIndexOf('/') + 1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (name.length < 2) return false;
  const rest = after.slice(saved.index + saved[0].length);
  const path = String.raw`["']?(?:[^\s"';&|]{0,200}\/)?${name}(?![\w.-])`;
  return new RegExp(String.raw`(?:(?:^|[\s;&|(])(?:(?:ba|z|da)?sh|source|\.|python[23]?|perl|node|chmod\s{1,4}\+?\w{0,3}x)\s{1,4}|\.\/)${path}`).test(rest);
}

/** Decoding and running in one pipeline: `echo … | base64 -d | bash`, `bash -c "$(… | base64 -d)"`. */
export function decodeToShell(line: LineContext): Hit | null {
  const decoder = DECODER.exec(line.text);
  if (!decoder) return null;
  const after = line.text.slice(decoder.index);
  if (TO_SHELL.test(after) || runsSavedOutput(after)) return { excerpt: decoder[0] };
  const substitution = RUN_SUBSTITUTION.exec(line.text);
  return substitution && substitution.index < decoder.index ? { excerpt: substitution[0] } : null;
}

/** The read classes that are credential stores (browser, keychain, the environment and `.env` files are sources of their own, analyse/flows.ts). */
const STORE_CLASSES = new Set<string>(READ_CLASSES.filter((c) => !['browser-data', 'keychains', 'dotenv', 'secret-env'].includes(c)));
/** Classes whose folder holds little but secrets: `~/.ssh`, `~/.aws`, `~/.gnupg` named alone name the store. */
const WHOLE_FOLDER_CLASSES = new Set(['cloud-credentials', 'cluster-credentials', 'ssh-keys', 'gpg-keys']);
const STORES = pathMentions(
  (row) => row.effect === 'reads' && STORE_CLASSES.has(row.class),
  (row) => WHOLE_FOLDER_CLASSES.has(row.class),
);

/**
 * Credential stores by path, as the sensitive-classes table lists them (one table for the
 * scanner and the sandbox). Public keys (`.pub`), `known_hosts` and ssh's `config` are not
 * secrets; `.npmrc`, `.netrc`, `.pypirc` and `.git-credentials` hold tokens in the home folder,
 * while a project's own `.npmrc` is configuration.
 */
export const CREDENTIAL_STORE = STORES.pattern;

/** Words of which a line naming a credential store (CREDENTIAL_STORE) holds one: path segments may be quoted apart, so no slashes. */
export const CREDENTIAL_WORDS: readonly string[] = STORES.words;

const CODE_READ =
  /\b(?:cat|less|more|head|tail|cp|scp|rsync|tar|zip|7z|base64|xxd|od|strings|open|read_text|read_bytes|readFile(?:Sync)?|Get-Content|gc|Copy-Item|Compress-Archive|glob|walk|listdir|readdir(?:Sync)?|sqlite3|upload|send|post)\b|<\s{0,4}[~$]|--data(?:-binary|-raw)?\s{1,4}["']?@|-F\s{1,4}["']?[\w-]{0,30}=@/i;
/** curl's upload flag is `-T`; `-t` is another tool's type option (`ssh-keygen -t ed25519`). */
const UPLOAD_FLAG = /\s-T\s/;
/** In prose only an instruction reads a store: "read ~/.ssh/id_rsa and…", not "boto3 reads ~/.aws/credentials". */
const PROSE_READ =
  /(?:^|[.:;,!>*-]\s{0,4}|\b(?:then|and|first|also|please|now|should|must)\s{1,4})(?:read|cat|open|copy|upload|send|include|attach|collect|grab|extract|post|load|print|output|dump|share|archive|compress|zip|back\s{1,4}up)\b[^\n]{0,80}?$/i;

export function credentialStoreReference(line: LineContext): Hit | null {
  if (credentialStoreRead(line)) return null;
  const store = CREDENTIAL_STORE.exec(line.text);
  return store ? { excerpt: store[0] } : null;
}

export function credentialStoreRead(line: LineContext): Hit | null {
  const store = CREDENTIAL_STORE.exec(line.text);
  if (!store) return null;
  const before = line.text.slice(0, store.index);
  const reads = line.code ? CODE_READ.test(line.text) || UPLOAD_FLAG.test(line.text) : PROSE_READ.test(before);
  return reads ? { excerpt: store[0] } : null;
}

/** The shell start-up files of the sensitive-classes table (by its rows' ids), and PowerShell's name for its profile. */
const STARTUP_ROWS = new Set(['shell-startup', 'fish-startup', 'powershell-profile', 'system-shell-startup']);
const STARTUP_FILE = new RegExp(
  `${
    pathMentions(
      (row) => STARTUP_ROWS.has(row.id),
      () => false,
    ).pattern.source
  }|\\$PROFILE\\b`,
  'i',
);
const WRITE_TO_STARTUP = new RegExp(
  String.raw`(?:>>?\s{0,4}["']?[^\s"';&|]{0,80}?|\btee\s{1,4}(?:-a\s{1,4})?["']?[^\s"';&|]{0,80}?|\bsed\s{1,4}-i\b[^\n]{0,200}?|\b(?:appendFile(?:Sync)?|writeFile(?:Sync)?)\([^\n]{0,120}?|\bopen\([^\n]{0,120}?|\b(?:Add-Content|Set-Content|Out-File)\b[^\n]{0,80}?)${STARTUP_FILE.source}`,
  'i',
);
/** What installers honestly append: an exported variable, PATH, or a tool's own init/completion hook. */
const HARMLESS_STARTUP_LINE =
  /^\s{0,8}(?:echo|printf)\s{1,4}(?:-\w{1,3}\s{1,4})?["']\s{0,4}(?:export\s{1,4}[A-Za-z_][A-Za-z0-9_]{0,60}=|PATH=|eval\s{1,4}"?\$\(\s{0,4}[\w./-]{1,60}\s{1,4}(?:init|env|shellenv|hook|activate)\b|source\s{1,4}<\(\s{0,4}[\w.-]{1,30}\s{1,4}completion\b|(?:\.|source)\s{1,4}["']?(?:\$HOME|~)\/\.(?:cargo|nvm|bun|deno|local|sdkman)\b)/i;

/** Appends to a shell start-up file, other than the usual PATH and init lines. */
export function shellStartupWrite(line: LineContext): Hit | null {
  if (!STARTUP_FILE.test(line.text)) return null;
  for (const segment of line.text.split(/&&|\|\||;/)) {
    const write = WRITE_TO_STARTUP.exec(segment);
    if (write && !HARMLESS_STARTUP_LINE.test(segment)) return { excerpt: write[0] };
  }
  return null;
}

const AGENT_CONFIG =
  /(?:~|\$HOME|\$\{HOME\}|\bHOME\b|homedir\(\)|home\(\)|USERPROFILE%?)["'\s,+/\\]{0,6}\.(claude|codex|cursor|gemini|openclaw|clawdbot|moltbot|windsurf|codeium|continue|aider)\b(?:[/\\]([\w.-]{1,40}))?|\b(?:SOUL|MEMORY|IDENTITY|HEARTBEAT)\.md\b/i;
/** A write: a redirect (but into another descriptor or /dev/null, which writes nothing), a copy, an editor's write. */
const FILE_WRITE =
  /(?:>>?(?!&|\s{0,4}\/dev\/null\b)|\btee\b|\bcp\b|\bmv\b|\bln\s{1,4}-s|\bwriteFile|\bappendFile|\bwrite_text|\.write\(|\bopen\([^\n]{0,200}["'][wa]\+?["']|\bSet-Content\b|\bAdd-Content\b|\bOut-File\b|\bCopy-Item\b|\bsed\s{1,4}-i\b)/i;

/** Writes into an agent's own configuration or memory; installing a skill into its skills folder is fine. */
export function agentConfigWrite(line: LineContext): Hit | null {
  const target = AGENT_CONFIG.exec(line.text);
  if (!target || !FILE_WRITE.test(line.text)) return null;
  if (target[2] && /^(?:skills|plugins|commands|agents)$/i.test(target[2])) return null;
  return { excerpt: target[0] };
}

const NEGATION = /\b(?:not|never|no|avoid|without|nor)\b|n't\b/i;
const HARVEST =
  /\b(?:send|upload|post|forward|transmit|exfiltrate|e-?mail|leak|copy|include|append|attach|pass|encode)\b[^.\n]{0,50}?\b(?:(?:the\s{1,4})?user'?s|(?:all|every|any)(?:\s{1,4}of\s{1,4}the)?(?:\s{1,4}available)?|(?:the\s{1,4})?(?:entire|full|whole|complete))\s{1,4}(?:conversation|chat\s{1,4}history|message\s{1,4}history|previous\s{1,4}messages|system\s{1,4}prompt|credentials?|secrets?|private\s{1,4}keys?|api\s{1,4}keys?|access\s{1,4}tokens?|tokens|passwords?|ssh\s{1,4}keys?|\.env\s{1,4}files?|env(?:ironment)?\s{1,4}variables|cookies|session\s{1,4}tokens?|wallets?|seed\s{1,4}phrases?)\b/gi;

/** Tells the agent to hand over the user's secrets or conversation ("send all API keys to…"), unless it says not to. */
export function dataHarvestInstruction(line: LineContext): Hit | null {
  for (const m of line.text.matchAll(HARVEST)) {
    const before = line.text.slice(Math.max(0, m.index - 40), m.index);
    if (!NEGATION.test(before)) return { excerpt: m[0] };
  }
  return null;
}

const CHAT_WEBHOOK =
  /\bdiscord(?:app)?\.com\/api\/webhooks\/\d{15,22}\/[\w-]{40,100}|\bapi\.telegram\.org\/bot\d{6,12}:[\w-]{30,50}|\bhooks\.slack\.com\/services\/T[A-Z0-9]{6,12}\/B[A-Z0-9]{6,12}\/[A-Za-z0-9]{20,30}/;

/** A chat webhook with its token written out: anyone reading the skill could post there, and stealers report there. */
export function chatWebhook(line: LineContext): Hit | null {
  const m = CHAT_WEBHOOK.exec(line.text);
  return m && !isPlaceholder(m[0]) ? { note: m[0].split('/')[0]!.replace(/^api\./, '') } : null;
}

const RTL_LETTERS = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;

/** Bidirectional controls in code reorder what a reviewer sees against what runs (Trojan Source). */
export function bidiInCode(line: LineContext, file: LineFile): Hit | null {
  if (!line.invisible || (!line.code && file.kind !== 'code')) return null;
  const { bidi } = invisibleMarks(line.raw);
  return bidi.length > 0 ? { note: codePointNames(bidi) } : null;
}

/** In prose, bidi controls are legitimate around Hebrew or Arabic text and deceptive anywhere else. */
export function bidiInProse(line: LineContext, file: LineFile): Hit | null {
  if (!line.invisible || line.code || file.kind === 'code' || RTL_LETTERS.test(line.raw)) return null;
  const { bidi } = invisibleMarks(line.raw);
  return bidi.length > 0 ? { note: codePointNames(bidi) } : null;
}

/** A zero-width space before a fence is how Markdown shows a fence inside a fenced block. */
const ESCAPED_FENCE = /^\s{0,3}\u200b(?:`{3,}|~{3,})[^\u200b-\u200f\u2060-\u2064\ufeff]*$/;

export function zeroWidth(line: LineContext): Hit | null {
  if (!line.invisible || ESCAPED_FENCE.test(line.raw)) return null;
  const { zeroWidth: found } = invisibleMarks(line.raw);
  return found.length > 0 ? { note: `${found.length} × ${codePointNames(found)}` } : null;
}

export function invisiblePayload(line: LineContext): Hit | null {
  if (!line.invisible) return null;
  return invisibleMarks(line.raw).payload ? true : null;
}

export function placeholderFree(pattern: RegExp) {
  return (line: LineContext): Hit | null => {
    const m = pattern.exec(line.text);
    return m && !isPlaceholder(m[0]) ? true : null;
  };
}
