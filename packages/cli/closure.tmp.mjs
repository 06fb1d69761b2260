import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
const seen = new Map();
function visit(file) {
  if (seen.has(file)) return;
  let text; try { text = readFileSync(file, 'utf8'); } catch { return; }
  seen.set(file, text.length);
  if (/\.cjs$/.test(file) || (!/^\s*(import|export)/m.test(text))) return;
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gms)) {
    const spec = m[1] ?? m[2];
    if (spec.startsWith('node:')) continue;
    try { visit(createRequire(file).resolve(spec)); } catch (e) { }
  }
}
for (const f of process.argv.slice(2)) visit(resolve(f));
const eng = [...seen.keys()].filter((f) => f.includes('/engine/dist/'));
console.log('files', seen.size, 'engine files', eng.length, 'engine KB', (eng.reduce((a, f) => a + seen.get(f), 0) / 1024).toFixed(0));
if (process.env.LIST) console.log(eng.map((f) => f.replace(/.*engine\/dist\//, '')).join(' '));
