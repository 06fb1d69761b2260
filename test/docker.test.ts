/**
 * The container image. Always: the Dockerfile's shape (multi-stage, a final stage that runs as
 * a non-root user with `gatehouse` as entrypoint, a Node that meets the packages' engines, an
 * install from the packed tarballs). Where a Docker engine answers `docker info`: the image is
 * built and run (`--version`, `validate` of a mounted example, its user); elsewhere that part
 * is skipped with a message saying so.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';
import { EXAMPLE_SECRETS } from './plan-fixtures.js';

const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
/** Instructions with continuation lines joined and comments removed. */
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));
const stages = instructions.reduce<string[][]>((all, line) => (line.startsWith('FROM ') ? [...all, [line]] : (all.at(-1)?.push(line), all)), []);

function dockerEngine(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

describe('Dockerfile', () => {
  it('is multi-stage; the final stage runs gatehouse as a non-root user', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const final = stages.at(-1)!;
    const user = final.filter((l) => l.startsWith('USER ')).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER (root|0)(:|$)/);
    expect(final.find((l) => l.startsWith('ENTRYPOINT '))).toMatch(/^ENTRYPOINT \["gatehouse"\]/);
    // No toolchain in the final image: it is only in the stages that compile.
    expect(final.join('\n')).not.toMatch(/g\+\+|build-essential/);
  });

  it('installs the packed tarballs, so the image holds what npm users get', () => {
    expect(dockerfile).toMatch(/npm pack --workspaces/);
    expect(dockerfile).toMatch(/npm install [^\n]*\/packs\/\*\.tgz/);
  });

  it('uses a Node that the packages support', () => {
    const image = /ARG NODE_IMAGE=node:(\d+)/.exec(dockerfile)?.[1];
    const engines = (JSON.parse(readFileSync(join(REPO_ROOT, 'packages/cli/package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(image).toBeDefined();
    expect(semver.satisfies(`${image}.99.0`, engines)).toBe(true);
  });
});

const engine = dockerEngine();
if (!engine) console.log('test/docker.test.ts: no Docker engine answers `docker info`; the image build and run are skipped');

describe.skipIf(!engine)('the image (built with the local Docker engine)', () => {
  const tag = `gatehouse-test:${process.pid}`;
  const docker = promisify(execFile);

  beforeAll(async () => {
    await docker('docker', ['build', '-t', tag, REPO_ROOT], { maxBuffer: 256 * 1024 * 1024 });
  }, 900_000);
  afterAll(async () => {
    await docker('docker', ['rmi', '-f', tag]).catch(() => undefined);
  });

  it('prints the version, runs as a non-root user and validates a mounted repository', async () => {
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'packages/cli/package.json'), 'utf8')) as { version: string }).version;
    expect((await docker('docker', ['run', '--rm', tag, '--version'])).stdout).toContain(version);
    expect((await docker('docker', ['run', '--rm', '--entrypoint', 'id', tag, '-u'])).stdout.trim()).not.toBe('0');
    const secrets = Object.entries(EXAMPLE_SECRETS).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
    const validate = await docker('docker', [
      'run',
      '--rm',
      ...secrets,
      '-v',
      `${join(REPO_ROOT, 'examples/basic')}:/work/manifests:ro`,
      tag,
      'validate',
      'manifests',
    ]);
    expect(validate.stderr).not.toMatch(/error/i);
  }, 120_000);
});
