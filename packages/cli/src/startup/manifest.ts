/**
 * Keeps the CLI's `oclif.manifest.json` in step with the build, so that start-up imports only
 * the command being run (and nothing for `--version` and help).
 *
 * Without a manifest, oclif imports every command module at start-up to learn their flags, and
 * with them the engine, the client and the server. With one (the commands are found by the
 * `pattern` strategy over `dist/commands`), it imports just the command being run. A manifest
 * that no longer matches the build would show stale help, so it records a fingerprint of
 * `dist` (a digest of every built file's path and content) and package.json; `ensureManifest`
 * compares it on every start (a few dozen small reads) and writes a new manifest when it
 * differs, loading every command once. Content, not mtimes: npm pack and install rewrite
 * mtimes, and an installed copy (often read-only) must match the manifest it ships with. Written atomically, so concurrent starts never see half a file. Nothing here
 * imports oclif unless the manifest has to be rebuilt.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const MANIFEST_FILE = 'oclif.manifest.json';

/** SHA-256 over the relative path and content of every built file and of package.json. */
export function buildFingerprint(root: string): string {
  const hash = createHash('sha256');
  const add = (relative: string) => {
    hash.update(`${relative}\0`);
    hash.update(readFileSync(join(root, relative)));
    hash.update('\0');
  };
  const visit = (relativeDir: string) => {
    const entries = readdirSync(join(root, relativeDir), { withFileTypes: true });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const relative = `${relativeDir}/${entry.name}`;
      if (entry.isDirectory()) visit(relative);
      else if (entry.name.endsWith('.js')) add(relative);
    }
  };
  visit('dist');
  add('package.json');
  return `sha256:${hash.digest('hex')}`;
}

function recordedFingerprint(root: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(root, MANIFEST_FILE), 'utf8')) as { gatehouseBuild?: unknown };
    return typeof manifest.gatehouseBuild === 'string' ? manifest.gatehouseBuild : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes `root/oclif.manifest.json` describe the current build. Returns true when it had to be
 * written. A package directory that cannot be written (an installed, read-only copy, which
 * ships its manifest) is left as it is: oclif then reads the commands itself.
 */
export async function ensureManifest(root: string): Promise<boolean> {
  let fingerprint: string;
  try {
    fingerprint = buildFingerprint(root);
  } catch {
    return false;
  }
  if (recordedFingerprint(root) === fingerprint) return false;
  const { Plugin } = await import('@oclif/core');
  const plugin = new Plugin({ root, isRoot: true, ignoreManifest: true, errorOnManifestCreate: true });
  await plugin.load();
  const manifest = { ...plugin.manifest, gatehouseBuild: fingerprint };
  const path = join(root, MANIFEST_FILE);
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(manifest, null, 2)}\n`);
    renameSync(temp, path);
  } catch {
    rmSync(temp, { force: true });
    try {
      rmSync(path, { force: true });
    } catch {
      // Read-only: oclif will use what is there.
    }
    return false;
  }
  return true;
}
