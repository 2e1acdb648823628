import { devLoginBodySchema, meSchema, signedInSchema, signInMethodsSchema } from '#core/schemas';
import { operations } from '../operation.ts';

/** Sign-in, the current user and sign-out (docs/api.md §4, §7.2). GitHub's sign-in is in github-sign-in.ts. */
export const signInOperations = operations(
  { name: 'Sign-in', description: 'Browser sessions: signing in and out, and who is signed in.' },
  {
    devLogin: {
      method: 'post',
      path: '/api/auth/dev-login',
      summary: 'Local sign-in (SKILLPRESS_DEV_LOGIN=1 only)',
      description: "Takes the Origin rule: only the site's own pages may sign in this way.",
      auth: 'none',
      body: devLoginBodySchema,
      success: { status: 200, description: 'Signed in; sets the session cookie', schema: signedInSchema },
      errors: ['not_found', 'csrf_rejected'],
    },
    signInMethods: {
      method: 'get',
      path: '/api/auth/methods',
      summary: 'Which sign-in methods this server offers besides GitHub',
      auth: 'none',
      success: { status: 200, description: 'OK', schema: signInMethodsSchema },
    },
    me: {
      method: 'get',
      path: '/api/me',
      summary: 'The signed-in user, or the owner of the API key sent',
      description: 'skillpress whoami checks a key here.',
      auth: 'sessionOrApiKey',
      success: { status: 200, description: 'OK', schema: meSchema },
    },
    signOut: {
      method: 'post',
      path: '/api/auth/logout',
      summary: 'Sign out',
      auth: 'session',
      success: { status: 204, description: 'Signed out; the session cookie is cleared' },
    },
  },
);
