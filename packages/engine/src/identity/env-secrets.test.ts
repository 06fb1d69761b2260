/**
 * Values from the environment are secret by default: wherever a manifest value came from
 * `${env:NAME}`, every output (plan in every format, saved plan, problems, policy results,
 * markers, export, apply's errors) shows `(sensitive: env NAME)`; gatehouse.yaml can declare a
 * variable plain; the CLI's own credentials can never be interpolated; names never come from a
 * secret.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { applyPlan } from '../apply/apply.js';
import { MemoryLiveApi } from '../apply/memory-api.js';
import { checkManifests, computePlan, readManifests } from '../engine.js';
import { exportLive } from '../export/export.js';
import { ManifestProblems } from '../problems.js';
import { renderHtml } from '../render/html.js';
import { renderJson } from '../render/json.js';
import { renderMarkdown } from '../render/markdown.js';
import { renderText } from '../render/text.js';
import type { Plan } from '../plan-model.js';
import { parseMarker } from './marker.js';

const SECRET = 'sk_live_0123456789abcdef';
const ROTATED = 'sk_live_fedcba9876543210';

function dir(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-env-secrets-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

const POLICY = `kind: IPPolicy
name: office
spec:
  description: "key=\${env:OFFICE_TOKEN}"
  metadata: \${env:REGION}
  rules:
    - {cidr: 10.0.0.0/8, action: allow, description: "\${env:OFFICE_TOKEN}"}
---
kind: Backend
name: web
spec:
  type: tunnel_group
  labels: {token: "\${env:OFFICE_TOKEN}", region: "\${env:REGION}"}
`;

/** Every rendering of a plan, and the saved plan. */
const outputs = (plan: Plan) => [renderText(plan), renderJson(plan), renderMarkdown(plan), renderHtml(plan)];

describe('a value from the environment', () => {
  test('is shown as (sensitive: env NAME) in every format; a variable declared plain is shown', async () => {
    const api = new MemoryLiveApi();
    const plan = await computePlan({
      paths: [dir({ 'm.yaml': POLICY })],
      env: { OFFICE_TOKEN: SECRET, REGION: 'eu-west-1' },
      api,
      stack: 'default',
      envVariables: { REGION: { secret: false } },
    });
    const office = plan.changes.find((c) => c.address === 'IPPolicy/office')!;
    expect(office.after).toEqual({ description: '(sensitive: env OFFICE_TOKEN)', metadata: 'eu-west-1' });
    expect(plan.changes.find((c) => c.address === 'IPPolicyRule/office/10.0.0.0/8')!.after).toMatchObject({ description: '(sensitive: env OFFICE_TOKEN)' });
    expect(plan.changes.find((c) => c.address === 'Backend/web')!.after).toMatchObject({
      labels: { token: '(sensitive: env OFFICE_TOKEN)', region: 'eu-west-1' },
    });
    for (const text of outputs(plan)) {
      expect(text).not.toContain(SECRET);
      expect(text).toContain('(sensitive: env OFFICE_TOKEN)');
    }
  });

  test('a changed value is (sensitive: env NAME, changed), decided on the values, neither of which is shown; the marker holds its text, not the value', async () => {
    const paths = [dir({ 'm.yaml': POLICY })];
    const api = new MemoryLiveApi();
    await applyPlan({ api, stack: 'default', paths, env: { OFFICE_TOKEN: SECRET, REGION: 'eu' } });
    const metadata = String(api.objects('/ip_policies')[0]!.metadata);
    expect(metadata).not.toContain(SECRET);
    expect(parseMarker(metadata).marker!.env).toEqual({ '/description': 'key=${env:OFFICE_TOKEN}', '/metadata': '${env:REGION}' });
    expect((await computePlan({ api, stack: 'default', paths, env: { OFFICE_TOKEN: SECRET, REGION: 'eu' } })).changes).toEqual([]);

    const rotated = await computePlan({ api, stack: 'default', paths, env: { OFFICE_TOKEN: ROTATED, REGION: 'eu' } });
    expect(rotated.changes.map((c) => c.address).sort()).toEqual(['Backend/web', 'IPPolicy/office', 'IPPolicyRule/office/10.0.0.0/8']);
    expect(rotated.changes.find((c) => c.address === 'IPPolicy/office')!.fields).toEqual([
      { path: 'description', before: '(sensitive: env OFFICE_TOKEN)', after: '(sensitive: env OFFICE_TOKEN, changed)', sensitive: true },
    ]);
    for (const text of outputs(rotated)) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(ROTATED);
    }
    // The marker's hash does not depend on the value: nothing is learnt by reading it.
    await applyPlan({ api, stack: 'default', paths, env: { OFFICE_TOKEN: ROTATED, REGION: 'eu' } });
    expect(parseMarker(api.objects('/ip_policies')[0]!.metadata).marker!.hash).toBe(parseMarker(metadata).marker!.hash);
  });

  test('what the marker records stays masked when the manifest is gone (a delete) or no longer says it', async () => {
    const paths = [dir({ 'm.yaml': POLICY })];
    const api = new MemoryLiveApi();
    await applyPlan({ api, stack: 'default', paths, env: { OFFICE_TOKEN: SECRET, REGION: 'eu' } });
    const gone = dir({ 'm.yaml': 'kind: IPPolicy\nname: office\nspec:\n  description: plain now\n  rules:\n    - {cidr: 10.0.0.0/8, action: allow}\n' });
    const plan = await computePlan({ api, stack: 'default', paths: [gone], env: {}, prune: true });
    const office = plan.changes.find((c) => c.address === 'IPPolicy/office')!;
    expect(office.fields.find((f) => f.path === 'description')).toEqual({
      path: 'description',
      before: '(sensitive: env OFFICE_TOKEN)',
      after: 'plain now',
      sensitive: true,
    });
    expect(plan.changes.find((c) => c.address === 'Backend/web')).toMatchObject({
      action: 'delete',
      before: { labels: { region: '(sensitive: env REGION)', token: '(sensitive: env OFFICE_TOKEN)' } },
    });
    for (const text of outputs(plan)) expect(text).not.toContain(SECRET);
  });

  test("export writes the manifest's text back and lists its variables, never the value", async () => {
    const paths = [dir({ 'm.yaml': POLICY })];
    const api = new MemoryLiveApi();
    await applyPlan({ api, stack: 'default', paths, env: { OFFICE_TOKEN: SECRET, REGION: 'eu' } });
    const result = await exportLive({ api, stack: 'default' });
    const text = result.files.map((f) => f.text).join('\n');
    expect(text).not.toContain(SECRET);
    expect(text).toContain('description: key=${env:OFFICE_TOKEN}');
    expect(result.secrets.map((s) => s.variable)).toEqual(expect.arrayContaining(['OFFICE_TOKEN', 'REGION']));
    // Planned with the same variables, the export is the configuration as applied.
    const exported = dir(Object.fromEntries(result.files.map((f) => [f.file, f.text])));
    const plan = await computePlan({ api, stack: 'default', paths: [exported], env: { OFFICE_TOKEN: SECRET, REGION: 'eu' } });
    expect(plan.changes.filter((c) => c.fields.length > 0)).toEqual([]);
    rmSync(exported, { recursive: true });
  });

  test('no problem quotes it; policy rules see it masked, so they can neither print nor probe it', async () => {
    const backend = dir({
      'm.yaml':
        'kind: HTTPSEdge\nname: api\nspec:\n  hostports: ["${env:HOST}:443"]\n  routes:\n    - {match_type: path_prefix, match: /, backend: {backend: "${env:BACKEND}"}}\n',
      'p.yaml': `- name: leak\n  kind: IPPolicy\n  require: "policy.description.startsWith('key=sk_')"\n  message: "description is {policy.description}"\n`,
      'office.yaml': POLICY.split('---')[0]!,
    });
    const { problems, policy } = await checkManifests({
      paths: [join(backend, 'm.yaml'), join(backend, 'office.yaml')],
      policies: [join(backend, 'p.yaml')],
      env: { HOST: 'secret-host.example.com', BACKEND: 'secret-backend-name', OFFICE_TOKEN: SECRET, REGION: 'eu' },
    });
    expect(problems.map((p) => p.code)).toEqual(['reference_missing']);
    expect(problems[0]!.message).toContain('no Backend manifest is named "(sensitive: env BACKEND)"');
    expect(JSON.stringify(problems)).not.toContain('secret-backend-name');
    // The rule cannot tell the value's first characters: it sees the mask.
    expect(policy).toEqual([expect.objectContaining({ rule: 'leak', message: 'description is (sensitive: env OFFICE_TOKEN)' })]);
  });

  test('a name, a natural key or an adopt id from a secret variable is a problem at its line', async () => {
    const root = dir({ 'm.yaml': 'kind: IPPolicy\nname: ${env:NAME}\nspec:\n  rules:\n    - {cidr: "${env:CIDR}", action: allow}\n' });
    const { problems } = await readManifests({ paths: [root], env: { NAME: 'office-secret', CIDR: '10.0.0.0/8' } });
    expect(problems.map((p) => [p.code, p.at!.line])).toEqual([
      ['env_secret_identity', 2],
      ['env_secret_identity', 5],
    ]);
    expect(problems[0]!.message).toMatch(
      /^name comes from \$\{env:NAME\}, a secret variable: .*declare NAME plain in gatehouse\.yaml \(variables: \{NAME: \{secret: false\}\}\)$/,
    );
    expect(JSON.stringify(problems)).not.toContain('office-secret');
    expect(problems[1]!.message).toMatch(/^cidr, which identifies the IP policy rule, comes from \$\{env:CIDR\}/);
    // A bot user's name too: once no longer declared, it is listed by it.
    const bot = dir({ 'm.yaml': 'kind: BotUser\nname: deploy\nspec:\n  name: "ci-${env:BOT}"\n' });
    expect((await readManifests({ paths: [bot], env: { BOT: 'secret-bot' } })).problems.map((p) => [p.code, p.at!.line])).toEqual([['env_secret_identity', 4]]);
    // Declared plain, it is a name like any other.
    expect(
      (await readManifests({ paths: [root], env: { NAME: 'office', CIDR: '10.0.0.0/8' }, envVariables: { NAME: { secret: false }, CIDR: { secret: false } } }))
        .problems,
    ).toEqual([]);
  });
});

describe("the CLI's own credentials", () => {
  const manifest = (variable: string) => dir({ 'm.yaml': `kind: IPPolicy\nname: office\nspec:\n  description: "\${env:${variable}}"\n` });

  test('GATEHOUSE_API_KEY, a credential variable or any variable holding the key in use can never be interpolated', async () => {
    const key = 'gh_live_key_0123456789';
    for (const [variable, env, credentials] of [
      ['GATEHOUSE_API_KEY', { GATEHOUSE_API_KEY: key }, undefined],
      ['STAGING_API_KEY', { STAGING_API_KEY: key }, { names: ['STAGING_API_KEY'], values: [] }],
      ['COPY_OF_KEY', { COPY_OF_KEY: key }, { names: [], values: [key] }],
    ] as const) {
      const { problems } = await readManifests({
        paths: [manifest(variable)],
        env,
        ...(credentials ? { credentials } : {}),
        envVariables: { [variable]: { secret: false } },
      });
      expect(
        problems.map((p) => [p.code, p.at!.line]),
        variable,
      ).toEqual([['env_credential', 4]]);
      expect(problems[0]!.message).toContain(`\${env:${variable}}`);
      expect(problems[0]!.message).not.toContain(key);
    }
  });

  test('a variable renamed in gatehouse.yaml is refused when it reads the key', async () => {
    const { problems } = await readManifests({
      paths: [manifest('REGION')],
      env: { GATEHOUSE_API_KEY: 'k' },
      envVariables: { REGION: { env: 'GATEHOUSE_API_KEY', secret: false } },
    });
    expect(problems.map((p) => p.code)).toEqual(['env_credential']);
  });

  test('a plan with the key in a manifest is not made', async () => {
    await expect(
      computePlan({ paths: [manifest('GATEHOUSE_API_KEY')], env: { GATEHOUSE_API_KEY: 'k' }, api: new MemoryLiveApi(), stack: 'default' }),
    ).rejects.toBeInstanceOf(ManifestProblems);
  });
});
