import { rowForEnv, rowForPath, secretEnvNames } from '../effects/classify.ts';
import type { ReadClass } from '../effects/effect.ts';

/**
 * The bait of a run: credentials of every class, planted in the fake home and project and in
 * the environment, each with a random part made afresh for the run, so that finding that part
 * (or any encoding of it) anywhere the version sent it proves what it took. The files are data
 * (a path as the classes table writes it, and a template); each bait's class is the one the
 * table gives its path or variable, so the bait and the table cannot disagree.
 */

/** Makes `length` random characters from `alphabet` (the runner passes a cryptographic source). */
export type RandomText = (length: number, alphabet: string) => string;

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B64 = `${ALNUM}+/`;

/** A secret's shape: what it starts with, and its random part. Search looks for the random part, at least 20 characters. */
interface Shape {
  prefix: string;
  length: number;
  alphabet: string;
}

const SHAPES: Record<string, Shape> = {
  awsKeyId: { prefix: 'AKIA', length: 20, alphabet: UPPER },
  awsSecret: { prefix: '', length: 40, alphabet: B64 },
  ssh: { prefix: 'b3BlbnNzaC1rZXktdjEAAAAA', length: 64, alphabet: B64 },
  github: { prefix: 'ghp_', length: 36, alphabet: ALNUM },
  npm: { prefix: 'npm_', length: 36, alphabet: ALNUM },
  api: { prefix: 'sk-', length: 40, alphabet: ALNUM },
  plain: { prefix: '', length: 32, alphabet: ALNUM },
};

/** The bait files: where each lies, and its content, with `{name:shape}` where a secret goes. */
const BAIT_FILES: ReadonlyArray<{ path: string; template: string }> = [
  {
    path: '~/.aws/credentials',
    template: '[default]\naws_access_key_id = {aws-access-key-id:awsKeyId}\naws_secret_access_key = {aws-secret-access-key:awsSecret}\n',
  },
  {
    path: '~/.config/gcloud/application_default_credentials.json',
    template: '{"type":"authorized_user","client_id":"764086051850.apps.googleusercontent.com","refresh_token":"1//{gcloud-refresh-token:plain}"}\n',
  },
  { path: '~/.azure/msal_token_cache.json', template: '{"RefreshToken":{"x":{"secret":"{azure-refresh-token:plain}"}}}\n' },
  { path: '~/.kube/config', template: 'apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    token: {kube-token:plain}\n' },
  { path: '~/.ssh/id_ed25519', template: '-----BEGIN OPENSSH PRIVATE KEY-----\n{ssh-private-key:ssh}\n-----END OPENSSH PRIVATE KEY-----\n' },
  { path: '~/.gnupg/private-keys-v1.d/6D1A.key', template: 'Key: (private-key (ecc (curve Ed25519)(q #{gpg-private-key:plain}#)))\n' },
  { path: '~/.npmrc', template: '//registry.npmjs.org/:_authToken={npm-token:npm}\n' },
  { path: '~/.pypirc', template: '[pypi]\nusername = __token__\npassword = pypi-{pypi-token:plain}\n' },
  { path: '~/.docker/config.json', template: '{"auths":{"ghcr.io":{"auth":"{docker-auth:plain}"}}}\n' },
  { path: '~/.git-credentials', template: 'https://dev:{git-credentials-token:github}@github.com\n' },
  { path: '~/.config/gh/hosts.yml', template: 'github.com:\n    oauth_token: {gh-oauth-token:github}\n    user: dev\n' },
  { path: '~/.netrc', template: 'machine api.github.com login dev password {netrc-password:plain}\n' },
  { path: '~/.claude/.credentials.json', template: '{"claudeAiOauth":{"accessToken":"sk-ant-oat01-{claude-oauth-token:plain}"}}\n' },
  { path: '~/.config/google-chrome/Default/Login Data', template: 'SQLite format 3\u0000https://bank.example.com dev {chrome-saved-password:plain}\n' },
  { path: '~/.config/google-chrome/Local State', template: '{"os_crypt":{"encrypted_key":"{chrome-encryption-key:plain}"}}\n' },
  {
    path: '~/.mozilla/firefox/dev.default/logins.json',
    template: '{"logins":[{"hostname":"https://mail.example.com","encryptedPassword":"{firefox-password:plain}"}]}\n',
  },
  {
    path: '~/.config/google-chrome/Default/Local Extension Settings/nkbihfbeogaeaoehlefnkodbefgpgknn/000003.log',
    template: '{"vault":"{\\"data\\":\\"{metamask-vault:plain}\\"}"}\n',
  },
  { path: '~/.config/solana/id.json', template: '"{solana-keypair:plain}"\n' },
  { path: '~/.bitcoin/wallet.dat', template: 'wallet.dat {bitcoin-wallet-key:plain}\n' },
  { path: '~/.local/share/keyrings/login.keyring', template: 'GnomeKeyring\n{keyring-secret:plain}\n' },
  { path: './.env', template: 'OPENAI_API_KEY={project-openai-key:api}\nDATABASE_URL=postgres://app:{project-db-password:plain}@db.internal:5432/app\n' },
];

/** Environment variables get a shape by their name; the rest are plain. */
const ENV_SHAPES: Record<string, string> = {
  AWS_ACCESS_KEY_ID: 'awsKeyId',
  AWS_SECRET_ACCESS_KEY: 'awsSecret',
  GITHUB_TOKEN: 'github',
  GH_TOKEN: 'github',
  NPM_TOKEN: 'npm',
  OPENAI_API_KEY: 'api',
  ANTHROPIC_API_KEY: 'api',
};

/**
 * The services each secret is for: a secret presented to its own service, in the header that
 * authenticates a request, is the secret used, not sent away (`gh api`, `npm publish`, a
 * signed AWS call). The names are the bait's; a host matches a name and every name under it.
 */
const AUDIENCES: Record<string, readonly string[]> = {
  'aws-access-key-id': ['amazonaws.com'],
  'env:AWS_ACCESS_KEY_ID': ['amazonaws.com'],
  'env:AWS_SESSION_TOKEN': ['amazonaws.com'],
  'git-credentials-token': ['github.com'],
  'gh-oauth-token': ['github.com'],
  'netrc-password': ['github.com'],
  'env:GITHUB_TOKEN': ['github.com'],
  'env:GH_TOKEN': ['github.com'],
  'npm-token': ['registry.npmjs.org'],
  'env:NPM_TOKEN': ['registry.npmjs.org'],
  'pypi-token': ['upload.pypi.org', 'test.pypi.org'],
  'docker-auth': ['ghcr.io'],
  'claude-oauth-token': ['anthropic.com', 'claude.ai'],
  'env:ANTHROPIC_API_KEY': ['anthropic.com'],
  'project-openai-key': ['openai.com'],
  'env:OPENAI_API_KEY': ['openai.com'],
  'env:STRIPE_SECRET_KEY': ['stripe.com'],
  'env:SLACK_BOT_TOKEN': ['slack.com'],
  'env:HF_TOKEN': ['huggingface.co'],
};

/** A planted secret: its name, the class of the store it lies in, its random part (what is searched for), and the services it is for. */
export interface Honeytoken {
  name: string;
  class: ReadClass;
  value: string;
  audience?: readonly string[];
}

export interface Bait {
  /** Files to plant, by the path the classes table writes (`~/…`, `./…`). */
  files: { path: string; content: string }[];
  env: Record<string, string>;
  tokens: Honeytoken[];
}

/** Plants a fresh set of honeytokens: every bait file, and one variable for each secret variable of the classes table. */
export function plantHoneytokens(random: RandomText): Bait {
  const tokens: Honeytoken[] = [];
  const secret = (name: string, shapeName: string, cls: ReadClass) => {
    const shape = SHAPES[shapeName] ?? SHAPES.plain!;
    const value = random(shape.length, shape.alphabet);
    const audience = AUDIENCES[name];
    tokens.push({ name, class: cls, value, ...(audience ? { audience } : {}) });
    return `${shape.prefix}${value}`;
  };
  const files = BAIT_FILES.map(({ path, template }) => {
    const cls = rowForPath('reads', path)?.class as ReadClass | undefined;
    if (!cls) throw new Error(`the bait ${path} is no secret store the classes table knows`);
    return { path, content: template.replace(/\{([a-z0-9-]+):(\w+)\}/g, (_, name: string, shape: string) => secret(name, shape, cls)) };
  });
  const env = Object.fromEntries(
    secretEnvNames().map((name) => [name, secret(`env:${name}`, ENV_SHAPES[name] ?? 'plain', rowForEnv(name)!.class as ReadClass)]),
  );
  return { files, env, tokens };
}
