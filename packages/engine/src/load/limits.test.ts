/** The hostile and odd inputs of `load` (files.ts, yaml-limits.ts): each is a problem at its place. */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { readUpTo } from './files.js';
import { load } from './documents.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'gatehouse-load-'));
const BOT = (name: string) => `kind: BotUser\nname: ${name}\nspec: {}\n`;
const names = (result: Awaited<ReturnType<typeof load>>) => result.documents.map((d) => (d.value as { name: string }).name);

test.each([
  ['an empty file', ''],
  ['only comments', '# nothing here\n# still nothing\n'],
  ['only document markers', '---\n---\n# comment\n---\n'],
])('files that hold no document (%s) are no_manifests, whatever the files', async (_, text) => {
  const dir = tempDir();
  writeFileSync(join(dir, 'a.yaml'), text);
  writeFileSync(join(dir, 'b.yml'), '---\n');
  const result = await load([dir]);
  expect(result.documents).toEqual([]);
  expect(result.problems.map((p) => p.code)).toEqual(['no_manifests']);
  expect(result.problems[0]!.message).toContain('hold no YAML document');
});

test('symbolic links to files and directories are followed; a loop is a warning, a dangling link a problem', async () => {
  const root = tempDir();
  const shared = join(root, 'shared');
  mkdirSync(shared);
  writeFileSync(join(shared, 'policies.yaml'), BOT('linked-dir'));
  writeFileSync(join(root, 'elsewhere.yaml.txt'), BOT('linked-file'));
  const repo = join(root, 'repo');
  mkdirSync(join(repo, 'sub'), { recursive: true });
  writeFileSync(join(repo, 'a.yaml'), BOT('a'));
  symlinkSync(shared, join(repo, 'shared'));
  symlinkSync(join(root, 'elsewhere.yaml.txt'), join(repo, 'file.yaml'));
  symlinkSync(repo, join(repo, 'sub', 'loop')); // back to an ancestor
  symlinkSync(join(repo, 'a.yaml'), join(repo, 'sub', 'again.yaml')); // a file reached twice: read once

  const result = await load([repo]);
  expect(result.problems).toEqual([]);
  expect(names(result).sort()).toEqual(['a', 'linked-dir', 'linked-file']);
  expect(result.warnings.map((w) => w.code)).toEqual(['symlink_loop']);
  expect(result.warnings[0]!.message).toContain(join(repo, 'sub', 'loop'));

  symlinkSync(join(root, 'gone'), join(repo, 'dangling.yaml'));
  const dangling = await load([repo]);
  expect(dangling.problems.map((p) => p.code)).toEqual(['path_unreadable']);
  expect(dangling.problems[0]!.message).toContain('dangling.yaml');
});

test('bytes that are not UTF-8 are a problem at their line and column, not a U+FFFD', async () => {
  const dir = tempDir();
  const text = Buffer.concat([Buffer.from('kind: IPPolicy\nname: caf\u00e9\nspec:\n  description: "na'), Buffer.from([0xef, 0xff]), Buffer.from('ve"\n')]);
  writeFileSync(join(dir, 'latin.yaml'), text);
  const result = await load([dir]);
  expect(result.documents).toEqual([]);
  expect(result.problems).toHaveLength(1);
  expect(result.problems[0]).toMatchObject({ code: 'not_utf8', at: { line: 4, col: 19 } });
  expect(result.problems[0]!.message).toContain('0xef');
  // UTF-16 (a byte-order mark) is refused the same way, at 1:1.
  writeFileSync(join(dir, 'latin.yaml'), Buffer.from('\ufeffkind: BotUser\n', 'utf16le'));
  expect((await load([dir])).problems[0]).toMatchObject({ code: 'not_utf8', at: { line: 1, col: 1 } });
});

test('an alias bomb is a problem at the alias that multiplies, not a ReferenceError', async () => {
  const dir = tempDir();
  const bomb = [
    'kind: IPPolicy',
    'name: bomb',
    'spec:',
    '  a: &a ["x","x","x","x","x","x","x","x","x"]',
    '  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
    '  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
    '  d: [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'bomb.yaml'), bomb);
  const result = await load([dir]);
  expect(result.problems).toHaveLength(1);
  expect(result.problems[0]).toMatchObject({ code: 'alias_limit', at: { file: expect.stringContaining('bomb.yaml'), line: 6, col: 10 } });
});

test('an alias without an anchor before it in its document is a problem at the alias, not a ReferenceError', async () => {
  const dir = tempDir();
  const text = ['kind: BotUser', 'name: a', 'spec: &bot {active: true}', '---', 'kind: BotUser', 'name: b', 'spec: *bot', ''].join('\n');
  writeFileSync(join(dir, 'aliases.yaml'), text);
  const result = await load([dir]);
  expect(names(result)).toEqual(['a']);
  expect(result.problems).toHaveLength(1);
  expect(result.problems[0]).toMatchObject({ code: 'yaml_syntax', at: { file: expect.stringContaining('aliases.yaml'), line: 7, col: 7 } });
  expect(result.problems[0]!.message).toContain('alias *bot names no anchor');
});

test('nesting deeper than 64 is a problem at the first collection too deep, in flow style (a million brackets: not parsed on) and block style', async () => {
  const dir = tempDir();
  const depth = 1_000_000;
  writeFileSync(join(dir, 'flow.yaml'), `kind: BotUser\nname: deep\nspec:\n  x: ${'['.repeat(depth)}${']'.repeat(depth)}\n`);
  let block = 'kind: BotUser\nname: deep2\nspec:\n';
  for (let i = 1; i <= 80; i++) block += `${'  '.repeat(i)}k${i}:\n`;
  writeFileSync(join(dir, 'block.yaml'), `${block}${'  '.repeat(81)}v: 1\n`);
  // Brackets in quoted and plain scalars and in comments do not count.
  writeFileSync(join(dir, 'quoted.yaml'), `kind: BotUser\nname: fine\nspec:\n  description: "${'['.repeat(100)}"  # ${'{'.repeat(100)}\n`);
  writeFileSync(join(dir, 'plain.yaml'), `kind: BotUser\nname: plain\nspec:\n  description: a${'['.repeat(100)}\n`);
  const result = await load([dir]);
  expect(names(result)).toEqual(['plain', 'fine']);
  const byFile = Object.fromEntries(result.problems.map((p) => [p.at!.file.replace(/.*\//, ''), p]));
  // At the 63rd bracket (column 6 holds the first): inside the document's mapping and spec's, it
  // opens the 65th collection.
  expect(byFile['flow.yaml']).toMatchObject({ code: 'nesting_too_deep', at: { line: 4, col: 6 + 62 } });
  expect(byFile['block.yaml']).toMatchObject({ code: 'nesting_too_deep', at: { line: 4 + 63 } });
  expect(byFile['flow.yaml']!.message).toContain('nested more than 64 deep');
});

test('a file over --max-file-size is refused before it is read', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'big.yaml'), `${BOT('big')}# ${'x'.repeat(4096)}\n`);
  writeFileSync(join(dir, 'small.yaml'), BOT('small'));
  const result = await load([dir], { maxFileSize: 1024 });
  expect(names(result)).toEqual(['small']);
  expect(result.problems).toHaveLength(1);
  expect(result.problems[0]).toMatchObject({ code: 'file_too_large', at: { line: 1, col: 1 } });
  expect(result.problems[0]!.message).toMatch(/4\.\d KiB, over the manifest size limit of 1\.0 KiB/);
  expect((await load([dir])).problems).toEqual([]);
});

test('a file without a size (a link to a device, a pipe) named on the command line is read only up to --max-file-size', async () => {
  const dir = tempDir();
  // /dev/zero never ends: read whole, it would take every byte of memory there is.
  symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
  const result = await load([join(dir, 'zero.yaml')], { maxFileSize: 64 * 1024 });
  expect(result.problems).toHaveLength(1);
  expect(result.problems[0]).toMatchObject({ code: 'file_too_large', at: { line: 1, col: 1 } });
  expect(result.problems[0]!.message).toMatch(/over the manifest size limit of 64\.0 KiB/);
});

test('readUpTo gives a file within the limit whole, and nothing for one over it, a device that never ends included', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'five.json'), '12345');
  expect((await readUpTo(join(dir, 'five.json'), 5))?.toString()).toBe('12345');
  expect(await readUpTo(join(dir, 'five.json'), 4)).toBeUndefined();
  expect((await readUpTo('/dev/null', 4))?.length).toBe(0);
  if (process.platform === 'linux') expect(await readUpTo('/dev/zero', 64 * 1024)).toBeUndefined();
});

test("a pipe named by its /proc or /dev/fd path (a shell's process substitution, <(...)) is read", async () => {
  if (process.platform !== 'linux') return;
  const { spawn } = await import('node:child_process');
  // `sleep` reads nothing: its standard input is a shell pipe holding one manifest, as `<(...)` gives.
  const holder = spawn('bash', ['-c', 'exec sleep 30 < <(printf %s "$DOC")'], { env: { ...process.env, DOC: BOT('piped') }, stdio: 'ignore' });
  try {
    const { readlinkSync } = await import('node:fs');
    const isPipe = () => {
      try {
        return readlinkSync(`/proc/${holder.pid}/fd/0`).startsWith('pipe:');
      } catch {
        return false;
      }
    };
    // Until bash has exec'ed sleep on the pipe (a few milliseconds).
    while (!isPipe()) await new Promise((resolve) => setImmediate(resolve));
    const result = await load([`/proc/${holder.pid}/fd/0`]);
    expect(result.problems).toEqual([]);
    expect(names(result)).toEqual(['piped']);
  } finally {
    holder.kill();
  }
});

test('a BotUser manifest may not take a lock name (gatehouse-lock.<stack>)', async () => {
  const { validateManifests } = await import('../engine.js');
  const dir = tempDir();
  writeFileSync(join(dir, 'bots.yaml'), BOT('gatehouse-lock.default'));
  const problems = await validateManifests({ paths: [dir], env: {} });
  expect(problems.map((p) => p.code)).toEqual(['invalid_value']);
  expect(problems[0]!.message).toContain('reserved for the lock');
});
