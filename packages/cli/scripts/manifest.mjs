#!/usr/bin/env node
/**
 * Writes `oclif.manifest.json`: every command's id, summary, flags and module path, so that a
 * start imports only the command being run (and nothing for help). This is what `oclif manifest`
 * writes, made with the same @oclif/core API: a `Plugin` of this package loaded without reading
 * any existing manifest. Run after `tsc -b` by `npm run build` (root) and by this package's
 * `prepack`; the CLI never writes it at run time. Written to a temporary file and renamed, so
 * that a CLI starting meanwhile reads the old manifest or the new one, never half of one.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { Plugin, settings } = createRequire(import.meta.url)('@oclif/core');
// The commands of dist/, as bin/run.js runs them, never the TypeScript sources.
settings.enableAutoTranspile = false;

const plugin = new Plugin({ root, type: 'core', isRoot: true, ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true });
await plugin.load();
const file = join(root, 'oclif.manifest.json');
const temp = `${file}.${process.pid}.tmp`;
writeFileSync(temp, `${JSON.stringify(plugin.manifest, null, 2)}\n`);
renameSync(temp, file);
console.log(`manifest: oclif.manifest.json written (${Object.keys(plugin.manifest.commands).length} commands)`);
