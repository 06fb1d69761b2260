/**
 * Hostile live values through the CLI's own lines (apply progress and summary, problems,
 * the JSON error document): control characters arrive escaped, never raw. Plan and drift
 * renderers are covered in the engine (render/sanitize.test.ts).
 */
import { hasUnsafeCharacters, LiveApiError, type StepResult } from '@gatehouse/engine';
import { describe, expect, it } from 'vitest';
import { formatStep, formatSummary } from './apply/progress.js';
import { errorDocument } from './json-errors.js';
import { formatProblem } from './output.js';

const HOSTILE = 'evil\u001b]0;pwned\u0007\u001b[2J...\r\n  +   IPPolicy fake-change\u009b31m\u202e';
const rawControl = (text: string) => hasUnsafeCharacters(text);

describe('hostile values in CLI output', () => {
  it('apply progress lines and the summary escape them', () => {
    const step: StepResult = {
      address: `IPPolicy/${HOSTILE}`,
      kind: 'IPPolicy',
      name: HOSTILE,
      action: 'update',
      id: `ipp_${HOSTILE}`,
      status: 'failed',
      duration_ms: 3,
      requests: 1,
      reason: { code: 'api_failure', message: `400: ${HOSTILE}` },
    };
    const line = formatStep(step);
    expect(rawControl(line)).toBe(false);
    expect(line).toContain('\\u001b]0;pwned\\u0007');
    const summary = formatSummary({
      stack: 'default',
      target: { url: 'http://x', embedded: false },
      ok: false,
      interrupted: false,
      steps: [step],
      not_pruned: [{ address: `IPPolicy/${HOSTILE}` } as never],
      summary: { done: 0, failed: 1, skipped: 0, cancelled: 0, not_started: 0, not_pruned: 1, not_in_plan: 0, already_done: 0 },
      duration_ms: 10,
    } as never);
    for (const text of summary) expect(rawControl(text)).toBe(false);
  });

  it('problems and JSON error messages escape them', () => {
    expect(rawControl(formatProblem({ code: 'invalid_value', message: `bad ${HOSTILE}`, at: { file: `a${HOSTILE}.yaml`, line: 1, col: 1 } }))).toBe(false);
    const document = errorDocument(new LiveApiError(`GET /x: ${HOSTILE}`, 400, 'invalid_value', false));
    expect(rawControl(document.error.message)).toBe(false);
    expect(JSON.stringify(document)).toContain('\\\\u001b');
  });
});
