/**
 * How a plain scalar resolves in `yaml`'s core schema (yaml/dist/schema/core), pattern for
 * pattern, in its order: null, bool, int, float, else the string itself. One table for both
 * fast readers: js-yaml's schema is built from it (fast-yaml.ts) and simple-yaml.ts resolves
 * with `resolvePlain`, so the two can never disagree.
 */
export const CORE_SCALARS: readonly { tag: string; test: RegExp; construct: (text: string) => unknown }[] = [
  { tag: 'null', test: /^(?:~|[Nn]ull|NULL)?$/, construct: () => null },
  { tag: 'bool', test: /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, construct: (s) => s[0] === 't' || s[0] === 'T' },
  {
    tag: 'int',
    test: /^(?:0o[0-7]+|[-+]?[0-9]+|0x[0-9a-fA-F]+)$/,
    construct: (s) => (s.startsWith('0o') ? parseInt(s.slice(2), 8) : s.startsWith('0x') ? parseInt(s.slice(2), 16) : parseInt(s, 10)),
  },
  {
    tag: 'float',
    test: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*))$/,
    construct: (s) => (s.slice(-3).toLowerCase() === 'nan' ? NaN : /inf$/i.test(s) ? (s[0] === '-' ? -Infinity : Infinity) : parseFloat(s)),
  },
];

/**
 * Whether a plain scalar starting with character code `c` may be other than a string: every
 * match of the null and bool patterns starts with one of `~nNtTfF`, every int or float with a
 * digit, `+`, `-` or `.`. Most scalars (names, CIDRs aside) are decided by this alone.
 */
function mayResolve(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e || c === 0x7e || c === 0x6e || c === 0x4e || c === 0x74 || c === 0x54 || c === 0x66 || c === 0x46
  );
}

/** The value of plain scalar `text` (the string itself when no core pattern matches). */
export function resolvePlain(text: string): unknown {
  let patterns = CORE_SCALARS.length;
  if (text.length > 0) {
    const c = text.charCodeAt(0);
    if (!mayResolve(c)) return text;
    // Starting with `~` or a letter, only null and bool can match (ints and floats start with a
    // digit, a sign or a dot), and only as `~` or a word of 4 or 5 letters: a key like `name`
    // or `type` is tested against those two patterns, not all four.
    if (c === 0x7e || c >= 0x41) {
      if (text.length !== 1 && text.length !== 4 && text.length !== 5) return text;
      patterns = 2;
    }
  }
  for (let i = 0; i < patterns; i++) {
    const scalar = CORE_SCALARS[i]!;
    if (scalar.test.test(text)) return scalar.construct(text);
  }
  return text;
}
