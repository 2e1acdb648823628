import { describe, expect, it } from 'vitest';
import { onFirstUse } from '#functions/platform/on-first-use';

/** The composition root's S3 client is built on first use: a cold start whose request never reads content does not build it. */
describe('onFirstUse', () => {
  class Client {
    sent: string[] = [];
    send(command: string) {
      this.sent.push(command);
      return this.sent.length;
    }
  }

  it('builds the object when it is first used, once, and forwards calls to it with it as `this`', () => {
    let builds = 0;
    const client = onFirstUse(() => {
      builds++;
      return new Client();
    });
    expect(builds).toBe(0);
    expect(client.send('a')).toBe(1);
    const { send } = client;
    expect(send('b')).toBe(2);
    expect(client.sent).toEqual(['a', 'b']);
    expect(client).toBeInstanceOf(Client);
    expect(builds).toBe(1);
  });
});
