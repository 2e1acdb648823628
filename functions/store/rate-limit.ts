import * as z from 'zod/mini';
import { GetCommand, PutCommand, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import { RateLimitedError } from '#core/errors';
import { type Db, writeIf } from './db.ts';
import { rateLimitKey } from './keys.ts';

/**
 * A rolling-window limiter per author: one item holds the timestamps of the window's publishes
 * and a revision number; every change is a conditional put on the revision it read, so a burst
 * of concurrent requests admits exactly `limit` of them, across any number of processes.
 *
 * Within one process, the changes to one author's window go one at a time, starting from the
 * item as this process last wrote or read it: a burst of one author's publishes costs one write
 * each, where every request used to read, all but one fail their write, and retry (16 new skills
 * at once took up to 2 s). A change another process made since fails the condition once, and the
 * item is read again. Only a fresh read can refuse a slot: another process may have given one back.
 */

const MAX_ATTEMPTS = 64;
/** Authors whose window a process remembers; the least recently changed are forgotten first. */
const REMEMBERED_AUTHORS = 1000;

export interface Window {
  limit: number;
  windowMs: number;
}

export interface SlotTaken {
  stamp: number;
  remaining: number;
  resetSeconds: number;
}

/** An author's publish window as stored: its revision (for conditional writes) and the stamps of recent publishes. */
const windowSchema = z.object({ revision: z.number(), stamps: z.array(z.number()) });

/**
 * An author's window item as this process last saw it: revision 0 when there was none, and
 * `damaged` when there was one that does not read as a window (written by hand, or by a bug),
 * which counts as empty and which the next write replaces, so it cannot hold the author up.
 */
type Seen = z.output<typeof windowSchema> & { damaged?: true };

/** Per store: the windows this process knows, and the change running for each author. */
const states = new WeakMap<Db, { seen: Map<string, Seen>; queues: Map<string, Promise<unknown>> }>();

export async function takePublishSlot(db: Db, userId: string, now: Date, window: Window): Promise<SlotTaken> {
  const at = now.getTime();
  return mutate(
    db,
    userId,
    window,
    (live) => {
      if (live.length >= window.limit) {
        const retryAfter = Math.max(1, Math.ceil((live[0]! + window.windowMs - at) / 1000));
        throw new RateLimitedError(retryAfter, `Publish limit of ${window.limit} per ${window.windowMs / 1000} seconds reached; retry in ${retryAfter} s`, {
          limit: window.limit,
          windowSeconds: window.windowMs / 1000,
        });
      }
      const stamps = [...live, at];
      return {
        stamps,
        result: { stamp: at, remaining: window.limit - stamps.length, resetSeconds: Math.ceil((stamps[0]! + window.windowMs - at) / 1000) },
      };
    },
    at,
  );
}

/** Gives back a slot taken by a publish that then failed, so rejected requests cost nothing. */
export async function returnPublishSlot(db: Db, userId: string, stamp: number, window: Window): Promise<void> {
  await mutate(
    db,
    userId,
    window,
    (live) => {
      const index = live.indexOf(stamp);
      return { stamps: index < 0 ? live : live.filter((_, i) => i !== index), result: undefined };
    },
    Date.now(),
  );
}

function mutate<T>(db: Db, userId: string, window: Window, change: (live: number[]) => { stamps: number[]; result: T }, at: number): Promise<T> {
  let state = states.get(db);
  if (!state) {
    state = { seen: new Map(), queues: new Map() };
    states.set(db, state);
  }
  const { seen, queues } = state;
  return oneAtATime(queues, userId, async () => {
    let view = seen.get(userId);
    let fresh = false;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (!view) {
        view = remember(seen, userId, await read(db, userId));
        fresh = true;
      }
      const live = view.stamps.filter((t) => t > at - window.windowMs).sort((a, b) => a - b);
      let next: { stamps: number[]; result: T };
      try {
        next = change(live);
      } catch (error) {
        if (fresh) throw error;
        view = undefined; // refused from memory: ask the table before refusing
        continue;
      }
      const { stamps, result } = next;
      const written = await writeIf(
        db,
        new PutCommand({
          TableName: db.table,
          Item: { ...rateLimitKey(userId), stamps, revision: view.revision + 1, expiresAt: Math.ceil((at + window.windowMs) / 1000) + 60 },
          ...writeCondition(view),
        }),
      ).catch((error: unknown) => {
        seen.delete(userId);
        throw error;
      });
      if (written) {
        remember(seen, userId, { revision: view.revision + 1, stamps });
        return result;
      }
      // Another process changed the window since: read it again, after a pause when it is busy.
      if (fresh) await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
      view = undefined;
    }
    seen.delete(userId);
    // Sustained contention on one author's window: ask the client to come back shortly.
    throw new RateLimitedError(1, 'Too many publishes by this account at once; retry in 1 s', { limit: window.limit, windowSeconds: window.windowMs / 1000 });
  });
}

/**
 * What a write of the window holds on: the revision this process read, or that there is no item
 * yet; nothing when it replaces a damaged item.
 */
function writeCondition(view: Seen): Pick<PutCommandInput, 'ConditionExpression' | 'ExpressionAttributeValues'> {
  if (view.damaged) return {};
  if (view.revision > 0) return { ConditionExpression: 'revision = :revision', ExpressionAttributeValues: { ':revision': view.revision } };
  return { ConditionExpression: 'attribute_not_exists(pk)' };
}

/** Keeps `view` as the newest of at most REMEMBERED_AUTHORS windows. */
function remember(seen: Map<string, Seen>, userId: string, view: Seen): Seen {
  seen.delete(userId);
  seen.set(userId, view);
  if (seen.size > REMEMBERED_AUTHORS) seen.delete(seen.keys().next().value!);
  return view;
}

async function read(db: Db, userId: string): Promise<Seen> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: rateLimitKey(userId), ConsistentRead: true }));
  if (!Item) return { revision: 0, stamps: [] };
  const window = windowSchema.safeParse(Item);
  return window.success ? window.data : { revision: 0, stamps: [], damaged: true };
}

/** Runs `task` after every task queued before it for `key` has settled. */
function oneAtATime<T>(queues: Map<string, Promise<unknown>>, key: string, task: () => Promise<T>): Promise<T> {
  const run = (queues.get(key) ?? Promise.resolve()).then(task, task);
  const settled = run.catch(() => undefined);
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return run;
}
