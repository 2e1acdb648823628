import { operations } from '../operation.ts';

/** GitHub sign-in, the OAuth web flow (docs/api.md §4.7). */
export const gitHubSignInOperations = operations(
  { name: 'GitHub sign-in', description: 'The OAuth web flow that signs a browser in with its GitHub account.' },
  {
    startGitHubSignIn: {
      method: 'get',
      path: '/api/auth/github',
      summary: 'Start GitHub sign-in: 302 to GitHub with a state cookie',
      description: '404 where no GitHub OAuth app is configured.',
      auth: 'none',
      success: { status: 302, description: 'To GitHub' },
      errors: ['not_found'],
    },
    finishGitHubSignIn: {
      method: 'get',
      path: '/api/auth/github/callback',
      summary: 'Finish GitHub sign-in: 302 to /dashboard/ with a session cookie',
      description:
        'GitHub sends the browser here with `?code=…&state=…`; `state` must equal the state cookie set by `/api/auth/github`, ' +
        'which is cleared whatever happens. A missing or mismatched state, a missing code (a sign-in cancelled on GitHub) or a code ' +
        'GitHub refuses is a 400.',
      auth: 'none',
      success: { status: 302, description: 'Signed in' },
      errors: ['invalid_request', 'not_found'],
    },
  },
);
