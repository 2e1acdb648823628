import * as z from 'zod/mini';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { provenanceSchema } from '#core/provenance-schema';
import { hashSecret, newSecret } from '../platform/secrets.ts';
import { type Db, isConditionFailed, parseItem } from './db.ts';
import { oidcTokenKey, publishTokenKey } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * CI publish tokens (`spt_`, docs/api.md §7.14): minted by the OIDC exchange, good for 15 minutes
 * and for new versions of some skills, carrying the provenance the exchange verified. Only the
 * token's SHA-256 is stored. Beside them, each exchanged OIDC token's `jti`, so no OIDC token is
 * exchanged twice.
 */

export const PUBLISH_TOKEN_PREFIX = 'spt_';

const publishTokenItemSchema = lazySchema(() =>
  z.object({
    /** The skills (ids) it may publish versions of. */
    skills: z.array(z.string()),
    provenance: provenanceSchema,
    /** `github:<owner/repo>`: who the versions it publishes say published them. */
    publisher: z.string(),
    createdAt: z.string(),
    /** Epoch seconds; also the table's TTL attribute. */
    expiresAt: z.number(),
  }),
);
export type PublishTokenItem = z.output<typeof publishTokenItemSchema>;

export async function createPublishToken(db: Db, item: PublishTokenItem): Promise<string> {
  const token = newSecret(PUBLISH_TOKEN_PREFIX);
  await db.doc.send(
    new PutCommand({ TableName: db.table, Item: { ...publishTokenKey(hashSecret(token)), ...item }, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
  return token;
}

/** The token's record, or undefined for a token that is unknown or malformed (expiry is the caller's to judge). */
export async function findPublishToken(db: Db, token: string): Promise<PublishTokenItem | undefined> {
  if (!token.startsWith(PUBLISH_TOKEN_PREFIX) || token.length > 200) return undefined;
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: publishTokenKey(hashSecret(token)), ConsistentRead: true }));
  return Item ? parseItem(publishTokenItemSchema, Item, 'publish token') : undefined;
}

/**
 * Records an OIDC token's `jti` as exchanged, until `expiresAt` (epoch seconds: past it the token
 * is refused for its expiry anyway). False when it was exchanged before.
 */
export async function spendOidcToken(db: Db, issuer: string, jti: string, expiresAt: number): Promise<boolean> {
  try {
    await db.doc.send(
      new PutCommand({ TableName: db.table, Item: { ...oidcTokenKey(issuer, jti), expiresAt }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}
