import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PLAN_FORMAT_VERSION } from './json.js';
import { SENSITIVE, SENSITIVE_CHANGED } from '../identity/mask.js';
import { type Plan } from '../plan-model.js';
import { renderDriftMarkdown, renderDriftText } from '../drift/render.js';
import type { DriftReport } from '../drift/model.js';
import { diffableText, isLongValueChange, longValueDiff } from './line-diff.js';
import { renderMarkdown } from './markdown.js';
import { renderText } from './text.js';

const fixture = (name: string) => readFileSync(new URL(`../../test-fixtures/${name}`, import.meta.url), 'utf8');
const OLD_PEM = fixture('ca.pem');
const NEW_PEM = fixture('ca-renewed.pem');
const change = (before: unknown, after: unknown, sensitive = false) => ({ before, after, sensitive });

/** A plan that replaces a certificate authority (new PEM) and updates a JSON policy document. */
function certificatePlan(): Plan {
  return {
    format_version: PLAN_FORMAT_VERSION,
    target: { url: 'https://api.example.com', embedded: false },
    stack: 'default',
    created_at: '2026-11-23T02:00:00.000Z',
    summary: { create: 0, update: 1, delete: 0, replace: 1, unchanged: 0 },
    changes: [
      {
        address: 'CertificateAuthority/corp-ca',
        action: 'replace',
        kind: 'CertificateAuthority',
        name: 'corp-ca',
        id: 'ca_1',
        before: { ca_pem: OLD_PEM },
        after: { ca_pem: NEW_PEM },
        patch: [],
        dependsOn: [],
        reason: 'ca_pem cannot be updated',
        fields: [{ path: 'ca_pem', before: OLD_PEM, after: NEW_PEM, sensitive: false }],
      },
      {
        address: 'Backend/hello',
        action: 'update',
        kind: 'Backend',
        name: 'hello',
        id: 'bkd_1',
        before: {},
        after: {},
        patch: [],
        dependsOn: [],
        fields: [
          {
            path: 'body',
            before: '{"rules":[{"name":"only-reads","expressions":["req.method == \'GET\'"]}],"mode":"on"}',
            after: '{"mode":"on","rules":[{"name":"only-reads","expressions":["req.method == \'POST\'"]}]}',
            sensitive: false,
          },
          { path: 'auth.secret', before: SENSITIVE, after: SENSITIVE_CHANGED, sensitive: true },
        ],
      },
    ],
    unmanaged: [],
    fingerprints: {},
    manifest_checksum: 'sha256:0',
    requests: 3,
  };
}

describe('line diff of long values', () => {
  it('diffs a changed certificate by lines, keeping the unchanged armour lines as context', () => {
    const diff = longValueDiff(change(OLD_PEM, NEW_PEM));
    expect(diff[0]).toEqual({ kind: 'hunk', text: expect.stringMatching(/^@@ -1,12 \+1,11 @@$/) });
    expect(diff).toContainEqual({ kind: 'context', text: '-----BEGIN CERTIFICATE-----' });
    expect(diff).toContainEqual({ kind: 'context', text: '-----END CERTIFICATE-----' });
    expect(diff).toContainEqual({ kind: 'remove', text: OLD_PEM.split('\n')[1] });
    expect(diff).toContainEqual({ kind: 'add', text: NEW_PEM.split('\n')[1] });
  });

  it('pretty-prints JSON documents first, so only the changed member shows', () => {
    const before = '{"rules":[{"name":"a","expressions":["GET"]}],"mode":"on","padding":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}';
    const after = before.replace('"GET"', '"POST"');
    expect(diffableText(before)).toContain('\n  "mode": "on"');
    const diff = longValueDiff(change(before, after));
    expect(diff.filter((l) => l.kind === 'remove')).toEqual([{ kind: 'remove', text: '        "GET"' }]);
    expect(diff.filter((l) => l.kind === 'add')).toEqual([{ kind: 'add', text: '        "POST"' }]);
  });

  it('applies to long or multi-line strings only, and never to secrets', () => {
    expect(isLongValueChange(change('a', 'b'))).toBe(false);
    expect(isLongValueChange(change('a\nb', 'a\nc'))).toBe(true);
    expect(isLongValueChange(change('x'.repeat(80), 'y'))).toBe(true);
    expect(isLongValueChange(change(null, OLD_PEM))).toBe(true);
    expect(isLongValueChange(change(OLD_PEM, 3))).toBe(false);
    expect(isLongValueChange(change(OLD_PEM, NEW_PEM, true))).toBe(false);
    expect(isLongValueChange(change(SENSITIVE, SENSITIVE_CHANGED))).toBe(false);
    expect(() => longValueDiff(change(OLD_PEM, NEW_PEM, true))).toThrow();
  });

  it('escapes control characters in lines and says when only line endings differ', () => {
    const diff = longValueDiff(change('line one\nevil \u001b]0;pwned\u0007\n', 'line one\nfine\n'));
    expect(diff).toContainEqual({ kind: 'remove', text: 'evil \\u001b]0;pwned\\u0007' });
    expect(JSON.stringify(diff)).not.toContain('\u001b');
    expect(longValueDiff(change('a\r\nb\r\n'.repeat(3), 'a\nb\n'.repeat(3)))).toEqual([
      { kind: 'note', text: 'only line endings or a final line break differ' },
    ]);
  });
});

describe('renderers show long values as line diffs', () => {
  it('text: the certificate under its path, one line each, colours by side', () => {
    const tag = (name: string) => (s: string) => `<${name}>${s}</${name}>`;
    const style = { create: tag('g'), update: tag('y'), delete: tag('r'), replace: tag('m'), bold: (s: string) => s, dim: (s: string) => s };
    const text = renderText(certificatePlan(), { style });
    expect(text).toMatch(/ {8}ca_pem: \(\+\d+ -\d+ lines\)\n {10}@@ -1,12 \+1,11 @@\n {10} -----BEGIN CERTIFICATE-----\n/);
    expect(text).toContain(`<r>-${OLD_PEM.split('\n')[1]}</r>`);
    expect(text).toContain(`<g>+${NEW_PEM.split('\n')[1]}</g>`);
    expect(text).not.toContain('"-----BEGIN CERTIFICATE-----\\n');
    expect(text).toContain(`-        "req.method == 'GET'"`);
    expect(text).toContain(`+        "req.method == 'POST'"`);
    expect(text).toContain('auth.secret: (sensitive value changed)');
  });

  it('Markdown: hunks name the field inside the diff block; secrets stay masked', () => {
    const md = renderMarkdown(certificatePlan());
    expect(md).toMatch(/```diff\n@@ ca_pem -1,12 \+1,11 @@\n -----BEGIN CERTIFICATE-----\n/);
    expect(md).toContain(`\n-${OLD_PEM.split('\n')[1]}\n`);
    expect(md).toContain(`\n+${NEW_PEM.split('\n')[1]}\n`);
    expect(md).toContain('! auth.secret: (sensitive value changed)');
  });

  it('drift text and Markdown: live as -, manifests as +', () => {
    const report: DriftReport = {
      format_version: 1,
      target: { url: 'https://api.example.com', embedded: false },
      stack: 'default',
      checked_at: '2026-11-23T03:00:00.000Z',
      drifted: true,
      summary: { changed_outside: 1, deleted_outside: 0, duplicate: 0, missing: 0, changed_in_manifests: 0, changed: 0, unmanaged: 0, in_sync: 0 },
      objects: [
        {
          address: 'CertificateAuthority/corp-ca',
          kind: 'CertificateAuthority',
          name: 'corp-ca',
          id: 'ca_1',
          drift: 'changed_outside',
          action: 'replace',
          message: 'changed outside gatehouse',
          fields: [{ path: 'ca_pem', drift: 'changed_outside', live: OLD_PEM, desired: NEW_PEM, sensitive: false }],
        },
      ],
      unmanaged: [],
      requests: 1,
    };
    const text = renderDriftText(report);
    expect(text).toMatch(/ca_pem: \(\+\d+ -\d+ lines, - live, \+ manifests\)\n {8}@@ -1,12 \+1,11 @@/);
    expect(text).toContain(`-${OLD_PEM.split('\n')[1]}`);
    const md = renderDriftMarkdown(report);
    expect(md).toContain('`ca_pem: differs from live to manifests (+');
    expect(md).toMatch(/<summary><code>CertificateAuthority corp-ca<\/code> ca_pem: - live, \+ manifests<\/summary>\n\n```diff\n@@ ca_pem -1,12/);
  });
});
