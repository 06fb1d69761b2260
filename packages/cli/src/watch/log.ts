/**
 * The log of `gatehouse watch`: one JSON object per line. stdout carries exactly one line per
 * cycle of each environment (`msg: "cycle"`), for a log pipeline to count, alert and graph on;
 * everything else (start, stop, warnings) goes to stderr as lines of the same shape. Strings are
 * escaped as the plan's JSON is (`terminalSafeJson`: control and bidirectional characters), so
 * a hostile name from the API cannot forge a line or reorder a terminal's text.
 *
 * A cycle line:
 *
 *     {"time":"…","level":"info","msg":"cycle","cycle":12,"environment":"production","stack":"web",
 *      "outcome":"success","duration_ms":812,"requests":19,"drifted":1,"drift":{"changed_outside":1},
 *      "heal":"done","healed":1,"ignored_fields":2,"commit":"4f2a9c1"}
 *
 * `level` is `info` in sync or healed, `warn` when drift is left or a heal waits for the lock,
 * `error` when the cycle or the heal failed.
 */
import { terminalSafeJson } from '@gatehouse/engine/core';
import type { CycleReport } from './cycle.js';

export type Level = 'info' | 'warn' | 'error';

export interface CycleLineInput {
  cycle: number;
  environment: string;
  stack: string;
  report: CycleReport;
  durationMs: number;
  at: Date;
  commit?: string;
}

export function cycleLine({ cycle, environment, stack, report, durationMs, at, commit }: CycleLineInput): string {
  const healed = report.heal?.healed.length ?? 0;
  const drifted = report.drift?.length;
  const byCause: Record<string, number> = {};
  for (const d of report.drift ?? []) byCause[d.cause] = (byCause[d.cause] ?? 0) + 1;
  const left = (drifted ?? 0) - healed;
  const failed = report.outcome === 'failed' || report.heal?.outcome === 'failed' || report.heal?.outcome === 'refused';
  const level: Level = failed ? 'error' : left > 0 || report.outcome === 'skipped' || report.heal?.outcome === 'locked' ? 'warn' : 'info';
  return line({
    time: at.toISOString(),
    level,
    msg: 'cycle',
    cycle,
    environment,
    stack,
    outcome: report.outcome,
    duration_ms: Math.round(durationMs),
    requests: report.requests,
    ...(drifted !== undefined ? { drifted, drift: byCause } : {}),
    ...(report.heal ? { heal: report.heal.outcome, healed } : {}),
    ...(report.heal?.message ? { heal_message: report.heal.message } : {}),
    ...(report.held && Object.keys(report.held).length > 0 ? { held: report.held } : {}),
    ...(report.ignoredFields ? { ignored_fields: report.ignoredFields } : {}),
    ...(report.lock
      ? { locked_by: report.lock.holder ?? 'an unknown holder', note: "another apply holds the stack's lock: drift reported, nothing healed or notified" }
      : {}),
    ...(commit !== undefined ? { commit } : {}),
    ...(report.error !== undefined ? { error: report.error } : {}),
    ...(report.problems ? { problems: report.problems } : {}),
  });
}

/** A line of stderr's log (start, stop, warnings). */
export function eventLine(level: Level, msg: string, fields: Record<string, unknown> = {}, at: Date = new Date()): string {
  return line({ time: at.toISOString(), level, msg, ...fields });
}

const line = (record: Record<string, unknown>): string => `${terminalSafeJson(record, 0)}\n`;
