/**
 * The reader of the plain YAML that manifests are nearly always written in, for the fast path
 * of `load` (fast-yaml.ts): one document at a time, its values built and the positions of its
 * nodes recorded (node-positions.ts) in one pass over the file's text, with no copy of the text
 * and no parser state per node. It is several times faster than js-yaml with its listener.
 *
 * It reads only what it can read exactly as `yaml` does, and gives up on a document
 * otherwise (`false`: the caller forgets what it recorded and reads the document with
 * js-yaml, which gives up in its turn on what it cannot read exactly). What it reads:
 * - a document: blank and comment lines, an optional `---` line (a comment may follow it), and
 *   a block mapping; or no content at all (an empty document, as js-yaml counts them);
 * - block mappings of `key: value` lines and block sequences of `- item` lines (items may be a
 *   compact mapping, `- key: value`; a mapping's value may be a sequence at the key's indent);
 * - keys: plain or quoted scalars on one line that read as strings (no duplicates);
 * - values on one line: plain scalars (resolved with `yaml`'s core schema, fast-yaml.ts's
 *   `resolvePlain`), double-quoted scalars whose escapes are JSON's, single-quoted scalars,
 *   and flow collections (`{a: 1, b: [x, "y"]}`).
 * Everything else (tabs, carriage returns, block scalars, multi-line scalars or flow
 * collections, empty items or flow values, explicit keys, a byte order mark, non-printable
 * characters, keys that are not strings, `__proto__`) is left to js-yaml.
 *
 * Positions are the ones the js-yaml listener records (and so `yaml`'s): a node starts at its
 * first character; an empty value where its line's blanks after the `:` end; a key is marked
 * as such. The node tests compare both readers path by path.
 */
import type { NodePositions } from './node-positions.js';
import { resolvePlain } from './yaml-core.js';

const SPACE = 0x20;
const NEWLINE = 0x0a;
const HASH = 0x23;
const COLON = 0x3a;
const DASH = 0x2d;
const COMMA = 0x2c;
const DOUBLE = 0x22;
const SINGLE = 0x27;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** What js-yaml refuses anywhere in a document (its PATTERN_NON_PRINTABLE). */
const NON_PRINTABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;
/** Characters this reader never reads (tabs, carriage returns, a byte order mark). */
const NOT_READ = /[\t\r\uFEFF]/;
/** A `\u` escape of a surrogate half: `yaml` and JSON.parse may not agree on it. */
const SURROGATE_ESCAPE = /\\u[dD][89abAB]/;

/**
 * Whether the documents of `text` may be read by `readSimpleDocument` at all: it holds none
 * of what this reader never reads, nor what js-yaml refuses anywhere (non-printable characters:
 * the file then goes to `yaml`, which reports them). Checked once per file.
 */
export const readsSimply = (text: string): boolean => !NOT_READ.test(text) && !NON_PRINTABLE.test(text);

/** Thrown (and caught at the document) when the document is not one this reader reads. */
const GIVE_UP = new Error('not read by simple-yaml');
/**
 * Thrown when the file must be read by `yaml` itself: a quoted scalar continued on a line that
 * is not indented past its block collection, which `yaml` refuses and js-yaml reads.
 */
const TO_YAML = new Error('for yaml');

/** A value read, and where reading goes on. */
let end = 0;

/**
 * Reads the document written in `text` from `start` to `to` (a `---` line starts it, or the
 * file does), recording its nodes in `nodes` (offsets in `text`) and pushing its values (none,
 * or one) onto `values`. False, with nothing pushed but possibly nodes recorded (the caller
 * rolls them back), when it is not a document this reader reads; `'yaml'` when the file must be
 * read by `yaml` (see `Reader#continued`).
 */
export function readSimpleDocument(text: string, start: number, to: number, nodes: NodePositions, values: unknown[]): boolean | 'yaml' {
  const reader = new Reader(text, to, nodes);
  try {
    let at = start;
    let marked = false;
    if (text.startsWith('---', at)) {
      marked = true;
      at = reader.lineRest(at + 3);
    }
    at = reader.contentLine(at);
    if (at >= to) {
      // No content: after a `---`, an empty document (js-yaml records one node, where its input
      // ends); without one, js-yaml decides (blank lines are no document, comments one).
      if (!marked) return false;
      nodes.open(to);
      nodes.close(null, false);
      values.push(null);
      return true;
    }
    const value = reader.blockMapping(at, at - reader.lineStart(at));
    if (reader.contentLine(end) < to) return false;
    values.push(value);
    return true;
  } catch (error) {
    if (error === GIVE_UP) return false;
    if (error === TO_YAML) return 'yaml';
    throw error;
  }
}

class Reader {
  constructor(
    readonly text: string,
    readonly to: number,
    readonly nodes: NodePositions,
  ) {}

  /** The indentation of the block collection whose value or item is being read. */
  blockIndent = 0;

  /**
   * A quoted scalar continues past the line end at `newline`: js-yaml reads it whatever the
   * indentation of the lines that continue it, `yaml` refuses a line not indented past the
   * block collection it is in. Such a line before the one that closes the quote (`quote`)
   * sends the file to `yaml` (which reports it); otherwise the document is js-yaml's.
   */
  continued(newline: number, quote: string): never {
    const { text, to } = this;
    for (let start = newline + 1; start < to; ) {
      let at = start;
      while (text.charCodeAt(at) === SPACE) at++;
      const end = text.indexOf('\n', at);
      const lineEnd = end < 0 || end > to ? to : end;
      if (at < lineEnd && at - start <= this.blockIndent) throw TO_YAML;
      if (text.slice(at, lineEnd).includes(quote)) break;
      start = lineEnd + 1;
    }
    throw GIVE_UP;
  }

  lineStart(at: number): number {
    return this.text.lastIndexOf('\n', at - 1) + 1;
  }

  /**
   * Past blank and comment lines from the line start `at`: the first character of the next line
   * with content (after its indentation), or `to`.
   */
  contentLine(at: number): number {
    const { text, to } = this;
    while (at < to) {
      let c = text.charCodeAt(at);
      while (c === SPACE) c = text.charCodeAt(++at);
      if (at >= to) return to;
      if (c === NEWLINE) {
        at++;
        continue;
      }
      if (c === HASH) {
        const newline = text.indexOf('\n', at);
        if (newline < 0 || newline >= to) return to;
        at = newline + 1;
        continue;
      }
      return at;
    }
    return to;
  }

  /**
   * The rest of a line from `at` must hold only blanks and a comment (after a blank); the
   * start of the next line.
   */
  lineRest(at: number): number {
    const { text, to } = this;
    const from = at;
    while (text.charCodeAt(at) === SPACE) at++;
    if (at >= to) return to;
    const c = text.charCodeAt(at);
    if (c === NEWLINE) return at + 1;
    if (c !== HASH || at === from) throw GIVE_UP;
    const newline = text.indexOf('\n', at);
    return newline < 0 || newline >= to ? to : newline + 1;
  }

  /** The indentation of the line whose content starts at `at`. */
  indentOf(at: number): number {
    return at - this.lineStart(at);
  }

  /** Whether `at` starts a sequence entry: `-` then a space or the line's end. */
  isEntry(at: number): boolean {
    if (this.text.charCodeAt(at) !== DASH) return false;
    const next = this.text.charCodeAt(at + 1);
    return next === SPACE || next === NEWLINE || at + 1 >= this.to;
  }

  /**
   * A block mapping whose first key starts at `at` (not necessarily at the start of its line:
   * `- key: value`), the others at column `indent`. `end` is set to the start of the first
   * content line after it (or `to`).
   */
  blockMapping(at: number, indent: number): Record<string, unknown> {
    const { text, nodes, to } = this;
    const map: Record<string, unknown> = {};
    nodes.open(at);
    for (;;) {
      const key = this.key(at, false);
      let next = end; // just past the `:`
      if (Object.prototype.hasOwnProperty.call(map, key) || key === '__proto__') throw GIVE_UP;
      let value: unknown;
      let c = text.charCodeAt(next);
      if (c !== SPACE && c !== NEWLINE && next < to) throw GIVE_UP; // `"a":b`
      let valueAt = next;
      while (c === SPACE) c = text.charCodeAt(++valueAt);
      if (valueAt >= to || c === NEWLINE || (c === HASH && valueAt > next)) {
        // The value starts on a later line, or is empty.
        const line = this.contentLine(this.lineRest(next));
        const deeper = line < to ? this.indentOf(line) : -1;
        if (deeper > indent && this.isEntry(line)) value = this.blockSequence(line, deeper);
        else if (deeper > indent) value = this.blockMapping(line, deeper);
        else if (deeper === indent && this.isEntry(line)) value = this.blockSequence(line, deeper);
        else {
          nodes.open(valueAt);
          nodes.close(null, false);
          value = null;
          end = line;
        }
      } else {
        this.blockIndent = indent;
        value = this.inline(valueAt, false);
        const line = this.contentLine(this.lineRest(end));
        if (line < to && this.indentOf(line) > indent) throw GIVE_UP; // a scalar continued, or a stray line
        end = line;
      }
      map[key] = value;
      next = end;
      if (next >= to) break;
      const column = this.indentOf(next);
      if (column < indent) break;
      if (column > indent || this.isEntry(next)) throw GIVE_UP; // `a: b` then `- c`
      at = next;
    }
    nodes.close(map, false);
    return map;
  }

  /** A block sequence whose first `-` is at `at`, the others at column `indent`. */
  blockSequence(at: number, indent: number): unknown[] {
    const { text, nodes, to } = this;
    const items: unknown[] = [];
    nodes.open(at);
    for (;;) {
      this.blockIndent = indent;
      let itemAt = at + 1;
      while (text.charCodeAt(itemAt) === SPACE) itemAt++;
      const c = text.charCodeAt(itemAt);
      let item: unknown;
      if (itemAt >= to || c === NEWLINE || c === HASH) {
        // The item starts on a later line (an empty item has no node in js-yaml: given up).
        const line = this.contentLine(this.lineRest(at + 1));
        if (line >= to || this.indentOf(line) <= indent) throw GIVE_UP;
        const deeper = this.indentOf(line);
        item = this.isEntry(line) ? this.blockSequence(line, deeper) : this.blockMapping(line, deeper);
      } else if (this.isEntry(itemAt)) {
        throw GIVE_UP; // `- - x`
      } else if (this.startsKey(itemAt)) {
        item = this.blockMapping(itemAt, itemAt - this.lineStart(itemAt));
      } else {
        item = this.inline(itemAt, false);
        const line = this.contentLine(this.lineRest(end));
        if (line < to && this.indentOf(line) > indent) throw GIVE_UP;
        end = line;
      }
      items.push(item);
      const next = end;
      if (next >= to || this.indentOf(next) !== indent || !this.isEntry(next)) {
        if (next < to && this.indentOf(next) > indent) throw GIVE_UP;
        break;
      }
      at = next;
    }
    nodes.close(items, false);
    return items;
  }

  /** Whether the line from `at` is a `key: ...` entry (a key then a `:` and a blank or the end). */
  startsKey(at: number): boolean {
    const { text, to } = this;
    const c = text.charCodeAt(at);
    if (c === DOUBLE || c === SINGLE) {
      const close = c === DOUBLE ? this.doubleQuotedEnd(at) : this.singleQuotedEnd(at);
      let after = close;
      while (text.charCodeAt(after) === SPACE) after++;
      return text.charCodeAt(after) === COLON;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) return false;
    for (let i = at; i < to; i++) {
      const d = text.charCodeAt(i);
      if (d === NEWLINE) return false;
      if (d === COLON) {
        const e = text.charCodeAt(i + 1);
        if (e === SPACE || e === NEWLINE || i + 1 >= to) return true;
      } else if (d === HASH && text.charCodeAt(i - 1) === SPACE) return false;
    }
    return false;
  }

  /**
   * A key at `at` and its `:` (`end` is set just past the `:`), recorded as a key node; a
   * string. In flow context a quoted key may be followed by `:` with no blank.
   */
  key(at: number, flow: boolean): string {
    const { text, nodes } = this;
    const c = text.charCodeAt(at);
    let key: string;
    let after: number;
    if (c === DOUBLE || c === SINGLE) {
      key = c === DOUBLE ? this.doubleQuoted(at) : this.singleQuoted(at);
      after = end;
      while (text.charCodeAt(after) === SPACE) after++;
      if (text.charCodeAt(after) !== COLON) throw GIVE_UP;
    } else {
      const stop = this.plainEnd(at, flow, true);
      if (text.charCodeAt(stop) !== COLON && text.charCodeAt(stop) !== SPACE) throw GIVE_UP;
      after = stop;
      while (text.charCodeAt(after) === SPACE) after++;
      if (text.charCodeAt(after) !== COLON) throw GIVE_UP;
      key = nodes.cut(text, at, stop);
      if (resolvePlain(key) !== key) throw GIVE_UP; // a key that is not a string (`1:`, `true:`)
    }
    nodes.open(at);
    nodes.close(key, true);
    end = after + 1;
    return key;
  }

  /**
   * A value written on one line at `at`: a scalar or a flow collection, recorded; `end` is set
   * just past it.
   */
  inline(at: number, flow: boolean): unknown {
    const { text, nodes } = this;
    const c = text.charCodeAt(at);
    let value: unknown;
    if (c === DOUBLE) value = this.doubleQuoted(at);
    else if (c === SINGLE) value = this.singleQuoted(at);
    else if (c === OPEN_BRACE) return this.flowMapping(at);
    else if (c === OPEN_BRACKET) return this.flowSequence(at);
    else {
      const stop = this.plainEnd(at, flow, false);
      if (stop === at) throw GIVE_UP;
      value = resolvePlain(nodes.cut(text, at, stop));
      end = stop;
    }
    nodes.open(at);
    nodes.close(value, false);
    return value;
  }

  /**
   * Where a plain scalar starting at `at` ends (trailing blanks excluded): at a `: ` (or `:` at
   * the line's end; in flow context also before a flow indicator), at ` #`, at the line's end,
   * and in flow context at `,[]{}`. Gives up on what cannot start a plain scalar, and on a
   * value (not a key) in block context that holds a `: `.
   */
  plainEnd(at: number, flow: boolean, isKey: boolean): number {
    const { text, to } = this;
    const first = text.charCodeAt(at);
    if (INDICATOR[first] === 1) throw GIVE_UP;
    if (first === DASH || first === COLON || first === 0x3f /* ? */) {
      const next = text.charCodeAt(at + 1);
      if (next === SPACE || next === NEWLINE || at + 1 >= to || (flow && FLOW_STOP[next] === 1)) throw GIVE_UP;
    }
    let i = at;
    let last = at; // past the last non-blank character
    for (; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c === NEWLINE) break;
      if (c === SPACE) continue;
      if (c === HASH && text.charCodeAt(i - 1) === SPACE) break;
      if (c === COLON) {
        const next = text.charCodeAt(i + 1);
        if (next === SPACE || next === NEWLINE || i + 1 >= to || (flow && FLOW_STOP[next] === 1)) {
          if (!isKey && !flow) throw GIVE_UP; // `a: b: c`
          break;
        }
      }
      if (flow && FLOW_STOP[c] === 1) break;
      last = i + 1;
    }
    return last;
  }

  /** Whether the last double-quoted scalar measured by `doubleQuotedEnd` holds a backslash. */
  escaped = false;

  /** Index of the closing quote of the double-quoted scalar at `at`; gives up past the line. */
  doubleQuotedEnd(at: number): number {
    const { text, to } = this;
    this.escaped = false;
    for (let i = at + 1; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c === DOUBLE) return i;
      if (c === BACKSLASH) {
        this.escaped = true;
        i++;
      } else if (c === NEWLINE) this.continued(i, '"');
    }
    throw GIVE_UP;
  }

  /**
   * A double-quoted scalar with JSON's escapes only; `end` is set past its closing quote.
   * Without a backslash it is the text between the quotes (non-printable characters, tabs and
   * line ends, which JSON refuses, never reach here).
   */
  doubleQuoted(at: number): string {
    const { text, nodes } = this;
    const close = this.doubleQuotedEnd(at);
    end = close + 1;
    if (!this.escaped) return nodes.cut(text, at + 1, close);
    const quoted = text.slice(at, close + 1);
    if (SURROGATE_ESCAPE.test(quoted)) throw GIVE_UP;
    let value: string;
    try {
      value = JSON.parse(quoted) as string;
    } catch {
      throw GIVE_UP;
    }
    // JSON.parse makes a string of its own: only a short one is shared.
    return value.length >= 13 ? value : nodes.cut(value, 0, value.length);
  }

  singleQuotedEnd(at: number): number {
    const { text, to } = this;
    for (let i = at + 1; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c === SINGLE) {
        if (text.charCodeAt(i + 1) !== SINGLE) return i;
        i++;
      } else if (c === NEWLINE) this.continued(i, "'");
    }
    throw GIVE_UP;
  }

  /** A single-quoted scalar (`''` is a quote); `end` is set past its closing quote. */
  singleQuoted(at: number): string {
    const close = this.singleQuotedEnd(at);
    end = close + 1;
    const inner = this.nodes.cut(this.text, at + 1, close);
    return inner.includes("''") ? this.nodes.own(inner.replaceAll("''", "'")) : inner;
  }

  /** Past blanks on the line (a flow collection is on one line here). */
  blanks(at: number): number {
    while (this.text.charCodeAt(at) === SPACE) at++;
    return at;
  }

  /** `{key: value, ...}` on one line; `end` is set past the `}`. */
  flowMapping(at: number): Record<string, unknown> {
    const { text, nodes } = this;
    const map: Record<string, unknown> = {};
    nodes.open(at);
    let i = this.blanks(at + 1);
    if (text.charCodeAt(i) !== CLOSE_BRACE) {
      for (;;) {
        const c = text.charCodeAt(i);
        if (c === CLOSE_BRACE || c === COMMA) throw GIVE_UP;
        const key = this.key(i, true);
        // A plain key's `:` is followed by a blank (`{a:b}` is one scalar to YAML).
        if (c !== DOUBLE && c !== SINGLE && text.charCodeAt(end) !== SPACE) throw GIVE_UP;
        if (Object.prototype.hasOwnProperty.call(map, key) || key === '__proto__') throw GIVE_UP;
        i = this.blanks(end);
        const v = text.charCodeAt(i);
        if (v === COMMA || v === CLOSE_BRACE || v === NEWLINE || i >= this.to) throw GIVE_UP; // an empty value
        map[key] = this.inline(i, true);
        i = this.blanks(end);
        const d = text.charCodeAt(i);
        if (d === CLOSE_BRACE) break;
        if (d !== COMMA) throw GIVE_UP;
        i = this.blanks(i + 1);
      }
    }
    end = i + 1;
    nodes.close(map, false);
    return map;
  }

  /** `[item, ...]` on one line; `end` is set past the `]`. */
  flowSequence(at: number): unknown[] {
    const { text, nodes } = this;
    const items: unknown[] = [];
    nodes.open(at);
    let i = this.blanks(at + 1);
    if (text.charCodeAt(i) !== CLOSE_BRACKET) {
      for (;;) {
        const c = text.charCodeAt(i);
        if (c === CLOSE_BRACKET || c === COMMA || c === NEWLINE || i >= this.to) throw GIVE_UP;
        items.push(this.inline(i, true));
        i = this.blanks(end);
        const d = text.charCodeAt(i);
        if (d === CLOSE_BRACKET) break;
        if (d !== COMMA) throw GIVE_UP;
        i = this.blanks(i + 1);
      }
    }
    end = i + 1;
    nodes.close(items, false);
    return items;
  }
}

/** Characters that cannot start a plain scalar (`-`, `?`, `:` are checked with what follows). */
const INDICATOR = new Uint8Array(128);
for (const c of ',[]{}#&*!|>\'"%@`') INDICATOR[c.charCodeAt(0)] = 1;
/** Flow indicators: they end a plain scalar in a flow collection. */
const FLOW_STOP = new Uint8Array(128);
for (const c of ',[]{}') FLOW_STOP[c.charCodeAt(0)] = 1;
