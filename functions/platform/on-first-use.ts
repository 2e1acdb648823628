/**
 * An object (an AWS SDK client) built the first time anything reads it, instead of when the
 * Lambda's composition root runs at import: a cold start whose request never needs it (a
 * publish refused before any content is read, a bad request) does not pay for building it. The
 * value forwards every read to the built object, with that object as `this`.
 */
export function onFirstUse<T extends object>(build: () => T): T {
  let built: T | undefined;
  const real = (): T => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => {
      const value = Reflect.get(real(), key);
      return typeof value === 'function' ? value.bind(real()) : value;
    },
    set: (_, key, value) => Reflect.set(real(), key, value),
    has: (_, key) => Reflect.has(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}
