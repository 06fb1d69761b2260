/**
 * What `gatehouse --version`, `-v` and `gatehouse version` print. `--version` answers from
 * package.json alone (bin/run.js calls it before loading oclif, the slow part of start-up),
 * in oclif's own user-agent form; `gatehouse version` adds the git commit of the checkout the
 * CLI was built from, when it runs from one (never from a copy installed under node_modules,
 * whose enclosing repository is someone else's).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';

export interface VersionInfo {
  name: string;
  version: string;
  /** Full commit hash, or undefined when not running from a git checkout. */
  commit: string | undefined;
  node: string;
  platform: string;
  arch: string;
}

/** `@gatehouse/cli/0.1.0 linux-x64 node-v20.19.0`, exactly oclif's `config.userAgent`. */
export function userAgent(root: string): string {
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  const cpu = arch() === 'ia32' ? 'x86' : arch();
  return `${pjson.name}/${pjson.version} ${platform()}-${cpu} node-${process.version}`;
}

export function versionInfo(root: string): VersionInfo {
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  return { name: pjson.name, version: pjson.version, commit: gitCommit(root), node: process.version, platform: platform(), arch: arch() };
}

function gitCommit(root: string): string | undefined {
  if (root.split(/[\\/]/).includes('node_modules')) return undefined;
  try {
    const out = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
    return /^[0-9a-f]{40,64}$/.test(out.trim()) ? out.trim() : undefined;
  } catch {
    return undefined;
  }
}
