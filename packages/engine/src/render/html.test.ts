/** The HTML report's page, unit level (the browser test in test/ checks what a person sees). */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mixedPlan } from './fixtures.test-data.js';
import { waves } from './html-graph.js';
import { renderHtml } from './html.js';

describe('renderHtml', () => {
  const page = renderHtml(mixedPlan());

  it('is self-contained: no URL it loads, and a CSP that pins its inline style and script', () => {
    expect(page).not.toMatch(/<(link|img|iframe)\b|\bsrc=|url\((?!#)/i);
    const csp = /content="(default-src 'none';[^"]*)"/.exec(page)![1]!;
    const style = /<style>([^]*?)<\/style>/.exec(page)![1]!;
    const script = /<script>([^]*?)<\/script>/.exec(page)![1]!;
    const sha = (text: string) => createHash('sha256').update(text).digest('base64');
    expect(csp).toContain(`style-src 'sha256-${sha(style)}'`);
    expect(csp).toContain(`script-src 'sha256-${sha(script)}'`);
    expect(page.match(/<script>/g)).toHaveLength(1);
    expect(page).not.toMatch(/ style="/);
  });

  it('escapes values, keeps secrets masked, and has a section per change with counts', () => {
    expect(page).toContain('Office egress &lt;HQ&gt;');
    expect(page).not.toContain('<HQ>');
    expect(page).toContain('(sensitive value changed)');
    expect(page.match(/<details class="item/g)).toHaveLength(5);
    expect(page).toContain('<div class="card create" data-count="create"><span class="count">2</span>');
    expect(page).toMatch(/<a href="#change-0" class="node create">/);
  });

  it('lays the graph out in waves: a change one column right of what it waits for', () => {
    const plan = mixedPlan();
    expect(waves(plan.changes)).toEqual([0, 1, 0, 0, 0]);
  });
});
