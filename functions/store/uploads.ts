import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { hashSecret, newSecret } from '../platform/secrets.ts';
import { type Db, getItems } from './db.ts';
import { prefix, uploadKey } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * Files a ClawHub client sends ahead of its publish (`clawhub` 0.23: ask for an upload URL per
 * file, send the bytes there, then publish naming each file by its ticket). A ticket is a random
 * secret handed to the client; the table holds its SHA-256 with what it admits: whose it is, the
 * file's path, size and digest, and whether those bytes have arrived. A publish takes a file only
 * through a ticket of the caller's whose bytes arrived, so a digest alone (the registry publishes
 * every file's) never brings another skill's content into a new one. Tickets live
 * `limits.clawhubUploads.ticketSeconds` (an hour).
 */

const uploadItemSchema = lazySchema(() =>
  z.object({
    userId: z.string(),
    path: z.string(),
    size: z.number(),
    sha256: z.string(),
    /** Epoch seconds; also the table's TTL attribute. */
    expiresAt: z.number(),
    /** Set once the bytes arrived and matched. */
    arrived: z.optional(z.boolean()),
  }),
);
export type Upload = z.output<typeof uploadItemSchema>;

export interface Announced {
  path: string;
  size: number;
  sha256: string;
}

/** A new ticket for `file`, for `userId`, good until `expiresAt` (epoch seconds): the secret goes to the client, only its hash is kept. */
export async function createUpload(db: Db, userId: string, file: Announced, expiresAt: number): Promise<string> {
  const ticket = newSecret();
  const item: Upload = { userId, ...file, expiresAt };
  await db.doc.send(
    new PutCommand({ TableName: db.table, Item: { ...uploadKey(hashSecret(ticket)), ...item }, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
  return ticket;
}

/** The live tickets among `tickets` (expired, unknown and damaged ones are missing), by ticket. */
export async function getUploads(db: Db, tickets: readonly string[], now: Date): Promise<Map<string, Upload>> {
  const byHash = new Map(tickets.map((ticket) => [hashSecret(ticket), ticket]));
  const found = new Map<string, Upload>();
  for (const item of await getItems(db, [...byHash.keys()].map(uploadKey))) {
    const upload = uploadItemSchema.safeParse(item);
    const ticket = byHash.get(String(item.pk).slice(prefix.upload.length));
    if (ticket !== undefined && upload.success && upload.data.expiresAt * 1000 > now.getTime()) found.set(ticket, upload.data);
  }
  return found;
}

/** Records that a ticket's bytes arrived; the caller checked them against it first. */
export async function markArrived(db: Db, ticket: string): Promise<void> {
  await db.doc.send(
    new UpdateCommand({
      TableName: db.table,
      Key: uploadKey(hashSecret(ticket)),
      UpdateExpression: 'SET arrived = :yes',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':yes': true },
    }),
  );
}

/** One ticket, or undefined when it is unknown or expired. */
export async function getUpload(db: Db, ticket: string, now: Date): Promise<Upload | undefined> {
  return (await getUploads(db, [ticket], now)).get(ticket);
}
