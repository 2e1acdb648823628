import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestStack, type TestStack } from '../support/stack.ts';
import { changedKeys, snapshotStore } from './support/store-snapshot.ts';

/**
 * Property: whatever multipart body reaches the ClawHub publish (`POST /api/v1/skills`) — up to
 * tens of thousands of parts, text parts where files belong, parts without a name or with
 * hostile ones, broken framing, bodies cut short, boundaries that never come — the answer is a
 * refusal below 500 that changes nothing in storage, or a publish. A form over a limit is
 * refused at the part that crosses it, which the byte count the server pulled shows.
 */

const RUNS = Number(process.env.MULTIPART_FORM_RUNS ?? 60);

let stack: TestStack;
let key: string;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '100000' });
  key = await (await Client.signIn(stack, 'alice')).createKey();
});

const hostileName = fc.constantFrom('SKILL.md', 'a', '', '../x', '/etc/passwd', 'a\\b', '%2e%2e', '\u0000', 'é', '"', 'x'.repeat(300), '.git/hooks/pre-commit');
const part = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('file' as const),
      field: fc.constantFrom('files', 'files', 'payload', 'other'),
      name: hostileName,
      size: fc.nat(64),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('field' as const), field: fc.constantFrom('payload', 'files', 'x', ''), value: fc.string({ maxLength: 80 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      text: fc.constantFrom('Content-Type: text/plain', 'garbage', 'Content-Disposition: attachment', ': x', 'Content-Disposition: form-data; name='),
    }),
  },
);

const form = fc.record({
  parts: fc.array(part, { maxLength: 8 }),
  /** A tiny file part repeated this many times: the shape of the "many parts" finding. */
  repeat: fc.oneof(fc.constant(0), fc.constantFrom(199, 200, 201, 5_000, 60_000)),
  payload: fc.option(fc.constantFrom('{"slug":"fuzz-form","displayName":"Fuzz","version":"1.0.0"}', '{', '[]', '{"slug":"Bad Slug"}'), { nil: undefined }),
  boundary: fc.constantFrom('b', 'xyz', '----WebKitFormBoundary7MA4YWxkTrZu0gW', 'a'.repeat(70)),
  declared: fc.constantFrom('same', 'other', 'none'),
  end: fc.constantFrom('closed', 'missing', 'cut'),
});

type Form = typeof form extends fc.Arbitrary<infer T> ? T : never;

function bodyOf(f: Form): Buffer {
  const b = f.boundary;
  const chunks: string[] = [];
  if (f.payload !== undefined) chunks.push(`--${b}\r\nContent-Disposition: form-data; name="payload"\r\n\r\n${f.payload}\r\n`);
  for (const p of f.parts) {
    if (p.kind === 'file') chunks.push(`--${b}\r\nContent-Disposition: form-data; name="${p.field}"; filename="${p.name}"\r\n\r\n${'x'.repeat(p.size)}\r\n`);
    else if (p.kind === 'field') chunks.push(`--${b}\r\nContent-Disposition: form-data; name="${p.field}"\r\n\r\n${p.value}\r\n`);
    else chunks.push(`--${b}\r\n${p.text}\r\n\r\nbody\r\n`);
  }
  const tiny = `--${b}\r\nContent-Disposition: form-data; name="files"; filename="a"\r\n\r\n\r\n`;
  let text = chunks.join('') + tiny.repeat(f.repeat);
  if (f.end === 'closed') text += `--${b}--\r\n`;
  if (f.end === 'cut') text = text.slice(0, Math.max(0, text.length - 7));
  return Buffer.from(text, 'utf8');
}

const outcomes = new Map<string, number>();

describe('the ClawHub publish form', () => {
  it('is refused below 500 changing nothing, or published, whatever its parts', async () => {
    await fc.assert(
      fc.asyncProperty(form, async (f) => {
        const before = await snapshotStore(stack.deps);
        const bytes = bodyOf(f);
        let pulled = 0;
        const chunkSize = 64 * 1024;
        let offset = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (offset >= bytes.byteLength) return controller.close();
            const chunk = bytes.subarray(offset, offset + chunkSize);
            offset += chunk.byteLength;
            pulled += chunk.byteLength;
            controller.enqueue(new Uint8Array(chunk));
          },
        });
        const boundary = f.declared === 'other' ? 'not-the-boundary' : f.boundary;
        const res = await stack.request('/api/v1/skills', {
          method: 'POST',
          body,
          duplex: 'half',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': f.declared === 'none' ? 'multipart/form-data' : `multipart/form-data; boundary=${boundary}`,
            'content-length': String(bytes.byteLength),
          },
        } as RequestInit);
        await res.arrayBuffer();
        expect(res.status, `${res.status} for ${bytes.byteLength} bytes`).toBeLessThan(500);
        outcomes.set(String(res.status), (outcomes.get(String(res.status)) ?? 0) + 1);
        // Past 200 file parts the form is refused where it crosses the limit, long before its end.
        if (f.repeat >= 5_000 && f.declared === 'same' && res.status === 413) expect(pulled).toBeLessThan(bytes.byteLength / 2);
        // A refusal writes nothing.
        if (res.status !== 201) expect(changedKeys(before, await snapshotStore(stack.deps))).toEqual([]);
      }),
      { numRuns: RUNS },
    );
    // The generator reaches refusals of every kind, or the property proves little.
    expect([...outcomes.keys()]).toEqual(expect.arrayContaining(['400', '413']));
  });
});
