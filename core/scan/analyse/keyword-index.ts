/**
 * Finds, in one pass over a text (Aho–Corasick), which groups of keywords have a member in it.
 * The scanner asks, for every line, which rules could match at all; testing each rule's keywords
 * one by one cost more than the rules themselves. Keywords are ASCII; the transitions are a flat
 * table over the 128 ASCII codes, and any other character leads back to the root.
 */
export class KeywordIndex {
  /** Goto function, completed with failure links: next state for (state × 128 + code). */
  private readonly delta: Int32Array;
  /** Groups with a keyword ending at each state, including those reached through failure links. */
  private readonly output: number[][];

  /** @param groups the keywords of each group; a text "has" a group when it contains any of them. */
  constructor(readonly groups: ReadonlyArray<readonly string[]>) {
    const trie: Array<Map<number, number>> = [new Map()];
    const output: number[][] = [[]];
    groups.forEach((keywords, group) => {
      for (const keyword of keywords) {
        let state = 0;
        for (let i = 0; i < keyword.length; i++) {
          const c = keyword.charCodeAt(i);
          if (c > 127) throw new Error(`keyword ${JSON.stringify(keyword)} is not ASCII`);
          let to = trie[state]!.get(c);
          if (to === undefined) {
            to = trie.length;
            trie.push(new Map());
            output.push([]);
            trie[state]!.set(c, to);
          }
          state = to;
        }
        if (!output[state]!.includes(group)) output[state]!.push(group);
      }
    });
    // Breadth-first, each state's missing transitions are its failure state's transitions.
    const delta = new Int32Array(trie.length * 128);
    const fail = new Int32Array(trie.length);
    const queue: number[] = [];
    for (const [c, to] of trie[0]!) {
      delta[c] = to;
      queue.push(to);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (let c = 0; c < 128; c++) {
        const to = trie[state]!.get(c);
        if (to === undefined) {
          delta[state * 128 + c] = delta[fail[state]! * 128 + c]!;
          continue;
        }
        delta[state * 128 + c] = to;
        fail[to] = delta[fail[state]! * 128 + c]!;
        for (const group of output[fail[to]!]!) if (!output[to]!.includes(group)) output[to]!.push(group);
        queue.push(to);
      }
    }
    this.delta = delta;
    this.output = output;
  }

  /**
   * Which groups have a keyword in `text`, as 1s in `found` from `offset` on, indexed by group
   * (callers that scan many texts keep one array for all of them).
   */
  scan(text: string, found: Uint8Array = new Uint8Array(this.groups.length), offset = 0): Uint8Array {
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      state = c < 128 ? this.delta[state * 128 + c]! : 0;
      const out = this.output[state]!;
      for (let k = 0; k < out.length; k++) found[offset + out[k]!] = 1;
    }
    return found;
  }
}
