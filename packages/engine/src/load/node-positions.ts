/**
 * Where the nodes of a file read by the fast reader (fast-yaml.ts) were written, recorded by
 * js-yaml's `listener` during the one parse that builds the values. Any path of a document
 * (a rule inside a policy, a route inside an edge, a field with a problem) is then located
 * from what was recorded: the file is never parsed a second time for a position.
 *
 * Recording must cost next to nothing on the plan path (thousands of documents, a handful of
 * positions asked for), so nodes are kept in flat arrays in document order (pre-order: a
 * node, then its descendants), not as objects, and offsets become line and column only when
 * asked for. Offsets are the ones `yaml` gives (its `range[0]`): the first character of a
 * node, and for an empty value the end of its line's blanks, so both readers agree on every
 * position (`node-positions.test.ts` checks this against `yaml` itself).
 */

/** The parts of js-yaml's parser state that its listener reads. */
interface ParserState {
  position: number;
  kind: string | null;
  /** The node's value; the listener may replace it on `close` (the parser reads it after). */
  result: unknown;
  input: string;
}

export type NodePath = readonly (string | number)[];

/** The nodes recorded at some moment (`NodePositions#mark`). */
export interface NodeMark {
  count: number;
  roots: number;
  deepest: number;
}

export class NodePositions {
  /** How many nodes were recorded; `#nodes` is filled up to twice it. */
  #count = 0;
  /**
   * Where the input js-yaml is reading now starts in the file's text: files are read document by
   * document (fast-yaml.ts), and js-yaml drops a leading byte order mark. Offsets are the file's.
   */
  base = 0;
  /**
   * Two numbers per node, in one array (one kind of typed array: the code that fills it stays
   * monomorphic): at `2n` the offset in the file's text of node n's first character; at `2n + 1`
   * the index of its last descendant (itself for a leaf: its children follow it), times two,
   * plus 1 when a `:` follows the node (it is the key of a pair). Both are written when the
   * node is opened (so the array grows in order) and final when it is closed.
   */
  #nodes = new Pages();
  /** Each node's value, to tell maps from sequences and to read keys. */
  #value = new ValuePages();
  /** Root node of each document, in document order (empty documents too, as js-yaml counts). */
  readonly #roots: number[] = [];
  readonly #open: number[] = [];
  /**
   * The most nodes open at once: every collection of a value is a node open while its items
   * are read, so no value nests collections deeper than this (load.ts checks the values only
   * when it exceeds the limit).
   */
  deepest = 0;

  /** The js-yaml `listener` option: called when each node is opened and closed. */
  readonly listener = (event: 'open' | 'close', state: ParserState): void => {
    if (event === 'open') {
      const node = this.#count++;
      const open = this.#open;
      if (open.length === 0) this.#roots.push(node);
      this.#nodes.set(2 * node, this.base + state.position);
      this.#nodes.set(2 * node + 1, 2 * node);
      this.#value.push(undefined);
      open.push(node);
      if (open.length > this.deepest) this.deepest = open.length;
      return;
    }
    const node = this.#open.pop()!;
    const { input } = state;
    // Opened before any blank, comment or line end that precedes the content; an empty node
    // (`key:` and nothing) is where `yaml` puts its empty scalar: after the blanks on its line.
    const start = this.#nodes.get(2 * node) - this.base;
    this.#nodes.set(2 * node, this.base + (state.kind === null ? skipBlanks(input, start) : skipSpace(input, start)));
    const keyed = input.charCodeAt(skipBlanks(input, state.position)) === COLON ? 1 : 0;
    this.#nodes.set(2 * node + 1, 2 * (this.#count - 1) + keyed);
    if (typeof state.result === 'string') state.result = this.own(state.result);
    this.#value.set(node, state.result);
  };

  /**
   * A node opened by a reader other than js-yaml (simple-yaml.ts), at `offset` in the file's
   * text (its first character); its descendants follow, then `close`.
   */
  open(offset: number): number {
    const node = this.#count++;
    const open = this.#open;
    if (open.length === 0) this.#roots.push(node);
    this.#nodes.set(2 * node, offset);
    this.#nodes.set(2 * node + 1, 2 * node);
    this.#value.push(undefined);
    open.push(node);
    if (open.length > this.deepest) this.deepest = open.length;
    return node;
  }

  /** Closes the last node opened by `open`, with its value; `keyed` when it is the key of a pair. */
  close(value: unknown, keyed: boolean): void {
    const node = this.#open.pop()!;
    this.#nodes.set(2 * node + 1, 2 * (this.#count - 1) + (keyed ? 1 : 0));
    this.#value.set(node, value);
  }

  /** What `rollback` returns to: the nodes recorded so far. */
  mark(): NodeMark {
    return { count: this.#count, roots: this.#roots.length, deepest: this.deepest };
  }

  /** Forgets every node recorded since `mark` (a reader that gave up on a document). */
  rollback(mark: NodeMark): void {
    this.#count = mark.count;
    this.#roots.length = mark.roots;
    this.#open.length = 0;
    this.deepest = mark.deepest;
    this.#value.truncate(mark.count);
  }

  /**
   * A string value as it is kept: one that is long enough to be a slice of the text it was
   * cut from (`SLICE_MIN`) is copied out, a short one is shared with its earlier copies.
   */
  own(text: string): string {
    return text.length >= SLICE_MIN ? ownCopy(text) : this.#shared(text);
  }

  /** Short strings recently cut by `cut`, by a hash of their length and ends (see `cut`). */
  #recent: (string | undefined)[] = new Array<string | undefined>(RECENT_SLOTS);

  /**
   * `own(text.slice(start, stop))`, without cutting a short string that was cut recently: a
   * slot per hash of its length and first and last characters holds the last one cut, and a
   * comparison in place finds it again (keys and values such as `allow` recur in every
   * document; no string is made for them, and no map is searched).
   */
  cut(text: string, start: number, stop: number): string {
    const length = stop - start;
    if (length >= SLICE_MIN) return ownCopy(text.slice(start, stop));
    const slot = (length * 97 + text.charCodeAt(start) * 31 + text.charCodeAt(stop - 1)) & (RECENT_SLOTS - 1);
    const recent = this.#recent[slot];
    if (recent !== undefined && recent.length === length && text.startsWith(recent, start)) return recent;
    const cut = text.slice(start, stop);
    this.#recent[slot] = cut;
    return cut;
  }

  #startOf(node: number): number {
    return this.#nodes.get(2 * node);
  }

  #lastOf(node: number): number {
    return this.#nodes.get(2 * node + 1) >>> 1;
  }

  #keyed(node: number): boolean {
    return (this.#nodes.get(2 * node + 1) & 1) === 1;
  }

  /** Short strings already read in this file (bounded: emptied when full), see `#shared`. */
  #short = new Map<string, string>();

  /**
   * One string for each short value that recurs (`allow`, `deny`, a kind, a label value): V8
   * copies every short scalar js-yaml cuts out of the text, and a manifest of many rules would
   * keep one copy per rule. Emptied when it holds `SHORT_CACHE` strings, so unique values (a
   * CIDR per rule) cost at most that many entries while recurring ones are found again.
   */
  #shared(text: string): string {
    const known = this.#short.get(text);
    if (known !== undefined) return known;
    if (this.#short.size >= SHORT_CACHE) this.#short.clear();
    this.#short.set(text, text);
    return text;
  }

  /**
   * Gives back what the arrays hold beyond the recorded nodes (they grow by doubling), once
   * the parse is done: the positions of a large file are kept as long as its documents.
   */
  trim(): void {
    this.#nodes.trim(2 * this.#count);
    this.#value.trim();
    this.#short = new Map();
    this.#recent = new Array<string | undefined>(RECENT_SLOTS);
  }


  /**
   * The offset of the node at `path` in document `document` (js-yaml's index); the nearest
   * existing ancestor when the path does not exist. With `key`, the key of the last segment.
   */
  offset(document: number, path: NodePath, key = false): number {
    const root = this.#roots[document];
    if (root === undefined) return 0;
    let node: number | undefined = this.#unwrap(root);
    let at = this.#startOf(node);
    for (let i = 0; i < path.length && node !== undefined; i++) {
      const segment = path[i]!;
      const value = this.#value.get(node);
      if (Array.isArray(value)) {
        if (typeof segment !== 'number') break;
        const items = this.#children(node);
        // An empty item (`-` and nothing) has no node: the items cannot be matched by place.
        if (items.length !== value.length || items[segment] === undefined) break;
        node = this.#unwrap(items[segment]!);
        at = this.#startOf(node);
      } else if (value !== null && typeof value === 'object') {
        const pair = this.#pair(node, String(segment));
        if (!pair) break;
        if (key && i === path.length - 1) return this.#startOf(pair.key);
        node = pair.value === undefined ? undefined : this.#unwrap(pair.value);
        at = this.#startOf(node ?? pair.key);
      } else break;
    }
    return at;
  }

  #children(node: number): number[] {
    const children: number[] = [];
    for (let child = node + 1; child <= this.#lastOf(node); child = this.#lastOf(child) + 1) children.push(child);
    return children;
  }

  /**
   * The node that holds a collection's items. js-yaml reads a flow collection in block context
   * by first trying it as a key: the collection is then a node inside a node of the same value.
   */
  #unwrap(node: number): number {
    for (;;) {
      const value = this.#value.get(node);
      if (value === null || typeof value !== 'object') return node;
      const child = node + 1;
      if (child > this.#lastOf(node) || this.#lastOf(child) !== this.#lastOf(node) || this.#value.get(child) !== value) return node;
      node = child;
    }
  }

  /** The key node named `name` in a map, and its value node (none for `{a}` in flow style). */
  #pair(map: number, name: string): { key: number; value?: number } | undefined {
    const children = this.#children(map);
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      const value = this.#value.get(child);
      if (this.#keyed(child)) {
        const next = children[i + 1];
        const pairValue = next !== undefined && !this.#keyed(next) ? next : undefined;
        if (String(value) === name) return { key: child, value: pairValue };
        if (pairValue !== undefined) i++;
      } else if (value !== null && value !== undefined && String(value) === name) {
        // A flow key without a value (`{a, b: 1}`); an empty node here is a failed attempt.
        return { key: child };
      }
    }
    return undefined;
  }
}

const COLON = 0x3a;

/** Entries per page of `Pages` (a power of 2): 256 KiB of Int32Array. */
const PAGE_BITS = 16;
const PAGE = 1 << PAGE_BITS;

/**
 * A growable array of numbers kept in pages of `PAGE` entries: growing never copies more than
 * one page, and `trim` copies only the last one. A single array grown by doubling and cut to size
 * at the end leaves dead copies up to 3x the final size until the collector frees them, which was
 * a large part of a 50 MB manifest's peak memory. The first page starts small and doubles up to
 * `PAGE` (a small file costs little).
 */
/**
 * Each node's value, in pages of `PAGE` like `Pages`: each page is cut to size when it is full
 * (a bounded copy, instead of one array of every node copied at the end).
 */
class ValuePages {
  readonly #pages: unknown[][] = [[]];

  push(value: unknown): void {
    let last = this.#pages[this.#pages.length - 1]!;
    if (last.length === PAGE) {
      this.#pages[this.#pages.length - 1] = last.slice();
      this.#pages.push((last = []));
    }
    last.push(value);
  }

  get(index: number): unknown {
    return this.#pages[index >>> PAGE_BITS]![index & (PAGE - 1)];
  }

  set(index: number, value: unknown): void {
    this.#pages[index >>> PAGE_BITS]![index & (PAGE - 1)] = value;
  }

  /** Keeps the first `length` values only. */
  truncate(length: number): void {
    const pages = length === 0 ? 1 : ((length - 1) >>> PAGE_BITS) + 1;
    this.#pages.length = pages;
    this.#pages[pages - 1]!.length = length - (pages - 1) * PAGE;
  }

  /** Gives back what the last page holds beyond its values. */
  trim(): void {
    const last = this.#pages.length - 1;
    this.#pages[last] = this.#pages[last]!.slice();
  }
}

class Pages {
  #pages: Int32Array[] = [new Int32Array(256)];

  get(index: number): number {
    return this.#pages[index >>> PAGE_BITS]![index & (PAGE - 1)]!;
  }

  /** Sets entry `index`; entries are first set in order (each at most one past the last set). */
  set(index: number, value: number): void {
    const page = index >>> PAGE_BITS;
    let into = this.#pages[page];
    if (into === undefined) this.#pages.push((into = new Int32Array(PAGE)));
    else if (page === 0 && index >= into.length) {
      const grown = new Int32Array(Math.min(PAGE, into.length * 2));
      grown.set(into);
      this.#pages[0] = into = grown;
    }
    into[index & (PAGE - 1)] = value;
  }

  /** Gives back the room past the first `count` entries (the last page is cut to size). */
  trim(count: number): void {
    const pages = count === 0 ? 1 : ((count - 1) >>> PAGE_BITS) + 1;
    this.#pages.length = pages;
    const last = this.#pages[pages - 1]!;
    const used = count - (pages - 1) * PAGE;
    if (used < last.length) this.#pages[pages - 1] = last.slice(0, used);
  }
}

/**
 * A string of this length or more cut out of another is a slice in V8: a view that keeps the
 * whole text it was cut from alive. js-yaml cuts every scalar out of its own copy of the file,
 * so one long value kept (a description) would keep that copy (the size of the file) for as long
 * as the documents live; such values are copied out, and the parser reads the copy (the
 * listener runs before the parser takes `result`).
 */
const SLICE_MIN = 13;

/** How many distinct short strings a file's reading remembers at once (`NodePositions#shared`). */
const SHORT_CACHE = 4096;
/** Slots of `NodePositions#cut` (a power of 2). */
const RECENT_SLOTS = 1024;
/** A string of its own (flat, not a slice of another). */
const ownCopy = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

/** Past spaces and tabs. */
function skipBlanks(text: string, at: number): number {
  for (let c = text.charCodeAt(at); c === 0x20 || c === 0x09; c = text.charCodeAt(++at));
  return at;
}

/** Past blanks, line ends and comments. */
function skipSpace(text: string, at: number): number {
  for (;;) {
    const c = text.charCodeAt(at);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) at++;
    else if (c === 0x23) {
      const newline = text.indexOf('\n', at);
      if (newline < 0) return text.length;
      at = newline + 1;
    } else return at;
  }
}

/**
 * Line and column of offsets in one text, from a table of line starts (a scan for line ends,
 * not a parse), then a binary search per offset. The table is built at once and the text is
 * not kept: a document's positions must not hold its whole file in memory.
 */
export class LineIndex {
  readonly #starts: Int32Array;
  constructor(text: string) {
    this.#starts = lineStarts(text);
  }

  position(offset: number): { line: number; col: number } {
    const starts = this.#starts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, col: offset - starts[low]! + 1 };
  }
}

function lineStarts(text: string): Int32Array {
  let lines = 1;
  for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', newline + 1)) lines++;
  const starts = new Int32Array(lines);
  let line = 1;
  for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', newline + 1)) starts[line++] = newline + 1;
  return starts;
}
