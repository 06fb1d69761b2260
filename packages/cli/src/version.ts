/**
 * What `gatehouse --version`, `-v` and `gatehouse version` print. `--version` answers from
 * package.json alone (bin/run.js calls it before loading oclif), in oclif's own user-agent
 * form. `gatehouse version` adds the git commit the CLI was built from:
 * - a packed copy (the registry's, a release tarball) reads it from `build-info.json`, which
 *   packing writes (scripts/build-info.mjs); when that could not know the commit, the file says
 *   why, and so does `gatehouse version`;
 * - a checkout asks git (`git rev-parse HEAD` in the package directory);
 * - a copy under node_modules without that file (packed with `--ignore-scripts`) has no commit:
 *   the enclosing repository, if any, is someone else's, and the answer says so.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';

export interface VersionInfo {
  name: string;
  version: string;
  /** Full commit hash, or null when it cannot be known (`commitUnknown` says why). */
  commit: string | null;
  /** Why `commit` is null; absent when it is known. */
  commitUnknown?: string;
  node: string;
  platform: string;
  arch: string;
}

const COMMIT = /^[0-9a-f]{40,64}$/;

/** `@gatehouse/cli/0.1.0 linux-x64 node-v20.19.0`, exactly oclif's `config.userAgent`. */
export function userAgent(root: string): string {
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  const cpu = arch() === 'ia32' ? 'x86' : arch();
  return `${pjson.name}/${pjson.version} ${platform()}-${cpu} node-${process.version}`;
}

export function versionInfo(root: string): VersionInfo {
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  const { commit, reason } = builtFrom(root);
  return {
    name: pjson.name,
    version: pjson.version,
    commit,
    ...(reason ? { commitUnknown: reason } : {}),
    node: process.version,
    platform: platform(),
    arch: arch(),
  };
}

/** The commit of the CLI at `root`, or null with the reason. */
function builtFrom(root: string): { commit: string | null; reason?: string } {
  const recorded = readBuildInfo(root);
  if (recorded) return recorded;
  if (root.split(/[\\/]/).includes('node_modules')) {
    return { commit: null, reason: 'this installed copy has no build-info.json (it was packed without its prepack script, e.g. npm pack --ignore-scripts)' };
  }
  try {
    const out = execFileSync('git', ['-C', root, 'rev-parse', '--verify', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    }).trim();
    if (COMMIT.test(out)) return { commit: out };
  } catch {
    // Not a checkout, or no git: said below.
  }
  return { commit: null, reason: 'not run from a git checkout (or git is not installed), and no build-info.json was packed with it' };
}

/** `build-info.json` as packing wrote it, or undefined when there is none (a checkout). */
function readBuildInfo(root: string): { commit: string | null; reason?: string } | undefined {
  let text: string;
  try {
    text = readFileSync(join(root, 'build-info.json'), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const info = JSON.parse(text) as { commit?: unknown; reason?: unknown };
    if (typeof info.commit === 'string' && COMMIT.test(info.commit)) return { commit: info.commit };
    return { commit: null, reason: typeof info.reason === 'string' && info.reason ? info.reason : 'build-info.json records no commit' };
  } catch {
    return { commit: null, reason: 'build-info.json is not valid JSON' };
  }
}
