/**
 * The shell blocks of README.md and of every page of docs/, run as a reader types them.
 *
 * - Each page is one bash session in a temporary directory of its own that holds `examples/` (a
 *   link to the repository's), so the embedded server's database is the page's own, an `export`
 *   or a `cd` carries over to the page's later blocks, and nothing is written into the
 *   repository. The session has no `CI` and no `GATEHOUSE_*` variable; `gatehouse` and `npx
 *   gatehouse` run the clone's build (npx is a shim that execs its arguments, as npx does in a
 *   clone, so `npx gatehouse serve &` and `kill %1` reach gatehouse itself).
 * - Every command must exit 0, unless its comment says `# exit N`.
 * - Ports 8400-8499 written in the blocks are replaced by free ports (and `GATEHOUSE_PORT` by the
 *   one standing for 8484, serve's default), so pages can start `gatehouse serve` while other
 *   tests run; after a command that starts a server in the background, the session waits until
 *   it listens. One server serves all the blocks of a page that start it once.
 * - A block marked ```` ```sh skip: REASON ```` is not run: it is reported as a skipped test
 *   with its reason. Skips are few: besides the CLI reference's examples, at most MAX_SKIPS.
 * - A ```` ```text output of: COMMAND ```` block must be what the first command of its page that
 *   starts with COMMAND printed (ports, ids and durations aside): captured output stays true.
 * - docs/manifests.md: the examples of "The kinds" validate together, as one repository.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { MANIFEST_KINDS } from '@gatehouse/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, tempDir } from './helpers/cli.js';

/** Skipped blocks allowed outside the generated CLI reference (docs/cli.md). */
const MAX_SKIPS = 8;
const SHELLS = new Set(['sh', 'bash', 'shell']);

interface Block {
  page: string;
  line: number;
  info: string;
  language: string;
  text: string;
}

/** Fenced blocks of a Markdown page (fences may be indented, inside a list item). */
function fencedBlocks(page: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, info] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.startsWith(`${indent}${fence}`)) body.push(lines[j++]!.slice(indent.length));
    const trimmed = info.trim();
    blocks.push({ page, line: i + 1, info: trimmed, language: trimmed.split(/\s+/)[0] ?? '', text: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** The commands of a shell block: continuation lines and heredocs joined; blank and comment lines left out. */
function commands(text: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let command = lines[i]!;
    if (command.trim() === '' || command.trim().startsWith('#')) continue;
    while (command.endsWith('\\') && i + 1 < lines.length) command += `\n${lines[++i]}`;
    const heredoc = /<<-?\s*'?(\w+)'?/.exec(command);
    if (heredoc) {
      while (i + 1 < lines.length) {
        command += `\n${lines[++i]}`;
        if (lines[i]!.trim() === heredoc[1]) break;
      }
    }
    out.push(command);
  }
  return out;
}

/** The exit code a command's comment promises (`# exit 2: ...`), 0 when it says none. */
const expectedExit = (command: string) => Number(/#[^'"\n]*\bexit (\d+)\b/.exec(command)?.[1] ?? 0);

/** Output as compared with a captured block: ports, ids and durations vary from run to run. */
const normalized = (text: string) =>
  text
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
    .replace(/\b[a-z]+_[A-Za-z0-9]{20,}\b/g, 'ID')
    .replace(/\b\d+(\.\d+)? m?s\b/g, 'TIME')
    .trimEnd();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const PAGES = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const blocksOf = new Map(PAGES.map((page) => [page, fencedBlocks(page, readFileSync(join(REPO_ROOT, page), 'utf8'))]));
const shellBlocks = [...blocksOf.values()].flat().filter((b) => SHELLS.has(b.language));
const skip = (b: Block) => /^\S+\s+skip:\s*(.*)$/.exec(b.info)?.[1];
const skipped = shellBlocks.filter((b) => skip(b) !== undefined);

/** The test's environment without CI, GATEHOUSE_* or secrets: what a reader's shell starts from. */
const readerEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
for (const name of Object.keys(readerEnv))
  if (name.startsWith('GATEHOUSE_') || name === 'CI' || /_(SECRET|SECRET_KEY|API_URL|API_KEY)$/.test(name)) delete readerEnv[name];

const work = tempDir('gatehouse-doc-blocks-');
const shim = join(work.path, 'bin');
afterAll(() => work.cleanup());
beforeAll(() => {
  mkdirSync(shim);
  writeFileSync(join(shim, 'npx'), '#!/bin/sh\nexec "$@"\n');
  chmodSync(join(shim, 'npx'), 0o755);
});

describe('the shell blocks of README.md and docs/', () => {
  it('mark every block that is not run with its reason, and only a few', () => {
    for (const b of shellBlocks) {
      const attributes = b.info.slice(b.language.length).trim();
      expect(attributes === '' || /^skip:\s*\S/.test(attributes), `${b.page}:${b.line}: "${b.info}": a shell block is run, or says "skip: REASON"`).toBe(true);
    }
    expect(skipped.filter((b) => b.page !== 'docs/cli.md').length).toBeLessThanOrEqual(MAX_SKIPS);
    // The blocks that run include the README's tour.
    expect(shellBlocks.filter((b) => b.page === 'README.md' && skip(b) === undefined).length).toBeGreaterThanOrEqual(4);
  });

  for (const b of skipped) it.skip(`${b.page}:${b.line} is not run: ${skip(b)}`, () => undefined);

  for (const page of PAGES) {
    const blocks = blocksOf.get(page)!;
    const run = blocks.filter((b) => SHELLS.has(b.language) && skip(b) === undefined);
    const captured = blocks.filter((b) => b.info.startsWith('text output of:'));
    if (run.length === 0) continue;
    it(`${page}: its blocks run and exit as their comments say`, async () => {
      const dir = join(work.path, page.replaceAll('/', '-'));
      mkdirSync(join(dir, 'out'), { recursive: true });
      symlinkSync(join(REPO_ROOT, 'examples'), join(dir, 'examples'));
      const texts = run.flatMap((b) => commands(b.text));
      const ports = new Map<string, number>();
      for (const number of new Set(['8484', ...texts.flatMap((t) => t.match(/\b84\d\d\b/g) ?? [])])) ports.set(number, await freePort());
      const lines = texts.map((t) => t.replace(/\b84\d\d\b/g, (n) => String(ports.get(n))));
      const script = [
        `export PATH=${JSON.stringify(`${shim}:${join(REPO_ROOT, 'node_modules/.bin')}`)}:"$PATH"`,
        `export GATEHOUSE_PORT=${ports.get('8484')}`,
        "trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT",
        ...lines.flatMap((line, i) => {
          const serving = /gatehouse serve\b[^\n]*&/.test(line) ? (/--port (\d+)/.exec(line)?.[1] ?? String(ports.get('8484'))) : undefined;
          return [
            `{ ${line}\n} > ${JSON.stringify(join(dir, 'out', String(i)))}`,
            `echo "@@ ${i} $?" >&2`,
            ...(serving ? [`for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/${serving}) 2>/dev/null && break; sleep 0.1; done`] : []),
          ];
        }),
      ].join('\n');
      const result = spawnSync('bash', ['-c', script], { cwd: dir, env: readerEnv, encoding: 'utf8', timeout: 240_000 });
      const codes = new Map([...result.stderr.matchAll(/^@@ (\d+) (\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2])]));
      const stdout = (i: number) => (existsSync(join(dir, 'out', String(i))) ? readFileSync(join(dir, 'out', String(i)), 'utf8') : '');
      for (const [i, text] of texts.entries()) {
        expect(codes.get(i), `${page}: ${text}\n--- its output:\n${stdout(i)}\n--- the session's stderr:\n${result.stderr.slice(-4000)}`).toBe(
          expectedExit(text),
        );
      }
      for (const block of captured) {
        const command = block.info.slice('text output of:'.length).trim();
        const i = texts.findIndex((t) => t.startsWith(command));
        expect(i, `${page}:${block.line}: no command of the page starts with "${command}"`).toBeGreaterThanOrEqual(0);
        expect(normalized(stdout(i)), `${page}:${block.line}: the output of "${command}" changed: update the block`).toBe(normalized(block.text));
      }
    }, 300_000);
  }

  it('docs/manifests.md: the examples of every kind validate together', () => {
    const markdown = readFileSync(join(REPO_ROOT, 'docs/manifests.md'), 'utf8');
    const kinds = fencedBlocks('docs/manifests.md', markdown.slice(markdown.indexOf('\n## The kinds')));
    const examples = kinds.filter((b) => b.language === 'yaml').map((b) => b.text);
    const declared = new Set(examples.flatMap((t) => [...t.matchAll(/^kind: (\w+)$/gm)].map((m) => m[1])));
    expect([...declared].sort(), 'one example of every kind').toEqual([...MANIFEST_KINDS].sort());
    const file = join(work.path, 'kinds.yaml');
    writeFileSync(file, examples.join('\n---\n'));
    const result = spawnSync(process.execPath, [CLI, 'validate', file], { encoding: 'utf8', env: readerEnv });
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });
});
