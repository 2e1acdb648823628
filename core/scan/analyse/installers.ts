/**
 * Known vendor installers: the scripts that tools document as their install step, fetched from
 * the vendor's own host and path (`curl … https://sh.rustup.rs | sh`, `wget https://apt.llvm.org/llvm.sh`).
 * Run from there, they are as trustworthy as the tool itself: a finding about them is `low`. The
 * same pipe from anywhere else is not, and a host that borrows a vendor's name without being its
 * host (`brew-install.sh`, `nvm-sh.org`, `rustup-rs.org`) is impersonating it.
 */

/** Host and path prefix of each known installer, as the vendor documents it. */
const KNOWN = [
  'sh.rustup.rs',
  'static.rust-lang.org/rustup/',
  'astral.sh/uv/',
  'astral.sh/ruff/',
  'raw.githubusercontent.com/Homebrew/install/',
  'raw.githubusercontent.com/nvm-sh/nvm/',
  'raw.githubusercontent.com/ohmyzsh/ohmyzsh/',
  'raw.githubusercontent.com/pyenv/pyenv-installer/',
  'raw.githubusercontent.com/helm/helm/',
  'raw.githubusercontent.com/rbenv/rbenv-installer/',
  'apt.llvm.org/llvm.sh',
  'deno.land/install.sh',
  'deno.land/x/install/',
  'bun.sh/install',
  'get.pnpm.io/install.sh',
  'ollama.com/install.sh',
  'get.docker.com',
  'install.python-poetry.org',
  'pyenv.run',
  'get.sdkman.io',
  'mise.run',
  'mise.jdx.dev/install.sh',
  'fnm.vercel.app/install',
  'tailscale.com/install.sh',
  'starship.rs/install.sh',
  'install.determinate.systems/nix',
  'nixos.org/nix/install',
  'claude.ai/install.sh',
  'claude.ai/install.ps1',
  'opencode.ai/install',
  'get.volta.sh',
  'deb.nodesource.com/setup_',
  'rpm.nodesource.com/setup_',
  'cli.doppler.com/install.sh',
  'fly.io/install.sh',
  'dot.net/v1/dotnet-install.sh',
  'dot.net/v1/dotnet-install.ps1',
  'bootstrap.pypa.io/get-pip.py',
  'get.k3s.io',
  'install.ohmyz.sh',
  'pkgx.sh',
  'get.jetify.com/devbox',
  'sdk.cloud.google.com',
  'astral.sh/uv/install.ps1',
  'cursor.com/install',
  'sh.vector.dev',
  'get.rvm.io',
  'raw.githubusercontent.com/golangci/golangci-lint/',
  'raw.githubusercontent.com/anchore/',
  'raw.githubusercontent.com/aquasecurity/trivy/',
  'raw.githubusercontent.com/trufflesecurity/trufflehog/',
  'foundry.paradigm.xyz',
  'install.duckdb.org',
  'supabase.com/install.sh',
  'community.chocolatey.org/install.ps1',
];
/** Names of vendors whose installers are piped into shells; a host that uses one and is not theirs impersonates them. */
const VENDOR_WORD =
  /(?:^|[.-])(?:brew|homebrew|nvm|rustup|rust-lang|deno|bun|llvm|astral|pnpm|ollama|docker|poetry|pyenv|sdkman|volta|nodesource|ohmyzsh|oh-my-zsh|tailscale|starship|helm|k3s|claude|anthropic|cursor)(?:[.-]|$)/i;
const URL = /\bhttps?:\/\/([^\s"'`)<>|;]{1,300})/gi;

function urlsOf(text: string): string[] {
  return [...text.matchAll(URL)].map((m) => m[1]!.replace(/^[^@/]{1,64}@/, ''));
}

const known = (url: string) =>
  KNOWN.some(
    (prefix) => url === prefix || url.startsWith(prefix) || (prefix.endsWith('/') ? false : url.startsWith(`${prefix}/`)) || url.startsWith(`${prefix}?`),
  );

/** The line fetches only from known installers' own hosts and paths (and names at least one). */
export function knownInstallerOnly(text: string): boolean {
  const urls = urlsOf(text);
  return urls.length > 0 && urls.every(known);
}

/** A host on the line that borrows an installer vendor's name without being the vendor's, or null. */
export function impersonatedInstaller(text: string): string | null {
  for (const url of urlsOf(text)) {
    if (known(url)) continue;
    const host = url.split(/[/?#:]/)[0]!.toLowerCase();
    if (
      /(?:^|\.)(?:github\.com|githubusercontent\.com|gitlab\.com|npmjs\.(?:com|org)|pypi\.org|brew\.sh|rust-lang\.org|rustup\.rs|deno\.(?:land|com)|bun\.sh|llvm\.org|astral\.sh|pnpm\.io|ollama\.com|docker\.com|nodesource\.com|python-poetry\.org|anthropic\.com|claude\.ai|cursor\.com)$/.test(
        host,
      )
    )
      continue;
    if (VENDOR_WORD.test(host)) return host;
  }
  return null;
}
