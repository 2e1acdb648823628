import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { lazySchema } from '#core/lazy-schema';

/**
 * A schema declared with `lazySchema` is built on first use (so a Lambda's import builds none of
 * the schemas its modules declare) and is then that schema: it validates, composes and documents
 * exactly as the schema built when its module loads would.
 */
const declare = (wrap: <T extends z.ZodType>(build: () => T) => T) => {
  const name = wrap(() => z.string().min(2).describe('a name'));
  const item = wrap(() => z.strictObject({ name, size: z.number().optional().describe('bytes') }).describe('an item'));
  const custom = wrap(() => z.custom<Record<string, unknown>>((v) => typeof v === 'object').meta({ type: 'object', description: 'any object' }));
  return wrap(() =>
    z
      .object({
        item,
        items: z.array(item).max(3),
        maybe: item.optional(),
        custom,
        wider: item.extend({ flag: z.boolean() }),
        named: item.pick({ name: true }),
      })
      .describe('a list'),
  );
};
const eager = declare((build) => build());

describe('lazySchema', () => {
  it('builds the schema only when something first reads it, and once', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds++;
      return z.string();
    });
    const holder = z.object({ field: schema });
    expect(builds).toBe(0);
    expect(holder.parse({ field: 'x' })).toEqual({ field: 'x' });
    expect(schema.parse('y')).toBe('y');
    expect(builds).toBe(1);
  });

  it('validates, composes and documents as the schema built eagerly does', () => {
    const lazy = declare(lazySchema);
    const good = { item: { name: 'ab' }, items: [], custom: {}, wider: { name: 'cd', flag: true }, named: { name: 'ef' } };
    const bad = { item: { name: 'a', extra: 1 }, items: [1, 2, 3, 4] };
    expect(lazy.parse(good)).toEqual(eager.parse(good));
    expect(lazy.safeParse(bad).error?.issues).toEqual(eager.safeParse(bad).error?.issues);
    expect(z.toJSONSchema(lazy, { io: 'input', unrepresentable: 'any' })).toEqual(z.toJSONSchema(eager, { io: 'input', unrepresentable: 'any' }));
    expect(lazy).toBeInstanceOf(z.ZodObject);
    expect(Object.keys(lazy.shape)).toEqual(Object.keys(eager.shape));
  });
});
