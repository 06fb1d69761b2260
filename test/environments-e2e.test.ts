/**
 * Environments end to end (the built CLI): examples/environments, whose gatehouse.yaml has a
 * staging and a production environment, against two `gatehouse serve` processes. Planning
 * every environment at once exits 2 with changes in both; applying each environment in turn
 * makes `plan --env all` empty (exit 0); a change made outside gatehouse in production is
 * drift in production only; `apply --env all` is refused.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, besideUsage } from './helpers/cli.js';
import { serveWithClient, type ServedApi } from './helpers/served.js';

const PROJECT = join(REPO_ROOT, 'examples/environments');
const STAGING_KEY = 'environments-e2e-staging-0123456789';
const PROD_KEY = 'environments-e2e-production-0123456789';
let staging: ServedApi;
let production: ServedApi;

beforeAll(async () => {
  [staging, production] = await Promise.all([serveWithClient(STAGING_KEY), serveWithClient(PROD_KEY)]);
});
afterAll(async () => {
  await Promise.all([staging?.close(), production?.close()]);
});

const env = () => ({
  STAGING_API_URL: staging.server.url,
  STAGING_API_KEY: STAGING_KEY,
  PROD_API_URL: production.server.url,
  PROD_API_KEY: PROD_KEY,
});
const gatehouse = (...args: string[]) => runCli(args, { cwd: PROJECT, env: env() });

describe('examples/environments against a staging and a production server', { timeout: 180_000 }, () => {
  it('plans every environment in one run: exit 2 with --detailed-exitcode, one JSON plan per environment', async () => {
    const result = await gatehouse('plan', '--env', 'all', '--detailed-exitcode', '--format', 'json');
    expect(besideUsage(result.stderr)).toBe('');
    expect(result.code).toBe(2);
    const json = JSON.parse(result.stdout);
    expect(Object.keys(json.environments)).toEqual(['staging', 'production']);
    expect(json.changes).toBe(true);
    expect(json.environments.staging).toMatchObject({
      stack: 'web-staging',
      environment: 'staging',
      target: { url: staging.server.url },
      summary: { create: 14 },
    }); // 13 objects and the stack's bot user registry
    expect(json.environments.production).toMatchObject({
      stack: 'web',
      environment: 'production',
      target: { url: production.server.url },
      summary: { create: 13 },
    });
    const addresses = (name: string) => json.environments[name].changes.map((c: { address: string }) => c.address);
    // The staging overlay adds a route and keeps the load tester; production deletes it.
    expect(addresses('staging')).toContain('HTTPSEdgeRoute/site//debug');
    expect(addresses('production')).not.toContain('HTTPSEdgeRoute/site//debug');
    expect(addresses('staging')).toContain('BotUser/load-tester');
    expect(addresses('production')).not.toContain('BotUser/load-tester');
    // Each environment reserves its own domain; production also its apex.
    expect(addresses('staging')).toContain('ReservedDomain/site-wildcard');
    expect(addresses('staging')).not.toContain('ReservedDomain/apex');
    expect(addresses('production')).toContain('ReservedDomain/apex');
  });

  it('applies staging, then production; a second plan of every environment is empty (exit 0)', async () => {
    for (const name of ['staging', 'production']) {
      const applied = await gatehouse('apply', '--env', name, '--yes');
      expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
    }
    const restriction = async (api: ServedApi) => {
      for await (const r of api.client.ipRestrictions.list()) if (r.type === 'dashboard') return r;
      throw new Error('no dashboard restriction');
    };
    // ${var:enforce} kept its YAML type: a boolean in each environment.
    expect((await restriction(staging)).enforced).toBe(false);
    expect((await restriction(production)).enforced).toBe(true);

    const plan = await gatehouse('plan', '--env', 'all', '--detailed-exitcode');
    expect(besideUsage(plan.stderr)).toBe('');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('== environment staging ==');
    expect(plan.stdout).toContain('== environment production ==');
    expect(plan.stdout).toMatch(/staging\s+no changes\n\s+production\s+no changes/);
  });

  it('names only production when production drifted', async () => {
    let id = '';
    for await (const r of production.client.ipRestrictions.list()) if (r.type === 'dashboard') id = r.id;
    await production.client.ipRestrictions.update(id, { enforced: false });
    const result = await gatehouse('drift', '--env', 'all', '--format', 'json');
    expect(result.code).toBe(2);
    const json = JSON.parse(result.stdout);
    expect(json.drifted).toBe(true);
    expect(json.environments.staging.drifted).toBe(false);
    expect(json.environments.production.drifted).toBe(true);
    expect(json.environments.production.objects).toEqual([expect.objectContaining({ address: 'IPRestriction/dashboard', drift: 'changed_outside' })]);
    const markdown = await gatehouse('drift', '--env', 'all', '--format', 'markdown');
    expect(markdown.code).toBe(2);
    expect(markdown.stdout.split('\n')[0]).toBe('### gatehouse drift: drift in production');
  });

  it('refuses apply --env all, and writes nothing', async () => {
    const result = await gatehouse('apply', '--env', 'all', '--yes');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('apply --env all is refused');
  });
});
