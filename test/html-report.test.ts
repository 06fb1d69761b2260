/**
 * The HTML reports as a person sees them, in headless Chromium (Debian's `chromium`, which
 * `.ci/run` installs; without it the tests skip with a line naming the command that installs
 * it: a test never installs system packages). One
 * browser, three pages: the plan of examples/basic with a policy error as `gatehouse plan
 * --format html` writes it, a plan that replaces a certificate and updates and deletes objects,
 * and a drift report. Each is checked for its counts, an expanded change, the filters, no
 * horizontal scrolling at 1280 px, no console error (the page's Content Security Policy
 * reports any load as one) and light and dark colours; screenshots go to test/output/.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { renderDriftHtml, renderHtml, type DriftReport, type Plan } from '@gatehouse/engine';
import { EXAMPLE_SECRETS } from './plan-fixtures.js';
import { REPO_ROOT, runCli, tempDir } from './helpers/cli.js';

const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = join(REPO_ROOT, 'test/output/html-report');
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Why the browser tests cannot run here (no Chromium), or undefined. */
function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  return `${CHROMIUM} is missing; install it with \`apt-get update && apt-get install -y chromium\` (as root; .ci/run does)`;
}

const pem = (name: string) => readFileSync(join(REPO_ROOT, 'packages/engine/test-fixtures', name), 'utf8');

/** A plan that replaces a certificate authority, updates a restriction and deletes a bot user. */
function reviewPlan(): Plan {
  const base = { patch: [], dependsOn: [] as string[] };
  return {
    format_version: 1,
    target: { url: 'https://api.example.com', embedded: false },
    stack: 'default',
    created_at: '2026-11-23T02:00:00.000Z',
    summary: { create: 1, update: 1, delete: 1, replace: 1, unchanged: 6 },
    changes: [
      {
        ...base,
        address: 'CertificateAuthority/partner-ca',
        action: 'replace',
        kind: 'CertificateAuthority',
        name: 'partner-ca',
        id: 'ca_1',
        reason: 'ca_pem cannot be updated',
        before: { ca_pem: pem('ca.pem') },
        after: { ca_pem: pem('ca-renewed.pem') },
        fields: [{ path: 'ca_pem', before: pem('ca.pem'), after: pem('ca-renewed.pem'), sensitive: false }],
        source: { file: 'manifests/certificate-authorities.yaml', line: 5, col: 1 },
      },
      {
        ...base,
        address: 'HTTPSEdge/partners',
        action: 'update',
        kind: 'HTTPSEdge',
        name: 'partners',
        id: 'edghts_1',
        dependsOn: ['CertificateAuthority/partner-ca'],
        before: { description: 'Partner API' },
        after: { description: 'Partner API <mutual TLS>' },
        fields: [
          { path: 'description', before: 'Partner API', after: 'Partner API <mutual TLS>', sensitive: false },
          { path: 'oidc.client_secret', before: '(sensitive)', after: '(sensitive value changed)', sensitive: true },
        ],
      },
      {
        ...base,
        address: 'IPPolicy/office',
        action: 'create',
        kind: 'IPPolicy',
        name: 'office',
        id: null,
        before: null,
        after: { description: 'Office </summary><script>alert(1)</script>' },
        fields: [],
      },
      {
        ...base,
        address: 'BotUser/old-bot',
        action: 'delete',
        kind: 'BotUser',
        name: 'old-bot',
        id: 'bot_1',
        before: { name: 'old-bot', active: true },
        after: null,
        fields: [],
      },
    ],
    unmanaged: [{ kind: 'BotUser', id: 'bot_9', label: 'legacy' }],
    fingerprints: {},
    manifest_checksum: 'sha256:0',
    requests: 9,
    policy_results: [],
  };
}

function driftReport(): DriftReport {
  return {
    format_version: 1,
    target: { url: 'https://api.example.com', embedded: false },
    stack: 'default',
    checked_at: '2026-11-23T03:00:00.000Z',
    drifted: true,
    summary: { changed_outside: 1, deleted_outside: 1, duplicate: 0, missing: 0, changed_in_manifests: 1, changed: 0, unmanaged: 0, in_sync: 12 },
    objects: [
      {
        address: 'IPRestriction/dashboard',
        kind: 'IPRestriction',
        name: 'dashboard',
        id: 'ipx_1',
        drift: 'changed_outside',
        action: 'update',
        message: 'changed outside gatehouse since the last apply',
        fields: [{ path: 'enforced', drift: 'changed_outside', live: false, desired: true, sensitive: false }],
        source: { file: 'manifests/ip-restrictions.yaml', line: 3, col: 1 },
      },
      {
        address: 'CertificateAuthority/partner-ca',
        kind: 'CertificateAuthority',
        name: 'partner-ca',
        id: 'ca_1',
        drift: 'changed_in_manifests',
        action: 'replace',
        message: 'changed in the manifests since the last apply',
        fields: [{ path: 'ca_pem', drift: 'changed_in_manifests', live: pem('ca.pem'), desired: pem('ca-renewed.pem'), sensitive: false }],
      },
      {
        address: 'HTTPSEdgeRoute/api//ws',
        kind: 'HTTPSEdgeRoute',
        name: 'api path_prefix:/ws',
        id: null,
        drift: 'deleted_outside',
        action: 'create',
        message: 'deleted outside gatehouse',
        fields: [],
      },
    ],
    unmanaged: [],
    requests: 11,
  };
}

let browser: Browser | undefined;
let skipReason: string | undefined;
let dir: ReturnType<typeof tempDir>;
let cliPlanHtml = '';

beforeAll(async () => {
  mkdirSync(OUTPUT, { recursive: true });
  dir = tempDir('gatehouse-html-');
  cpSync(join(REPO_ROOT, 'examples/basic'), join(dir.path, 'manifests'), { recursive: true });
  cpSync(join(REPO_ROOT, 'examples/policies'), join(dir.path, 'policies'), { recursive: true });
  // A rule on `change` (a rule the manifests alone break fails the plan before any request: no
  // report), broken by the rule at manifests/ip-policies.yaml:25:7.
  writeFileSync(
    join(dir.path, 'policies/new-rules.yaml'),
    '- name: no-documentation-ranges\n  kind: IPPolicyRule\n  when: "change.action == \'create\'"\n  require: "!rule.cidr.startsWith(\'192.0.2.\')"\n  severity: error\n  message: "rule {rule.cidr} of IP policy {policy.name} is a documentation range"\n',
  );
  const [plan, reason] = await Promise.all([
    runCli(['plan', 'manifests', '--embedded', '--format', 'html'], { cwd: dir.path, env: EXAMPLE_SECRETS }),
    Promise.resolve(chromiumMissing()),
  ]);
  expect(plan.code).toBe(1); // the policy error; the report is written all the same
  cliPlanHtml = plan.stdout;
  skipReason = reason;
  if (skipReason) {
    console.warn(`html-report: skipped, ${skipReason}`);
    return;
  }
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  dir?.cleanup();
});

/** Opens `html` at 1280 px wide, collecting console errors and page errors. */
async function open(html: string, name: string): Promise<{ page: Page; errors: string[] }> {
  const path = join(OUTPUT, `${name}.html`);
  writeFileSync(path, html);
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => {
    if (!request.url().startsWith('file:')) errors.push(`network request: ${request.url()}`);
  });
  await page.goto(`file://${path}`);
  return { page, errors };
}

const count = (page: Page, key: string) => page.locator(`[data-count="${key}"] .count`).innerText();
const noHorizontalScroll = (page: Page) => page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');

describe('HTML reports in Chromium', () => {
  it('plan --format html of the examples: counts, policy error, filters, graph, an expanded change', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const { page, errors } = await open(cliPlanHtml, 'plan-examples');
    // 39 objects and the stack's bot user registry.
    expect(await count(page, 'create')).toBe('40');
    expect(await count(page, 'delete')).toBe('0');
    await expect(page.locator('#policy .sev-error').innerText()).resolves.toBe('error');
    expect(await page.locator('#policy').innerText()).toContain('manifests/ip-policies.yaml:25:7');
    expect(await page.locator('details.item').count()).toBe(40);
    expect(await page.locator('#graph svg a.node').count()).toBe(40);
    expect(await page.locator('#graph svg path.edge').count()).toBeGreaterThan(10);

    await page.selectOption('#filter-kind', 'IPPolicyRule');
    expect(await page.locator('#shown').innerText()).toBe('5');
    expect(await page.locator('details.item:visible').count()).toBe(5);
    const rule = page.locator('details.item[data-kind="IPPolicyRule"]').filter({ hasText: '192.0.2.0/25' });
    await rule.locator('summary').click();
    expect(await rule.getAttribute('open')).not.toBeNull();
    await expect(rule.locator('table').innerText()).resolves.toContain('cidr');
    expect(await rule.locator('td', { hasText: '"192.0.2.0/25"' }).isVisible()).toBe(true);
    await page.selectOption('#filter-kind', '');
    expect(await page.locator('#shown').innerText()).toBe('40');

    expect(await noHorizontalScroll(page)).toBe(true);
    await page.screenshot({ path: join(OUTPUT, 'plan-examples.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a replaced certificate shows as a line diff; markup in values stays text; dark and print', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const plan = reviewPlan();
    const { page, errors } = await open(renderHtml(plan), 'plan-review');
    for (const action of ['create', 'update', 'replace', 'delete', 'unchanged'] as const) expect(await count(page, action)).toBe(String(plan.summary[action]));
    const ca = page.locator('details.item[data-action="replace"]');
    expect(await ca.locator('pre.diff').isVisible()).toBe(false);
    await ca.locator('summary').click();
    const diff = ca.locator('pre.diff');
    expect(await diff.isVisible()).toBe(true);
    expect(await diff.locator('span.remove').first().innerText()).toBe(`-${pem('ca.pem').split('\n')[1]}`);
    expect(await diff.locator('span.add').first().innerText()).toBe(`+${pem('ca-renewed.pem').split('\n')[1]}`);
    expect(await diff.locator('span.context').first().innerText()).toContain('-----BEGIN CERTIFICATE-----');
    // A value holding markup is shown, never run; secrets stay masked.
    await page.locator('details.item[data-action="create"] summary').click();
    expect(await page.locator('details.item[data-action="create"]').innerText()).toContain('</summary><script>alert(1)</script>');
    await page.locator('details.item[data-action="update"] summary').click();
    expect(await page.locator('details.item[data-action="update"]').innerText()).toContain('(sensitive value changed)');
    expect(await page.locator('#policy').innerText()).toBe('Every policy rule is met.');
    await page.selectOption('#filter-action', 'delete');
    expect(await page.locator('details.item:visible').count()).toBe(1);
    await page.selectOption('#filter-action', '');
    expect(await noHorizontalScroll(page)).toBe(true);
    await page.screenshot({ path: join(OUTPUT, 'plan-review.png'), fullPage: true });

    const light = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    expect(dark).not.toBe(light);
    await page.screenshot({ path: join(OUTPUT, 'plan-review-dark.png'), fullPage: true });
    await page.emulateMedia({ media: 'print', colorScheme: 'light' });
    expect(await page.locator('.filters').isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('drift --format html: counts per drift, filter by drift, a long value as a line diff', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const { page, errors } = await open(renderDriftHtml(driftReport()), 'drift');
    expect(await count(page, 'changed_outside')).toBe('1');
    expect(await count(page, 'in_sync')).toBe('12');
    await page.selectOption('#filter-action', 'changed_in_manifests');
    expect(await page.locator('details.item:visible').count()).toBe(1);
    const ca = page.locator('details.item:visible');
    await ca.locator('summary').click();
    expect(await ca.locator('pre.diff span.add').first().isVisible()).toBe(true);
    expect(await ca.innerText()).toContain('Apply would replace it.');
    expect(await noHorizontalScroll(page)).toBe(true);
    await page.screenshot({ path: join(OUTPUT, 'drift.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
