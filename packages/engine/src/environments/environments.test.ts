/**
 * Environments through the engine's public entry points: the example repository's project
 * file read and each environment's manifests resolved; variables and overlays that go wrong
 * reported at the line to fix; the all-environments renderers.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readManifests } from '../engine.js';
import { emptyPlan, mixedPlan } from '../render/fixtures.test-data.js';
import { readProject } from './project.js';
import { renderEnvironment } from './render.js';
import { renderPlansJson, renderPlansMarkdown, renderPlansText } from './report.js';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/environments/', import.meta.url));
const temp: string[] = [];
afterAll(async () => {
  await Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function projectDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-env-'));
  temp.push(dir);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

describe('examples/environments', () => {
  it('reads both environments; each resolves to valid manifests with its own differences', async () => {
    const { project, problems } = await readProject(join(EXAMPLE, 'gatehouse.yaml'));
    expect(problems).toEqual([]);
    expect(project!.environments.map((e) => [e.name, e.stack])).toEqual([
      ['staging', 'web-staging'],
      ['production', 'web'],
    ]);
    const read = async (name: string) => {
      const environment = project!.environments.find((e) => e.name === name)!;
      const result = await readManifests({ paths: project!.manifests, env: {}, environment, stack: environment.stack! });
      expect(result.problems).toEqual([]);
      return new Map(result.desired.map((d) => [d.address, d.normal]));
    };
    const staging = await read('staging');
    const production = await read('production');
    expect(staging.get('IPRestriction/dashboard')).toMatchObject({ enforced: false });
    expect(production.get('IPRestriction/dashboard')).toMatchObject({ enforced: true });
    expect(staging.get('Backend/maintenance')).toMatchObject({ status_code: 503 });
    expect(production.get('Backend/maintenance')).toMatchObject({ status_code: 502 });
    expect(staging.get('HTTPSEdge/site')).toMatchObject({ hostports: ['www.staging.example.com:443'] });
    expect(production.get('HTTPSEdge/site')).toMatchObject({ hostports: ['www.example.com:443', 'example.com:443'] });
    expect(staging.has('HTTPSEdgeRoute/site//debug')).toBe(true);
    expect(production.has('HTTPSEdgeRoute/site//debug')).toBe(false);
    expect(staging.get('BotUser/load-tester')).toMatchObject({ active: true });
    expect(production.has('BotUser/load-tester')).toBe(false);
    expect(production.get('IPPolicyRule/office/198.51.100.16/28')).toMatchObject({ action: 'deny' });
  });
});

describe('render', () => {
  it('resolves overlays and variables, keeps ${env:} and escapes, and files stay where they came from', async () => {
    const dir = await projectDir({
      'gatehouse.yaml': 'manifests: [base]\nenvironments:\n  dev:\n    vars: {domain: dev.example.com, tag: "$${x}"}\n    overlays: [dev]\n',
      'base/o.yaml': 'kind: IPPolicy\nname: office\nspec:\n  description: "office of ${var:domain} ${var:tag} $${env:LITERAL}"\n  metadata: ${env:SECRET}\n',
      'dev/new.yaml': 'kind: BotUser\nname: dev-bot\nspec: {active: true}\n',
    });
    const { project } = await readProject(join(dir, 'gatehouse.yaml'));
    const { files, problems } = await renderEnvironment({ paths: project!.manifests, environment: project!.environments[0]! });
    expect(problems).toEqual([]);
    expect(files.map((f) => [f.file.replace(/^.*\/(base|dev)\//, '$1/'), f.documents])).toEqual([
      ['base/o.yaml', 1],
      ['dev/new.yaml', 1],
    ]);
    expect(files[0]!.text).toContain('description: office of dev.example.com $$${x} $${env:LITERAL}');
    expect(files[0]!.text).toContain('metadata: ${env:SECRET}');
  });
});

describe('problems of variables and overlays, at the line to fix', () => {
  it('a wrong type from an overlay points at the overlay; from a variable, at the use and names the declaration', async () => {
    const dir = await projectDir({
      'gatehouse.yaml': 'manifests: [base]\nenvironments:\n  dev:\n    vars: {enforce: maybe, spare: 1}\n    overlays: [dev]\n',
      'base/r.yaml': 'kind: IPRestriction\nname: dash\nspec:\n  type: dashboard\n  enforced: ${var:enforce}\n  ip_policies: [{id: ipp_1}]\n',
      'dev/r.yaml': 'kind: IPRestriction\nname: dash\nspec:\n  description: 7\n  extra: field\n',
    });
    const { project } = await readProject(join(dir, 'gatehouse.yaml'));
    const { problems } = await readManifests({ paths: project!.manifests, env: {}, environment: project!.environments[0]! });
    const found = problems.map((p) => [p.code, p.at?.file.replace(/^.*\//, ''), p.at?.line]);
    expect(found).toEqual(
      expect.arrayContaining([
        ['var_wrong_type', 'r.yaml', 5],
        ['wrong_type', 'r.yaml', 4],
        ['unknown_field', 'r.yaml', 5],
        ['var_unused', 'gatehouse.yaml', 4],
      ]),
    );
    const byCode = (code: string) => problems.find((p) => p.code === code)!;
    expect(byCode('var_wrong_type').at!.file).toMatch(/base\/r\.yaml$/);
    expect(byCode('var_wrong_type').message).toContain('${var:enforce} = "maybe"');
    expect(byCode('wrong_type').at!.file).toMatch(/dev\/r\.yaml$/);
    expect(byCode('unknown_field').at!.file).toMatch(/dev\/r\.yaml$/);
  });

  it('an overlay path inside a manifest path is refused at its line', async () => {
    const dir = await projectDir({ 'gatehouse.yaml': 'manifests: [.]\nenvironments:\n  dev:\n    overlays: [envs/dev]\n' });
    const { project, problems } = await readProject(join(dir, 'gatehouse.yaml'), dir);
    expect(project).toBeUndefined();
    expect(problems).toMatchObject([{ code: 'project_invalid', at: { line: 4 } }]);
  });

  it('a project file is read as a manifest is: bytes that are not UTF-8 are a problem at their place, a missing file says so', async () => {
    const dir = await projectDir({});
    await writeFile(join(dir, 'gatehouse.yaml'), Buffer.from('manifests: [.]\nenvironments:\n  dev:\n    vars: {domain: caf\xe9.example}\n', 'latin1'));
    const latin1 = await readProject(join(dir, 'gatehouse.yaml'), dir);
    expect(latin1.project).toBeUndefined();
    expect(latin1.problems).toMatchObject([{ code: 'not_utf8', at: { file: 'gatehouse.yaml', line: 4, col: 23 } }]);
    const missing = await readProject(join(dir, 'nope.yaml'), dir);
    expect(missing.problems).toMatchObject([{ code: 'project_invalid', message: 'cannot read the project file nope.yaml: ENOENT' }]);
  });
});

describe('one result for every environment', () => {
  const plans = () => [
    { environment: 'staging', plan: mixedPlan() },
    { environment: 'production', plan: emptyPlan() },
  ];

  it('Markdown: one comment, a summary table and a collapsible section per environment', () => {
    const text = renderPlansMarkdown(plans());
    expect(text.split('\n').slice(0, 6)).toEqual([
      '### gatehouse plan: 2 environments',
      '',
      '| Environment | Target | Create | Update | Replace | Delete |',
      '|:--|:--|--:|--:|--:|--:|',
      '| **staging** | `https://api.example.com` | 2 | 1 | 1 | 1 |',
      expect.stringMatching(/^\| \*\*production\*\* \| `.*` \| 0 \| 0 \| 0 \| 0 \|$/),
    ]);
    expect(text.match(/<details><summary><b>\w+<\/b>/g)).toEqual(['<details><summary><b>staging</b>', '<details><summary><b>production</b>']);
    expect(text).toContain('<b>production</b>: no changes');
    expect(renderPlansMarkdown(plans(), { maxLength: 10_000 }).length).toBeLessThan(10_000);
  });

  it('text sections and JSON with one plan per environment', () => {
    const text = renderPlansText(plans());
    expect(text.indexOf('== environment staging ==')).toBeLessThan(text.indexOf('== environment production =='));
    expect(text.slice(-200)).toMatch(
      /Plans of 2 environments:\n {2}staging {5}2 to create, 1 to update, 1 to replace, 1 to delete, 4 unchanged\.\n {2}production {2}no changes\n$/,
    );
    const json = JSON.parse(renderPlansJson(plans()));
    expect(json.format_version).toBe(1);
    expect(json.changes).toBe(true);
    expect(Object.keys(json.environments)).toEqual(['staging', 'production']);
    expect(json.environments.staging.summary).toEqual(mixedPlan().summary);
  });
});
