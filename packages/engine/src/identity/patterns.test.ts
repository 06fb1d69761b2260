import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WRITE_ONLY } from '../kinds/write-only.js';
import { canonicalJson, canonicalJsonByReplacer } from './patterns.js';

describe('canonicalJson', () => {
  it('is the text of its definition (JSON.stringify with sorted maps) for any value', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withObjectString: true, withBoxedValues: false, withBigInt: false, withMap: false, withSet: false, withDate: true, withTypedArray: true, withSparseArray: true }), (value) => {
        expect(canonicalJson(value)).toBe(canonicalJsonByReplacer(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('sorts keys at every level and leaves out what has no JSON form', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, undefined, 'x'], c: null }, u: undefined, f: () => 1 })).toBe('{"a":{"c":null,"d":[1,null,"x"]},"b":1}');
    expect(canonicalJson({ x: -0, y: Number.NaN, z: Infinity, s: 'a"\n\u2028' })).toBe(canonicalJsonByReplacer({ x: -0, y: Number.NaN, z: Infinity, s: 'a"\n\u2028' }));
  });

  it('orders array-index keys as the definition does (numerically, first)', () => {
    const value = { b: 1, 10: 'ten', 9: 'nine', a: [{ 2: 'two', '01': 'zero one' }] };
    expect(canonicalJson(value)).toBe(canonicalJsonByReplacer(value));
    expect(canonicalJson(value)).toBe('{"9":"nine","10":"ten","a":[{"2":"two","01":"zero one"}],"b":1}');
  });

  it('leaves out write-only fields (toJSON) and keeps dates as their JSON text', () => {
    const value = { secret: WRITE_ONLY, at: new Date(0), list: [WRITE_ONLY] };
    expect(canonicalJson(value)).toBe(canonicalJsonByReplacer(value));
    expect(canonicalJson(value)).toBe('{"at":"1970-01-01T00:00:00.000Z","list":[null]}');
  });
});
