/**
 * Kinds of places data goes to or code comes from that a skill has almost no honest reason to
 * use: request-inspection bins and out-of-band testing hosts, tunnels to someone's laptop,
 * anonymous paste and file-drop sites, URL shorteners that hide the real host, and literal
 * public IP addresses. Matched on host names, so a subdomain (`abc.ngrok-free.app`) matches too.
 */

export const REQUEST_BIN_HOST =
  /\b(?:webhook\.site|webhook\.cool|webhook-test\.com|requestbin\.(?:com|net|io)|pipedream\.net|requestcatcher\.com|beeceptor\.com|hookbin\.com|postb\.in|ptsv[23]\.com|putsreq\.com|requestinspector\.com|requestrepo\.com|mockbin\.(?:org|io)|interact\.sh|oast\.(?:pro|live|site|online|fun|me)|oastify\.com|burpcollaborator\.net|dnslog\.cn|ceye\.io|canarytokens\.(?:com|org)|pingb\.in|xss\.ht|bxss\.me)\b/i;

export const TUNNEL_HOST =
  /\b(?:ngrok\.io|ngrok\.app|ngrok\.dev|ngrok-free\.app|ngrok-free\.dev|trycloudflare\.com|loca\.lt|localtunnel\.me|serveo\.net|serveousercontent\.com|localhost\.run|lhr\.life|lhr\.rocks|bore\.pub|pinggy\.(?:io|link|online)|playit\.gg|tunnelmole\.net|telebit\.cloud|localxpose\.io|loophole\.site)\b/i;

export const PASTE_HOST =
  /\b(?:pastebin\.com|paste\.ee|pastie\.(?:org|io)|hastebin\.(?:com|de)|ghostbin\.(?:co|com)|rentry\.(?:co|org)|glot\.io|dpaste\.(?:com|org)|controlc\.com|justpaste\.it|paste\.rs|pastes\.io|pastefy\.app|termbin\.com|sprunge\.us|ix\.io|0x0\.st|transfer\.sh|temp\.sh|file\.io|bashupload\.com|catbox\.moe|gofile\.io|anonfiles\.com|pixeldrain\.com|privatebin\.net|katb\.in)\b/i;

export const SHORTENER_HOST =
  /(?:\/\/|\s|^)(?:bit\.ly|tinyurl\.com|is\.gd|v\.gd|t\.co|goo\.gl|rb\.gy|cutt\.ly|shorturl\.at|tiny\.cc|ow\.ly|buff\.ly|rebrand\.ly|t\.ly|s\.id)\//i;

/** A URL, or a network command's argument, whose host is a literal IPv4 address. */
const IP_IN_URL = /\b(?:https?|ftp|wss?|tcp|udp|smb):\/\/(?:[^@/\s]{1,64}@)?(\d{1,3}(?:\.\d{1,3}){3})\b/gi;
/** After a network command, an address followed by a path, a port, or a port argument (`nc 1.2.3.4 443`); a version number is none of these. */
const IP_AFTER_COMMAND =
  /\b(?:curl|wget|nc|ncat|netcat|socat|telnet|scp|rsync|ftp|Invoke-WebRequest|Invoke-RestMethod|iwr|irm)\b[^\n|;&]{0,120}?(?<![\w.])(\d{1,3}(?:\.\d{1,3}){3})(?=[:/]|\s{1,4}\d{2,5}\b)/gi;

/** The first literal public IPv4 address a line contacts, or null. */
export function publicIpContacted(line: string): string | null {
  if (!/\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}/.test(line)) return null;
  for (const pattern of [IP_IN_URL, IP_AFTER_COMMAND]) {
    for (const m of line.matchAll(pattern)) if (isPublicIpv4(m[1]!)) return m[1]!;
  }
  return null;
}

/**
 * Public addresses only: loopback, private, link-local (the metadata service has its own rule),
 * carrier-grade NAT, multicast and the documentation ranges (192.0.2.0/24, 198.51.100.0/24,
 * 203.0.113.0/24) are what examples and local setups use.
 */
export function isPublicIpv4(ip: string): boolean {
  const octets = ip.split('.').map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o > 255)) return false;
  const [a, b, c] = octets as [number, number, number, number];
  if (a === 0 || a === 10 || a === 127 || a >= 224) return false;
  if (a === 169 && b === 254) return false;
  if (a === 172 && b >= 16 && b <= 31) return false;
  if (a === 192 && b === 168) return false;
  if (a === 100 && b >= 64 && b <= 127) return false;
  if (a === 198 && (b === 18 || b === 19)) return false;
  if ((a === 192 && b === 0 && c === 2) || (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) return false;
  return true;
}

/** A host any of the above name, for rules that escalate when code comes from such a place. */
export function untrustedHost(line: string): string | null {
  for (const pattern of [REQUEST_BIN_HOST, TUNNEL_HOST, PASTE_HOST, SHORTENER_HOST]) {
    const m = pattern.exec(line);
    if (m) return m[0].replace(/^[\s/]+|\/$/g, '');
  }
  return publicIpContacted(line);
}
