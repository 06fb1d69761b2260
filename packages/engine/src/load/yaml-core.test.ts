import { describe, expect, it } from 'vitest';
import { CORE_SCALARS, resolvePlain } from './yaml-core.js';

/** The definition: the first core pattern that matches, else the string itself. */
const byEveryPattern = (text: string): unknown => {
  const scalar = CORE_SCALARS.find((s) => s.test.test(text));
  return scalar ? scalar.construct(text) : text;
};

describe('resolvePlain', () => {
  it('agrees with every core pattern tried in order, on words, numbers and their near misses', () => {
    const words = ['', '~', '~~', 'null', 'Null', 'NULL', 'nULL', 'nul', 'nulls', 'true', 'True', 'TRUE', 'tRUE', 'false', 'False', 'FALSE', 'fAlse', 'name', 'type', 'test', 'fals', 'n', 'N', 't', 'f', 'F', 'yes', 'no', 'on', 'off'];
    const numbers = ['0', '-0', '+1', '12', '0o17', '0x1F', '0x', '1.5', '.5', '-.5', '1e3', '1.0e-3', '.inf', '-.Inf', '+.INF', '.nan', '.NaN', '.NAN', '1.2.3', '10.0.0.0/8', '-', '+', '.', '-a'];
    const letters = 'nNtTfF~abyz';
    const random: string[] = [];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 3000; i++) {
      let text = letters[next() % letters.length]!;
      const length = next() % 6;
      for (let j = 0; j < length; j++) text += 'nulrtuefalsNULRTUEFALS~.0'[next() % 25];
      random.push(text);
    }
    for (const text of [...words, ...numbers, ...random]) expect([text, resolvePlain(text)]).toEqual([text, byEveryPattern(text)]);
  });
});
