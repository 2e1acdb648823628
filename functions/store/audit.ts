import * as z from 'zod/mini';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { invalidRequest } from '#core/errors';
import { AUDIT_ACTIONS, type AuditAction } from '#core/audit-actions';
import { newId } from '../platform/secrets.ts';
import { type Db, parseItem, queryAll } from './db.ts';
import { auditKey, prefix } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * An organisation's audit log: one item per entry in the partition `AUDIT#<org>`, sorted by
 * time (`<at>#<random id>`), read newest first a page at a time. Entries are written after what
 * they record has happened and never change nor go: an organisation's deletion leaves its log,
 * and a later organisation of the same login reads only from its own creation on.
 */

const auditItemSchema = lazySchema(() =>
  z.object({
    at: z.string(),
    actor: z.string(),
    action: z.enum(AUDIT_ACTIONS),
    target: z.string(),
    details: z.optional(z.record(z.string(), z.unknown())),
  }),
);

/** One entry: who did what to which, and when; never a secret or any content. */
export interface AuditEntry {
  at: string;
  actor: string;
  action: AuditAction;
  target: string;
  details?: Record<string, unknown>;
}

export async function putAuditEntry(db: Db, org: string, entry: AuditEntry): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...auditKey(org, entry.at, newId()), ...entry } }));
}

/** Copies the log of `from` into `to`'s partition (an organisation renamed: its history goes with it). */
export async function copyAudit(db: Db, from: string, to: string): Promise<void> {
  const items = await queryAll(db, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': prefix.audit + from.toLowerCase() } });
  for (const item of items) await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...item, pk: prefix.audit + to.toLowerCase() } }));
}

/** A cursor names the last entry of a page by its sort key, which holds no secret (a time and a random id). */
const encodeCursor = (sk: string) => Buffer.from(sk, 'utf8').toString('base64url');
const CURSOR_SORT_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[A-Za-z0-9_-]{1,64}$/;

const unknownCursor = () =>
  invalidRequest('cursor is not one this log gave: pass nextCursor back as it came', { issues: [{ path: ['cursor'], message: 'unknown cursor' }] });

/**
 * The sort key a cursor names. It must be one this log gave: well formed, and naming an entry of
 * this log that the page may show (entries never change nor go, so the last entry of a page it
 * gave is always there); a cursor made up, or taken from another log, is a 400.
 */
async function cursorKey(db: Db, pk: string, cursor: string, since: string | undefined): Promise<string> {
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!CURSOR_SORT_KEY.test(sk) || encodeCursor(sk) !== cursor || (since !== undefined && sk < since)) throw unknownCursor();
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: { pk, sk }, ProjectionExpression: 'pk', ConsistentRead: true }));
  if (!Item) throw unknownCursor();
  return sk;
}

/**
 * A page of the log of the login `org`, newest first, after the entry `cursor` names (the newest
 * page without one). `since` (an ISO time) leaves out what came before: the entries of an
 * organisation of the same login that was deleted before this one was created.
 */
export async function auditPage(
  db: Db,
  org: string,
  cursor: string | undefined,
  limit: number,
  since?: string,
): Promise<{ entries: AuditEntry[]; nextCursor?: string }> {
  const pk = prefix.audit + org.toLowerCase();
  const after = cursor === undefined ? undefined : await cursorKey(db, pk, cursor, since);
  const page = await db.doc.send(
    new QueryCommand({
      TableName: db.table,
      KeyConditionExpression: since === undefined ? 'pk = :pk' : 'pk = :pk AND sk >= :since',
      ExpressionAttributeValues: { ':pk': pk, ...(since === undefined ? {} : { ':since': since }) },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
      ...(after === undefined ? {} : { ExclusiveStartKey: { pk, sk: after } }),
    }),
  );
  const items = page.Items ?? [];
  const entries = items.map((item) => {
    const { at, actor, action, target, details } = parseItem(auditItemSchema, item, 'audit entry');
    return { at, actor, action, target, ...(details === undefined ? {} : { details }) };
  });
  const last = page.LastEvaluatedKey?.sk;
  return { entries, ...(typeof last === 'string' && items.length === limit ? { nextCursor: encodeCursor(last) } : {}) };
}
