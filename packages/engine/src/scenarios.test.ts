/**
 * Golden plan tests: each folder of test-fixtures/scenarios holds manifests/*.yaml, live.json
 * (list path -> objects, oldest first, as the service renders them), an optional env.json and
 * stack.txt, and expected-plan.json (the plan, `created_at`, checksums and request count left out) or
 * expected-problems.json. Run with GATEHOUSE_UPDATE_GOLDEN=1 to rewrite the expected files
 * after a deliberate change, then review the diff.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { computePlan, ManifestProblems } from './index.js';
import { FakeLiveApi } from './testing/fake-api.js';

const root = fileURLToPath(new URL('../test-fixtures/scenarios/', import.meta.url));
const update = process.env.GATEHOUSE_UPDATE_GOLDEN === '1';
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as unknown;

describe('plan scenarios', () => {
  for (const name of readdirSync(root).sort()) {
    const dir = join(root, name);
    test(name, async () => {
      const api = new FakeLiveApi(read(join(dir, 'live.json')) as Record<string, Record<string, unknown>[]>);
      const env = existsSync(join(dir, 'env.json')) ? (read(join(dir, 'env.json')) as Record<string, string>) : {};
      const stack = existsSync(join(dir, 'stack.txt')) ? readFileSync(join(dir, 'stack.txt'), 'utf8').trim() : 'default';
      let actual: unknown;
      let file: string;
      try {
        const plan = await computePlan({ paths: [join(dir, 'manifests')], env, api, stack });
        // `requests` depends on how many collections the registered kinds read; it is checked
        // against the fake's own count here, and per collection in budget.test.ts.
        const { created_at: _time, manifest_checksum: checksum, manifest_files: files, requests, ...rest } = plan;
        expect(checksum).toMatch(/^[0-9a-f]{64}$/);
        expect(Object.values(files ?? {}).length).toBeGreaterThan(0);
        expect(requests).toBe(api.requestCount);
        actual = relativeSources(rest, dir);
        file = join(dir, 'expected-plan.json');
      } catch (error) {
        if (!(error instanceof ManifestProblems)) throw error;
        actual = relativeSources(error.problems, dir);
        file = join(dir, 'expected-problems.json');
      }
      if (update) writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
      expect(existsSync(file), `${file} is missing; run with GATEHOUSE_UPDATE_GOLDEN=1 and review it`).toBe(true);
      expect(actual).toEqual(read(file));
      // No secret from env.json reaches the plan.
      const text = JSON.stringify(actual);
      for (const secret of Object.values(env)) expect(text).not.toContain(secret);
    });
  }
});

/** Source paths relative to the scenario folder, so the golden files do not depend on the checkout. */
function relativeSources<T>(value: T, dir: string): T {
  const rel = relative(process.cwd(), dir);
  return JSON.parse(JSON.stringify(value).split(`${dir}/`).join('').split(`${rel}/`).join('')) as T;
}
