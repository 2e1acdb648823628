/**
 * Finds, in one pass over a text (Aho–Corasick), which groups of keywords have a member in it.
 * The scanner asks, for every line, which rules could match at all; testing each rule's keywords
 * one by one cost more than the rules themselves.
 */
export class KeywordIndex {
  private readonly next: Array<Map<number, number>> = [new Map()];
  private readonly fail: number[] = [0];
  /** Groups with a keyword ending at each state, including those reached through failure links. */
  private readonly output: number[][] = [[]];

  /** @param groups the keywords of each group; a text "has" a group when it contains any of them. */
  constructor(readonly groups: ReadonlyArray<readonly string[]>) {
    groups.forEach((keywords, group) => keywords.forEach((keyword) => this.add(keyword, group)));
    this.link();
  }

  private add(keyword: string, group: number): void {
    let state = 0;
    for (let i = 0; i < keyword.length; i++) {
      const c = keyword.charCodeAt(i);
      let to = this.next[state]!.get(c);
      if (to === undefined) {
        to = this.next.length;
        this.next.push(new Map());
        this.fail.push(0);
        this.output.push([]);
        this.next[state]!.set(c, to);
      }
      state = to;
    }
    if (!this.output[state]!.includes(group)) this.output[state]!.push(group);
  }

  private link(): void {
    const queue = [...this.next[0]!.values()];
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (const [c, to] of this.next[state]!) {
        let f = this.fail[state]!;
        while (f !== 0 && !this.next[f]!.has(c)) f = this.fail[f]!;
        const target = this.next[f]!.get(c);
        this.fail[to] = target !== undefined && target !== to ? target : 0;
        for (const group of this.output[this.fail[to]!]!) if (!this.output[to]!.includes(group)) this.output[to]!.push(group);
        queue.push(to);
      }
    }
  }

  /** Which groups have a keyword in `text`, as 1s in an array indexed by group. */
  scan(text: string): Uint8Array {
    const found = new Uint8Array(this.groups.length);
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let to = this.next[state]!.get(c);
      while (to === undefined && state !== 0) {
        state = this.fail[state]!;
        to = this.next[state]!.get(c);
      }
      state = to ?? 0;
      for (const id of this.output[state]!) found[id] = 1;
    }
    return found;
  }
}
