/**
 * Calls `probe` until `ready` holds (rebuilds and retries are asynchronous), every 25 ms for at
 * most `timeoutMs`, and gives the last value either way: the assertion after it says what was
 * wrong, instead of a bare timeout.
 */
export async function eventually<T>(probe: () => Promise<T>, ready: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ready(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
