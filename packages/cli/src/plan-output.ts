/**
 * How plan and show print one plan: the rendering of each format in one place, so that
 * `show plan.json --format F` prints exactly what `plan --format F` printed. The formats are
 * drift's too.
 */
import type { Plan } from '@gatehouse/engine/core';
import { renderHtml, renderJson, renderMarkdown, renderText } from '@gatehouse/engine/render';
import { terminalStyle } from './output.js';

/** The formats of plan, show and drift (`--format`). */
export const REPORT_FORMATS = ['text', 'json', 'markdown', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** `plan` in `format`; text is coloured when the terminal takes colour (output.ts). */
export function renderPlanAs(plan: Plan, format: ReportFormat): string {
  if (format === 'json') return renderJson(plan);
  if (format === 'markdown') return renderMarkdown(plan);
  if (format === 'html') return renderHtml(plan);
  return renderText(plan, { style: terminalStyle() });
}
