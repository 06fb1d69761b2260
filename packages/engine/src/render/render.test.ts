import { describe, expect, it } from 'vitest';
import { bigPlan, emptyPlan, mixedPlan } from './fixtures.test-data.js';
import { isSavedPlanText, parsePlanJson, renderJson, PlanFormatError } from './json.js';
import { renderMarkdown } from './markdown.js';
import { renderText } from './text.js';

const golden = (name: string) => `./__golden__/${name}`;

describe('text renderer', () => {
  it('matches the golden output for a mixed plan', async () => {
    const text = renderText(mixedPlan());
    await expect(text).toMatchFileSnapshot(golden('mixed.txt'));
    expect(text.split('\n')[0]).toBe('gatehouse plan for https://api.example.com, stack "default"');
    expect(text).toContain('Plan: 2 to create, 1 to update, 1 to replace, 1 to delete, 4 unchanged.');
    expect(text).toContain('enforced: false -> true');
    expect(text).toContain('oidc.client_secret: (sensitive)');
    expect(text).toContain('oidc.client_secret: (sensitive value changed)');
  });

  it('says "No changes" and names the embedded target', async () => {
    const text = renderText(emptyPlan());
    await expect(text).toMatchFileSnapshot(golden('empty.txt'));
    expect(text.split('\n')[0]).toContain('embedded reference server');
    expect(text).toContain('No changes.');
  });

  it('paints each action with the style given and nothing else', () => {
    const tag = (name: string) => (s: string) => `<${name}>${s}</${name}>`;
    const style = { create: tag('g'), update: tag('y'), delete: tag('r'), replace: tag('m'), bold: (s: string) => s, dim: (s: string) => s };
    const text = renderText(mixedPlan(), { style });
    expect(text).toContain('<g>+   IPPolicy office</g>');
    expect(text).toContain('<y>~   IPRestriction dashboard</y>');
    expect(text).toContain('<m>-/+ IPRestriction api</m>');
    expect(text).toContain('<r>-   BotUser old-bot</r>');
    expect(renderText(mixedPlan())).not.toMatch(/<[gyrm]>/);
  });
});

describe('unmanaged objects', () => {
  it('are listed one by one when few, and past a few, per kind with the first three and how many more', () => {
    const few = { ...emptyPlan(), unmanaged: [{ kind: 'IPPolicy', id: 'ipp_1', label: 'legacy' }] };
    expect(renderText(few)).toContain('    IPPolicy ipp_1  legacy\n');
    // A one-object plan in a new stack, beside the account's 48 other objects.
    const many = {
      ...emptyPlan(),
      unmanaged: [
        ...Array.from({ length: 40 }, (_, i) => ({ kind: 'IPPolicy', id: `ipp_${i}`, label: `policy ${i}` })),
        ...Array.from({ length: 8 }, (_, i) => ({ kind: 'BotUser', id: `bot_${i}`, label: `bot ${i}` })),
      ],
    };
    const text = renderText(many);
    expect(text).toContain(
      '    IPPolicy (40): ipp_0 (policy 0), ipp_1 (policy 1), ipp_2 (policy 2) and 37 more\n    BotUser (8): bot_0 (bot 0), bot_1 (bot 1), bot_2 (bot 2) and 5 more\n',
    );
    expect(text).not.toContain('ipp_39');
    // The JSON form keeps them all.
    expect(JSON.parse(renderJson(many)).unmanaged).toHaveLength(48);
  });
});

describe('a create with no field of its own (an IP policy with only rules)', () => {
  it('lists nothing under its line: no ": {}"', () => {
    const plan = mixedPlan();
    const create = plan.changes.find((c) => c.action === 'create')!;
    create.after = {};
    const text = renderText(plan);
    expect(text).not.toContain(': {}');
    expect(renderMarkdown(plan)).not.toContain(': {}');
  });
});

describe('json renderer', () => {
  it('matches the golden output and round-trips through parsePlanJson', async () => {
    const json = renderJson(mixedPlan());
    await expect(json).toMatchFileSnapshot(golden('mixed.json'));
    const parsed = JSON.parse(json);
    expect(Object.keys(parsed).slice(0, 3)).toEqual(['format_version', 'target', 'stack']);
    expect(parsed.changes[1].depends_on).toEqual(['IPPolicy/office']);
    expect(parsePlanJson(json)).toEqual(mixedPlan());
  });

  it('refuses another format version and malformed text', () => {
    expect(() => parsePlanJson(JSON.stringify({ ...JSON.parse(renderJson(mixedPlan())), format_version: 2 }))).toThrow(/format_version 2/);
    expect(() => parsePlanJson('{')).toThrow(PlanFormatError);
    expect(() => parsePlanJson(JSON.stringify({ format_version: 1 }))).toThrow(/no 'target'/);
  });

  it('knows a saved plan by its first two lines, against an API or the embedded server, and nothing else', () => {
    const firstLines = (text: string) => text.split('\n', 2).join('\n');
    expect(isSavedPlanText(firstLines(renderJson(mixedPlan())))).toBe(true);
    expect(isSavedPlanText(firstLines(renderJson({ ...mixedPlan(), target: { url: 'http://127.0.0.1:8484', embedded: true } })))).toBe(true);
    for (const other of ['kind: IPPolicy\nname: office', '{\n  "kind": "IPPolicy"', '', '{ "notice": "x",\n  "kind": 1'])
      expect(isSavedPlanText(other), other).toBe(false);
  });
});

describe('markdown renderer', () => {
  it('matches the golden output for a mixed plan', async () => {
    const md = renderMarkdown(mixedPlan());
    await expect(md).toMatchFileSnapshot(golden('mixed.md'));
    expect(md.split('\n')[0]).toContain('https://api.example.com');
    expect(md.match(/<details>/g)).toHaveLength(5);
    expect(md).toContain('+ description: "Office egress <HQ>"');
    expect(md).toContain('| `+` create | 2 |');
  });

  it('stays under the limit and says what was cut', () => {
    const md = renderMarkdown(bigPlan(2000));
    expect(md.length).toBeLessThan(65_000);
    const note = /\*\*(\d+) of 2000 changes not shown\*\* \(IPPolicy\)/.exec(md);
    expect(note).not.toBeNull();
    const shown = md.match(/<details>/g)!.length;
    expect(shown + Number(note![1])).toBe(2000);
    expect(md.trimEnd().endsWith('unchanged. Live state read with 7 API requests.')).toBe(true);
  });

  it('keeps everything when it fits and honours a smaller limit', () => {
    expect(renderMarkdown(bigPlan(10))).not.toContain('not shown');
    expect(renderMarkdown(bigPlan(10), { maxLength: 2000 }).length).toBeLessThan(2000);
  });
});

describe('masked secrets', () => {
  it('print bare, never quoted as if they were values', () => {
    const plan = mixedPlan();
    for (const output of [renderText(plan), renderMarkdown(plan)]) {
      expect(output).toContain('client_secret: (sensitive)');
      expect(output).not.toContain('"(sensitive)"');
      expect(output).toContain('oidc.client_secret: (sensitive value changed)');
    }
  });
});
