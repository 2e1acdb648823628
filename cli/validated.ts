import { isDomainError } from '../core/errors.ts';
import type { PublishBody, VersionBody } from '../core/schemas.ts';
import { CliError } from './cli-error.ts';

/**
 * Checks a publish or version body with the API's own zod schemas before sending it, so a bad
 * folder fails locally with the same `invalid_request` issues the server would give. The schemas
 * (and zod) are loaded only here, keeping them off the install path.
 */
export async function validated(kind: 'publish', body: unknown): Promise<PublishBody>;
export async function validated(kind: 'version', body: unknown): Promise<VersionBody>;
export async function validated(kind: 'publish' | 'version', body: unknown): Promise<PublishBody | VersionBody> {
  const { issueDetails, publishBodySchema, versionBodySchema } = await import('../core/schemas.ts');
  const result = (kind === 'publish' ? publishBodySchema : versionBodySchema).safeParse(body);
  if (!result.success)
    throw new CliError('invalid_request', `the ${kind === 'publish' ? 'skill' : 'version'} cannot be published as it is`, {
      details: issueDetails(result.error),
    });
  return result.data;
}

/** Domain errors from `core/` (such as a malformed version) keep their code in the client. */
export function fromDomainError(error: unknown): unknown {
  return isDomainError(error) ? new CliError(error.code, error.message, { details: error.details }) : error;
}
