/** `--git-pull` against local repositories: a fast-forward, and a failure with its reason. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirForFile } from '../testing/temp-dir.js';
import { gitPull, repositoryDirectory } from './git.js';

const temp = tempDirForFile('gatehouse-git-');
const fresh = () => mkdtempSync(join(temp.path, 'case-'));

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' },
  }).trim();

/** An origin, a clone the watcher pulls, and a clone that pushes. */
function repositories() {
  const root = fresh();
  const origin = join(root, 'origin.git');
  git(root, 'init', '--bare', '--quiet', '-b', 'main', origin);
  const author = join(root, 'author');
  git(root, 'clone', '--quiet', origin, author);
  git(author, 'checkout', '--quiet', '-b', 'main');
  writeFileSync(join(author, 'a.yaml'), 'one\n');
  git(author, 'add', '.');
  git(author, 'commit', '--quiet', '-m', 'one');
  git(author, 'push', '--quiet', 'origin', 'main');
  const watched = join(root, 'watched');
  git(root, 'clone', '--quiet', '-b', 'main', origin, watched);
  return { author, watched };
}

describe('gitPull', () => {
  it('fast-forwards to what was pushed and says the commit', async () => {
    const { author, watched } = repositories();
    writeFileSync(join(author, 'a.yaml'), 'two\n');
    git(author, 'commit', '--quiet', '-am', 'two');
    git(author, 'push', '--quiet', 'origin', 'main');
    const result = await gitPull(watched);
    expect(result).toEqual({ ok: true, commit: git(author, 'rev-parse', '--short', 'HEAD') });
  });

  it("fails with git's reason when the pull cannot fast-forward (no merge is made)", async () => {
    const { author, watched } = repositories();
    writeFileSync(join(author, 'a.yaml'), 'two\n');
    git(author, 'commit', '--quiet', '-am', 'two');
    git(author, 'push', '--quiet', 'origin', 'main');
    writeFileSync(join(watched, 'a.yaml'), 'local\n');
    git(watched, 'commit', '--quiet', '-am', 'local');
    const head = git(watched, 'rev-parse', 'HEAD');
    const result = await gitPull(watched);
    expect(result.ok).toBe(false);
    expect(result.reason).toMatch(/fast-forward|diverg/i);
    expect(git(watched, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('finds the repository directory from the project file or the first path', async () => {
    const root = { path: fresh() };
    mkdirSync(join(root.path, 'manifests'));
    writeFileSync(join(root.path, 'manifests', 'a.yaml'), '');
    expect(await repositoryDirectory(join(root.path, 'gatehouse.yaml'), [])).toBe(root.path);
    expect(await repositoryDirectory(undefined, [join(root.path, 'manifests')])).toBe(join(root.path, 'manifests'));
    expect(await repositoryDirectory(undefined, [join(root.path, 'manifests', 'a.yaml')])).toBe(join(root.path, 'manifests'));
  });
});
