import { notFound } from '#core/errors';
import type { User } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { readSecret } from '../platform/secrets-manager.ts';
import { createSession, deleteSession, sessionUserId } from '../store/sessions.ts';
import { getUser, toUser, upsertUser } from '../store/users.ts';
import { authorizeUrl, type GitHubApp, userFromCode } from './github-sign-in.ts';
import { reclaimLogin } from './login-reclaim.ts';

/**
 * Signing in and out. A sign-in records the user as they are now and opens a session whose
 * token the browser keeps in a cookie (only its hash is stored).
 */
type SignInPorts = Pick<Deps, 'db' | 'clock' | 'config'>;

export interface SignedIn {
  user: User;
  session: { token: string; expiresAt: Date };
}

/** The dev sign-in of `npm start`: any login, no password. A 404 where it is turned off. */
export async function signInDev({ db, clock, config }: SignInPorts, login: string): Promise<SignedIn> {
  if (!config.devLogin) throw notFound('Dev sign-in is disabled');
  return openSession({ db, clock }, { id: `dev:${login.toLowerCase()}`, login });
}

export interface GitHubSignIn {
  /** Where to send the browser to sign in; `state` comes back with it. */
  authorizeUrl(state: string, callbackUrl: string): string;
  /** Finishes the sign-in with the code GitHub sent the browser back with. */
  finish(code: string, callbackUrl: string): Promise<SignedIn>;
}

/**
 * GitHub sign-in with the OAuth app's credentials; a 404 where they are not configured. GitHub
 * proves the account holds its login: an organisation holding that login here is renamed first
 * (login-reclaim.ts), and the account signs in with it. The dev sign-in proves nothing, and is
 * refused such a login.
 */
export async function gitHubSignIn(ports: SignInPorts & Pick<Deps, 'log' | 'changed'>): Promise<GitHubSignIn> {
  const app = await gitHubApp(ports);
  return {
    authorizeUrl: (state, callbackUrl) => authorizeUrl(app, state, callbackUrl),
    finish: async (code, callbackUrl) => {
      const user = await userFromCode(app, code, callbackUrl);
      await reclaimLogin(ports, user);
      return openSession(ports, user);
    },
  };
}

/** The user of a live session; undefined when the token names none or it has expired. */
export async function sessionUser({ db, clock }: Pick<Deps, 'db' | 'clock'>, sessionToken: string): Promise<User | undefined> {
  const userId = await sessionUserId(db, sessionToken, clock());
  const user = userId ? await getUser(db, userId) : undefined;
  return user && toUser(user);
}

export function signOut({ db }: Pick<Deps, 'db'>, sessionToken: string): Promise<void> {
  return deleteSession(db, sessionToken);
}

async function openSession({ db, clock }: Pick<Deps, 'db' | 'clock'>, who: User): Promise<SignedIn> {
  const user = await upsertUser(db, who, clock());
  return { user, session: await createSession(db, user.id, clock()) };
}

/** The OAuth app's credentials; GitHub sign-in is a 404 where they are not configured. */
async function gitHubApp({ config }: SignInPorts): Promise<GitHubApp> {
  const clientId = config.github.clientId;
  const clientSecret = clientId ? await readSecret(config.github.clientSecret, config.region) : undefined;
  if (!clientId || !clientSecret) throw notFound('GitHub sign-in is not configured');
  return { config: config.github, clientId, clientSecret };
}
