import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WRITE_ONLY } from '../kinds/write-only.js';
import { canonicalJson } from './canonical-json.js';

/** JSON.parse of canonical text gives back the value's JSON form, and key order never matters. */
describe('canonicalJson', () => {
  it('is the same text for the same content in any key order, and reads back as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        const reversed = JSON.parse(JSON.stringify(value), (_key, v: unknown) =>
          v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
        ) as unknown;
        expect(canonicalJson(reversed)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('sorts keys at every level and leaves out what has no JSON form', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, undefined, 'x'], c: null }, u: undefined, f: () => 1 })).toBe('{"a":{"c":null,"d":[1,null,"x"]},"b":1}');
    expect(canonicalJson({ x: -0, y: Number.NaN, z: Infinity, s: 'a"\n\u2028' })).toBe('{"s":"a\\"\\n\u2028","x":0,"y":null,"z":null}');
  });

  it('orders every key as a string, array-index keys included', () => {
    const value = { b: 1, 10: 'ten', 9: 'nine', a: [{ 2: 'two', '01': 'zero one' }] };
    expect(canonicalJson(value)).toBe('{"10":"ten","9":"nine","a":[{"01":"zero one","2":"two"}],"b":1}');
  });

  it('leaves out write-only fields (toJSON) and keeps dates as their JSON text', () => {
    const value = { secret: WRITE_ONLY, at: new Date(0), list: [WRITE_ONLY] };
    expect(canonicalJson(value)).toBe('{"at":"1970-01-01T00:00:00.000Z","list":[null]}');
  });

  it('refuses a circular value rather than hashing a placeholder', () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => canonicalJson(loop)).toThrow(TypeError);
  });
});
