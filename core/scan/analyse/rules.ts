import { isNativeExecutable } from '../read/file-content.ts';
import {
  committedSecrets,
  concealedRiskyAction,
  credentialExfiltration,
  fakePrerequisite,
  fetchThenRun,
  hiddenElements,
  unquarantinedDownloadRun,
  hiddenInstructions,
} from './file-checks.ts';
import { severityRank } from '../finding.ts';
import { PASTE_HOST, publicIpContacted, REQUEST_BIN_HOST, TUNNEL_HOST } from './hosts.ts';
import {
  agentConfigWrite,
  bidiInCode,
  bidiInProse,
  chatWebhook,
  CREDENTIAL_WORDS,
  credentialStoreRead,
  credentialStoreReference,
  dataHarvestInstruction,
  decodeToShell,
  EXEC_DOWNLOADED,
  firstMatch,
  invisiblePayload,
  pipeFromUntrustedHost,
  pipeToShell,
  placeholderFree,
  shellStartupWrite,
  zeroWidth,
} from './line-checks.ts';
import type { Rule } from './rule.ts';
import { askedSecretSentElsewhere, foreignIndex, sensitiveWrites, sensitiveWritesThatCallOut } from './effects.ts';
import { sensitiveFlows } from './flows.ts';
import { agentTakeover, imageExfiltration, instructedExfiltration, remoteInstructions, remoteOverride } from './instructions.ts';
import { impersonatedInstaller } from './installers.ts';
import { agentConfigTakeover, agentHookInjection, clipboardHijack, gitCredentialHelper, mcpConfigInjection, persistentDownload } from './tampering.ts';

/** Words a download-and-run line contains: the commands that fetch, and the Windows programs that fetch and run. */
const DOWNLOAD_WORDS = [
  'curl',
  'wget',
  'fetch',
  'aria2c',
  'iwr',
  'irm',
  'invoke-',
  'download',
  'webclient',
  'mshta',
  'msiexec',
  'regsvr32',
  'rundll32',
  'certutil',
  'exec',
  'eval',
];

/** Calls that run a command or code, as the script readers spell them once strings are folded. */
const RUNS_CODE =
  /\b(?:os\.(?:system|popen|exec[lv]p?e?|spawn[lv]p?e?)|subprocess\.(?:run|call|Popen|check_output|check_call|getoutput)|__builtins__\.(?:exec|eval|compile)|builtins\.(?:exec|eval)|child_process|execSync|spawnSync|Invoke-Expression|DownloadString)\b/;

/** What a computed name is computed with: concatenation, reversal, character codes, a dynamic import. */
const COMPUTED = /__import__|["'`]\s{0,4}\+|\+\s{0,4}["'`]|\[::-1\]|\breverse\(|\bchr\(|fromCharCode|["']\s{1,4}["']|\w`\w/;

const SCHEDULED_TASK =
  /\bcrontab\s{1,4}(?:-\s{0,4}$|-\s|(?!-)[^\s#]{1,200}\s{0,4}$|-l\b[^\n]{0,200}?\|\s{0,4}crontab\b)|\|\s{0,4}crontab\b|>>?\s{0,4}["']?\/etc\/cron\.|\/var\/spool\/cron|(?:\becho|\bprintf|>>)[^\n]{0,200}@reboot\b|@reboot\b[^\n]{0,200}(?:\|\s{0,4}crontab|>>)|\bschtasks(?:\.exe)?\s{1,4}\/create\b|\bRegister-ScheduledTask\b|CurrentVersion\\{1,2}Run(?:Once)?\b|\\Start Menu\\{1,2}Programs\\{1,2}Startup\b/i;

/**
 * The scanner's rules, in one table: what each looks for, how bad it is, and why. The order is
 * the order findings on one line are reported in. Severities follow one scale: critical is
 * almost never legitimate in a skill (the publish is refused), high and medium make a skill
 * suspicious, low is context that never changes a verdict. docs/scanning.md explains each
 * category; test/core/scan/rules.test.ts holds a hit and a near miss for every rule.
 */
export const rules: readonly Rule[] = [
  // Download and execute
  {
    id: 'pipe-to-shell-untrusted-host',
    category: 'download-execute',
    severity: 'critical',
    reason: 'runs code downloaded from a paste site, tunnel, request bin, URL shortener or bare IP address',
    scope: 'line',
    keywords: DOWNLOAD_WORDS,
    check: pipeFromUntrustedHost,
  },
  {
    id: 'pipe-to-shell',
    category: 'download-execute',
    severity: 'high',
    reason: 'pipes a download straight into a shell, so whatever the server sends runs unreviewed',
    scope: 'line',
    keywords: DOWNLOAD_WORDS,
    check: pipeToShell,
  },
  {
    id: 'installer-impersonation',
    category: 'download-execute',
    severity: 'critical',
    reason: "runs an installer from a host that borrows a tool vendor's name without being the vendor's",
    scope: 'line',
    keywords: DOWNLOAD_WORDS,
    check: (line) => {
      const host = pipeToShell(line) ? impersonatedInstaller(line.text) : null;
      return host ? { excerpt: host } : null;
    },
  },
  {
    id: 'exec-downloaded-code',
    category: 'download-execute',
    severity: 'high',
    reason: 'evaluates code fetched over the network inside a running program',
    scope: 'line',
    keywords: ['exec', 'eval', 'compile', 'function', 'runin'],
    pattern: EXEC_DOWNLOADED,
  },
  {
    id: 'fetch-then-run',
    category: 'download-execute',
    severity: 'high',
    reason: 'downloads a file, then makes it executable or runs it',
    scope: 'file',
    check: fetchThenRun,
  },
  {
    id: 'unquarantined-download-run',
    category: 'download-execute',
    severity: 'critical',
    reason: "downloads a program, strips macOS's quarantine from it and runs it (how AMOS droppers install)",
    scope: 'file',
    check: unquarantinedDownloadRun,
  },
  {
    id: 'quarantine-bypass',
    category: 'download-execute',
    severity: 'high',
    reason: "strips macOS Gatekeeper's quarantine so a downloaded program runs without the system's check",
    scope: 'line',
    keywords: ['xattr', 'spctl'],
    pattern: /\bxattr\s{1,4}(?:-[a-z]{1,3}\s{1,4}){0,2}-[a-z]{0,2}[cd][a-z]{0,2}(?:\s|$)|\bspctl\s{1,4}--(?:master-disable|global-disable)\b/i,
  },
  {
    id: 'reverse-shell',
    category: 'download-execute',
    severity: 'critical',
    reason: 'opens a reverse shell: hands control of the machine to a remote host',
    scope: 'line',
    keywords: ['/dev/tcp', '/dev/udp', 'nc', 'socat', 'mkfifo', 'dup2', 'pty.spawn', 'tcpclient'],
    check: (line) =>
      firstMatch(line.text, [
        // The host and port may be variables the script never sets (`/dev/tcp/$H/$P`): the shell
        // reader has put in every value it knows, and what is left comes from the environment.
        /(?:\bbash\s{1,4}-i\b|\bsh\s{1,4}-i\b|>&|0>&1|<>)[^\n]{0,80}?\/dev\/(?:tcp|udp)\/(?:[\w.-]|\$\{?\w{1,40}\}?){1,255}\/(?:\d{1,5}|\$\{?\w{1,40}\}?)/,
        /\/dev\/(?:tcp|udp)\/(?:[\w.-]|\$\{?\w{1,40}\}?){1,255}\/(?:\d{1,5}|\$\{?\w{1,40}\}?)[^\n]{0,40}?(?:0>&1|>&\s{0,4}\d|<&\s{0,4}\d)/,
        /\b(?:nc|ncat|netcat)\b[^\n]{0,100}?\s-[ec]\s{1,4}(?:\/bin\/)?(?:ba|z)?sh\b/,
        /\bncat\b[^\n]{0,100}?--(?:exec|sh-exec)\b/,
        /\bsocat\b[^\n]{0,200}?\bexec:/i,
        /\bmkfifo\b[^\n]{0,100}?\|\s{0,4}(?:nc|ncat|netcat)\b/,
        /\bdup2\(\s{0,4}\w{1,30}\.fileno\(\)/,
        /\bpty\.spawn\(\s{0,4}["']\/bin\/(?:ba)?sh["']/,
        /\bNet\.Sockets\.TCPClient\b[^\n]{0,300}?\bGetStream\(/i,
      ])
        ? true
        : null,
  },
  {
    id: 'native-executable',
    category: 'download-execute',
    severity: 'medium',
    reason: 'ships a compiled program whose behaviour cannot be reviewed from the skill',
    scope: 'binary',
    check: (file) => (isNativeExecutable(file.bytes) || (file.executable && file.format === 'unknown') ? true : null),
  },

  // Encoded payloads
  {
    id: 'decode-to-shell',
    category: 'encoded-payload',
    severity: 'critical',
    reason: 'decodes an encoded blob and runs the result in a shell',
    scope: 'line',
    keywords: ['base64', 'b64decode', 'xxd', 'openssl', 'base32', 'certutil', 'uudecode', 'frombase64', 'atob', 'gunzip', 'zcat'],
    check: decodeToShell,
  },
  {
    id: 'exec-decoded',
    category: 'encoded-payload',
    severity: 'critical',
    reason: 'decodes data and executes it as code',
    scope: 'line',
    keywords: ['exec', 'eval', 'compile', 'function', 'iex', 'invoke-expression', 'system', 'subprocess', 'execsync', 'spawnsync'],
    pattern:
      /\b(?:exec|eval|compile|execfile|Function|iex|Invoke-Expression|os\.system|subprocess\.\w{1,12}|execSync|spawnSync|instance_eval|class_eval)\b[^\n]{0,200}?(?:\b(?:b64decode|b32decode|b85decode|a85decode|decodebytes|decodestring|unhexlify|fromhex|atob|FromBase64String|decode64|marshal\.loads|zlib\.decompress|codecs\.decode|fromCharCode)\b|\bBuffer\.from\([^\n)]{0,200}["'](?:base64|hex)["']|\[char\]\s{0,4}\d)/i,
  },
  {
    id: 'powershell-encoded',
    category: 'encoded-payload',
    severity: 'critical',
    reason: 'runs a base64-encoded PowerShell command that nobody can read in the skill',
    scope: 'line',
    keywords: ['powershell', 'pwsh'],
    pattern: /\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]{0,200}?\s[-/]e(?:c|n|nc|nco|ncod|ncode|ncoded|ncodedc\w{0,10})?\s{1,4}["']?[A-Za-z0-9+/]{12,}={0,2}/i,
  },
  {
    id: 'encoded-dangerous-payload',
    category: 'encoded-payload',
    severity: 'critical',
    reason: 'hides, inside an encoding, something another rule rates high or critical',
    scope: 'decoded',
    check: (decoded, inside) => {
      const worst = inside.find((f) => severityRank(f.severity ?? f.rule.severity) >= severityRank('high'));
      return worst ? { note: `${decoded.encoding}: ${worst.rule.id}` } : null;
    },
  },
  {
    id: 'disguised-command',
    category: 'encoded-payload',
    severity: 'critical',
    reason: 'hides a risky command behind quoting, variables or computed strings; it shows only once they are undone',
    scope: 'derived',
    check: (reading, written, lines) => {
      const seen = new Set(written.map((f) => `${f.rule.id}:${f.line}`));
      const risky = reading
        .filter((f) => !f.severity && severityRank(f.rule.severity) >= severityRank('high') && !seen.has(`${f.rule.id}:${f.line}`))
        .map((f) => ({ line: f.line, note: f.rule.id, excerpt: f.excerpt }));
      // A call that runs code, spelled so that the source never names it: getattr(__import__('o'+'s'), 'sys'+'tem').
      const calls = lines.flatMap(({ line, reading: r, written: w }) => {
        const call = RUNS_CODE.exec(r);
        return call && !w.includes(call[0]) && COMPUTED.test(w) ? [{ line, note: `a hidden ${call[0]}`, excerpt: call[0] }] : [];
      });
      return [...risky, ...calls];
    },
  },
  {
    id: 'encoded-script',
    category: 'encoded-payload',
    severity: 'medium',
    reason: 'carries an encoded run that decodes to commands or script code',
    scope: 'decoded',
    check: (decoded) =>
      firstMatch(decoded.text, [
        /\b(?:curl|wget|chmod|sudo|osascript|powershell|pwsh|iex|Invoke-\w{3,30}|New-Object|DownloadString|Start-Process|subprocess|child_process|execSync|os\.system|socket\.socket)\b/i,
        /\b(?:eval|exec|system|popen|spawn)\s{0,4}\(/,
        /\bimport\s{1,4}(?:os|subprocess|socket|base64|ctypes)\b|\brequire\(\s{0,4}["'](?:child_process|net|fs)["']\)/,
        /(?:^|[\s;|&"'])(?:\/bin\/(?:ba|z)?sh|(?:ba|z)?sh\s{1,4}-c|python[23]?\s{1,4}-c|\/dev\/tcp\/|rm\s{1,4}-rf|base64\s{1,4}-d)/,
      ])
        ? { note: decoded.encoding }
        : null,
  },

  // Credential and wallet access
  {
    id: 'credential-store-read',
    category: 'credential-access',
    severity: 'high',
    reason: 'reads, copies or sends a credential store (SSH keys, cloud, registry or Git tokens)',
    scope: 'line',
    keywords: CREDENTIAL_WORDS,
    check: credentialStoreRead,
  },
  {
    id: 'credential-store-reference',
    category: 'credential-access',
    severity: 'low',
    reason: 'names a credential store (SSH keys, cloud, registry or Git tokens)',
    scope: 'line',
    keywords: CREDENTIAL_WORDS,
    // Reported only where the read rule is not: a line that reads a store says so once.
    check: credentialStoreReference,
  },
  {
    id: 'browser-credential-store',
    category: 'credential-access',
    severity: 'high',
    reason: "reaches into a browser's saved passwords, cookies or their encryption key",
    scope: 'line',
    keywords: [
      'login data',
      'web data',
      'local state',
      'cookies',
      'logins.json',
      'key3.db',
      'key4.db',
      'signons',
      'formhistory',
      'browser_cookie',
      'pycookiecheat',
      'chrome-cookies',
      'cryptunprotect',
      'safe storage',
      'find-generic-password',
    ],
    check: (line) =>
      firstMatch(line.text, [
        /[/\\"'](?:Login Data|Web Data)(?:[/\\"'\s-]|$)/,
        /(?:User Data|Default|Profile \d{1,3}|Chrome|Chromium|Brave-Browser|Edge|Firefox|Opera(?: Stable)?|Vivaldi)[/\\][^\n]{0,80}?(?:Local State|Cookies)\b/,
        /\b(?:logins\.json|key[34]\.db|cookies\.sqlite|signons\.sqlite|formhistory\.sqlite|Cookies\.binarycookies)\b/i,
        /\b(?:browser_cookie3|pycookiecheat|chrome-cookies-secure|CryptUnprotectData)\b|\b(?:Chrome|Chromium|Brave|Microsoft Edge|Opera|Vivaldi) Safe Storage\b/i,
        // The browsers' cookie and password encryption keys live in the keychain under their names.
        /\bfind-generic-password\b[^\n]{0,80}?-\w{0,3}[as]\w{0,3}\s{1,4}["']?(?:Chrome|Chromium|Brave|Microsoft Edge|Opera|Vivaldi|Arc)\b/i,
      ])
        ? true
        : null,
  },
  {
    id: 'keychain-access',
    category: 'credential-access',
    severity: 'low',
    // Low: a named item read back is how honest scripts keep their own token out of files. Sent to
    // a drop it is theft (credential-exfiltration); dumps and browser keys have their own rules.
    reason: 'reads a password or token out of the system keychain or credential manager',
    scope: 'line',
    keywords: ['security', 'secret-tool', 'cmdkey'],
    pattern: /\bsecurity\b[^\n|;&]{0,60}?\b(?:find-generic-password|find-internet-password)\b|\bsecret-tool\s{1,4}lookup\b|\bcmdkey(?:\.exe)?\s{1,4}\/list\b/i,
  },
  {
    id: 'credential-dump',
    category: 'credential-access',
    severity: 'high',
    reason: 'dumps the keychain or the system password store',
    scope: 'line',
    keywords: ['security', 'keychain', 'chainbreaker', '/etc/shadow', 'mimikatz', 'sekurlsa', 'lsass', 'vaultcmd', 'lazagne', 'reg'],
    pattern:
      /\bsecurity\s{1,4}(?:dump-keychain|export)\b|\blogin\.keychain(?:-db)?\b|\bchainbreaker\b|\/etc\/shadow\b|\bmimikatz\b|\bsekurlsa\b|\blsass(?:\.exe)?\b|\bvaultcmd\b|\bLaZagne\b|\breg(?:\.exe)?\s{1,4}save\s{1,4}hklm\\(?:sam|security|system)\b/i,
  },
  {
    id: 'crypto-wallet',
    category: 'credential-access',
    severity: 'high',
    reason: 'reaches for cryptocurrency wallets or asks for a seed phrase',
    scope: 'line',
    keywords: [
      'wallet',
      'electrum',
      'keystore',
      'application support',
      'appdata',
      'phrase',
      'words',
      'nkbihfbeogaeaoehlefnkodbefgpgknn',
      'bfnaelmomeimhlpmgjnjophhpkkoljpa',
      'hnfanknocfeofbddgcijnmhnfnkdnaad',
      'fhbohimaelbohpjbbldcngcnapndodjp',
      'ibnejdfjmmkpcnlpebklmnkoeoihofec',
      'egjidjbpglichdcondbcbdnbeeppgdph',
    ],
    check: (line) =>
      firstMatch(line.text, [
        /\bwallet\.dat\b|\bexodus\.wallet\b|\.electrum\/wallets\b|\bkeystore[/\\]UTC--/i,
        /(?:Application Support|AppData[/\\](?:Roaming|Local))[/\\](?:Exodus|Electrum|atomic|Atomic|Coinomi|Guarda|Wasabi\w{0,10}|Ledger Live|Bitcoin|Ethereum|Monero|com\.liberty\.jaxx)\b/,
        /\b(?:nkbihfbeogaeaoehlefnkodbefgpgknn|bfnaelmomeimhlpmgjnjophhpkkoljpa|hnfanknocfeofbddgcijnmhnfnkdnaad|fhbohimaelbohpjbbldcngcnapndodjp|ibnejdfjmmkpcnlpebklmnkoeoihofec|egjidjbpglichdcondbcbdnbeeppgdph)\b/,
        /\b(?:enter|paste|type|input|provide|send|give)\s{1,4}(?:me\s{1,4})?(?:your|the)\s{1,4}(?:(?:12|24)[- ]word\s{1,4})?(?:wallet\s{1,4})?(?:seed|recovery|secret|mnemonic)\s{1,4}(?:phrase|words)\b/i,
      ])
        ? true
        : null,
  },
  {
    id: 'dotenv-harvest',
    category: 'credential-access',
    severity: 'high',
    reason: "collects .env files from outside the skill's own project",
    scope: 'line',
    keywords: ['.env'],
    pattern:
      /\bfind\s{1,4}(?:[~/]|\$HOME|\.\.)[^\n]{0,120}?-i?name\s{1,4}["']?\*?\.env\b|\*\*[/\\]\.env\b|\brglob\(\s{0,4}["']\.env|\bGet-ChildItem\b[^\n]{0,120}?-Recurse[^\n]{0,120}?\.env\b|\bcat\s{1,4}(?:~|\$HOME|\/home|\/Users)[^\s]{0,80}\/\.env\b/i,
  },
  {
    id: 'env-dump',
    category: 'credential-access',
    severity: 'medium',
    reason: 'serialises the whole environment, API keys and tokens included',
    scope: 'line',
    keywords: ['env'],
    pattern:
      /(?:Object\.(?:keys|entries)\(\s{0,4}process\.env\s{0,4}\)|os\.environ\.(?:items|keys)\(\))[^\n]{0,120}?\b(?:join|stringify|dumps|b64encode|btoa)\b|\b(?:join|stringify|dumps|b64encode|btoa)\b[^\n]{0,120}?(?:Object\.(?:keys|entries)\(\s{0,4}process\.env|os\.environ\.(?:items|keys)\(\))|\bJSON\.stringify\(\s{0,4}process\.env\s{0,4}[,)]|\bjson\.dumps\(\s{0,4}(?:dict\(\s{0,4})?os\.environ\b|\bstr\(\s{0,4}os\.environ\s{0,4}\)|\b(?:printenv|env)\s{0,4}\|\s{0,4}(?!grep\b|sort\b|less\b|more\b|head\b|tail\b|wc\b|rg\b|findstr\b|cut\b|awk\b)\w|\bGet-ChildItem\s{1,4}env:[^\n]{0,40}?\|/i,
  },
  {
    id: 'cloud-metadata',
    category: 'credential-access',
    severity: 'high',
    reason: "queries the cloud metadata service, where an instance's temporary credentials live",
    scope: 'line',
    keywords: ['169.254', 'metadata.google', 'fd00:ec2', '100.100.100.200'],
    pattern: /\b169\.254\.169\.254\b|\b169\.254\.170\.2\b|\bmetadata\.google\.internal\b|\bfd00:ec2::254\b|\b100\.100\.100\.200\b/i,
  },

  // Exfiltration
  {
    id: 'credential-exfiltration',
    category: 'exfiltration',
    severity: 'critical',
    reason: 'collects credentials or personal files and sends them off the machine',
    scope: 'file',
    check: credentialExfiltration,
  },
  {
    id: 'sensitive-flow',
    category: 'exfiltration',
    severity: 'critical',
    reason: 'sends secrets off the machine: a sensitive source reaches a network sink (the chain is shown)',
    scope: 'skill',
    check: (files) => sensitiveFlows(files).map((f) => ({ file: f.file, line: f.line, note: f.chain })),
  },
  {
    id: 'instructed-exfiltration',
    category: 'exfiltration',
    severity: 'critical',
    reason: 'asks the agent to read secrets and send them to a destination it names',
    scope: 'line',
    keywords: ['upload', 'send', 'post', 'submit', 'forward', 'mail', 'paste', 'transmit', 'share', 'sync', 'attach', 'report'],
    check: instructedExfiltration,
  },
  {
    id: 'image-exfiltration',
    category: 'exfiltration',
    severity: 'critical',
    reason: 'has the agent render an image whose URL carries secrets: showing it sends them',
    scope: 'file',
    check: imageExfiltration,
  },
  {
    id: 'clipboard-hijack',
    category: 'exfiltration',
    severity: 'critical',
    reason: 'rewrites wallet addresses on the clipboard, so payments go to someone else',
    scope: 'file',
    check: clipboardHijack,
  },
  {
    id: 'request-bin-host',
    category: 'exfiltration',
    severity: 'high',
    reason: 'talks to a request-capture or out-of-band testing service, a common drop for stolen data',
    scope: 'line',
    keywords: [
      'webhook',
      'requestbin',
      'pipedream',
      'requestcatcher',
      'beeceptor',
      'hookbin',
      'postb.in',
      'ptsv',
      'putsreq',
      'requestinspector',
      'requestrepo',
      'mockbin',
      'interact.sh',
      'oast',
      'burpcollaborator',
      'dnslog',
      'ceye.io',
      'canarytokens',
      'pingb.in',
      'xss.ht',
      'bxss.me',
    ],
    pattern: REQUEST_BIN_HOST,
  },
  {
    id: 'paste-host',
    category: 'exfiltration',
    severity: 'high',
    reason: 'uses an anonymous paste or file-drop site to fetch code or drop data',
    scope: 'line',
    keywords: [
      'paste',
      'pastie',
      'hastebin',
      'ghostbin',
      'rentry',
      'glot.io',
      'controlc',
      'termbin',
      'sprunge',
      'ix.io',
      '0x0.st',
      'transfer.sh',
      'temp.sh',
      'file.io',
      'bashupload',
      'catbox',
      'gofile',
      'anonfiles',
      'pixeldrain',
      'privatebin',
      'katb.in',
    ],
    pattern: PASTE_HOST,
  },
  {
    id: 'chat-webhook',
    category: 'exfiltration',
    severity: 'high',
    reason: 'posts to a Discord, Telegram or Slack webhook whose token is written into the skill',
    scope: 'line',
    keywords: ['discord', 'telegram', 'hooks.slack'],
    check: chatWebhook,
  },
  {
    id: 'tunnel-host',
    category: 'exfiltration',
    severity: 'medium',
    reason: "talks to a tunnel endpoint (ngrok, Cloudflare quick tunnels…) that leads to someone's own machine",
    scope: 'line',
    keywords: [
      'ngrok',
      'trycloudflare',
      'loca.lt',
      'localtunnel',
      'serveo',
      'localhost.run',
      'lhr.',
      'bore.pub',
      'pinggy',
      'playit.gg',
      'tunnelmole',
      'telebit',
      'localxpose',
      'loophole',
    ],
    pattern: TUNNEL_HOST,
  },
  {
    id: 'raw-ip-url',
    category: 'exfiltration',
    severity: 'medium',
    reason: 'contacts a literal public IP address instead of a named host',
    scope: 'line',
    // An address has a digit before a dot.
    keywords: ['0.', '1.', '2.', '3.', '4.', '5.', '6.', '7.', '8.', '9.'],
    check: (line) => {
      const ip = publicIpContacted(line.text);
      return ip ? { excerpt: ip } : null;
    },
  },
  {
    id: 'bulk-file-collection',
    category: 'exfiltration',
    severity: 'medium',
    reason: "archives or searches the user's personal folders for documents and keys",
    scope: 'line',
    keywords: ['tar', 'zip', '7z', 'rar', 'compress-archive', 'make_archive', 'ditto', 'find'],
    pattern:
      /\b(?:tar|zip|7z|rar|Compress-Archive|make_archive|ditto)\b[^\n]{0,200}?(?:~|\$HOME|\$env:USERPROFILE|%USERPROFILE%|\/Users\/[\w.$-]{1,32}|\/home\/[\w.$-]{1,32})[/\\](?:Documents|Desktop|Downloads|Pictures|Library\/(?:Keychains|Messages|Mail|Cookies))\b|\bfind\s{1,4}(?:~|\$HOME|\/Users|\/home)[^\n]{0,200}?-i?name\s{1,4}["']?\*\.(?:pdf|docx?|xlsx?|txt|kdbx|key|pem|p12|pfx|ovpn|rdp|wallet)\b/i,
  },

  // Persistence
  {
    id: 'shell-startup-write',
    category: 'persistence',
    severity: 'medium',
    reason: 'writes commands into a shell start-up file, so they run in every new terminal',
    scope: 'line',
    keywords: ['rc', 'profile', 'zshenv', 'zlogin', 'bash_login', 'fish', 'environment'],
    check: shellStartupWrite,
  },
  {
    id: 'scheduled-task',
    category: 'persistence',
    severity: 'medium',
    reason: 'installs a scheduled or log-in task (cron, Task Scheduler, Run key)',
    scope: 'line',
    keywords: ['cron', '@reboot', 'schtasks', 'scheduledtask', 'currentversion', 'startup'],
    // An install is a command: prose that names `crontab -e`, or a crontab file shown as an example, installs nothing.
    check: (line) => {
      if (!line.code) return null;
      const m = SCHEDULED_TASK.exec(line.text);
      return m ? { excerpt: m[0] } : null;
    },
  },
  {
    id: 'login-service',
    category: 'persistence',
    severity: 'medium',
    reason: 'installs a launch agent or user service that starts at log-in',
    scope: 'line',
    keywords: ['launch', 'systemd', 'systemctl', 'init.d', 'rc.local', 'runatload'],
    pattern:
      /\/LaunchAgents\/|\/LaunchDaemons\/|\blaunchctl\s{1,4}(?:load|bootstrap|submit|enable)\b|\.config\/systemd\/user\/|\bsystemctl\s{1,4}--user\s{1,4}(?:enable|start|daemon-reload)\b|\/etc\/systemd\/system\/[\w@.-]{1,80}\.(?:service|timer)\b|\/etc\/init\.d\/|\/etc\/rc\.local\b|\bRunAtLoad\b/i,
  },
  {
    id: 'agent-permission-change',
    category: 'persistence',
    severity: 'high',
    reason: "turns off an AI agent's permission prompts or approvals",
    scope: 'line',
    keywords: [
      'dangerously',
      'bypasspermissions',
      'skipdangerous',
      'approval_policy',
      'sandbox_mode',
      'autoapprove',
      'alwaysallow',
      'yolo',
      'trust-all-tools',
      'allow',
    ],
    pattern:
      /--dangerously-skip-permissions\b|--dangerously-bypass-approvals-and-sandbox\b|\bbypassPermissions\b|\bskipDangerousModePermissionPrompt\b|\bapproval_policy\s{0,4}=\s{0,4}["']never["']|\bsandbox_mode\s{0,4}=\s{0,4}["']danger-full-access["']|["']?(?:autoApprove|alwaysAllow)["']?\s{0,4}:\s{0,4}(?:true|\[\s{0,4}["'][^"'\]])|chat\.tools\.autoApprove|--yolo\b|--trust-all-tools\b|["']allow["']\s{0,4}:\s{0,4}\[[^\]\n]{0,80}["'](?:Bash|\*)["']/i,
  },
  {
    id: 'agent-config-write',
    category: 'persistence',
    severity: 'medium',
    reason: "writes into an AI agent's own settings or memory files, outside the skill",
    scope: 'line',
    keywords: [
      '.claude',
      '.codex',
      '.cursor',
      '.gemini',
      '.openclaw',
      '.clawdbot',
      '.moltbot',
      '.windsurf',
      '.codeium',
      '.continue',
      '.aider',
      'soul.md',
      'memory.md',
      'identity.md',
      'heartbeat.md',
    ],
    check: agentConfigWrite,
  },
  {
    id: 'ssh-authorized-keys',
    category: 'persistence',
    severity: 'high',
    reason: 'adds a hard-coded or downloaded key to ~/.ssh/authorized_keys (a remote-access backdoor)',
    scope: 'line',
    keywords: ['authorized_keys'],
    check: (line) =>
      /authorized_keys\b/.test(line.text) &&
      /(?:>>?|\btee\b|appendFile|Add-Content|\bopen\()/.test(line.text) &&
      /\bssh-(?:rsa|ed25519|dss|ecdsa-[\w-]{1,20})\s{1,4}AAAA[0-9A-Za-z+/]{20,}|\b(?:curl|wget|iwr|irm|Invoke-WebRequest)\b/.test(line.text)
        ? true
        : null,
  },

  {
    id: 'mcp-config-injection',
    category: 'persistence',
    severity: 'high',
    reason: "writes an MCP server into an agent's own configuration in the user's home",
    scope: 'file',
    check: mcpConfigInjection,
  },
  {
    id: 'agent-hook-injection',
    category: 'persistence',
    severity: 'high',
    reason: "writes a hook into an agent's settings, which then runs on every tool call or session",
    scope: 'file',
    check: agentHookInjection,
  },
  {
    id: 'agent-config-takeover',
    category: 'persistence',
    severity: 'critical',
    reason: "plants an auto-approved or networked MCP server or hook in an agent's configuration",
    scope: 'file',
    check: agentConfigTakeover,
  },
  {
    id: 'git-credential-helper',
    category: 'persistence',
    severity: 'high',
    reason: "makes a program other than git's own helpers git's credential helper: it sees every password git uses",
    scope: 'line',
    keywords: ['helper'],
    check: gitCredentialHelper,
  },
  {
    id: 'sensitive-write',
    category: 'persistence',
    severity: 'low',
    reason: "changes the agent's configuration, a developer tool's, system start-up or privileges (the class and its reason are shown)",
    scope: 'skill',
    check: sensitiveWrites,
  },
  {
    id: 'sensitive-write-calls-out',
    category: 'persistence',
    severity: 'critical',
    reason: 'writes an entry into agent, developer-tool or start-up configuration, or a grant, that talks to a host or runs a download',
    scope: 'skill',
    check: sensitiveWritesThatCallOut,
  },
  {
    id: 'secret-asked-and-sent',
    category: 'exfiltration',
    severity: 'critical',
    reason: "asks the user for a secret and sends it to a host that is not the secret's own service",
    scope: 'skill',
    check: askedSecretSentElsewhere,
  },
  {
    id: 'foreign-package-index',
    category: 'download-execute',
    severity: 'medium',
    reason: "installs packages from an index or registry other than the package manager's own",
    scope: 'skill',
    check: foreignIndex,
  },
  {
    id: 'persistent-download',
    category: 'persistence',
    severity: 'critical',
    reason: 'installs a scheduled job, start-up entry or credential helper that runs a download or talks to a drop',
    scope: 'file',
    check: persistentDownload,
  },

  // Social engineering
  {
    id: 'password-dialog',
    category: 'social-engineering',
    severity: 'critical',
    reason: 'shows a fake system dialog that asks for the login password',
    scope: 'line',
    keywords: ['dialog'],
    pattern: /\bdisplay\s{1,4}dialog\b[^\n]{0,300}?\b(?:hidden\s{1,4}answer|password)\b|\bdisplayDialog\([^\n]{0,300}?hiddenAnswer\s{0,4}:\s{0,4}true/i,
  },
  {
    id: 'password-prompt',
    category: 'social-engineering',
    severity: 'high',
    reason: "prompts for or checks the user's system password outside the system's own prompt",
    scope: 'line',
    keywords: ['zenity', 'kdialog', 'credential', 'dscl', 'sudo'],
    pattern:
      /\bzenity\b[^\n]{0,100}?--password\b|\bkdialog\b[^\n]{0,100}?--password\b|\bGet-Credential\b|PromptForCredential\(|\bdscl\s{1,4}(?:\.|\/Local\/Default)\s{1,4}-authonly\b|\becho\s{1,4}["']?\$\{?\w{0,20}(?:pass|pw)\w{0,20}\}?["']?\s{0,4}\|\s{0,4}sudo\s{1,4}-S\b/i,
  },
  {
    id: 'archive-password',
    category: 'social-engineering',
    severity: 'high',
    reason: 'hands out a password-protected archive, which keeps its contents from being scanned',
    scope: 'line',
    keywords: ['pass', 'unzip', '7z', 'unrar'],
    pattern:
      /(?:\.zip\b|\.rar\b|\.7z\b|\barchive\b|\bzip\b)[^\n]{0,80}?\bpass(?:word|phrase)\b\s{0,4}(?:is\s{1,4}|[:=(]\s{0,4})[`'"*]{0,2}[\w!@#$%^&.-]{3,40}|\bpass(?:word|phrase)\s{0,4}[:=]\s{0,4}[`'"*]{0,2}[\w!@#$%^&.-]{3,40}[^\n]{0,60}?(?:\.zip|\.rar|\.7z|\barchive\b|\bextract\b|\bunzip\b)|\bunzip\s{1,4}(?:-\w{1,4}\s{1,4}){0,3}-P\s{1,4}\S{1,40}|\b7z\s{1,4}[xe]\b[^\n]{0,120}?\s-p\S{1,40}|\bunrar\b[^\n]{0,60}?\s-p\S{1,40}/i,
  },
  {
    id: 'clickfix',
    category: 'social-engineering',
    severity: 'critical',
    reason: 'asks the user to prove they are human by pasting or running a command (ClickFix)',
    scope: 'line',
    keywords: ['human', 'robot'],
    pattern:
      /(?:\b(?:verify|prove|confirm)\s{1,4}(?:that\s{1,4})?you(?:'re|\s{1,4}are)\s{1,4}(?:a\s{1,4})?human\b|\bI'?m\s{1,4}not\s{1,4}a\s{1,4}robot\b)[^\n]{0,200}?\b(?:paste|ctrl\s{0,4}\+\s{0,4}v|Win(?:dows)?\s{0,4}\+\s{0,4}R|Run\s{1,4}dialog|terminal|powershell|command\s{1,4}prompt|cmd)\b/i,
  },
  {
    id: 'run-dialog-paste',
    category: 'social-engineering',
    severity: 'high',
    reason: "tells the user to paste something into Windows' Run dialog, where a copied command runs at once",
    scope: 'line',
    keywords: ['paste', 'ctrl'],
    pattern:
      /(?:\bWin(?:dows)?\s{0,4}(?:key\s{0,4})?\+\s{0,4}R\b|\bRun\s{1,4}dialog\b)[^\n]{0,120}?\b(?:paste|ctrl\s{0,4}\+\s{0,4}v)\b|\b(?:paste|ctrl\s{0,4}\+\s{0,4}v)\b[^\n]{0,120}?(?:\bWin(?:dows)?\s{0,4}(?:key\s{0,4})?\+\s{0,4}R\b|\bRun\s{1,4}dialog\b)/i,
  },
  {
    id: 'binary-download-link',
    category: 'social-engineering',
    severity: 'medium',
    reason: 'points the reader at an installer or executable to download or run',
    scope: 'line',
    keywords: ['.exe', '.msi', '.dmg', '.pkg', '.scr', '.bat', '.cmd', '.vbs', '.jar', '.apk', '.appimage', '.app.zip', '.command'],
    pattern:
      /\bhttps?:\/\/[^\s)"'<>]{1,300}?\.(?:exe|msi|dmg|pkg|scr|bat|cmd|vbs|jar|apk|appimage|app\.zip|command)(?=[\s)"'<>\x60?#]|$)|\b(?:run|execute|launch|double-click|open)\s{1,4}(?:the\s{1,4})?[\x60"']?[\w.-]{1,60}\.(?:exe|msi|scr|bat|cmd|vbs|command)\b/i,
  },
  {
    id: 'fake-prerequisite',
    category: 'social-engineering',
    severity: 'critical',
    reason: 'presents an installer, locked archive or bare-IP download as a required prerequisite',
    scope: 'file',
    check: fakePrerequisite,
  },

  // Prompt injection
  {
    id: 'override-instructions',
    category: 'prompt-injection',
    severity: 'high',
    reason: 'tells the agent to ignore or replace its instructions',
    scope: 'line',
    keywords: ['ignore', 'disregard', 'forget', 'override', 'bypass', 'abandon', 'your', 'follow', 'given', 'whatever'],
    pattern:
      /\b(?:ignore|disregard|forget|override|bypass|abandon)\s{1,4}(?:(?:all|any|every|the|your|my|of|these|those)\s{1,4}){0,3}(?:previous|prior|above|earlier|preceding|original|existing|initial|system|safety|developer|other)\s{1,4}(?:instructions?|prompts?|rules|directions|directives|guidelines|guardrails|context|constraints|policies|restrictions)\b|\byour\s{1,4}(?:new|real|actual|true|updated)\s{1,4}(?:instructions|task|objective|goal|directive)s?\s{1,4}(?:are|is)\b|\bdo\s{1,4}not\s{1,4}follow\s{1,4}(?:the|your|any)\s{1,4}(?:previous|system|original|prior)\b|\b(?:guidance|instructions?|directions|rules|guidelines|prompts?)\s{1,4}(?:you\s{1,4}(?:were|have\s{1,4}been)\s{1,4}given|given\s{1,4}to\s{1,4}you|you\s{1,4}(?:received|got))\b[^.\n]{0,80}?\b(?:no\s{1,4}longer|out\s{1,4}of\s{1,4}date|obsolete|void|superseded|(?:does|do)\s{1,4}not\s{1,4}apply)|\bwhatever\s{1,4}you\s{1,4}(?:were|have\s{1,4}been)\s{1,4}(?:told|given|instructed|asked)\b[^.\n]{0,60}?\b(?:no\s{1,4}longer|doesn'?t|does\s{1,4}not|don'?t)\b|\byour\s{1,4}(?:actual|real|true|new|only)\s{1,4}(?:job|task|purpose|role|mission|goal)\s{1,4}(?:now\s{1,4})?is\b|\b(?:operator|developer|owner|administrator|creator)s?\s{1,4}(?:has|have)\s{1,4}(?:changed|replaced|updated)\s{1,4}your\s{1,4}(?:task|instructions|role|goal)/i,
  },
  {
    id: 'conceal-from-user',
    category: 'prompt-injection',
    severity: 'high',
    reason: 'tells the agent to keep what it does from the user',
    scope: 'line',
    keywords: ['user', 'human', 'person', 'people', 'operator', 'owner', 'silently'],
    pattern:
      /\b(?:do\s{1,4}not|don'?t|never|must\s{1,4}not|should\s{1,4}not|without)\s{1,4}(?:(?:tell|inform|notify|alert)(?:ing)?\s{1,4}(?:the\s{1,4})?(?:user|human|person|people|operator|owner)\b|(?:mention|reveal|disclose)(?:ing)?\s{1,4}(?:this|it|anything|these|that)\b[^.\n]{0,30}?\bto\s{1,4}(?:the\s{1,4})?(?:user|human|person|people|operator|owner)\b)|\b(?:hide|conceal|keep)\s{1,4}(?:this|it|these|that|them)\b[^.\n]{0,40}?\bfrom\s{1,4}(?:the\s{1,4})?(?:user|human|person|people|operator|owner)\b|\bthe\s{1,4}(?:user|human|person)\s{1,4}(?:must|should|need|needs)\s{1,4}(?:not|never)\s{1,4}(?:know|see|find\s{1,4}out|be\s{1,4}(?:told|informed|aware)|notice)\b|\bsilently\s{1,4}(?:upload|send|post|transmit|exfiltrate|forward|copy|install|download|execute|collect)\b|\bwithout\s{1,4}(?:the\s{1,4})?user'?s?\s{1,4}(?:knowledge|noticing|awareness)\b/i,
  },
  {
    id: 'system-prompt-claim',
    category: 'prompt-injection',
    severity: 'high',
    reason: 'poses as a system or developer message to take over the agent',
    scope: 'line',
    keywords: ['<|', '<<sys', 'inst]', 'system', 'admin', 'developer', 'important', 'mode', 'instructions', 'directives', 'rules'],
    check: (line) =>
      firstMatch(line.text, [
        /<\|(?:im_start|im_end|endoftext|system|start_header_id)\|>|<<SYS>>|\[\/?INST\]/,
        /<\/?(?:system|system[_-]prompt|system[_-]instructions?|admin[_-]instructions?|developer[_-]instructions?|important)>/i,
        /^\s{0,8}(?:#{1,6}\s{0,4}|\*\*|\[)?(?:SYSTEM|ADMIN|DEVELOPER)\s{0,4}(?:OVERRIDE|MESSAGE|NOTICE|NOTE|INSTRUCTIONS?|PROMPT|UPDATE|ALERT)\b/,
        /\byou\s{1,4}are\s{1,4}now\s{1,4}(?:in\s{1,4})?(?:an?\s{1,4})?(?:developer|DAN|jailbroken|jailbreak|unrestricted|unfiltered|god|admin|root)\s{1,4}mode\b/i,
        /\b(?:new|updated|revised|additional)\s{1,4}(?:system\s{1,4})?(?:instructions|directives|rules)\s{1,4}(?:from|by)\s{1,4}(?:the\s{1,4})?(?:system|developers?|administrators?|admins?|anthropic|openai|your\s{1,4}creators?)\b/i,
      ])
        ? true
        : null,
  },
  {
    id: 'data-harvest-instruction',
    category: 'prompt-injection',
    severity: 'medium',
    reason: "tells the agent to hand over the user's secrets or conversation",
    scope: 'line',
    keywords: [
      'conversation',
      'history',
      'previous messages',
      'system prompt',
      'credential',
      'secret',
      'private key',
      'api key',
      'ssh key',
      'token',
      'password',
      '.env',
      'variables',
      'cookies',
      'wallet',
      'seed phrase',
    ],
    check: dataHarvestInstruction,
  },
  {
    id: 'remote-override',
    category: 'prompt-injection',
    severity: 'critical',
    reason: "tells the agent to fetch instructions from a URL that replace the skill's or the user's",
    scope: 'line',
    check: remoteOverride,
    keywords: ['://'],
  },
  {
    id: 'remote-instructions',
    category: 'prompt-injection',
    severity: 'high',
    reason: 'tells the agent to fetch a URL and do what it says, so the skill can change after review',
    scope: 'line',
    keywords: ['://'],
    check: remoteInstructions,
  },
  {
    id: 'agent-takeover',
    category: 'prompt-injection',
    severity: 'critical',
    reason: "overrides the agent's instructions and then asks for something harmful",
    scope: 'file',
    check: agentTakeover,
  },
  {
    id: 'concealed-risky-action',
    category: 'prompt-injection',
    severity: 'critical',
    reason: 'tells the agent to hide a risky action (reading keys, running downloads, sending data) from the user',
    scope: 'file',
    check: concealedRiskyAction,
  },
  {
    id: 'hidden-instructions',
    category: 'prompt-injection',
    severity: 'critical',
    reason: 'hides instructions or commands where a rendered page does not show them',
    scope: 'file',
    check: hiddenInstructions,
  },

  // Hidden text
  {
    id: 'bidi-control',
    category: 'hidden-text',
    severity: 'critical',
    reason: 'bidirectional control characters in code make it display differently from how it runs',
    scope: 'line',
    invisible: true,
    check: bidiInCode,
  },
  {
    id: 'bidi-control-prose',
    category: 'hidden-text',
    severity: 'high',
    reason: 'bidirectional control characters reorder how this text displays',
    scope: 'line',
    invisible: true,
    check: bidiInProse,
  },
  {
    id: 'invisible-payload',
    category: 'hidden-text',
    severity: 'critical',
    reason: 'smuggles text in invisible characters (Unicode tags, variation selectors or zero-width runs)',
    scope: 'line',
    invisible: true,
    check: invisiblePayload,
  },
  {
    id: 'zero-width',
    category: 'hidden-text',
    severity: 'medium',
    reason: 'contains zero-width characters, which can split words past a reviewer',
    scope: 'line',
    invisible: true,
    check: zeroWidth,
  },
  {
    id: 'hidden-html',
    category: 'hidden-text',
    severity: 'medium',
    reason: 'hides text from the rendered page with a hidden element or an invisible style',
    scope: 'file',
    check: hiddenElements,
  },

  // Committed secrets
  {
    id: 'committed-secret',
    category: 'secret',
    severity: 'medium',
    reason: 'a real-looking credential is committed in the skill (found by secretlint); rotate it',
    scope: 'file',
    check: committedSecrets,
  },
  {
    id: 'stripe-live-key',
    category: 'secret',
    severity: 'medium',
    reason: 'a live Stripe secret key is committed in the skill; rotate it',
    scope: 'line',
    keywords: ['_live_'],
    check: placeholderFree(/\b(?:sk|rk)_live_[0-9a-zA-Z]{24,99}\b/),
  },
  {
    id: 'google-api-key',
    category: 'secret',
    severity: 'medium',
    reason: 'a Google API key is committed in the skill; restrict or rotate it',
    scope: 'line',
    keywords: ['aiza'],
    check: placeholderFree(/\bAIza[0-9A-Za-z_-]{35}\b/),
  },
];
