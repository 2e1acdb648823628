import type { FileScan, Hit } from './rule.ts';
import type { LineContext } from '../read/source-text.ts';

/**
 * Tampering with the agent or the machine so that something keeps running, or runs unasked,
 * after the skill is gone: MCP servers and hooks written into an agent's own configuration, git
 * credential helpers that are not git's, clipboard rewriting of wallet addresses, and persistence
 * (cron, launch agents, shell start-up files) that runs a download.
 */

type FileHit = { line: number } & Exclude<Hit, true>;

const HOME = String.raw`(?:~|\$HOME|\$\{HOME\}|\bHOME\b|homedir\(\)|home\(\)|expanduser|USERPROFILE|APPDATA|Path\.home)`;
const MCP_CONFIG = new RegExp(
  String.raw`${HOME}[^\n]{0,80}?(?:\.cursor["'\s,+/\\]{1,6}mcp\.json|\.claude\.json\b|claude_desktop_config\.json|windsurf["'\s,+/\\]{1,6}mcp_config\.json|\.gemini["'\s,+/\\]{1,6}settings\.json|\.codex["'\s,+/\\]{1,6}config\.toml|\.vscode["'\s,+/\\]{1,6}mcp\.json|Claude["'\s,+/\\]{1,6}claude_desktop_config)`,
  'i',
);
const MCP_ENTRY = /\bmcpServers\b|\bmcp_servers\b|"mcpServers"/;
const WRITES =
  /(?:>>?(?!&)|\btee\b|\bmv\b|\bcp\b|writeFile|write_text|\.write\(|json\.dump\(|\bopen\([^\n]{0,200}["'][wa]\+?["']|Set-Content|Out-File|Add-Content|\bsed\s{1,4}-i\b)/i;
const AUTO = /\b(?:autoApprove|alwaysAllow|trust)["']?\s{0,4}[:=]\s{0,4}(?:true|\[)|bypassPermissions|dangerously/i;
const FETCHES = /\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b|\bhttps?:\/\/|\|\s{0,4}(?:ba|z)?sh\b/i;

function codeLines(file: FileScan): LineContext[] {
  return file.lines.filter((l) => l.code || file.kind === 'code');
}

/** An MCP server written into an agent's configuration in the user's home: critical when it is auto-approved or runs a download. */
export function mcpConfigInjection(file: FileScan): FileHit[] {
  const lines = codeLines(file);
  const config = lines.find((l) => MCP_CONFIG.test(l.text));
  if (!config) return [];
  const entry = lines.find((l) => MCP_ENTRY.test(l.text));
  const write = lines.find((l) => WRITES.test(l.text));
  if (!entry || !write) return [];
  const server = lines.filter((l) => MCP_ENTRY.test(l.text) || Math.abs(l.number - entry.number) <= 3);
  const worse = server.find((l) => AUTO.test(l.text) || FETCHES.test(l.text));
  return [{ line: entry.number, note: worse ? `with ${AUTO.test(worse.text) ? 'auto-approval' : 'a download'} on line ${worse.number}` : undefined }];
}

const AGENT_SETTINGS =
  /(?:\.claude["'\s,+/\\]{1,6}settings(?:\.local)?\.json|\.cursor["'\s,+/\\]{1,6}hooks\.json|\.codex["'\s,+/\\]{1,6}config\.toml|\.gemini["'\s,+/\\]{1,6}settings\.json)/i;
const HOOK = /\b(?:hooks|PreToolUse|PostToolUse|SessionStart|SessionEnd|UserPromptSubmit|Stop|Notification|PreCompact)\b/;
const NETWORK = /\b(?:curl|wget|nc|ncat|Invoke-WebRequest|Invoke-RestMethod|iwr|irm)\b|\bhttps?:\/\/|requests\.(?:post|get)/i;

/** A hook written into an agent's settings: it runs on every tool call or session. Critical when the hook talks to the network. */
export function agentHookInjection(file: FileScan): FileHit[] {
  const lines = codeLines(file);
  const settings = lines.find((l) => AGENT_SETTINGS.test(l.text));
  if (!settings) return [];
  const hook = lines.find((l) => HOOK.test(l.text) && (WRITES.test(l.text) || /[[{]/.test(l.text)));
  if (!hook || !lines.some((l) => WRITES.test(l.text))) return [];
  const network = lines.find((l) => Math.abs(l.number - hook.number) <= 3 && NETWORK.test(l.text));
  return [{ line: hook.number, note: network ? `the hook talks to the network on line ${network.number}` : undefined }];
}

const RUNS = new Set(['pipe-to-shell', 'fetch-then-run', 'exec-downloaded-code', 'decode-to-shell']);
/** How far apart, in Markdown, turning off approvals and running a download may be. */
const PROSE_REACH = 20;

/**
 * Critical forms of the two rules above, and approvals turned off next to a download that then
 * runs: the agent is set up to run whatever comes next without asking.
 */
export function agentConfigTakeover(file: FileScan): FileHit[] {
  const planted = file.findings
    .filter((f) => (f.rule.id === 'mcp-config-injection' || f.rule.id === 'agent-hook-injection') && f.note)
    .map((f) => ({ line: f.line, note: `${f.rule.id}, ${f.note}` }));
  if (planted.length > 0) return planted;
  const approvals = file.findings.filter((f) => f.rule.id === 'agent-permission-change');
  const runs = file.findings.filter((f) => RUNS.has(f.rule.id));
  for (const off of approvals) {
    const run = runs.find((r) => file.kind !== 'markdown' || Math.abs(r.line - off.line) <= PROSE_REACH);
    if (run) return [{ line: off.line, note: `agent-permission-change with ${run.rule.id} on line ${run.line}` }];
  }
  return [];
}

const STANDARD_HELPERS =
  /^(?:osxkeychain|manager|manager-core|store|cache|wincred|libsecret|gnome-keyring|oauth|netrc|[\w/.-]{0,80}git-credential-(?:libsecret|osxkeychain|manager(?:-core)?|gnome-keyring|wincred|oauth)|!gh\s{1,4}auth\s{1,4}git-credential|!aws\s{1,4}codecommit\s{1,4}credential-helper\s{1,4}\$@|!?gcloud\.(?:sh|cmd)|!gcloud\s{1,4}auth\s{1,4}git-helper[^\n]{0,60}|""|''|cache\s{1,4}--timeout[= ]\d{1,8}|store\s{1,4}--file[= ]\S{1,200})$/;
const HELPER =
  /\bcredential(?:\.[\w:/.-]{1,200})?\.helper\b\s{0,4}=?\s{0,4}(?:["']((?:[^"'\\]|\\.){0,400})["']|(\S{1,400}))|^\s{0,8}helper\s{0,4}=\s{0,4}(.{1,400})$/;

/** Sets git's credential helper to something other than git's own helpers or a known vendor's: it sees every password git uses. */
export function gitCredentialHelper(line: LineContext): Hit | null {
  const m = HELPER.exec(line.text);
  if (!m) return null;
  const value = (m[1] ?? m[2] ?? m[3] ?? '').trim();
  if (value === '' || STANDARD_HELPERS.test(value)) return null;
  return { excerpt: m[0] };
}

const CLIPBOARD_WRITE =
  /\b(?:pyperclip\.copy|pbcopy|Set-Clipboard|clipboard\.writeText|clipboardy\.write|xclip\b(?![^\n]{0,40}-o\b)[^\n]{0,40}-selection|xsel\s{1,4}(?:-b\s{1,4})?-i|SetClipboardData|clip\.exe|NSPasteboard[^\n]{0,40}setString)\b/i;
const CLIPBOARD_READ =
  /\b(?:pyperclip\.paste|pbpaste|Get-Clipboard|clipboard\.readText|clipboardy\.read|GetClipboardData|xclip\b[^\n]{0,40}-o\b|xsel\s{1,4}(?:-b\s{1,4})?-o)\b/i;
const WALLET_ADDRESS =
  /0x\[a-fA-F0-9\]\{40\}|0x[a-fA-F0-9]{40}\b|\bbc1[a-z0-9]{25,60}\b|\(bc1\||\[13\]\[a-km-zA-HJ-NP-Z1-9\]|\b[13][a-km-zA-HJ-NP-Z1-9]{25,34}\b|\bT[A-Za-z1-9]{33}\b|\b(?:btc|eth|bitcoin|ethereum|usdt|wallet)\b/i;

/** Reads the clipboard and writes it back where the text is a wallet address: payments go to someone else. */
export function clipboardHijack(file: FileScan): FileHit[] {
  const lines = codeLines(file);
  const write = lines.find((l) => CLIPBOARD_WRITE.test(l.text));
  if (!write || !lines.some((l) => CLIPBOARD_READ.test(l.text))) return [];
  const wallet = lines.filter((l) => WALLET_ADDRESS.test(l.text));
  return wallet.length >= 1 ? [{ line: write.number, note: `wallet addresses on line ${wallet[0]!.number}` }] : [];
}

const PERSISTENCE = new Set(['shell-startup-write', 'scheduled-task', 'login-service', 'git-credential-helper', 'agent-config-write']);
const RUNS_OR_SENDS = new Set([
  'pipe-to-shell',
  'fetch-then-run',
  'exec-downloaded-code',
  'decode-to-shell',
  'request-bin-host',
  'tunnel-host',
  'paste-host',
  'raw-ip-url',
  'chat-webhook',
]);
/**
 * How far apart a persistence entry and what it runs may be: the entry itself, or the lines of
 * the same command (a here-document, a unit file written next to its download). Farther apart,
 * a Dockerfile that installs a tool and sets up a shell is two honest steps.
 */
const REACH = 3;

/** A persistence entry (cron, launch agent, start-up file, credential helper) that runs a download or talks to a drop. */
export function persistentDownload(file: FileScan): FileHit[] {
  const entries = file.findings.filter((f) => PERSISTENCE.has(f.rule.id));
  const actions = file.findings.filter((f) => RUNS_OR_SENDS.has(f.rule.id));
  for (const entry of entries) {
    const action = actions.find((a) => Math.abs(a.line - entry.line) <= REACH);
    if (action) return [{ line: entry.line, note: `${entry.rule.id} with ${action.rule.id} on line ${action.line}` }];
  }
  return [];
}
