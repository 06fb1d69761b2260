/**
 * What a policy rule may cost: checked when it is loaded (size, comprehensions nested, lists
 * built inside lists), and bounded in time while it runs (per object, per run). Past either,
 * a problem at the rule's file:line, never a hang or a crash.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkManifests, computePlan } from '../engine.js';
import { ManifestProblems } from '../problems.js';
import { FakeLiveApi } from '../testing/fake-api.js';
import { loadPolicies } from './files.js';

const root = mkdtempSync(join(tmpdir(), 'gatehouse-policy-budget-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
/** A directory with manifests `m/` and policies `p/`, each one file. */
function project(manifest: string, policy: string): { manifests: string; policies: string } {
  const dir = join(root, `case-${n++}`);
  mkdirSync(join(dir, 'm'), { recursive: true });
  mkdirSync(join(dir, 'p'));
  writeFileSync(join(dir, 'm', 'm.yaml'), manifest);
  writeFileSync(join(dir, 'p', 'p.yaml'), policy);
  return { manifests: join(dir, 'm'), policies: join(dir, 'p') };
}

const TEN = '[1,2,3,4,5,6,7,8,9,10]';
const nested = (macro: 'all' | 'map', depth: number, inner: string) => {
  let body = inner;
  for (let i = depth - 1; i >= 0; i--) body = `${TEN}.${macro}(v${i}, ${body})`;
  return body;
};
const POLICY = 'kind: IPPolicy\nname: office\nspec:\n  description: office egress\n';
const rule = (name: string, require: string) => `- name: ${name}\n  kind: IPPolicy\n  require: ${JSON.stringify(require)}\n`;

describe('the cost of a rule, checked when it is loaded', () => {
  it('nine nested all() over ten items (10^9 steps) is refused at once, at the third comprehension', async () => {
    const started = Date.now();
    const { policies } = project(POLICY, rule('nine-all', nested('all', 9, 'v0 + v8 > 0')));
    const { problems, rules } = await loadPolicies([policies]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(rules).toEqual([]);
    expect(problems).toEqual([
      expect.objectContaining({ code: 'policy_expression', at: expect.objectContaining({ line: 3, col: 12 + 2 * `${TEN}.all(v0, `.length + 1 }) }),
    ]);
    expect(problems[0]!.message).toMatch(/^require: 3 comprehensions \(all, exists, map, filter\.\.\.\) run inside one another here; at most 2 may/);
  });

  it('nine nested map() (4 GB once) and a map inside a map are refused', async () => {
    const { policies } = project(
      POLICY,
      [rule('nine-map', `size(${nested('map', 9, '[v0, v1]')}) > 0`), rule('map-in-map', `size(${nested('map', 2, '[v0, v1]')}) > 0`)].join(''),
    );
    const { problems } = await loadPolicies([policies]);
    expect(problems.map((p) => [p.code, p.at?.line, p.message.split(' in "')[0]])).toEqual([
      ['policy_expression', 3, 'require: map() inside the map() of a list builds a list of lists; compute a condition inside (exists, all, size) instead'],
      ['policy_expression', 6, 'require: map() inside the map() of a list builds a list of lists; compute a condition inside (exists, all, size) instead'],
    ]);
  });

  it('an expression larger than the parser allows is refused, said in words', async () => {
    const huge = `size(policy.description) < 0${'+1'.repeat(300)}`;
    const { problems } = await loadPolicies([project(POLICY, rule('huge', huge)).policies]);
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'policy_expression',
        message: expect.stringMatching(/^require: the expression is too large \(more than 500 parts\); split it into several rules/),
      }),
    ]);
  });
});

describe('the time a rule may take, bounded while it runs', () => {
  // A regular expression that backtracks: 2^40 steps on this text.
  const backtracking = rule('backtracks', `('${'a'.repeat(40)}b').matches('^(a+)+$') || policy.description != ''`);

  it('past the budget of one object, validate reports the rule at its line and names the object; the rule is evaluated on no other', async () => {
    const { manifests, policies } = project(`${POLICY}---\n${POLICY.replace('name: office', 'name: lab')}`, backtracking);
    const started = Date.now();
    const { problems, policy } = await checkManifests({ paths: [manifests], policies: [policies], policyBudget: { perObjectMs: 100, perRunMs: 10_000 } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(policy).toEqual([]);
    expect(problems).toEqual([
      expect.objectContaining({ code: 'policy_budget', at: expect.objectContaining({ file: expect.stringMatching(/p\.yaml$/), line: 1, col: 3 }) }),
    ]);
    expect(problems[0]!.message).toMatch(
      /^policy rule "backtracks" ran longer than 100 ms on IPPolicy\/office \(.*m\.yaml:1:1\) and was stopped, and not evaluated on other objects; nothing was checked in full/,
    );
  });

  it('a plan whose rule runs out is not made: the problem is thrown before anything is shown', async () => {
    const { manifests, policies } = project(POLICY, backtracking);
    const planned = computePlan({
      paths: [manifests],
      policies: [policies],
      api: new FakeLiveApi({}),
      stack: 'default',
      policyBudget: { perObjectMs: 100, perRunMs: 10_000 },
    });
    await expect(planned).rejects.toBeInstanceOf(ManifestProblems);
    await expect(planned).rejects.toThrow(/policy rule "backtracks" ran longer than 100 ms on IPPolicy\/office/);
  });

  it('past the budget of the run, evaluation stops there and says where', async () => {
    const two = `${POLICY}---\n${POLICY.replace('name: office', 'name: lab')}`;
    const { manifests, policies } = project(two, backtracking);
    const { problems } = await checkManifests({ paths: [manifests], policies: [policies], policyBudget: { perObjectMs: 5_000, perRunMs: 150 } });
    expect(problems).toEqual([expect.objectContaining({ code: 'policy_budget' })]);
    expect(problems[0]!.message).toMatch(/^the policy rules ran longer than 0\.15 s in all and were stopped at rule "backtracks" on IPPolicy\/office/);
  });

  it('cheap rules on many objects are within the default budget', async () => {
    const many = Array.from({ length: 500 }, (_, i) => POLICY.replace('name: office', `name: p${i}`)).join('---\n');
    const { manifests, policies } = project(many, rule('described', `policy.description.matches('^[a-z ]+$') && ${TEN}.all(a, ${TEN}.exists(b, b == a))`));
    const { problems, policy } = await checkManifests({ paths: [manifests], policies: [policies] });
    expect(problems).toEqual([]);
    expect(policy).toEqual([]);
  });
});
