import { describe, expect, it } from 'vitest';
import type { Io } from '#cli/io';
import { terminalText } from '#cli/terminal-text';
import { columns, createUi, formatBytes } from '#cli/ui';

function fakeIo(env: Record<string, string>, tty: boolean): Io & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    cwd: '/',
    env,
    stdout: { isTTY: tty, write: (s: string) => (io.out += s) },
    stderr: { isTTY: tty, write: (s: string) => (io.err += s) },
    stdin: { isTTY: false, async *[Symbol.asyncIterator]() {} },
    fetch,
    now: () => 0,
  };
  return io;
}

describe('terminal output', () => {
  it('colours only a terminal, never with NO_COLOR, always with FORCE_COLOR', () => {
    const paint = (env: Record<string, string>, tty: boolean) => createUi(fakeIo(env, tty), false).c.red('x');
    expect(paint({}, true)).toBe('\u001b[31mx\u001b[39m');
    expect(paint({}, false)).toBe('x');
    expect(paint({ NO_COLOR: '1' }, true)).toBe('x');
    expect(paint({ FORCE_COLOR: '1' }, false)).toContain('\u001b[31m');
    expect(paint({ NO_COLOR: '1', FORCE_COLOR: '1' }, true)).toBe('x');
  });

  it('shows progress on an interactive stderr only, and never in --json mode', () => {
    const tty = fakeIo({}, true);
    createUi(tty, false).progress('Downloading 1/2');
    expect(tty.err).toContain('Downloading 1/2');
    const piped = fakeIo({}, false);
    createUi(piped, false).progress('Downloading 1/2');
    const json = fakeIo({}, true);
    createUi(json, true).progress('Downloading 1/2');
    expect(piped.err + json.err).toBe('');
  });

  it('keeps human text off stdout in --json mode', () => {
    const io = fakeIo({}, false);
    const ui = createUi(io, true);
    ui.line('hello');
    ui.warn('careful');
    expect(io.out).toBe('');
    expect(io.err).toBe('warning careful\n');
  });

  it('aligns columns and prints sizes the way people read them', () => {
    expect(
      columns([
        ['a', 'bb', 'c'],
        ['ccc', 'd', 'e'],
      ]),
    ).toEqual(['a    bb  c', 'ccc  d   e']);
    // Measured as printed: what the output cleaning drops takes no room.
    expect(
      columns([
        ['a\u001b[2J\u202e', 'x'],
        ['bb', 'y'],
      ]).map((row) => terminalText(row)),
    ).toEqual(['a   x', 'bb  y']);
    expect([formatBytes(999), formatBytes(1500), formatBytes(12_345_678)]).toEqual(['999 B', '1.5 kB', '12 MB']);
  });
});
