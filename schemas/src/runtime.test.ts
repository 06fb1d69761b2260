/**
 * What importing `@gatehouse/schemas/runtime` loads: no TypeBox schema (the plan path imports
 * only it). Run in a fresh process on the BUILT package, since what matters is what a real
 * start-up loads (`npm test` builds first). ES modules are seen through a loader hook.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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
