import { describe, expect, it } from 'vitest';
import {
  bundleBytes,
  bundleIntegrity,
  byFilename,
  decodeFile,
  deliveredBundleIntegrity,
  deliveryJson,
  fileEntries,
  sha256Base64,
  toWireFile,
} from '#core/bundle';
import { canonicalJson } from '#core/canonical-json';

const text = (filename: string, content: string) => decodeFile({ filename, content })!;

describe('canonical JSON', () => {
  it('sorts keys at every depth and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[{"y":2,"z":1}]},"b":1}');
  });

  it('keeps keys named like Object members, __proto__ included', () => {
    const text = '{"constructor":"^1.0.0","__proto__":{"x":1}}';
    expect(canonicalJson(JSON.parse(text))).toBe('{"__proto__":{"x":1},"constructor":"^1.0.0"}');
  });
});

describe('bundles', () => {
  it('gives the same bytes and integrity whatever the order files were sent in', () => {
    const a = [text('b.md', 'B'), text('SKILL.md', '# S')];
    const b = [text('SKILL.md', '# S'), text('b.md', 'B')];
    expect(bundleBytes(a)).toBe(bundleBytes(b));
    expect(bundleIntegrity(a)).toBe(`sha256-${sha256Base64(bundleBytes(b))}`);
  });

  it('changes integrity when any byte changes', () => {
    expect(bundleIntegrity([text('SKILL.md', 'a')])).not.toBe(bundleIntegrity([text('SKILL.md', 'b')]));
  });

  it('makes the executable flag part of the integrity, and keeps the bytes of files without it', () => {
    const plain = [text('SKILL.md', '# S'), text('run.sh', 'echo')];
    // What the bundle of a version published before the flag existed hashed to.
    expect(bundleBytes(plain)).toBe('{"files":[{"content":"# S","filename":"SKILL.md"},{"content":"echo","filename":"run.sh"}]}');
    expect(bundleBytes([plain[0]!, decodeFile({ filename: 'run.sh', content: 'echo', executable: false })!])).toBe(bundleBytes(plain));
    const executable = [plain[0]!, decodeFile({ filename: 'run.sh', content: 'echo', executable: true })!];
    expect(bundleBytes(executable)).toBe('{"files":[{"content":"# S","filename":"SKILL.md"},{"content":"echo","executable":true,"filename":"run.sh"}]}');
    expect(bundleIntegrity(executable)).not.toBe(bundleIntegrity(plain));
    const binary = decodeFile({ filename: 'tool', content: '//4A', encoding: 'base64', executable: true })!;
    expect(toWireFile(binary)).toEqual({ filename: 'tool', content: '//4A', encoding: 'base64', executable: true });
  });

  it('keeps binary content as base64 and text as text', () => {
    const binary = decodeFile({ filename: 'x.bin', content: Buffer.from([0xff, 0xfe, 0x00]).toString('base64'), encoding: 'base64' })!;
    expect(toWireFile(binary)).toEqual({ filename: 'x.bin', content: '//4A', encoding: 'base64' });
    expect(toWireFile(text('a.md', 'héllo'))).toEqual({ filename: 'a.md', content: 'héllo' });
  });

  it('delivers text files byte for byte: a leading byte-order mark, CRLF and control characters stay', () => {
    for (const content of ['\uFEFF# starts with a BOM\r\n', '\uFEFF', 'a\r\nb\u0001\u001b[2J\u007f']) {
      const file = text('SKILL.md', content);
      const wire = toWireFile(file);
      expect(wire).toEqual({ filename: 'SKILL.md', content });
      expect(Buffer.from(decodeFile(wire)!.bytes).equals(Buffer.from(file.bytes))).toBe(true);
    }
  });

  it('refuses malformed base64', () => {
    expect(decodeFile({ filename: 'x', content: 'not base64!', encoding: 'base64' })).toBeNull();
  });

  it('lists file sizes in bytes and hex SHA-256, sorted by name', () => {
    expect(fileEntries([text('z', 'é'), text('a', '')])).toEqual([
      { filename: 'a', size: 0, sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
      { filename: 'z', size: 2, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
  });
});

describe('deliveries in canonical form', () => {
  const files = [text('b.md', 'B\n'), decodeFile({ filename: 'x.bin', content: '//4A', encoding: 'base64' })!, text('SKILL.md', '# S "quoted"')];
  const wire = files.map(toWireFile).sort(byFilename);
  const header = { skillId: 'id-1', slug: 'x', version: '1.2.0' };
  const body = Buffer.from(deliveryJson(header, wire));

  it('begin with the bundle, so its integrity is read off the bytes as they arrived', () => {
    expect(body.toString().startsWith(bundleBytes(files).slice(0, -1))).toBe(true);
    expect(JSON.parse(body.toString())).toEqual({ ...header, files: wire });
    expect(deliveredBundleIntegrity(body, header)).toBe(bundleIntegrity(files));
    const empty = Buffer.from(deliveryJson(header, []));
    expect(deliveredBundleIntegrity(empty, header)).toBe(bundleIntegrity([]));
  });

  it('give another integrity for one changed byte, and none for a body in another form or about another version', () => {
    const changed = Buffer.from(body);
    changed[changed.indexOf('B\\n')] = 'C'.charCodeAt(0);
    expect(deliveredBundleIntegrity(changed, header)).not.toBe(bundleIntegrity(files));
    expect(deliveredBundleIntegrity(Buffer.from(JSON.stringify({ ...header, files: wire })), header)).toBeUndefined();
    expect(deliveredBundleIntegrity(body, { ...header, version: '1.2.1' })).toBeUndefined();
    expect(deliveredBundleIntegrity(body.subarray(body.indexOf(',"skillId"')), header)).toBeUndefined();
  });
});
