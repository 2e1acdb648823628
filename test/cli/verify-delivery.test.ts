import { describe, expect, it } from 'vitest';
import { bundleBytes, bundleIntegrity, decodeFile, deliveryJson, fileEntries } from '#core/bundle';
import { verifyDelivery } from '#cli/verify-delivery';

const wire = [
  { filename: 'SKILL.md', content: '# Skill' },
  { filename: 'bin/logo.png', content: Buffer.from([0x89, 0x50, 0x00, 0xff]).toString('base64'), encoding: 'base64' as const },
];
const bytes = wire.map((f) => decodeFile(f)!);
const expected = { slug: 'x', version: '1.0.0', integrity: bundleIntegrity(bytes), files: fileEntries(bytes) };
const delivery = (files: unknown[], over: Record<string, unknown> = {}) => ({ skillId: 'id', slug: 'x', version: '1.0.0', files, ...over });

const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error as { code: string; exitCode: number; message: string };
  }
  throw new Error('expected a failure');
};

describe('delivery verification', () => {
  it('returns the bytes when names, per-file digests and bundle integrity all match', () => {
    const { files, entries } = verifyDelivery(delivery(wire), expected);
    expect(files.map((f) => [f.filename, f.bytes.byteLength])).toEqual([
      ['SKILL.md', 7],
      ['bin/logo.png', 4],
    ]);
    expect(entries).toEqual(fileEntries(bytes));
    expect(verifyDelivery(delivery([...wire].reverse()), { ...expected, files: undefined }).entries).toEqual(fileEntries(bytes));
  });

  it('checks a delivery in canonical form over the bytes it arrived as, and still refuses one changed byte', () => {
    const body = Buffer.from(deliveryJson({ skillId: 'id', slug: 'x', version: '1.0.0' }, wire));
    const { files, entries } = verifyDelivery(JSON.parse(body.toString()), expected, body);
    expect(files.map((f) => Buffer.from(f.bytes))).toEqual(bytes.map((f) => Buffer.from(f.bytes)));
    expect(entries).toEqual(fileEntries(bytes));
    const tampered = Buffer.from(body.toString().replace('# Skill', '# Skil!'));
    for (const known of [expected, { ...expected, files: undefined }]) {
      expect(failure(() => verifyDelivery(JSON.parse(tampered.toString()), known, tampered))).toMatchObject({ code: 'integrity_mismatch', exitCode: 3 });
    }
  });

  it("takes a large free version's bundle ({files} alone) on its integrity, over its bytes or made again, and refuses another", () => {
    const body = Buffer.from(bundleBytes(bytes));
    expect(verifyDelivery(JSON.parse(body.toString()), expected, body).entries).toEqual(fileEntries(bytes));
    expect(verifyDelivery({ files: wire }, expected).entries).toEqual(fileEntries(bytes));
    const other = Buffer.from(body.toString().replace('# Skill', '# Skil!'));
    expect(failure(() => verifyDelivery(JSON.parse(other.toString()), expected, other))).toMatchObject({ code: 'integrity_mismatch', exitCode: 3 });
    // Naming any of the members a delivery carries, it is a delivery, and must name this version.
    expect(failure(() => verifyDelivery({ files: wire, slug: 'x' }, expected))).toMatchObject({ code: 'integrity_mismatch' });
  });

  it('keeps the executable flag, which the integrity covers: dropped or added, the bundle is another', () => {
    const script = [{ filename: 'run.sh', content: '#!/bin/sh\n', executable: true as const }];
    const integrity = bundleIntegrity(script.map((f) => decodeFile(f)!));
    expect(verifyDelivery(delivery(script), { slug: 'x', version: '1.0.0', integrity }).files).toEqual([
      expect.objectContaining({ filename: 'run.sh', executable: true }),
    ]);
    const dropped = [{ filename: 'run.sh', content: '#!/bin/sh\n' }];
    expect(failure(() => verifyDelivery(delivery(dropped), { slug: 'x', version: '1.0.0', integrity })).code).toBe('integrity_mismatch');
    // In canonical form too: the flag is inside the bytes the integrity is checked over.
    const body = Buffer.from(deliveryJson({ skillId: 'id', slug: 'x', version: '1.0.0' }, script));
    expect(verifyDelivery(JSON.parse(body.toString()), { slug: 'x', version: '1.0.0', integrity }, body).files).toEqual([
      expect.objectContaining({ filename: 'run.sh', executable: true }),
    ]);
  });

  it('fails with exit 3 on one changed byte, naming the file', () => {
    const tampered = [{ ...wire[0]!, content: '# Skil!' }, wire[1]!];
    expect(failure(() => verifyDelivery(delivery(tampered), expected))).toMatchObject({
      code: 'integrity_mismatch',
      exitCode: 3,
      message: expect.stringContaining('SKILL.md'),
    });
    // Without per-file digests (an older version), the bundle integrity still catches it.
    expect(failure(() => verifyDelivery(delivery(tampered), { ...expected, files: undefined }))).toMatchObject({ code: 'integrity_mismatch' });
  });

  it('fails when a file is added, dropped or the wrong version is served', () => {
    expect(failure(() => verifyDelivery(delivery([...wire, { filename: 'extra.md', content: '' }]), expected)).code).toBe('integrity_mismatch');
    expect(failure(() => verifyDelivery(delivery([wire[0]]), expected)).code).toBe('integrity_mismatch');
    expect(failure(() => verifyDelivery(delivery(wire, { version: '1.0.1' }), expected)).message).toMatch(/delivered x@1.0.1/);
  });

  it('refuses unsafe file names before anything else, even with matching digests', () => {
    for (const filename of ['../escape.md', '/etc/passwd', 'a\\b', 'C:/x', 'a/./b', 'x\u0000y']) {
      const evil = [{ filename, content: 'x' }];
      const evilBytes = evil.map((f) => decodeFile(f)!);
      const err = failure(() => verifyDelivery(delivery(evil), { slug: 'x', version: '1.0.0', integrity: bundleIntegrity(evilBytes) }));
      expect(err, filename).toMatchObject({ code: 'unsafe_filename', exitCode: 3 });
    }
    const twins = [
      { filename: 'README.md', content: 'a' },
      { filename: 'readme.md', content: 'b' },
    ];
    expect(failure(() => verifyDelivery(delivery(twins), expected)).code).toBe('unsafe_filename');
  });

  it('calls a malformed answer a bad response (exit 2)', () => {
    expect(failure(() => verifyDelivery({ files: 'nope' }, expected))).toMatchObject({ code: 'bad_response', exitCode: 2 });
    expect(failure(() => verifyDelivery(delivery([{ filename: 'a', content: '***', encoding: 'base64' }]), expected)).code).toBe('integrity_mismatch');
    // "QR==" decodes to the byte "A" as "QQ==" does; the canonical bundle only ever holds the latter.
    expect(failure(() => verifyDelivery(delivery([{ filename: 'a', content: 'QR==', encoding: 'base64' }]), expected))).toMatchObject({
      code: 'integrity_mismatch',
      message: expect.stringContaining('not valid base64'),
    });
  });
});
