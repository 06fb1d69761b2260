/**
 * Importing @gatehouse/schemas loads no CEL parser: @bufbuild/cel (with its protobuf runtime)
 * is loaded at the first filter checked. Run in a fresh process on the BUILT package, since
 * what matters is what a real start-up loads (`npm test` builds first). ES modules are seen
 * through a loader hook, CommonJS ones through `require.cache`.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const built = fileURLToPath(new URL('../dist/index.js', import.meta.url));

const HOOKS = `data:text/javascript,${encodeURIComponent(`
  import { writeSync } from 'node:fs';
  export async function load(url, context, next) {
    if (url.includes('@bufbuild')) writeSync(1, 'esm-load ' + url + '\\n');
    return next(url, context);
  }`)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(HOOKS)});`)}`;

describe('lazy loading of @gatehouse/schemas', () => {
  it('loads @bufbuild/cel only when a filter is checked', () => {
    const script = `
      import { writeSync } from 'node:fs';
      import { createRequire } from 'node:module';
      const require = createRequire(${JSON.stringify(built)});
      const cjsLoaded = () => Object.keys(require.cache).some((path) => path.includes('@bufbuild'));
      const schemas = await import(${JSON.stringify(built)});
      writeSync(1, 'imported cjs=' + cjsLoaded() + '\\n');
      const problem = schemas.checkFilter('conn.client_ip == "1.2.3.4"', new Map([['conn.client_ip', { name: 'conn.client_ip', filterable: true }]]));
      writeSync(1, 'checked cjs=' + cjsLoaded() + ' problem=' + JSON.stringify(problem ?? null) + '\\n');`;
    const out = execFileSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', script], { encoding: 'utf8' });
    const lines = out.trim().split('\n');
    const imported = lines.indexOf('imported cjs=false');
    expect(imported, out).toBeGreaterThanOrEqual(0);
    expect(lines.slice(0, imported).filter((l) => l.startsWith('esm-load')), 'loaded at import').toEqual([]);
    expect(lines.at(-1)).toBe('checked cjs=true problem=null');
  });
});

describe('@gatehouse/schemas/runtime', () => {
  it('builds no schema: importing it loads no TypeBox (the plan path imports only it)', () => {
    const runtime = fileURLToPath(new URL('../dist/runtime.js', import.meta.url));
    const hooks = `data:text/javascript,${encodeURIComponent(`
      import { writeSync } from 'node:fs';
      export async function load(url, context, next) {
        if (url.includes('typebox')) writeSync(1, 'esm-load ' + url + '\\n');
        return next(url, context);
      }`)}`;
    const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hooks)});`)}`;
    const script = `const r = await import(${JSON.stringify(runtime)}); console.log('kinds=' + r.MANIFEST_KINDS.length + ' cidr=' + r.checkCidr('10.0.0.0/8').ok);`;
    const out = execFileSync(process.execPath, ['--import', register, '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(out.trim()).toBe('kinds=12 cidr=true');
  });

  it('names the same kinds and route modules as the schemas', async () => {
    const schemas = await import('./index.js');
    expect([...schemas.MANIFEST_KINDS]).toEqual(Object.keys(schemas.MANIFEST_SCHEMAS));
    expect([...schemas.ROUTE_MODULE_NAMES]).toEqual(Object.keys(schemas.ROUTE_MODULE_SCHEMAS));
  });
});
