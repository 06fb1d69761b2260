/**
 * The README's shell blocks, run as a newcomer types them: every ```sh block is either run
 * (in README order, in one bash session, so an `export` carries over) or skipped for a stated
 * reason; a new block must be put in one list or the other. The session runs in a temporary
 * directory that holds `examples/` (a link to the repository's), so the embedded server's
 * database is its own, without CI set and without GATEHOUSE_* variables. `npx` runs the
 * clone's own node_modules/.bin (what npx does in a clone, minus any registry lookup) and
 * `npm` the clone's scripts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from './helpers/cli.js';

interface Block {
  section: string;
  line: number;
  commands: string[];
}

/** Blocks not run, by their section, and why. */
const SKIPPED: Record<string, string> = {
  Install: 'installs @gatehouse/cli from the npm registry and needs a real API',
  'Quick start (from a clone)': 'is `npm ci` and `npm test` themselves',
  'Drift and export': 'a recipe with placeholders (`manifests/`, `alert`)',
  'Stacks: one owner per object': 'recipes with placeholders (`manifests/`, `team-net/`, ids); test/stacks-e2e.test.ts and packages/engine/src/plan/stacks.test.ts run them',
  'The reference server: `gatehouse serve`': 'needs a running server and its $KEY',
};

/** Commands expected to fail, by a part of their text, with their exit code. */
const EXPECTED_EXIT: Record<string, number> = { 'validate examples/broken': 1 };

function shellBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let section = '';
  let current: Block | undefined;
  for (const [i, line] of markdown.split('\n').entries()) {
    if (current) {
      if (line.startsWith('```')) {
        blocks.push(current);
        current = undefined;
      } else current.commands.push(line);
      continue;
    }
    const heading = /^##+ (.*)$/.exec(line);
    if (heading && heading[0].startsWith('## ')) section = heading[1]!;
    if (line.trim() === '```sh') current = { section, line: i + 1, commands: [] };
  }
  return blocks;
}

const dir = tempDir('gatehouse-readme-');
afterAll(() => dir.cleanup());

describe('README command blocks', () => {
  const blocks = shellBlocks(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
  const run = blocks.filter((b) => !(b.section in SKIPPED));

  it('every shell block is run or skipped for a reason', () => {
    expect(run.map((b) => b.section)).toEqual(['Validate and plan', 'Apply', 'Apply']);
    for (const section of Object.keys(SKIPPED)) expect(blocks.some((b) => b.section === section), section).toBe(true);
  });

  it('the blocks run verbatim and do what their comments say', () => {
    symlinkSync(join(REPO_ROOT, 'examples'), join(dir.path, 'examples'));
    const lines = run.flatMap((b) => b.commands).filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
    const script = [
      `export PATH=${JSON.stringify(join(REPO_ROOT, 'node_modules/.bin'))}:"$PATH"`,
      'npx() { "$@"; }',
      `npm() { (cd ${JSON.stringify(REPO_ROOT)} && command npm "$@"); }`,
      ...lines.flatMap((l, i) => [l, `echo "@@ ${i} $?" >&2`]),
    ].join('\n');
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const name of Object.keys(env)) if (name.startsWith('GATEHOUSE_') || name === 'CI' || name.endsWith('_SECRET') || name.endsWith('_SECRET_KEY')) delete env[name];
    const result = spawnSync('bash', ['-c', script], { cwd: dir.path, env, encoding: 'utf8', timeout: 240_000 });
    const codes = new Map([...result.stderr.matchAll(/^@@ (\d+) (\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2])]));
    for (const [i, line] of lines.entries()) {
      const expected = Object.entries(EXPECTED_EXIT).find(([part]) => line.includes(part))?.[1] ?? 0;
      expect(codes.get(i), `${line}\n${result.stderr}`).toBe(expected);
    }
    // "right after: No changes."
    expect(result.stdout).toContain('No changes.');
  }, 300_000);
});
