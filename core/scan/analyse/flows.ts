import { KeywordIndex } from './keyword-index.ts';
import { CREDENTIAL_STORE, CREDENTIAL_WORDS } from './line-checks.ts';

/**
 * Data flow across the whole skill: a sensitive source (credential stores, browser and wallet
 * stores, keychains, environment dumps, `.env` files, the clipboard, what git hands a credential
 * helper) reaching a network sink (HTTP clients, curl and wget sending data, sockets, DNS
 * look-ups, pushes to a remote, mail, chat webhooks) anywhere in the skill is critical, whatever
 * the host. Data is followed through variables within a file, and through files and folders
 * across the skill: `cp ~/.aws/credentials /tmp/.bk/a` in one script and `curl -F f=@/tmp/.bk.tgz`
 * in another is one flow, and the finding shows its chain.
 *
 * The analysis reads what the program says, after the readers have undone quoting and folded
 * strings (read/), and only lines that are not documentation (analyse/audience.ts). Budget: at
 * most MAX_TAINTS variables and paths are followed, over at most ROUNDS passes of the skill.
 */

export interface FlowLine {
  line: number;
  text: string;
}

export interface FlowFile {
  filename: string;
  lines: readonly FlowLine[];
  /** Prose addressed to the agent that asks the user for a secret (read as the `asks` effect). */
  asks?: readonly FlowLine[];
}

export interface Flow {
  file: string;
  line: number;
  /** `file:line reads <what> → … → file:line: <how it is sent>`: positions and kinds, never the file's words. */
  chain: string;
}

const MAX_TAINTS = 400;
const ROUNDS = 3;

interface Taint {
  /** Where the data came from, for the chain. */
  origin: string;
}

/**
 * Sources and sinks name the lower-case strings of which a line must hold one for the pattern to
 * match at all (as a line rule's keywords do): one pass over a line tells which patterns to try.
 */
const SOURCES: ReadonlyArray<{ what: string; keywords: readonly string[]; pattern: RegExp }> = [
  {
    what: 'browser store',
    keywords: ['login data', 'web data', 'local state', 'logins.json', 'key3.db', 'key4.db', 'cookies', 'local extension settings'],
    pattern:
      /[/\\"'](?:Login Data|Web Data|Local State)\b|\b(?:logins\.json|key[34]\.db|cookies\.sqlite|Cookies\.binarycookies|Local Extension Settings)\b|\b(?:Chrome|Chromium|Brave-Browser|Edge|Firefox)[/\\][^\n]{0,80}\bCookies\b/i,
  },
  {
    what: 'wallet',
    keywords: ['wallet', 'electrum', 'keystore', 'application support', 'nkbihfbeogaeaoehlefnkodbefgpgknn'],
    pattern:
      /\bwallet\.dat\b|\bexodus\.wallet\b|\.electrum[/\\]wallets\b|\bkeystore[/\\]UTC--|Application Support[/\\](?:Exodus|Electrum|atomic|Ledger Live)\b|\bnkbihfbeogaeaoehlefnkodbefgpgknn\b/i,
  },
  {
    what: 'keychain',
    keywords: ['security', 'keychain'],
    pattern: /\bsecurity\s{1,4}(?:dump-keychain|export)\b|\blogin\.keychain(?:-db)?\b|\bKeychains[/\\]/i,
  },
  {
    what: 'environment',
    keywords: ['env'],
    pattern:
      /\bJSON\.stringify\(\s{0,4}process\.env\s{0,4}[,)]|Object\.(?:entries|keys|assign)\(\s{0,4}(?:\{\s{0,4}\}\s{0,4},\s{0,4})?process\.env\b|\b(?:dict|str|json\.dumps)\(\s{0,4}os\.environ\b|\bos\.environ\.(?:copy|items)\(\)|(?:^|[\s|;&(`$])(?:env|printenv)\s{0,4}(?:$|[|>;)`])|\bGet-ChildItem\s{1,4}env:/i,
  },
  {
    what: '.env file',
    keywords: ['.env'],
    pattern:
      /(?:\bcat\b|\bopen\(|readFileSync\(|read_text\(|Get-Content\b|\bsource\b|-F\s{0,4}["']?\w{0,20}=@|--data(?:-binary)?\s{1,4}["']?@)[^\n]{0,80}?(?:^|[\s"'/(=@])\.env(?:\.local|\.production)?\b|\bfind\b[^\n]{0,120}-name\s{1,4}["']?\.env\b/i,
  },
  {
    what: 'clipboard',
    keywords: ['pyperclip', 'pbpaste', 'clipboard', 'xclip', 'xsel'],
    pattern: /\b(?:pyperclip\.paste|pbpaste|Get-Clipboard|clipboard\.readText|clipboardy\.read|xclip\b[^\n]{0,40}-o\b|xsel\s{1,4}(?:-b\s{1,4})?-o)\b/i,
  },
  { what: 'shell history', keywords: ['_history'], pattern: /\.(?:bash|zsh|sh)_history\b|\bConsoleHost_history\b/i },
  {
    what: 'a password typed at a prompt',
    keywords: ['read', 'getpass', 'hidden'],
    pattern: /\bread\s{1,4}(?:-\w{1,3}\s{1,4})*-\w{0,3}s\w{0,3}\b|\bgetpass\(|\bRead-Host\b[^\n]{0,80}-AsSecureString|\bwith\s{1,4}hidden\s{1,4}answer\b/i,
  },
];

/** What git hands a credential helper on its standard input: a helper that reads it holds passwords. */
const HELPER_INPUT = /\$\(\s{0,4}cat\s{0,4}\)|(?:^|[|;&(]\s{0,4})cat\s{0,4}(?:\||$)|\bread\s|\bsys\.stdin\b|\bprocess\.stdin\b|\$input\b|\[Console\]::In\b/;
const INLINE_HELPER = /\bcredential(?:\.[\w:/.-]{1,200})?\.helper\b[^\n]{0,400}?(?:\bcat\b|\bread\b)/;

/** A line reads a credential store (a path of one) or another sensitive source. */
function sourceOf(text: string, helper: boolean, may: Uint8Array): string | null {
  if ((helper && HELPER_INPUT.test(text)) || (may[INLINE_HELPER_GROUP] && INLINE_HELPER.test(text))) return 'what git hands its credential helper';
  if (may[CREDENTIAL_STORE_GROUP] && CREDENTIAL_STORE.test(text)) return 'a credential store';
  for (let i = 0; i < SOURCES.length; i++) if (may[SOURCE_GROUPS + i] && SOURCES[i]!.pattern.test(text)) return SOURCES[i]!.what;
  return null;
}

const SINKS: ReadonlyArray<{ how: string; keywords: readonly string[]; pattern: RegExp }> = [
  {
    how: 'curl sends it',
    keywords: ['curl'],
    pattern:
      /\bcurl\b[^\n]{0,400}?\s(?:-d|--data(?:-binary|-raw|-urlencode|-ascii)?|-F|--form|-T|--upload-file|--json|-X\s{0,4}["']?(?:POST|PUT|PATCH))(?:\s|=|$)/i,
  },
  { how: 'a URL is built from it', keywords: ['http'], pattern: /https?:\/\/[^\s"'`]{0,300}?(?:\$\{?\w|\{[\w.()\s]{1,60}\}|%s|["'`]\s{0,4}\+)/i },
  { how: 'wget posts it', keywords: ['wget'], pattern: /\bwget\b[^\n]{0,300}?--(?:post-data|post-file|body-data|body-file|method[= ]["']?(?:POST|PUT))/i },
  {
    how: 'an HTTP client sends it',
    keywords: ['.post', '.put', '.patch', '.request', 'method', 'fetch(', '.end(', 'request(', 'http.client', 'xmlhttprequest', 'sendbeacon'],
    pattern:
      /\b(?:requests|httpx|session|aiohttp|client|http|axios|got|needle|superagent)\.(?:post|put|patch|request)\s{0,4}\(|\bmethod\s{0,4}[:=]\s{0,4}["'](?:POST|PUT|PATCH)["']|\bfetch\([^\n]{0,300}?\bbody\s{0,4}[:,]|\bhttps?\.request\(|\.end\(\s{0,4}\w|\burllib\.request\.(?:urlopen|Request)\([^\n]{0,200}?\bdata\s{0,4}=|\bRequest\([^\n]{0,200}?\bdata\s{0,4}=|\bhttp\.client\.|\bXMLHttpRequest\b|\bsendBeacon\(/i,
  },
  {
    how: 'PowerShell sends it',
    keywords: ['invoke-webrequest', 'invoke-restmethod', 'iwr', 'irm', 'upload'],
    pattern:
      /\b(?:Invoke-WebRequest|Invoke-RestMethod|iwr|irm)\b[^\n]{0,300}?\s-(?:Method\s{1,4}["']?(?:Post|Put)|InFile|Body)\b|\b(?:UploadFile|UploadData|UploadString|UploadValues)\s{0,4}\(/i,
  },
  {
    how: 'a socket sends it',
    keywords: ['socket', 'create_connection', '.sendall', '.sendto', 'net.', 'nc', 'netcat', 'socat', '/dev/tcp/', '/dev/udp/'],
    pattern:
      /\b(?:socket\b[^\n]{0,100}?\.(?:send|sendall|sendto|connect)|create_connection|\.sendall|\.sendto)\s{0,4}\(|\bnet\.(?:connect|createConnection)\(|\b(?:nc|ncat|netcat|socat)\s{1,4}(?:-\w{1,4}\s{1,4}){0,4}[\w.-]{1,253}\s{1,4}\d{2,5}\b|\/dev\/(?:tcp|udp)\//i,
  },
  {
    how: 'a DNS look-up carries it',
    keywords: ['dig', 'nslookup', 'host', 'drill', 'resolve-dnsname', 'getaddrinfo', 'dns.'],
    pattern:
      /\b(?:dig|nslookup|host|drill|Resolve-DnsName)\b[^\n]{0,120}?(?:\$\{?\w|\$\(|`)|\b(?:gethostbyname|getaddrinfo|dns\.(?:resolve\w{0,6}|lookup))\s{0,4}\([^\n]{0,120}?(?:\+|\$\{|%|f["']|\.format\(|`)/i,
  },
  { how: 'git pushes it to a remote', keywords: ['push'], pattern: /\bgit\s{1,4}push\b[^\n]{0,200}?(?:https?:\/\/|git@|ssh:\/\/)/i },
  { how: 'scp or rsync copies it to another host', keywords: ['scp', 'rsync'], pattern: /\b(?:scp|rsync)\s[^\n]{0,200}?\s[\w.-]{1,64}@[\w.-]{1,253}:/ },
  { how: 'it is mailed', keywords: ['smtplib', 'mail'], pattern: /\b(?:smtplib|sendmail|nodemailer|Send-MailMessage)\b|\bmail\s{1,4}-s\b/i },
  {
    how: 'a chat webhook receives it',
    keywords: ['discord', 'api.telegram.org/bot', 'hooks.slack.com/services/'],
    pattern: /\bdiscord(?:app)?\.com\/api\/webhooks\/|\bapi\.telegram\.org\/bot|\bhooks\.slack\.com\/services\//i,
  },
];

function sinkOf(text: string, may: Uint8Array): string | null {
  for (let i = 0; i < SINKS.length; i++) if (may[SINK_GROUPS + i] && SINKS[i]!.pattern.test(text)) return SINKS[i]!.how;
  return null;
}

/** Which of the patterns above a line could match, in one pass (groups in this order). */
const INLINE_HELPER_GROUP = 0;
const CREDENTIAL_STORE_GROUP = 1;
const SOURCE_GROUPS = 2;
const SINK_GROUPS = SOURCE_GROUPS + SOURCES.length;
const patternIndex = new KeywordIndex([['helper'], CREDENTIAL_WORDS, ...SOURCES.map((s) => s.keywords), ...SINKS.map((s) => s.keywords)]);

/** A variable assigned: at the start of a line (indented inside an `if`, a function, a block), after a separator, or declared. */
const ASSIGNED =
  /(?:^\s{0,40}|[;&|{(]\s{0,4}|\b(?:export|local|readonly|const|let|var|declare)\s{1,4})\$?([A-Za-z_]\w{0,40})\s{0,4}(?::\s{0,4}[\w[\]<>|. ]{1,40}\s{0,4})?=(?![=~])|\bfor\s{1,4}\(?\s{0,4}(?:const|let|var)?\s{0,4}([A-Za-z_]\w{0,40})\s{1,4}(?:in|of)\b|\bas\s{1,4}([A-Za-z_]\w{0,40})\s{0,4}:|\bread\b[^\n;|&]{0,200}?\s([A-Za-z_]\w{0,40})\s{0,4}(?:$|[;<&|])/g;
/** Where a redirection writes. */
const REDIRECTED = /(?<![<&\d])>>?\s{0,4}["']?([^\s"';&|)<>]{2,200})/g;
/** A redirection with its target (`2>/dev/null`, `>> log`, `2>&1`, `< in`), as it stands among a command's arguments. */
const REDIRECTION = /\s\d?(?:>>?|<)&?\s{0,4}["']?[^\s"';&|)<>]{1,200}["']?/g;
/** What the commands of a line write to, read once its redirections are left out. */
const WRITTEN = [
  /\b(?:cp|mv|ditto|install)\s{1,4}(?:-\w{1,6}\s{1,4}){0,4}(?:["']?[^\s"';&|]{1,200}["']?\s{1,4}){1,20}["']?([^\s"';&|]{2,200}?)["']?\s{0,4}(?:$|[;&|])/g,
  /\b(?:tar\s{1,4}-?\w{0,6}[cr]\w{0,6}f\s{0,4}|zip\s{1,4}(?:-\w{1,6}\s{1,4}){0,4}|7z\s{1,4}a\s{1,4}(?:-\w{1,20}\s{1,4}){0,4}|Compress-Archive\b[^\n]{0,200}?-DestinationPath\s{1,4})["']?([^\s"';&|]{2,200})/g,
  /\bopen\(\s{0,4}[fr]?["']([^"'\n]{2,200})["']\s{0,4},\s{0,4}["'][wa]b?\+?["']/g,
  /\b(?:writeFileSync|writeFile|appendFileSync|appendFile|write_text|write_bytes|copyfile|copy2?|copyFileSync|Set-Content|Out-File)\s{0,4}\(?[^\n]{0,120}?["']([~/$][^"'\n]{2,200})["']/g,
];
/** Paths too general to follow: everything mentions them. */
const GENERAL = new Set(['/tmp', '/var/tmp', '~', '.', '..', '/dev/null', '/dev/stdout', '/dev/stderr', '$TMPDIR', '&1', '&2']);

/**
 * A path as the taint follows it: unquoted, the home folder spelt `~`, no trailing separator.
 * Lines are paths here too (a line is searched for tainted paths), some of them very long: the
 * ends are trimmed by hand, for an anchored-at-end pattern would read the whole line to find them.
 */
function normalisePath(path: string): string {
  let from = 0;
  let to = path.length;
  if (to > 0 && QUOTES.includes(path[0]!)) from = 1;
  if (to > from && QUOTES.includes(path[to - 1]!)) to--;
  let p = path.slice(from, to);
  if (p.includes('HOME') || p.includes('USERPROFILE')) p = p.replace(/\$\{HOME\}|\$HOME|%USERPROFILE%|\$env:USERPROFILE/g, '~');
  let end = p.length;
  while (end > 0 && (p[end - 1] === '/' || p[end - 1] === '\\')) end--;
  return p.slice(0, end);
}
const QUOTES = `"'`;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What a line says that does not depend on what is tainted: read once, whatever the number of rounds. */
interface LineFacts {
  /** The sensitive source it reads, if any. */
  source: string | null;
  /** How it sends data out, if it does. */
  sink: string | null;
  /** The variables it assigns and the paths it writes, read only once the line is tainted. */
  effects?: { assigned: string[]; written: string[] };
  /** The names it mentions, once a variable of its file is tainted. */
  names?: readonly string[];
  /** Its text with the home folder spelt `~`, once a path is tainted. */
  asPath?: string;
  /**
   * What the rounds learnt of it. Taints are only ever added, and one tainted earlier wins: a
   * line found to use one keeps it, and a line that uses none is read again only against the
   * variables and paths tainted since (how many there were is kept).
   */
  byVar?: Taint;
  varsSeen?: number;
  byPath?: Taint;
  pathsSeen?: number;
}

/** A variable of a file that holds sensitive data, with the pattern of its uses (made once). */
interface TaintedVar extends Taint {
  used: RegExp;
  /** Order of tainting: of two variables a line uses, the first tainted names the origin. */
  order: number;
}

const IDENTIFIER = /[A-Za-z_]\w{0,40}/g;

/** Every flow from a sensitive source to a network sink in the skill, at most one per sink line. */
export function sensitiveFlows(files: readonly FlowFile[]): Flow[] {
  /** The tainted paths in the order they were tainted, and the same as a set. */
  const pathList: Array<[string, Taint]> = [];
  const paths = new Set<string>();
  const vars = new Map<string, Map<string, TaintedVar>>();
  const flows = new Map<string, Flow>();
  let count = 0;
  const taintVar = (file: string, name: string, taint: Taint) => {
    const own = vars.get(file) ?? new Map<string, TaintedVar>();
    vars.set(file, own);
    if (!own.has(name) && count < MAX_TAINTS) {
      // Used, not assigned: `$name`, `${name}`, or the bare name in code.
      own.set(name, { ...taint, order: count, used: new RegExp(String.raw`\$\{?${escapeRegExp(name)}\b|(?<![\w$.])${escapeRegExp(name)}\b(?!\s{0,4}=[^=])`) });
      count++;
    }
  };
  const taintPath = (path: string, taint: Taint) => {
    const p = normalisePath(path);
    if (p.length < 5 || GENERAL.has(p) || paths.has(p) || count >= MAX_TAINTS) return;
    paths.add(p);
    pathList.push([p, taint]);
    count++;
    // The folder it went into holds it too (`/tmp/ci/creds.txt`: `/tmp/ci`), unless everything is in
    // that folder. A name without a folder has none (its "parent" is not the name less a letter).
    const slash = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
    const parent = p.slice(0, Math.max(0, slash));
    if (parent.length >= 5 && !GENERAL.has(parent) && !/^~?\/?[\w.-]{0,12}$/.test(parent)) taintPath(parent, taint);
  };
  const facts = files.map((file) => {
    const helper = /(?:^|\/)git-credential-[^/]{1,100}$/.test(file.filename);
    const may = new Uint8Array(patternIndex.groups.length);
    return file.lines.map(({ text }): LineFacts => {
      may.fill(0);
      patternIndex.scan(text, may);
      return { source: sourceOf(text, helper, may), sink: sinkOf(text, may) };
    });
  });
  for (let round = 0; round < ROUNDS; round++) {
    const before = count + flows.size;
    for (let f = 0; f < files.length; f++) {
      const file = files[f]!;
      // A script that changes into a folder holding the data works on the data from then on.
      let cwd: Taint | undefined;
      for (let i = 0; i < file.lines.length; i++) {
        const { line, text } = file.lines[i]!;
        const fact = facts[f]![i]!;
        const taint = fact.source
          ? { origin: `${file.filename}:${line} reads ${fact.source}` }
          : (usesTaint(text, fact, vars.get(file.filename), pathList) ?? cwd);
        if (!taint) continue;
        const where = `${file.filename}:${line}`;
        if (!cwd && /(?:^|[;&|]\s{0,4})(?:cd|pushd|Set-Location)\s/.test(text)) cwd = taint;
        fact.effects ??= effectsOf(text);
        for (const name of fact.effects.assigned) taintVar(file.filename, name, { origin: taint.origin });
        for (const path of fact.effects.written) taintPath(path, { origin: `${taint.origin} → ${where} writes it to a file` });
        if (fact.sink && !flows.has(where)) flows.set(where, { file: file.filename, line, chain: `${taint.origin} → ${where}: ${fact.sink}` });
      }
    }
    if (count + flows.size === before) break;
  }
  return [...flows.values()];
}

/** The variables a line assigns and the paths it writes to. */
function effectsOf(text: string): { assigned: string[]; written: string[] } {
  const assigned: string[] = [];
  for (const m of text.matchAll(ASSIGNED)) {
    const name = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (name) assigned.push(name);
  }
  const written: string[] = [];
  for (const m of text.matchAll(REDIRECTED)) written.push(m[1]!);
  // A redirection is not an argument: `cp ~/.aws/credentials /tmp/a 2>/dev/null` copies to /tmp/a.
  const args = text.includes('>') || text.includes('<') ? text.replace(REDIRECTION, '') : text;
  for (const pattern of WRITTEN) for (const m of args.matchAll(pattern)) written.push(m[1]!);
  return { assigned, written };
}

/** A line this long (data, minified code) is searched for the tainted names before its identifiers are listed. */
const LONG_LINE = 2048;

function mentionsAny(text: string, vars: ReadonlyMap<string, TaintedVar>): boolean {
  for (const name of vars.keys()) if (text.includes(name)) return true;
  return false;
}

/**
 * The taint a line picks up from a variable of its file or a path of the skill that it uses. What
 * the line names, its text as a path, and what it was found to use are kept in its facts: the
 * rounds read every line again.
 */
function usesTaint(text: string, fact: LineFacts, own: ReadonlyMap<string, TaintedVar> | undefined, paths: ReadonlyArray<[string, Taint]>): Taint | undefined {
  if (own && own.size > 0 && !fact.byVar && fact.varsSeen !== own.size) {
    fact.varsSeen = own.size;
    if (text.length < LONG_LINE || mentionsAny(text, own)) {
      // The line's identifiers, looked up: a line names a few, a file may have tainted hundreds.
      fact.names ??= Array.from(text.matchAll(IDENTIFIER), (m) => m[0]);
      let first: TaintedVar | undefined;
      for (const name of fact.names) {
        const taint = own.get(name);
        if (taint && (!first || taint.order < first.order) && taint.used.test(text)) first = taint;
      }
      if (first) fact.byVar = { origin: first.origin };
    }
  }
  if (fact.byVar) return fact.byVar;
  if (!fact.byPath && paths.length > (fact.pathsSeen ?? 0)) {
    fact.asPath ??= normalisePath(text);
    for (let i = fact.pathsSeen ?? 0; i < paths.length && !fact.byPath; i++) if (fact.asPath.includes(paths[i]![0])) fact.byPath = paths[i]![1];
    fact.pathsSeen = paths.length;
  }
  return fact.byPath;
}
