import { describe, expect, test } from 'vitest';
import { exportFileOf, isExportablePath } from './paths.js';

describe('where export writes an object', () => {
  test('the file its marker records, relative to the output directory', () => {
    expect(exportFileOf('IPPolicy', 'manifests/access.yaml')).toBe('manifests/access.yaml');
    expect(exportFileOf('IPPolicy', 'ip.yml')).toBe('ip.yml');
  });

  test('without a recorded path, the file of its kind', () => {
    expect(exportFileOf('IPPolicy', undefined)).toBe('ip-policies.yaml');
    expect(exportFileOf('ReservedTCPAddress', undefined)).toBe('reserved-tcp-addresses.yaml');
  });

  test('an output directory under the repository root takes the paths recorded under it without its prefix', () => {
    expect(exportFileOf('IPPolicy', 'manifests/prod/access.yaml', 'manifests')).toBe('prod/access.yaml');
    expect(exportFileOf('IPPolicy', 'manifests/prod/access.yaml', 'manifests/')).toBe('prod/access.yaml');
    // A path elsewhere in the repository is kept whole, under the output directory.
    expect(exportFileOf('IPPolicy', 'other/access.yaml', 'manifests')).toBe('other/access.yaml');
    expect(exportFileOf('IPPolicy', 'manifestsx/a.yaml', 'manifests')).toBe('manifestsx/a.yaml');
  });

  test.each([
    '../../etc/cron.d/x.yaml',
    '/etc/passwd.yaml',
    'a/../../x.yaml',
    './x.yaml',
    'a//b.yaml',
    '.github/workflows/x.yaml',
    'node_modules/x.yaml',
    'C:/x.yaml',
    'a\\\\b.yaml',
    'a\nb.yaml',
    'x\u202e.yaml',
    'x.json',
    'x.yaml/',
    '',
    `${'a/'.repeat(600)}x.yaml`,
  ])('a recorded path that is not a plain relative YAML path load would read (%j) counts as none', (path) => {
    expect(isExportablePath(path)).toBe(false);
    expect(exportFileOf('IPPolicy', path)).toBe('ip-policies.yaml');
  });
});
