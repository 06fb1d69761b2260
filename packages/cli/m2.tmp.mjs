import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
const cpu = (() => { let last = process.cpuUsage(); return (l) => { const c = process.cpuUsage(); console.log(l, ((c.user + c.system - last.user - last.system) / 1000).toFixed(2)); last = c; }; })();
const root = process.cwd();
cpu('start');
await import('node:crypto'); cpu('crypto');
const files = []; const visit = (d) => { for (const e of readdirSync(join(root, d), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) { const r = `${d}/${e.name}`; if (e.isDirectory()) visit(r); else if (e.name.endsWith('.js')) files.push(r); } }; visit('dist'); cpu('readdir');
const ids = files.map((r) => { const { ino, size, mtimeMs, ctimeMs } = statSync(join(root, r)); return `${r}:${ino}:${size}:${mtimeMs}:${ctimeMs}`; }).join('|'); cpu('stat');
const m = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')); cpu('json');
