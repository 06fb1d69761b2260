/**
 * The test fixtures' `# yaml-language-server: $schema=...` lines point at published JSON
 * Schemas that exist, so editors opening the fixtures validate them.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const FIXTURES = fileURLToPath(new URL('../test-fixtures', import.meta.url));

test('every $schema reference in the fixtures names an existing schema file', () => {
  const files = readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' }).filter((f) => /\.ya?ml$/.test(f));
  const references = files.flatMap((file) => {
    const match = /^#\s*yaml-language-server:\s*\$schema=(\S+)/m.exec(readFileSync(join(FIXTURES, file), 'utf8'));
    return match ? [{ file, target: resolve(dirname(join(FIXTURES, file)), match[1]!) }] : [];
  });
  expect(references.length).toBeGreaterThan(0);
  for (const { file, target } of references) expect(existsSync(target), `${file} -> ${target}`).toBe(true);
});
