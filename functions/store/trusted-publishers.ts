import * as z from 'zod/mini';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { notFound } from '#core/errors';
import { newId } from '../platform/secrets.ts';
import { type Db, isConditionFailed, parseItem, queryAll, tableKeys, writeIf } from './db.ts';
import { prefix, trustKey } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * Trusted publishers (docs/api.md §7.14): the CI workflows a skill's owning side lets publish its
 * versions. Each is one item in its repository's partition, `TRUST#github#<owner/repo>`, so the
 * OIDC exchange finds every skill a workflow may publish with one Query; a skill's list is a GSI
 * partition, `PUBLISHERS#<skill id>`.
 */

const trustedPublisherItemSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    skillId: z.string(),
    provider: z.literal('github'),
    /** `owner/repo` as it was given; matched ignoring case. */
    repository: z.string(),
    /** The workflow file's name under `.github/workflows/`. */
    workflow: z.string(),
    environment: z.optional(z.string()),
    createdAt: z.string(),
    /** The login of who added it, or last confirmed it. */
    createdBy: z.string(),
    /** Their user id; absent on publishers added before it was recorded (then their login is looked up). */
    createdById: z.optional(z.string()),
    /**
     * The skill's owner when it was added or confirmed (core/policy.ts `ownerIdentity`): after a
     * transfer it names the old owner, and the publisher is suspended. Absent on publishers added
     * before it was recorded.
     */
    owner: z.optional(z.string()),
  }),
);
export type TrustedPublisherItem = z.output<typeof trustedPublisherItemSchema>;

const listPartition = (skillId: string) => prefix.publishersOf + skillId;

export async function putTrustedPublisher(db: Db, fields: Omit<TrustedPublisherItem, 'id'>): Promise<TrustedPublisherItem> {
  const item: TrustedPublisherItem = { id: newId(), ...fields };
  await db.doc.send(
    new PutCommand({
      TableName: db.table,
      Item: {
        ...trustKey(item.provider, item.repository, item.skillId, item.id),
        ...item,
        gsi1pk: listPartition(item.skillId),
        gsi1sk: `${item.createdAt}#${item.id}`,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return item;
}

/** Records who vouches for a publisher now, and for which owner: it was added again. */
export async function confirmTrustedPublisher(
  db: Db,
  found: TrustedPublisherItem,
  by: Required<Pick<TrustedPublisherItem, 'createdBy' | 'createdById' | 'owner'>>,
): Promise<TrustedPublisherItem> {
  const confirmed = await writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: trustKey(found.provider, found.repository, found.skillId, found.id),
      UpdateExpression: 'SET createdBy = :by, createdById = :id, #owner = :owner',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: { ':by': by.createdBy, ':id': by.createdById, ':owner': by.owner },
    }),
  );
  // Removed meanwhile: it is as unknown as a missing one.
  if (!confirmed) throw notFound('No such trusted publisher');
  return { ...found, ...by };
}

/** Records the owner a publisher counts for, where its owner was renamed (the same people, another login). */
export async function setPublisherOwner(db: Db, found: TrustedPublisherItem, owner: string): Promise<void> {
  await writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: trustKey(found.provider, found.repository, found.skillId, found.id),
      UpdateExpression: 'SET #owner = :owner',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: { ':owner': owner },
    }),
  );
}

/** A skill's trusted publishers, oldest first. */
export async function listTrustedPublishers(db: Db, skillId: string): Promise<TrustedPublisherItem[]> {
  const items = await queryAll(db, {
    IndexName: tableKeys.byOwner.name,
    KeyConditionExpression: 'gsi1pk = :skill',
    ExpressionAttributeValues: { ':skill': listPartition(skillId) },
  });
  return items.map(toTrustedPublisher);
}

/** Every skill's trusted publishers naming `repository` (any case): what an OIDC token of that repository may match. */
export async function trustedPublishersOf(db: Db, provider: string, repository: string): Promise<TrustedPublisherItem[]> {
  const items = await queryAll(db, {
    KeyConditionExpression: 'pk = :repo',
    ExpressionAttributeValues: { ':repo': trustKey(provider, repository, '', '').pk },
    ConsistentRead: true,
  });
  return items.map(toTrustedPublisher);
}

/** Removes publisher `id` of `skillId` and gives it as it was; one of another skill is as unknown as a missing one. */
export async function deleteTrustedPublisher(db: Db, skillId: string, id: string): Promise<TrustedPublisherItem> {
  const found = (await listTrustedPublishers(db, skillId)).find((p) => p.id === id);
  if (!found) throw notFound('No such trusted publisher');
  try {
    await db.doc.send(
      new DeleteCommand({ TableName: db.table, Key: trustKey(found.provider, found.repository, skillId, id), ConditionExpression: 'attribute_exists(pk)' }),
    );
  } catch (error) {
    if (isConditionFailed(error)) throw notFound('No such trusted publisher');
    throw error;
  }
  return found;
}

const toTrustedPublisher = (raw: Record<string, unknown>): TrustedPublisherItem => parseItem(trustedPublisherItemSchema, raw, 'trusted publisher');
