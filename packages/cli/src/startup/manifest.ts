/**
 * Keeps the CLI's `oclif.manifest.json` in step with the build, so that start-up imports only
 * the command being run (and nothing for `--version` and help).
 *
 * Without a manifest, oclif imports every command module at start-up to learn their flags, and
 * with them the engine, the client and the server. With one (the commands are found by the
 * `pattern` strategy over `dist/commands`), it imports just the command being run. A manifest
 * that no longer matches the build would show stale help, so it records a fingerprint of
 * `dist` (a digest of every built file's path and content) and package.json; `ensureManifest`
 * compares it on every start and writes a new manifest when it differs, loading every command
 * once. Content, not mtimes: npm pack and install rewrite mtimes, and an installed copy (often
 * read-only) must match the manifest it ships with. Reading and hashing every file costs some
 * 20-40 ms of every start, so the manifest also records the files' identities as the stat call
 * sees them (`filesFingerprint`: inode, size, mtime and ctime, which a rewrite always changes);
 * while they are the same, the content is not read. When they differ (an install, a copy) and
 * the content still matches, the new identities are recorded when the directory is writable.
 * Written atomically, so concurrent starts never see half a file. Nothing here imports oclif
 * unless the manifest has to be rebuilt.
 *
 * The manifest also says where oclif imports each command from: `dist-bundle/commands` while
 * the bundle is fresh (bundle.ts), `dist/commands` otherwise (`gatehouseBundle` records which;
 * the manifest is rewritten when that changes).
 */
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BUNDLE_DIR, bundleIsFresh } from './bundle.js';

/** node:crypto, loaded only when the files changed (some 4 ms of every start otherwise). */
const crypto = () => createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');

export const MANIFEST_FILE = 'oclif.manifest.json';

/** The relative paths the fingerprints cover: every built `.js` file, then package.json. */
function fingerprintedFiles(root: string): string[] {
  const files: string[] = [];
  const visit = (relativeDir: string) => {
    const entries = readdirSync(join(root, relativeDir), { withFileTypes: true });
    // Code-unit order: localeCompare would load ICU's collator, some 6 ms of every start.
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const relative = `${relativeDir}/${entry.name}`;
      if (entry.isDirectory()) visit(relative);
      else if (entry.name.endsWith('.js')) files.push(relative);
    }
  };
  visit('dist');
  files.push('package.json');
  return files;
}

/** SHA-256 over the relative path and content of every built file and of package.json. */
export function buildFingerprint(root: string, files = fingerprintedFiles(root)): string {
  const hash = crypto().createHash('sha256');
  for (const relative of files) {
    hash.update(`${relative}\0`);
    hash.update(readFileSync(join(root, relative)));
    hash.update('\0');
  }
  return `sha256:${hash.digest('hex')}`;
}

/**
 * The same files as the stat call sees them (path, inode, size, mtime, ctime): equal only while
 * no file was written, replaced, added or removed. No content is read.
 */
export function filesFingerprint(root: string, files = fingerprintedFiles(root)): string {
  return files
    .map((relative) => {
      const { ino, size, mtimeMs, ctimeMs } = statSync(join(root, relative));
      return `${relative}:${ino}:${size}:${mtimeMs}:${ctimeMs}`;
    })
    .join('|');
}

interface Recorded {
  manifest: Record<string, unknown>;
  build?: string;
  files?: string;
  bundled: boolean;
}

/**
 * The manifest with every command imported from `dist-bundle/commands` (bundled: `<name>.cjs`,
 * CommonJS, src/startup/bundle-modules.ts) or `dist/commands` (`<name>.js`): oclif imports a
 * command from its manifest entry's `relativePath`.
 */
export function commandsFrom(manifest: Record<string, unknown>, bundled: boolean): Record<string, unknown> {
  const commands = (manifest.commands ?? {}) as Record<string, { relativePath?: string[]; isESM?: boolean }>;
  const moved = Object.fromEntries(
    Object.entries(commands).map(([id, command]) => {
      const path = command.relativePath;
      if (!path || path.length !== 3 || (path[0] !== 'dist' && path[0] !== BUNDLE_DIR) || path[1] !== 'commands') return [id, command];
      const name = path[2]!.replace(/\.c?js$/, '');
      // oclif `import`s or `require`s a command as its entry's `isESM` says.
      return [id, { ...command, ...(bundled ? { relativePath: [BUNDLE_DIR, 'commands', `${name}.cjs`], isESM: false } : { relativePath: ['dist', 'commands', `${name}.js`], isESM: true }) }];
    }),
  );
  return { ...manifest, commands: moved, gatehouseBundle: bundled };
}

function recorded(root: string): Recorded | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(root, MANIFEST_FILE), 'utf8')) as Record<string, unknown>;
    return {
      manifest,
      ...(typeof manifest.gatehouseBuild === 'string' ? { build: manifest.gatehouseBuild } : {}),
      ...(typeof manifest.gatehouseFiles === 'string' ? { files: manifest.gatehouseFiles } : {}),
      bundled: manifest.gatehouseBundle === true,
    };
  } catch {
    return undefined;
  }
}

/** Writes the manifest atomically; false when the directory cannot be written. */
function writeManifest(path: string, manifest: Record<string, unknown>): boolean {
  const temp = `${path}.${crypto().randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(manifest, null, 2)}\n`);
    renameSync(temp, path);
    return true;
  } catch {
    rmSync(temp, { force: true });
    return false;
  }
}

/**
 * Makes `root/oclif.manifest.json` describe the current build. Returns true when it had to be
 * written. A package directory that cannot be written (an installed, read-only copy, which
 * ships its manifest) is left as it is: oclif then reads the commands itself.
 */
export async function ensureManifest(root: string): Promise<boolean> {
  const path = join(root, MANIFEST_FILE);
  let files: string[];
  let identities: string;
  try {
    files = fingerprintedFiles(root);
    identities = filesFingerprint(root, files);
  } catch {
    return false;
  }
  const bundled = bundleIsFresh(root);
  const before = recorded(root);
  if (before?.files === identities && before.build !== undefined) {
    // A bundle written or gone stale since: commands from the other directory.
    if (before.bundled !== bundled) writeManifest(path, commandsFrom(before.manifest, bundled));
    return false;
  }
  const fingerprint = buildFingerprint(root, files);
  if (before && before.build === fingerprint) {
    // Same content, files rewritten (an install, a copy): remember them, if this directory allows.
    writeManifest(path, { ...commandsFrom(before.manifest, bundled), gatehouseFiles: identities });
    return false;
  }
  const { Plugin } = await import('@oclif/core');
  const plugin = new Plugin({ root, isRoot: true, ignoreManifest: true, errorOnManifestCreate: true });
  await plugin.load();
  const manifest = commandsFrom(plugin.manifest as unknown as Record<string, unknown>, bundled);
  if (writeManifest(path, { ...manifest, gatehouseBuild: fingerprint, gatehouseFiles: identities })) return true;
  try {
    rmSync(path, { force: true });
  } catch {
    // Read-only: oclif will use what is there.
  }
  return false;
}
