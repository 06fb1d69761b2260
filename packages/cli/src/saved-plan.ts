/**
 * Saved plans (`plan --out FILE`, the JSON of docs/plan-json.md): reading one back for
 * `apply --plan` and `show`, and refusing an `--out` whose name says it would hold another
 * format (a report.html that would in fact hold JSON: `show` renders a saved plan in any format).
 */
import { extname } from 'node:path';
import { readUpTo, type Plan } from '@gatehouse/engine/core';
import { parsePlanJson, PlanFormatError } from '@gatehouse/engine/render';
import { CliError } from './errors.js';

/**
 * What a saved plan may weigh at most. A saved plan takes some 430 bytes a change (8.6 MB for
 * 20,000), so this is about 600,000 changes, far more than one apply makes; a larger file, or a
 * device such as /dev/zero, is not a saved plan, and is refused before it fills the memory.
 */
const SAVED_PLAN_LIMIT = 256 * 1024 * 1024;

/** The saved plan in `file`; a `plan_file` error saying why when it cannot be read or is not one. */
export async function readSavedPlan(file: string): Promise<Plan> {
  const unreadable = (why: string) => new CliError('plan_file', `cannot read the saved plan ${file}: ${why}`);
  let bytes: Buffer | undefined;
  try {
    bytes = await readUpTo(file, SAVED_PLAN_LIMIT);
  } catch (error) {
    throw unreadable((error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
  if (bytes === undefined) {
    throw unreadable(`it is over ${SAVED_PLAN_LIMIT / 1024 / 1024} MiB, more than any plan gatehouse saves; name the file that plan --out wrote`);
  }
  try {
    return parsePlanJson(bytes.toString('utf8'));
  } catch (error) {
    throw unreadable(error instanceof PlanFormatError ? error.message : (error as Error).message);
  }
}

/** Extensions that name a report rather than a saved plan: the format `show` renders it in, and what to call the file. */
const REPORT_EXTENSIONS: Readonly<Record<string, { format: string; file: string }>> = {
  '.html': { format: 'html', file: 'an HTML file' },
  '.htm': { format: 'html', file: 'an HTML file' },
  '.md': { format: 'markdown', file: 'a Markdown file' },
  '.markdown': { format: 'markdown', file: 'a Markdown file' },
  '.txt': { format: 'text', file: 'a text file' },
};

/**
 * `plan --out` writes the saved plan, JSON for `apply --plan` and `show`, whatever `--format`
 * prints: a name whose extension says another format (`report.html`) is refused, before any
 * request, saying how to get that report.
 */
export function checkPlanOutName(out: string): void {
  const report = REPORT_EXTENSIONS[extname(out).toLowerCase()];
  if (report === undefined) return;
  const saved = `${out.slice(0, out.length - extname(out).length)}.json`;
  throw new CliError(
    'plan_out_format',
    `--out ${out} names ${report.file}, but --out saves the plan as JSON (for apply --plan and show). ` +
      `Save it as ${saved} and render it with: gatehouse show ${saved} --format ${report.format} > ${out}. Nothing was sent.`,
  );
}
