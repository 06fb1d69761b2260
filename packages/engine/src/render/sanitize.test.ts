import { describe, expect, it } from 'vitest';
import { renderDriftMarkdown, renderDriftText } from '../drift/render.js';
import type { DriftReport } from '../drift/model.js';
import { mixedPlan } from './fixtures.test-data.js';
import { renderMarkdown } from './markdown.js';
import { hasUnsafeCharacters, sanitize, terminalSafeJson } from './sanitize.js';
import { renderText } from './text.js';

/** The value of the probe: retitles, clears, then forges a plan line. */
export const HOSTILE = 'evil\u001b]0;pwned\u0007\u001b[2J...\r\n  +   IPPolicy fake-change\u009b31m\u202eabc\u2028x\u007f';

/** True when `text` holds a control character other than newline (what a terminal would act on). */
const controlOutsideNewlines = (text: string) => hasUnsafeCharacters(text.replace(/\n/g, ''));

describe('sanitize', () => {
  it('escapes C0, DEL, C1, bidi controls and line separators as \\u escapes', () => {
    expect(sanitize('a\u001b[31mb')).toBe('a\\u001b[31mb');
    expect(sanitize('\u0000\t\r\n\u007f\u0085\u009b')).toBe('\\u0000\\u0009\\u000d\\u000a\\u007f\\u0085\\u009b');
    expect(sanitize('\u202e\u2066\u200f\u061c\u2028\u2029')).toBe('\\u202e\\u2066\\u200f\\u061c\\u2028\\u2029');
  });

  it('keeps newlines only when asked, and never a carriage return', () => {
    expect(sanitize('a\nb\r\nc', { keepNewlines: true })).toBe('a\nb\\u000d\nc');
  });

  it('leaves printable text in any script unchanged', () => {
    const text = 'Büro-Egress 東京 — “quoted” <HQ> ü\u00a0é 🚀';
    expect(sanitize(text)).toBe(text);
    expect(hasUnsafeCharacters(text)).toBe(false);
    expect(hasUnsafeCharacters(HOSTILE)).toBe(true);
  });
});

describe('hostile live and manifest values in plan and drift output', () => {
  const plan = mixedPlan();
  plan.stack = `team${HOSTILE}`;
  for (const change of plan.changes) {
    change.name = `${change.name}${HOSTILE}`;
    if (change.id) change.id = `${change.id}${HOSTILE}`;
    change.reason = HOSTILE;
    if (change.after) change.after = { ...change.after, [`key${HOSTILE}`]: HOSTILE };
    change.fields = change.fields.map((f) => ({ ...f, path: `${f.path}${HOSTILE}`, before: HOSTILE }));
  }
  plan.unmanaged = [{ kind: 'IPPolicy', id: `ipp_1${HOSTILE}`, label: HOSTILE }];

  it('plan text prints no control character and no forged line', () => {
    const text = renderText(plan);
    expect(controlOutsideNewlines(text)).toBe(false);
    expect(text.split('\n').some((line) => /^\s*\+\s+IPPolicy fake-change/.test(line))).toBe(false);
    expect(text).toContain('evil\\u001b]0;pwned\\u0007\\u001b[2J...\\u000d\\u000a  +   IPPolicy fake-change\\u009b31m\\u202eabc\\u2028x\\u007f');
  });

  it('plan Markdown prints no control character and no forged line', () => {
    const text = renderMarkdown(plan);
    expect(controlOutsideNewlines(text)).toBe(false);
    expect(text.split('\n').some((line) => /^\s*\+\s+IPPolicy fake-change/.test(line))).toBe(false);
    expect(text).toContain('\\u001b]0;pwned');
  });

  const report: DriftReport = {
    format_version: 1,
    target: { url: 'https://api.example.com', embedded: false },
    stack: HOSTILE,
    checked_at: '2026-11-23T02:00:00.000Z',
    drifted: true,
    summary: { changed_outside: 1, deleted_outside: 0, duplicate: 0, missing: 0, changed_in_manifests: 0, changed: 0, unmanaged: 1, in_sync: 0 },
    objects: [
      {
        address: `IPPolicy/${HOSTILE}`,
        kind: 'IPPolicy',
        name: HOSTILE,
        id: `ipp_2${HOSTILE}`,
        drift: 'changed_outside',
        action: 'update',
        message: `changed outside: ${HOSTILE}`,
        fields: [{ path: `description${HOSTILE}`, drift: 'changed_outside', live: HOSTILE, desired: 'ok', sensitive: false }],
        source: { file: `policies${HOSTILE}.yaml`, line: 1, col: 1 },
      },
    ],
    unmanaged: [{ kind: 'IPPolicy', id: 'ipp_3', label: HOSTILE }],
    requests: 3,
  };

  it('drift text and Markdown print no control character and no forged line', () => {
    for (const text of [renderDriftText(report), renderDriftMarkdown(report)]) {
      expect(controlOutsideNewlines(text)).toBe(false);
      expect(text.split('\n').some((line) => /^\s*\+\s+IPPolicy fake-change/.test(line))).toBe(false);
      expect(text).toContain('\\u001b]0;pwned');
    }
  });
});

describe('terminalSafeJson', () => {
  it('writes what JSON.stringify leaves raw (DEL, C1, bidi, separators) as escapes of the same value', () => {
    const value = { description: HOSTILE, nested: ['\u009b2J', 'plain ünïcode'] };
    const text = terminalSafeJson(value);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e\u2028]/);
    expect(text).toContain('\\u009b31m\\u202eabc\\u2028x\\u007f');
    expect(text).toContain('plain ünïcode');
    expect(JSON.parse(text)).toEqual(value);
  });

  it('is JSON.stringify itself for text with nothing to escape', () => {
    const value = { a: [1, 'b'], c: { d: null } };
    expect(terminalSafeJson(value)).toBe(JSON.stringify(value, null, 2));
  });
});
