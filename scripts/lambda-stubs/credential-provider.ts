import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (scripts/lambda-bundles.ts).
 * Lambda hands every function its role's credentials in the environment, which is the first link
 * of the SDK's default chain and the only one that ever answers there; the other links (SSO, INI
 * files, processes, web identity, the instance and container metadata) are code a cold start loads
 * and never runs.
 */
export const defaultProvider: typeof fromEnv = (init) => fromEnv(init);
