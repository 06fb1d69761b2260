#!/usr/bin/env node
/**
 * The README's main job: the whole GitOps loop of gatehouse on examples/basic.
 *
 *   1. validate the manifests (offline), with the example policies of examples/policies (CEL
 *      rules; one warning: an IP restriction that is not enforced)
 *   2. plan, then apply them against the embedded default (the reference server in-process
 *      over .gatehouse/server.db)
 *   3. plan again: no changes (exit 0 with --detailed-exitcode, or the demo fails)
 *   4. change an IP policy outside gatehouse, through the API of `gatehouse serve` on the same
 *      database, and run drift: exit 2, naming the object and field
 *   5. apply again to fix it, drift again: exit 0
 *   6. export the live configuration as manifests into .gatehouse/export
 *
 * The example's secrets come from the environment; unset ones get demo values here (never
 * printed by gatehouse). Exits non-zero at the first step that does not do what it should.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = fileURLToPath(new URL('../packages/cli/bin/run.js', import.meta.url));
const example = 'examples/basic';

const demoSecrets = ['OIDC_CLIENT_SECRET', 'GITHUB_WEBHOOK_SECRET', 'GITHUB_OAUTH_CLIENT_SECRET', 'AUDIT_STREAM_SECRET_KEY'];
const env = { ...process.env };
for (const name of demoSecrets) env[name] ??= `demo-${name.toLowerCase()}-${randomBytes(6).toString('hex')}`;
delete env.GATEHOUSE_API_URL;
delete env.GATEHOUSE_API_KEY;

function step(title) {
  console.log(`\n=== ${title}`);
}

/** Runs `gatehouse <args>`; fails the demo unless it exits with one of `expected`. */
function gatehouse(args, expected = [0], extraEnv = {}) {
  console.log(`$ gatehouse ${args.join(' ')}`);
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: root, env: { ...env, ...extraEnv }, stdio: 'inherit' });
  if (!expected.includes(result.status ?? -1)) {
    console.error(`\ndemo: 'gatehouse ${args.join(' ')}' exited ${result.status}, expected ${expected.join(' or ')}`);
    process.exit(1);
  }
  return result.status;
}

step('1. validate, with the example policies (one warning)');
gatehouse(['validate', example, '--policy', 'examples/policies']);

step('2. plan and apply against the embedded default (.gatehouse/server.db)');
// --embedded says so on purpose: in CI (CI set) gatehouse refuses to fall back to it silently.
gatehouse(['plan', example, '--detailed-exitcode', '--embedded', '--policy', 'examples/policies'], [0, 2]);
gatehouse(['apply', example, '--yes', '--prune', '--embedded']);

step('3. plan again: no changes');
gatehouse(['plan', example, '--detailed-exitcode', '--embedded'], [0]);

step('4. a change outside gatehouse, then drift');
const key = `demo-${randomBytes(12).toString('hex')}`;
const server = await startServe(key);
const api = { GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: key };
try {
  const policy = await changeOnePolicyOutside(server.url, key);
  console.log(`(changed the description of IP policy ${policy} through the API, as a person with curl would)`);
  gatehouse(['drift', example], [2], api);

  step('5. apply fixes it; drift is clean again');
  gatehouse(['apply', example, '--yes'], [0], api);
  gatehouse(['drift', example], [0], api);

  step('6. export the live configuration as manifests');
  gatehouse(['export', '--out', '.gatehouse/export', '--overwrite'], [0], api);
} finally {
  server.process.kill('SIGTERM');
}
console.log('\ndemo: the whole loop ran: validate, plan, apply, plan (no changes), drift (2), apply, drift (0), export.');

/** `gatehouse serve` on the same database, on a free port, with a known key. */
function startServe(apiKey) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--api-key', apiKey], { cwd: root, env });
    let out = '';
    // Without a terminal, serve logs JSON on stdout and says where it listens on stderr.
    const read = (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ url: match[1], process: child });
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => reject(new Error(`gatehouse serve exited ${code}: ${out}`)));
  });
}

/** Edits the first IP policy managed by gatehouse, outside gatehouse. */
async function changeOnePolicyOutside(url, apiKey) {
  const headers = { authorization: `Bearer ${apiKey}`, 'service-version': '2', 'content-type': 'application/json' };
  const list = await (await fetch(`${url}/ip_policies`, { headers })).json();
  const managed = list.ip_policies.find((p) => typeof p.metadata === 'string' && p.metadata.includes('gatehouse:v1'));
  if (!managed) throw new Error('no IP policy managed by gatehouse was found');
  const res = await fetch(`${url}/ip_policies/${managed.id}`, {
    method: 'PATCH',
    headers,
    body: JSON.stringify({ description: 'edited by hand in the console' }),
  });
  if (!res.ok) throw new Error(`PATCH failed: ${res.status} ${await res.text()}`);
  return managed.id;
}
