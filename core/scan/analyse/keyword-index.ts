/**
 * Finds, in one pass over a text (Aho–Corasick), which groups of keywords have a member in it,
 * whatever the case of the text: it answers as a search of the lower-cased text would. The
 * scanner asks, for every line, which rules could match at all; testing each rule's keywords one
 * by one cost more than the rules themselves.
 *
 * Keywords are lower-case ASCII. The transitions are a flat table over the characters keywords
 * use (a few dozen classes, so the table stays small enough to be read from cache): an
 * upper-case letter is in its lower-case letter's class, and every other character in a class
 * that leads back to the root.
 */
export class KeywordIndex {
  /** The class of each ASCII code: 0 for the characters no keyword has. */
  private readonly classOf: Uint8Array;
  /** Classes in the table: the keywords' characters, and 0. */
  private readonly width: number;
  /** Goto function, completed with failure links: next state for (state × width + class). */
  private readonly delta: Uint16Array | Uint32Array;
  /** Groups with a keyword ending at each state, including those reached through failure links. */
  private readonly output: number[][];
  /** 1 where a state has output: most have none, and a byte is quicker to read than a list. */
  private readonly emits: Uint8Array;

  /** @param groups the keywords of each group; a text "has" a group when it contains any of them. */
  constructor(readonly groups: ReadonlyArray<readonly string[]>) {
    const classOf = new Uint8Array(128);
    let width = 1;
    const trie: Array<Map<number, number>> = [new Map()];
    const output: number[][] = [[]];
    groups.forEach((keywords, group) => {
      for (const keyword of keywords) {
        let state = 0;
        for (let i = 0; i < keyword.length; i++) {
          const c = keyword.charCodeAt(i);
          if (c > 127 || (c >= 65 && c <= 90)) throw new Error(`keyword ${JSON.stringify(keyword)} is not lower-case ASCII`);
          if (classOf[c] === 0) {
            classOf[c] = width++;
            if (c >= 97 && c <= 122) classOf[c - 32] = classOf[c]!;
          }
          const k = classOf[c]!;
          let to = trie[state]!.get(k);
          if (to === undefined) {
            to = trie.length;
            trie.push(new Map());
            output.push([]);
            trie[state]!.set(k, to);
          }
          state = to;
        }
        if (!output[state]!.includes(group)) output[state]!.push(group);
      }
    });
    // Breadth-first, each state's missing transitions are its failure state's transitions.
    // Two bytes a transition while the states allow: half the table to keep in cache.
    const delta = trie.length <= 0x10000 ? new Uint16Array(trie.length * width) : new Uint32Array(trie.length * width);
    const fail = new Uint32Array(trie.length);
    const queue: number[] = [];
    for (const [k, to] of trie[0]!) {
      delta[k] = to;
      queue.push(to);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (let k = 1; k < width; k++) {
        const to = trie[state]!.get(k);
        if (to === undefined) {
          delta[state * width + k] = delta[fail[state]! * width + k]!;
          continue;
        }
        delta[state * width + k] = to;
        fail[to] = delta[fail[state]! * width + k]!;
        for (const group of output[fail[to]!]!) if (!output[to]!.includes(group)) output[to]!.push(group);
        queue.push(to);
      }
    }
    this.classOf = classOf;
    this.width = width;
    this.delta = delta;
    this.output = output;
    this.emits = Uint8Array.from(output, (groups) => (groups.length > 0 ? 1 : 0));
  }

  /**
   * Which groups have a keyword in `text`, as 1s in `found` from `offset` on, indexed by group
   * (callers that scan many texts keep one array for all of them).
   */
  scan(text: string, found: Uint8Array = new Uint8Array(this.groups.length), offset = 0): Uint8Array {
    this.run(text, 0, text.length, 0, found, offset);
    return found;
  }

  /**
   * As `scan` of the last `reach` characters of `a`, a space and the first `reach` of `b` (what a
   * line break joins), without making that string.
   */
  scanAcross(a: string, b: string, reach: number, found: Uint8Array): Uint8Array {
    let state = this.run(a, Math.max(0, a.length - reach), a.length, 0, found, 0);
    state = this.run(' ', 0, 1, state, found, 0);
    this.run(b, 0, Math.min(reach, b.length), state, found, 0);
    return found;
  }

  /** Runs the automaton over `text` from `from` to `to`, from `state`; returns the state it ends in. */
  private run(text: string, from: number, to: number, state: number, found: Uint8Array, offset: number): number {
    const { classOf, width, delta, output, emits } = this;
    // Two characters outside ASCII lower-case into it: the Kelvin sign to `k`, and `İ` to `i`
    // followed by a combining dot (which, as any other character outside ASCII, leads back to the root).
    const kelvin = classOf[107]!;
    const dotted = classOf[105]!;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      state = delta[state * width + (c < 128 ? classOf[c]! : c === 0x212a ? kelvin : c === 0x130 ? dotted : 0)]!;
      if (emits[state] === 1) for (const group of output[state]!) found[offset + group] = 1;
      if (c === 0x130) state = 0;
    }
    return state;
  }
}
