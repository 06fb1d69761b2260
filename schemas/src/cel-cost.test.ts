/** The cost limits of CEL expressions, on event filters (policies: engine policy/policy-budget.test.ts). */
import { describe, expect, test } from 'vitest';
import { Environment } from '@marcbachmann/cel-js';
import { CEL_LIMITS, MAX_COMPREHENSION_NESTING, celCostProblem } from './cel-cost.js';
import { eventSourceProblems } from './event-sources.js';

const parse = (text: string) => new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false, limits: CEL_LIMITS }).parse(text).ast;
const nested = (depth: number) => {
  let body = 'x0 > 0';
  for (let i = depth - 1; i >= 0; i--) body = `l.all(x${i}, ${body})`;
  return body;
};

describe('celCostProblem', () => {
  test(`comprehensions nested up to ${MAX_COMPREHENSION_NESTING} deep pass; one more is refused at its position`, () => {
    expect(celCostProblem(parse(nested(MAX_COMPREHENSION_NESTING)))).toBeUndefined();
    const problem = celCostProblem(parse(nested(MAX_COMPREHENSION_NESTING + 1)));
    expect(problem?.message).toMatch(/^3 comprehensions \(all, exists, map, filter\.\.\.\) run inside one another here; at most 2 may/);
    expect(problem?.offset).toBe('l.all(x0, l.all(x1, '.length);
  });

  test('a chain of comprehensions is not nesting; every kind of comprehension counts', () => {
    expect(celCostProblem(parse('l.map(x, x).filter(y, y > 0).exists(z, z > 1).all(w, l.exists_one(v, v == w))'))).toBeUndefined();
    expect(celCostProblem(parse('l.exists(x, l.filter(y, l.exists(z, z == y)).size() > 0)'))?.offset).toBe('l.exists(x, l.filter(y, '.length);
    // Inside a receiver too: the receiver's own loops nest inside what contains the call.
    expect(celCostProblem(parse('l.all(a, l.all(b, l.map(c, c).size() > 0))'))).toBeDefined();
  });

  test('a list built inside the building of another is refused; a condition inside one is not', () => {
    expect(celCostProblem(parse('l.map(a, l.map(b, [a, b]))'))).toEqual({
      message: 'map() inside the map() of a list builds a list of lists; compute a condition inside (exists, all, size) instead',
      offset: 9,
    });
    expect(celCostProblem(parse('l.filter(a, l.map(b, b).size() > 0)'))?.message).toMatch(/^map\(\) inside the filter\(\)/);
    expect(celCostProblem(parse('l.map(a, l.exists(b, b == a))'))).toBeUndefined();
    expect(celCostProblem(parse('l.all(a, l.map(b, b + a).size() > 0)'))).toBeUndefined();
  });
});

describe('event filters', () => {
  const problem = (filter: string) => eventSourceProblems([{ type: 'http_request_complete.v0', filter }])[0];

  test('nine nested comprehensions are refused with the column of the third', () => {
    const filter = `[1].exists(a, ${nested(8).replace(/\bl\./g, '[1].')})`;
    expect(problem(filter)).toMatchObject({ field: 'sources[0].filter', column: '[1].exists(a, [1].all(x0, '.length + 1 });
  });

  test('a filter larger than the parser allows is refused, said in words', () => {
    const filter = Array.from({ length: 200 }, (_, i) => `ev.conn.server_port == ${i}`).join(' || ');
    expect(problem(filter)?.message).toMatch(/^not valid CEL at column \d+: the expression is too large \(more than 500 parts\)/);
  });
});
