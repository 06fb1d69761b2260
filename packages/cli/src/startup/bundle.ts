/**
 * Whether the CLI runs its commands from `dist-bundle/` (scripts/bundle.mjs: the commands
 * bundled with the engine and the client, some 10 modules to load instead of about 200) or
 * from `dist/`.
 *
 * The bundle is used only while it is fresh: its `stamp.json` records the size and mtime of
 * the build information (`tsconfig.tsbuildinfo`) of every package bundled in, which `tsc -b`
 * rewrites whenever it emits that package; a build after the bundle was written (an edit,
 * then `npx tsc -b`) makes it stale, and dist/ is used until it is bundled again. An installed
 * copy ships the bundle without any build information (npm pack leaves it out): nothing can
 * have been rebuilt there, so its bundle is used. Where it was built, the node packages bundled
 * in (p-queue and its two dependencies) must also be the versions node_modules holds. Costs a
 * few stat calls and three small reads per start.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const BUNDLE_DIR = 'dist-bundle';

interface Stamp {
  buildInfo: Record<string, string | null>;
  /** Node packages bundled in, by version (scripts/bundle.mjs: NODE_BUNDLED). */
  packages?: Record<string, string | null>;
}

/**
 * The version of package `name` in the node_modules Node would find it in from `root` (null:
 * none). scripts/bundle.mjs records the bundled packages' versions with it.
 */
export function installedVersion(root: string, name: string): string | null {
  for (let dir = root; ; dir = dirname(dir)) {
    try {
      return (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string }).version ?? null;
    } catch {
      if (dir === dirname(dir)) return null;
    }
  }
}

/** `size:mtime` of a file as the stamp records it (scripts/bundle.mjs uses this), or null when it does not exist. */
export function identity(path: string): string | null {
  try {
    const { size, mtimeMs } = statSync(path);
    return `${size}:${mtimeMs}`;
  } catch {
    return null;
  }
}

/**
 * True when `root/dist-bundle` exists and every package bundled in is as it was built when
 * the bundle was written (or, in an installed copy, none has build information at all).
 */
export function bundleIsFresh(root: string): boolean {
  let stamp: Stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, BUNDLE_DIR, 'stamp.json'), 'utf8')) as Stamp;
  } catch {
    return false;
  }
  const recorded = Object.entries(stamp.buildInfo ?? {});
  if (recorded.length === 0) return false;
  const now = recorded.map(([file]) => identity(join(root, file)));
  if (now.every((id) => id === null)) return true;
  if (!recorded.every(([, id], i) => id !== null && now[i] === id)) return false;
  // Built here: node packages bundled in are those node_modules holds (an upgrade not bundled
  // again falls back to dist/, as an edit does).
  return Object.entries(stamp.packages ?? {}).every(([name, version]) => version !== null && installedVersion(root, name) === version);
}
