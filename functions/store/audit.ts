import * as z from 'zod/mini';
import { BatchWriteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { invalidRequest } from '#core/errors';
import { AUDIT_ACTIONS, type AuditAction } from '#core/audit-actions';
import { newId } from '../platform/secrets.ts';
import { type Db, parseItem, queryAll } from './db.ts';
import { auditKey, prefix } from './keys.ts';

/**
 * An organisation's audit log: one item per entry in the partition `AUDIT#<org>`, sorted by
 * time (`<at>#<random id>`), read newest first a page at a time. Entries are written after what
 * they record has happened and never change.
 */

const auditItemSchema = z.object({
  at: z.string(),
  actor: z.string(),
  action: z.enum(AUDIT_ACTIONS),
  target: z.string(),
  details: z.optional(z.record(z.string(), z.unknown())),
});

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

/** A cursor names the last entry of a page by its sort key, which holds no secret (a time and a random id). */
const encodeCursor = (sk: string) => Buffer.from(sk, 'utf8').toString('base64url');
const CURSOR_SORT_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[A-Za-z0-9_-]{1,64}$/;

function decodeCursor(cursor: string): string {
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!CURSOR_SORT_KEY.test(sk) || encodeCursor(sk) !== cursor) {
    throw invalidRequest('cursor is not one this log gave: pass nextCursor back as it came', { issues: [{ path: ['cursor'], message: 'unknown cursor' }] });
  }
  return sk;
}

/** A page of the log, newest first, after the entry `cursor` names (the newest page without one). */
export async function auditPage(db: Db, org: string, cursor: string | undefined, limit: number): Promise<{ entries: AuditEntry[]; nextCursor?: string }> {
  const pk = prefix.audit + org.toLowerCase();
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  const page = await db.doc.send(
    new QueryCommand({
      TableName: db.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
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

/** Deletes an organisation's whole log (the organisation is being deleted, and its login freed). */
export async function deleteAudit(db: Db, org: string): Promise<void> {
  const items = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': prefix.audit + org.toLowerCase() },
    ProjectionExpression: 'pk, sk',
  });
  for (let start = 0; start < items.length; start += 25) {
    const requests = items.slice(start, start + 25).map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
    let pending: typeof requests | undefined = requests;
    while (pending && pending.length > 0) {
      const { UnprocessedItems } = await db.doc.send(new BatchWriteCommand({ RequestItems: { [db.table]: pending } }));
      pending = UnprocessedItems?.[db.table] as typeof requests | undefined;
    }
  }
}
