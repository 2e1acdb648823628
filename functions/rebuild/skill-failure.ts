import { mapLimit } from '#core/map-limit';

/**
 * One skill's rebuild failed: which skill, and why. A rebuild works skill by skill, and a
 * failure of one (an S3 error on one of its keys, a damaged item, a document that cannot be
 * built) must never hold up the others: it is reported here, the rest are rebuilt and indexed,
 * and the caller retries the failed skill on its own (the local trigger with backoff, the stream
 * through its partial batch response, the full rebuild by handing it to the trigger).
 */
export interface SkillFailure {
  skillId: string;
  /** Unknown when the skill could not even be read. */
  slug?: string;
  error: {
    /** The error's name (`InternalError`, `TypeError`): stable enough to group failures by. */
    code: string;
    /** Its message, cut short and without control characters: it goes to logs and to /api/health. */
    message: string;
  };
}

/** The skill an item of a rebuild is about. */
export type SkillRef = Pick<SkillFailure, 'skillId' | 'slug'>;

/**
 * The failure of `skill` from what was thrown. Only the error's name and message are kept, never
 * its stack, request or response: the rebuild never reads a paid skill's files, and a message of
 * the SDK or of the code names no content, but the message is still cut short in case.
 */
export function skillFailure(skill: SkillRef, error: unknown): SkillFailure {
  const code = error instanceof Error ? error.name : 'Error';
  const raw = error instanceof Error ? error.message : String(error);
  const message = raw.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').slice(0, MESSAGE_CHARS);
  return { skillId: skill.skillId, ...(skill.slug === undefined ? {} : { slug: skill.slug }), error: { code, message } };
}

const MESSAGE_CHARS = 200;

/** What {@link eachSkill} did: each item that was built, with its result, and each skill that failed. */
export interface EachSkill<T, R> {
  built: Map<T, R>;
  failed: SkillFailure[];
}

/**
 * Runs `build` for every item, at most `limit` at a time (as mapLimit does), each on its own: an
 * item whose build throws becomes its skill's failure, and the others are built all the same.
 * Every step of a rebuild that works skill by skill goes through here, so a failure stays with
 * its skill in one place instead of one try/catch per step.
 */
export async function eachSkill<T, R>(
  items: readonly T[],
  limit: number,
  skillOf: (item: T) => SkillRef,
  build: (item: T) => Promise<R>,
): Promise<EachSkill<T, R>> {
  const failed: SkillFailure[] = [];
  const outcomes = await mapLimit(items, limit, async (item) => {
    try {
      return { item, result: await build(item) };
    } catch (error) {
      failed.push(skillFailure(skillOf(item), error));
      return undefined;
    }
  });
  const built = new Map<T, R>();
  for (const outcome of outcomes) if (outcome) built.set(outcome.item, outcome.result);
  return { built, failed };
}

/** A failure as log fields (the logger's usual `error` and `message`). */
export function failureFields({ skillId, slug, error }: SkillFailure): Record<string, unknown> {
  return { skillId, slug, error: error.code, message: error.message };
}

/** One line for a person: the skill (its slug when known) and what went wrong. */
export function describeFailure({ skillId, slug, error }: SkillFailure): string {
  return `${slug ?? skillId}: ${error.code}: ${error.message}`;
}
