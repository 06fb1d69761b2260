/**
 * The generated pages of docs/ are current: the CLI reference (docs/cli.md) and the table of
 * flags of docs/configuration.md are what `npm run docs` writes from the commands' definitions
 * now, and every GATEHOUSE_* variable the packages read is on the configuration page.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';

const GENERATOR = join(REPO_ROOT, 'packages/cli/scripts/docs.mjs');

describe('generated documentation', () => {
  it('docs/cli.md and the flags of docs/configuration.md are what npm run docs writes', () => {
    const result = spawnSync(process.execPath, [GENERATOR, '--check'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
  });

  it('the CLI reference has a section per command, with its flags', () => {
    const page = readFileSync(join(REPO_ROOT, 'docs/cli.md'), 'utf8');
    for (const command of ['apply', 'completion', 'drift', 'export', 'help', 'plan', 'render', 'serve', 'unlock', 'validate', 'version']) {
      expect(page, command).toContain(`## gatehouse ${command}\n`);
    }
    expect(page).toMatch(/\| `--stack=<value>` \| `GATEHOUSE_STACK` \| `default` \|/);
  });

  it('names every GATEHOUSE_* variable that the packages read', () => {
    const page = readFileSync(join(REPO_ROOT, 'docs/configuration.md'), 'utf8');
    // Reads of the environment (`env.X`, `env['X']`) and flags' variables (`env: 'X'`) in shipped
    // sources; variables of tests only (golden files, property seeds) are not configuration.
    const reads = execFileSync(
      'git',
      [
        'grep',
        '-hoE',
        "(env(\\.|\\[')|env: ')GATEHOUSE_[A-Z_]+",
        '--',
        'packages/*/src/*.ts',
        'packages/*/src/**/*.ts',
        'schemas/src/**/*.ts',
        ':!*.test.ts',
        ':!**/testing/**',
      ],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    const read = [
      ...new Set(
        reads
          .split('\n')
          .filter(Boolean)
          .map((r) => r.replace(/^.*?(GATEHOUSE_)/, '$1')),
      ),
    ].sort();
    expect(read.length).toBeGreaterThan(10);
    expect(read.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });
});
