import * as z from 'zod/mini';
import { GetCommand, PutCommand, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import { RateLimitedError } from '#core/errors';
import { type Db, writeIf } from './db.ts';
import { type ItemKey, rateLimitKey } from './keys.ts';
import { oneAtATime } from './one-at-a-time.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * Rolling-window limiters per account, one per limited action (new skills, new versions,
 * reports, organisations; docs/api.md §6.4): one item per account and action holds the timestamps of the
 * window's requests and a revision number; every change is a conditional put on the revision it
 * read, so a burst of concurrent requests admits exactly `limit` of them, across any number of
 * processes.
 *
 * Within one process, the changes to one window go one at a time, starting from the item as this
 * process last wrote or read it: a burst of one author's publishes costs one write each, where
 * every request used to read, all but one fail their write, and retry (16 new skills at once took
 * up to 2 s). A change another process made since fails the condition once, and the item is read
 * again. Only a fresh read can refuse a slot: another process may have given one back.
 */

const MAX_ATTEMPTS = 64;
/** Windows a process remembers; the least recently changed are forgotten first. */
const REMEMBERED_WINDOWS = 1000;

/** What is limited: its item's sort key, and what the answer calls it. */
export const LIMITED_ACTIONS = {
  publish: { key: 'PUBLISH', what: 'new skills' },
  version: { key: 'VERSION', what: 'new versions' },
  report: { key: 'REPORT', what: 'reports' },
  org: { key: 'ORG', what: 'new organisations' },
  check: { key: 'CHECK', what: 'checks of files' },
} as const;
export type LimitedAction = keyof typeof LIMITED_ACTIONS;

export interface Window {
  action: LimitedAction;
  limit: number;
  windowMs: number;
}

export interface SlotTaken {
  stamp: number;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** A window as stored: its revision (for conditional writes) and the stamps of its recent requests. */
const windowSchema = lazySchema(() => z.object({ revision: z.number(), stamps: z.array(z.number()) }));

/**
 * A window item as this process last saw it: revision 0 when there was none, and
 * `damaged` when there was one that does not read as a window (written by hand, or by a bug),
 * which counts as empty and which the next write replaces, so it cannot hold the author up.
 */
type Seen = z.output<typeof windowSchema> & { damaged?: true };

/** Per store: the windows this process knows, and the change running for each (by account and action). */
const states = new WeakMap<Db, { seen: Map<string, Seen>; queues: Map<string, Promise<unknown>> }>();

/** Takes a slot of `window` for `userId`, or throws 429 `rate_limited` with the seconds until one frees. */
export async function takeSlot(db: Db, userId: string, now: Date, window: Window): Promise<SlotTaken> {
  const at = now.getTime();
  return mutate(
    db,
    userId,
    window,
    (live) => {
      if (live.length >= window.limit) {
        const retryAfter = Math.max(1, Math.ceil((live[0]! + window.windowMs - at) / 1000));
        throw limited(
          window,
          retryAfter,
          `At most ${window.limit} ${LIMITED_ACTIONS[window.action].what} per ${window.windowMs / 1000} seconds per account; retry in ${retryAfter} s`,
        );
      }
      const stamps = [...live, at];
      return {
        stamps,
        result: {
          stamp: at,
          limit: window.limit,
          remaining: window.limit - stamps.length,
          resetSeconds: Math.ceil((stamps[0]! + window.windowMs - at) / 1000),
        },
      };
    },
    at,
  );
}

/** Gives back a slot taken by a request that then failed, so rejected requests cost nothing. */
export async function returnSlot(db: Db, userId: string, stamp: number, window: Window): Promise<void> {
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

const limited = (window: Window, retryAfter: number, message: string) =>
  new RateLimitedError(retryAfter, message, { limit: window.limit, windowSeconds: window.windowMs / 1000 });

function mutate<T>(db: Db, userId: string, window: Window, change: (live: number[]) => { stamps: number[]; result: T }, at: number): Promise<T> {
  let state = states.get(db);
  if (!state) {
    state = { seen: new Map(), queues: new Map() };
    states.set(db, state);
  }
  const { seen, queues } = state;
  const key = rateLimitKey(userId, LIMITED_ACTIONS[window.action].key);
  const id = `${key.pk}/${key.sk}`;
  return oneAtATime(queues, id, async () => {
    let view = seen.get(id);
    let fresh = false;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (!view) {
        view = remember(seen, id, await read(db, key));
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
          Item: { ...key, stamps, revision: view.revision + 1, expiresAt: Math.ceil((at + window.windowMs) / 1000) + 60 },
          ...writeCondition(view),
        }),
      ).catch((error: unknown) => {
        seen.delete(id);
        throw error;
      });
      if (written) {
        remember(seen, id, { revision: view.revision + 1, stamps });
        return result;
      }
      // Another process changed the window since: read it again, after a pause when it is busy.
      if (fresh) await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
      view = undefined;
    }
    seen.delete(id);
    // Sustained contention on one window: ask the client to come back shortly.
    throw limited(window, 1, `Too many ${LIMITED_ACTIONS[window.action].what} by this account at once; retry in 1 s`);
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

/** Keeps `view` as the newest of at most REMEMBERED_WINDOWS windows. */
function remember(seen: Map<string, Seen>, id: string, view: Seen): Seen {
  seen.delete(id);
  seen.set(id, view);
  if (seen.size > REMEMBERED_WINDOWS) seen.delete(seen.keys().next().value!);
  return view;
}

async function read(db: Db, key: ItemKey): Promise<Seen> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: key, ConsistentRead: true }));
  if (!Item) return { revision: 0, stamps: [] };
  const window = windowSchema.safeParse(Item);
  return window.success ? window.data : { revision: 0, stamps: [], damaged: true };
}
