import { severityRank } from '../finding.ts';
import type { FileScan, Hit, RawFinding } from './rule.ts';
import { knownInstallerOnly } from './installers.ts';
import { findSecrets } from './secrets.ts';
import { lineNumbered } from '../read/source-text.ts';

/**
 * The file rules: what no single line says but the file does. A download on one line made
 * executable on another, a credential read here and a POST there, a "prerequisite" heading over
 * an installer link, instructions inside a comment a rendered page hides.
 */

type FileHit = { line: number } & Exclude<Hit, true>;

/** How far apart, in Markdown, two lines may be and still be one instruction. */
const PROSE_REACH = 20;

const near = (file: FileScan, a: number, b: number) => file.kind !== 'markdown' || Math.abs(a - b) <= PROSE_REACH;
const findingsOf = (file: FileScan, ids: ReadonlySet<string>) => file.findings.filter((f) => ids.has(f.rule.id));

/** Where a download is saved: the pattern, a word the line must hold for it to apply (a cheap filter), and whether the name comes from the URL. */
const DOWNLOAD_TARGETS: ReadonlyArray<{ pattern: RegExp; needs: string; fromUrl?: boolean; also?: RegExp }> = [
  // `-o` alone or closing a bundle of short flags (`-fsSLo file`).
  { pattern: /\bcurl\b[^\n]{0,300}?\s(?:-[a-zA-Z]{0,6}o|--output)\s{1,4}["']?([^\s"';&|]{1,200})/, needs: 'curl', also: /\s(?:-[a-zA-Z]{0,6}o|--output)\s/ },
  {
    pattern:
      /\b(?:wget\b[^\n]{0,300}?\s-O|(?:Invoke-WebRequest|iwr|Start-BitsTransfer)\b[^\n]{0,300}?\s-(?:OutFile|Destination))\s{1,4}["']?([^\s"';&|-][^\s"';&|]{0,199})/i,
    needs: ' -',
  },
  { pattern: /\b(?:urlretrieve|DownloadFile)\s{0,4}\([^,\n]{1,300},\s{0,4}[rbf]?["']([^"'\n]{1,200})["']/i, needs: 'download' },
  {
    pattern: /\bcurl\b[^\n]{0,300}?\s(?:-[a-zA-Z]{0,4}O|--remote-name)\b[^\n]{0,300}?(https?:\/\/[^\s"';&|]{1,300})/,
    needs: '://',
    fromUrl: true,
    also: /\s(?:-[a-zA-Z]{0,4}O|--remote-name)\b/,
  },
  { pattern: /\bwget\s(?![^\n]{0,300}?\s-(?:q?O|-output-document))[^\n]{0,300}?(https?:\/\/[^\s"';&|]{1,300})/i, needs: '://', fromUrl: true },
];

function downloadTarget(line: string): string | null {
  // The test of the line as it would be lower-cased, without making that copy of every line: the
  // Kelvin sign is the one character outside ASCII that lower-cases into one of these words.
  if (!/curl|wget|iwr|invoke-webrequest|bitstransfer|urlretrieve|downloadfile/i.test(line) && !line.includes('\u212a')) return null;
  const lower = line.toLowerCase();
  for (const { pattern, needs, fromUrl, also } of DOWNLOAD_TARGETS) {
    if (!lower.includes(needs) && !(needs === 'download' && lower.includes('urlretrieve'))) continue;
    // A flag the pattern cannot match without, found in one pass first: a line of `curl curl …` stays cheap.
    if (also && !also.test(line)) continue;
    const m = pattern.exec(line);
    if (!m) continue;
    const path = fromUrl ? m[1]!.replace(/[?#].*$/, '') : m[1]!;
    const name = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
    if (name.length >= 2 && name !== '-' && !/^\$/.test(name)) return name;
  }
  return null;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The downloaded file as the program of a command: made executable, un-quarantined, started, or
 * run by path or through a shell; not merely passed as an argument (`jq . data.json`).
 */
function runPattern(name: string): RegExp {
  const path = String.raw`["']?(?:[^\s"';&|]{0,200}[/\\])?${name}(?![\w.-])`;
  return new RegExp(
    String.raw`(?:\bchmod\s{1,4}(?:-\w{1,3}\s{1,4})?(?:[ugoa]{0,3}\+[rwX]{0,3}x|0?[1357][0-7]{2})\s{1,4}|\bxattr\s{1,4}(?:-\w{1,3}\s{1,4}){0,3}(?:com\.apple\.quarantine\s{1,4})?|\b(?:Start-Process|open|(?:ba|z)?sh|python[23]?|source)\s{1,4}(?:-\w{1,3}\s{1,4}){0,3}|(?:^|[;|(]|&&|\s&)\s{0,4}(?=["']?[^\s"';&|]{0,200}[/\\]))${path}`,
    'i',
  );
}

/** A downloaded file later made executable or run, within the same file (or Markdown section). */
export function fetchThenRun(file: FileScan): FileHit[] {
  const hits: FileHit[] = [];
  const downloads: Array<{ line: number; name: RegExp; installer: boolean }> = [];
  for (const line of file.lines) {
    if (!line.code) continue;
    const target = downloadTarget(line.text);
    if (target) {
      downloads.push({ line: line.number, name: runPattern(escapeRegExp(target)), installer: knownInstallerOnly(line.text) });
    }
    const run = downloads.find((d) => d.line <= line.number && near(file, d.line, line.number) && d.name.test(line.text));
    if (run)
      hits.push({
        line: line.number,
        note: run.line === line.number ? undefined : `downloaded on line ${run.line}`,
        ...(run.installer ? { lowered: 'a known installer from its own host' } : {}),
      });
  }
  return hits;
}

/**
 * A download made to run and stripped of its quarantine in the same file: the quarantine rule
 * must have fired, and the xattr line must touch a downloaded file, or come after the download.
 */
export function unquarantinedDownloadRun(file: FileScan): FileHit[] {
  const runs = findingsOf(file, new Set(['fetch-then-run']));
  const bypass = findingsOf(file, new Set(['quarantine-bypass']));
  if (runs.length === 0 || bypass.length === 0) return [];
  const first = bypass.find((b) => runs.some((r) => near(file, b.line, r.line)));
  return first ? [{ line: first.line, note: `run on line ${runs[0]!.line}` }] : [];
}

const NET_SEND: readonly RegExp[] = [
  /\bcurl\b[^\n]{0,300}?\s(?:-d|--data(?:-binary|-raw|-urlencode|-ascii)?|-F|--form|-T|--upload-file|--json)(?:\s|=)/i,
  /\bcurl\b[^\n]{0,300}?\s-X\s{0,4}["']?(?:POST|PUT|PATCH)\b/i,
  /\bwget\b[^\n]{0,300}?--(?:post-data|post-file|body-data|body-file|method[= ]["']?(?:POST|PUT))/i,
  /\b(?:requests|httpx|session|aiohttp|client|http)\.(?:post|put|patch)\s{0,4}\(/i,
  /\bmethod\s{0,4}[:=]\s{0,4}["'](?:POST|PUT|PATCH)["']/i,
  /\baxios\.(?:post|put|patch)\s{0,4}\(/i,
  /\b(?:Invoke-WebRequest|Invoke-RestMethod|iwr|irm)\b[^\n]{0,300}?\s-(?:Method\s{1,4}["']?(?:Post|Put)|InFile|Body)\b/i,
  /\b(?:nc|ncat|netcat)\s{1,4}(?:-\w{1,4}\s{1,4}){0,4}[\w.-]{1,253}\s{1,4}\d{2,5}\b/,
  /\bscp\s[^\n]{0,200}?\s[\w.-]{1,64}@[\w.-]{1,253}:/,
  /\b(?:smtplib|sendmail|nodemailer|Send-MailMessage)\b/i,
  /\burllib\.request\.(?:urlopen|Request)\([^\n]{0,200}?\bdata\s{0,4}=/i,
  /\b(?:UploadFile|UploadData|UploadString|UploadValues)\s{0,4}\(/,
  /\bsocket\b[^\n]{0,100}?\.(?:send|sendall|connect)\s{0,4}\(/i,
];

/** Places data goes that a rule already names: bins, tunnels, paste sites, chat webhooks, bare IPs. */
const DESTINATIONS = new Set(['request-bin-host', 'tunnel-host', 'paste-host', 'chat-webhook', 'raw-ip-url']);
/** Collecting these is theft whatever the destination. */
const TAKEN = new Set([
  'credential-store-read',
  'browser-credential-store',
  'credential-dump',
  'crypto-wallet',
  'dotenv-harvest',
  'env-dump',
  'cloud-metadata',
  'bulk-file-collection',
]);
/**
 * These are honest when a script uses the user's own token with the API it belongs to (a keychain
 * item sent as a bearer token), so they count only when the data goes to a drop.
 */
const TOUCHED = new Set(['credential-store-reference', 'keychain-access']);
const COMMENT_LINE = /^\s{0,40}(?:#|\/\/|\/?\*|--|REM\b|;)/;

/**
 * Something sensitive is collected and sent off, in one script or one Markdown section: a
 * credential store, the environment, wallets or personal files read, then a POST, an upload or a
 * socket; or a credential merely named in a script's code, then sent to a request bin, tunnel,
 * paste site, chat webhook or bare IP.
 */
export function credentialExfiltration(file: FileScan): FileHit[] {
  const inCode = (f: RawFinding) => {
    const line = lineNumbered(file.lines, f.line);
    return line !== undefined && (line.code || file.depth > 0) && !COMMENT_LINE.test(line.text);
  };
  const taken = file.findings.filter((f) => TAKEN.has(f.rule.id));
  const touched = file.findings.filter((f) => TOUCHED.has(f.rule.id) && inCode(f));
  if (taken.length === 0 && touched.length === 0) return [];
  const drops = findingsOf(file, DESTINATIONS);
  const sends: Array<{ line: number }> = [
    ...file.lines.filter((l) => (l.code || file.depth > 0) && NET_SEND.some((p) => p.test(l.text))).map((l) => ({ line: l.number })),
    ...drops,
  ].sort((a, b) => a.line - b.line);
  for (const send of sends) {
    const read = taken.find((s) => near(file, s.line, send.line));
    if (read) return [{ line: send.line, note: `${read.rule.id} on line ${read.line}` }];
  }
  for (const drop of drops) {
    const read = touched.find((s) => near(file, s.line, drop.line));
    if (read) return [{ line: drop.line, note: `${read.rule.id} on line ${read.line}` }];
  }
  return [];
}

const PREREQUISITE =
  /\b(?:prerequisites?|requirements?|required|requires|must\s{1,4}(?:first\s{1,4})?(?:install|download|run|execute|set\s?up|have)|needs?\s{1,4}to\s{1,4}(?:first\s{1,4})?(?:install|download|run)|before\s{1,4}(?:using|running|you\s{1,4}(?:use|run|start|begin))|install\b[^\n]{0,60}\bfirst\b|setup\s{1,4}(?:required|wizard)|one-time\s{1,4}setup)\b/i;
/** What a fake prerequisite asks for: an installer, a locked archive, a paste or a bare IP, a Run-dialog command. */
const PREREQUISITE_PAYLOADS = new Set([
  'binary-download-link',
  'archive-password',
  'raw-ip-url',
  'paste-host',
  'run-dialog-paste',
  'quarantine-bypass',
  'tunnel-host',
  'request-bin-host',
  'fetch-then-run',
]);

/** A "prerequisite" in a skill's Markdown that turns out to be an installer, a locked archive or a bare-IP download. */
export function fakePrerequisite(file: FileScan): FileHit[] {
  if (file.kind !== 'markdown') return [];
  const payloads = findingsOf(file, PREREQUISITE_PAYLOADS);
  if (payloads.length === 0) return [];
  const prerequisites = file.lines.filter((l) => PREREQUISITE.test(l.text)).map((l) => l.number);
  const hits: FileHit[] = [];
  for (const f of payloads) {
    const heading = prerequisites.find((p) => p <= f.line && f.line - p <= PROSE_REACH);
    if (heading !== undefined && !hits.some((h) => h.line === f.line))
      hits.push({ line: f.line, note: `${f.rule.id}, presented as a prerequisite on line ${heading}` });
  }
  return hits;
}

/** Categories whose high findings are actions an honest skill would not ask to hide. */
const RISKY = new Set(['download-execute', 'encoded-payload', 'credential-access', 'exfiltration', 'persistence']);

/**
 * An instruction to keep something from the user next to a risky action (reading keys, running a
 * download, sending data): the shape of tool poisoning, where the concealment is the tell.
 */
export function concealedRiskyAction(file: FileScan): FileHit[] {
  const conceals = file.findings.filter((f) => f.rule.id === 'conceal-from-user');
  const risky = file.findings.filter((f) => RISKY.has(f.rule.category) && severityRank(f.rule.severity) >= severityRank('high'));
  for (const conceal of conceals) {
    const action = risky.find((r) => Math.abs(r.line - conceal.line) <= PROSE_REACH);
    if (action) return [{ line: conceal.line, note: `${action.rule.id} on line ${action.line}` }];
  }
  return [];
}

/** Findings inside a hidden block that make it an instruction rather than a maintainer's note. */
function instructs(f: RawFinding): boolean {
  if (f.rule.category === 'hidden-text' || f.rule.category === 'secret') return false;
  return f.rule.category === 'prompt-injection' || severityRank(f.rule.severity) >= severityRank('medium');
}

/** Hidden blocks (comments, hidden elements) that carry instructions or anything another rule rates medium or worse. */
export function hiddenInstructions(file: FileScan): FileHit[] {
  const blocks = file.hiddenBlocks();
  if (blocks.length === 0) return [];
  // One snippet line per block keeps the cost linear in the number of blocks and lets a phrase
  // split over the block's lines match.
  const inside = file.scanSnippet(blocks.map((b) => b.text.replace(/\s+/g, ' ')).join('\n'));
  const hits: FileHit[] = [];
  for (const f of inside) {
    const block = blocks[f.line - 1];
    if (!block || !instructs(f) || hits.some((h) => h.line === block.line)) continue;
    hits.push({ line: block.line, note: `${block.kind}: ${f.rule.id}`, excerpt: f.excerpt });
  }
  return hits;
}

/**
 * Hidden elements in Markdown, which registries and agents render: an HTML file's hidden panels
 * are its interface (a viewer's collapsed details). Hidden instructions count in either
 * (hiddenInstructions).
 */
export function hiddenElements(file: FileScan): FileHit[] {
  if (file.kind !== 'markdown') return [];
  return file
    .hiddenBlocks()
    .filter((b) => b.kind === 'hidden element' && b.text.trim() !== '')
    .map((b) => ({ line: b.line }));
}

export function committedSecrets(file: FileScan): FileHit[] {
  if (file.depth > 0) return [];
  return findSecrets(file.filename, file.text).map((s) => ({ line: s.line, note: s.kind }));
}
