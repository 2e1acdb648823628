import { config, globalRegistry } from 'zod/mini';
import type * as core from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';

// zod/mini leaves the message of a failed built-in check ("Too big: expected string to have
// <=100 characters") to a locale it does not load itself; the API's validation errors quote them.
// Every module that declares a schema imports this one, so the locale is set before any parse.
config(en());

/**
 * A schema built the first time anything reads it, instead of when its module loads. Building
 * zod schemas was most of what importing a Lambda cost once its code was parsed (about 55 ms of
 * CPU for `schemas.ts` alone, docs/benchmarks.md), and a Lambda uses few of the schemas its
 * modules declare, and those only when a request needs them.
 *
 * The value returned is the schema itself, not a wrapper: on first use the schema `build` returns
 * is constructed again onto it (same definition, same parent, same metadata), so identity holds
 * wherever zod keys on it, as the JSON Schema of the OpenAPI document does. Until then its
 * prototype is a trap that builds it on the first property read.
 */
export function lazySchema<T extends core.$ZodType>(build: () => T): T {
  let stand: T;
  const become = (): T => {
    const built = build();
    const { constr, def, parent } = built._zod;
    Object.setPrototypeOf(stand, Object.getPrototypeOf(built));
    // A zod constructor called on an existing object initialises that object (zod's own `init`).
    (constr as unknown as (this: T, def: unknown) => T).call(stand, def);
    if (parent) stand._zod.parent = parent;
    const meta = globalRegistry.get(built);
    if (meta) globalRegistry.add(stand, meta);
    return stand;
  };
  const trap = new Proxy(Object.create(null) as object, {
    get: (_, key) => Reflect.get(become(), key),
    has: (_, key) => Reflect.has(become(), key),
    set: (_, key, value) => Reflect.set(become(), key, value),
  });
  stand = Object.create(trap) as T;
  return stand;
}
