/**
 * `gatehouse show PLAN.json` (the built CLI): a saved plan rendered in every format exactly as
 * plan printed it (text, Markdown, HTML) or as it was saved (JSON), with no request and no
 * manifest; and `plan --out` saves JSON only: a report name (`.html`, `.md`) is refused before
 * any request, pointing to show.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SECRETS } from './plan-fixtures.js';
import { REPO_ROOT, runCli, tempDir } from './helpers/cli.js';

let dir: ReturnType<typeof tempDir>;
/** Embedded server in the temporary directory; the examples' secrets set. */
const run = (args: string[]) => runCli(args, { cwd: dir.path, env: { ...EXAMPLE_SECRETS } });

beforeAll(() => {
  dir = tempDir('gatehouse-show-');
  cpSync(join(REPO_ROOT, 'examples/basic'), join(dir.path, 'manifests'), { recursive: true });
});
afterAll(() => dir?.cleanup());

describe('gatehouse show', () => {
  it('renders a saved plan in every format as plan printed it', async () => {
    const saved = join(dir.path, 'plan.json');
    const printed: Record<string, string> = {};
    for (const format of ['text', 'markdown', 'html']) {
      const plan = await run(['plan', 'manifests', '--format', format, '--out', 'plan.json']);
      expect(plan.code, plan.stderr).toBe(0);
      const shown = await run(['show', 'plan.json', '--format', format]);
      expect(shown.code, shown.stderr).toBe(0);
      // The same plan, rendered again from the file: what the reviewer sees is what apply --plan applies.
      expect(shown.stdout).toBe(plan.stdout);
      printed[format] = shown.stdout;
    }
    expect(printed.text).toMatch(/^gatehouse plan for .*, stack "default"\n/);
    expect(printed.markdown).toMatch(/^### gatehouse plan for /);
    expect(printed.html).toMatch(/^<!doctype html>/i);
    const json = await run(['show', 'plan.json', '--format', 'json']);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(readFileSync(saved, 'utf8')));
    // Secrets stay masked: the saved plan never held them.
    for (const secret of Object.values(EXAMPLE_SECRETS)) expect(Object.values(printed).join('') + json.stdout).not.toContain(secret);
    // No connection is needed: an unreachable API URL changes nothing.
    const offline = await runCli(['show', 'plan.json'], { cwd: dir.path, env: { GATEHOUSE_API_URL: 'http://127.0.0.1:9', GATEHOUSE_API_KEY: 'k' } });
    expect([offline.code, offline.stdout]).toEqual([0, (await run(['show', 'plan.json'])).stdout]);
  });

  it('says what is wrong with a file that is not a saved plan, exit 1', async () => {
    writeFileSync(join(dir.path, 'notes.json'), '{"hello": 1}');
    const missing = await run(['show', 'missing.json']);
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('cannot read the saved plan missing.json: ENOENT')]);
    const other = await run(['show', 'notes.json', '--format', 'json']);
    expect(other.code).toBe(1);
    expect(JSON.parse(other.stdout)).toMatchObject({
      error: { code: 'plan_file', message: expect.stringContaining('format_version undefined is not supported') },
    });
    const manifest = await run(['show', 'manifests/ip-policies.yaml']);
    expect([manifest.code, manifest.stderr]).toEqual([1, expect.stringContaining('not JSON')]);
  });
});

describe('plan --out names the saved plan, JSON whatever --format prints', () => {
  it.each([
    ['report.html', 'html', 'an HTML file'],
    ['plan.md', 'markdown', 'a Markdown file'],
  ])('refuses --out %s before any request, pointing to show', async (out, format, what) => {
    const result = await run(['plan', 'manifests', '--format', format, '--out', out]);
    expect(result.code).toBe(1);
    const saved = out.replace(/\.[a-z]+$/, '.json');
    expect(result.stderr).toContain(
      `--out ${out} names ${what}, but --out saves the plan as JSON (for apply --plan and show). Save it as ${saved} and render it with: gatehouse show ${saved} --format ${format} > ${out}. Nothing was sent.`,
    );
    expect(result.stdout).toBe('');
    expect(existsSync(join(dir.path, out))).toBe(false);
  });
});
