import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchMetadata, startServe, yamlDoc } from './support.mjs';
const work = '/tmp/gh-prof'; mkdirSync(join(work, 'm'), { recursive: true });
const KEY = 'user-bench-key-0123456789abcdef', STACK = 'bench';
const pad = (i) => String(i).padStart(5, '0');
const cidr = (i) => `10.${Math.floor(i / 250)}.${i % 250}.0/24`;
const meta = (name) => benchMetadata(STACK, name);
const scale = 500; const docs = [], jobs = [];
for (let i = 0; i < 3 * scale; i++) { const name = `policy-${pad(i)}`;
  docs.push(yamlDoc('IPPolicy', name, { description: `bench ${i}`, rules: [{ cidr: cidr(i), action: 'allow' }] }));
  jobs.push([{ method: 'POST', path: '/ip_policies', body: { description: `bench ${i}`, metadata: meta(name) } },
    { method: 'POST', path: '/ip_policy_rules', body: { ip_policy_id: '$0', cidr: cidr(i), action: 'allow', metadata: meta(`${name}/${cidr(i)}`) } }]); }
for (let i = 0; i < 2 * scale; i++) { docs.push(yamlDoc('BotUser', `bot-${pad(i)}`, { active: true })); jobs.push([{ method: 'POST', path: '/bot_users', body: { name: `bot-${pad(i)}`, active: true } }]); }
for (let i = 0; i < 2 * scale; i++) { const name = `backend-${pad(i)}`; docs.push(yamlDoc('Backend', name, { type: 'tunnel_group', labels: { app: name } }));
  jobs.push([{ method: 'POST', path: '/backends/tunnel_group', body: { labels: { app: name }, metadata: meta(name) } }]); }
writeFileSync(join(work, 'm', 'objects.yaml'), docs.join(''));
writeFileSync(join(work, 'jobs.json'), JSON.stringify(jobs));
const server = await startServe(join(work, 'db.sqlite'), KEY);
execFileSync(process.execPath, [new URL('./bare/write.mjs', import.meta.url).pathname, server.url, KEY, join(work, 'jobs.json')]);
writeFileSync(join(work, 'url'), server.url);
console.log(server.url);
