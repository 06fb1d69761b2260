/**
 * Apply's progress as a person sees it: one line per finished change (status, action,
 * kind/name, id, time), the progress of the whole on stderr (a bar on a terminal, erased before
 * each line; a line every 10 s elsewhere), and a final summary. Step lines go to `out`.
 */
import { listSome, sanitize } from '@gatehouse/engine/core';
import type { ApplyResult, StepResult } from '@gatehouse/engine/apply';
import { pc } from '../output.js';
import type { TerminalStream } from '../progress/live-line.js';
import { plural } from '../progress/listing.js';
import type { PaceSource } from '../progress/pace-source.js';
import { formatDuration, StatusReporter, type ProgressMode, type ProgressView } from '../progress/status.js';

/** The status column of a line, with and without colour; built once, not per line. */
const STATUS_LABELS = [false, true].map((colour) => {
  const c = pc.createColors(colour);
  return {
    done: c.green('done   '),
    failed: c.red('failed '),
    skipped: c.yellow('skipped'),
    cancelled: c.red('cancelled'),
    not_started: c.yellow('not started'),
  } satisfies Record<StepResult['status'], string>;
});

export function formatStep(step: StepResult, colour = false): string {
  const status = STATUS_LABELS[colour ? 1 : 0]![step.status];
  const id = step.id ?? '-';
  const time = step.status === 'skipped' || step.status === 'not_started' ? '' : `  ${step.duration_ms} ms`;
  const why = step.reason ? `: ${step.reason.message}` : step.note ? ` (${step.note})` : '';
  return `${status} ${sanitize(`${step.action.padEnd(7)} ${step.address}  ${id}${time}${why}`)}`;
}

export function formatSummary(result: ApplyResult): string[] {
  const { summary } = result;
  const lines = [
    result.interrupted
      ? `Apply interrupted: ${summary.done} done, ${summary.failed} failed, ${summary.cancelled} cancelled (in flight when apply stopped waiting: they may or may not have taken effect), ${summary.not_started} not started${summary.skipped > 0 ? `, ${summary.skipped} skipped` : ''}. Run gatehouse plan to review what is left, then the same apply command again: it plans from what is live now and finishes the job.`
      : result.ok && result.steps.length === 0
        ? 'Nothing to apply.'
        : result.ok
          ? `Apply complete: ${summary.done} done in ${(result.duration_ms / 1000).toFixed(1)} s.`
          : `Apply failed: ${summary.done} done, ${summary.failed} failed, ${summary.skipped} skipped. ${afterFailure(result)}`,
  ];
  if (summary.not_pruned > 0) {
    lines.push(
      `${summary.not_pruned} delete${summary.not_pruned === 1 ? ' was' : 's were'} not done (pass --prune to delete): ${listSome(result.not_pruned.map((d) => sanitize(d.address)))}`,
    );
  }
  for (const held of result.held_duplicates ?? []) lines.push(`Duplicate not deleted: ${sanitize(held.message)}.`);
  if (summary.already_done > 0)
    lines.push(
      `${summary.already_done} change${summary.already_done === 1 ? '' : 's'} of the saved plan ${summary.already_done === 1 ? 'was' : 'were'} already done (the object matches the planned result); skipped.`,
    );
  if (result.targets)
    lines.push(
      `Targeted apply (--target ${result.targets.requested.map((t) => sanitize(t)).join(', ')}): nothing else was applied; run gatehouse plan to see what else differs from the manifests.`,
    );
  if (summary.not_in_plan > 0)
    lines.push(
      `${summary.not_in_plan} change${summary.not_in_plan === 1 ? '' : 's'} found now that the saved plan did not list ${summary.not_in_plan === 1 ? 'was' : 'were'} left alone; plan again to review them.`,
    );
  return lines;
}

/**
 * What to do after a failed apply. A stale change of a saved plan fails again whenever that plan
 * is applied: plan again. Other failures (the API refused a change, an answer was lost) are
 * fixed and the same apply run again, which goes on from what is live.
 */
function afterFailure(result: ApplyResult): string {
  const stale = result.steps.filter((s) => s.reason?.code === 'stale_object').length;
  if (stale > 0) {
    return `${stale === 1 ? 'A change' : `${stale} changes`} of the saved plan ${stale === 1 ? 'is' : 'are'} stale: run gatehouse plan again, review the new plan and apply that one (this plan would stop at ${stale === 1 ? 'it' : 'them'} again).`;
  }
  return 'Fix the failures and run apply again; it continues where this one stopped.';
}

/**
 * Prints finished steps, and keeps the apply's progress on stderr (`StatusReporter`): on a
 * terminal a bar of the changes done, the requests sent and the time left at the client's pace;
 * elsewhere a line every 10 s. What happens within one turn of the event loop is written at
 * once, at its end (`setImmediate`): with 10 changes in flight, finished lines come in bursts,
 * and one write per burst keeps a thousand-change apply from spending its time in write calls.
 * `end` writes what is pending at once and erases the bar.
 *
 * The time left: the changes not finished, at the requests a finished change took on average
 * (one until one has finished), plus the two that release the lock, at the client's pace
 * (`PaceSource.estimateMs`: the budget as spent so far, the answers' time, the cap on requests
 * in flight).
 */
export class Progress {
  #finished = 0;
  #running = 0;
  #stepRequests = 0;
  #lines: string[] = [];
  #scheduled: NodeJS.Immediate | undefined;
  readonly #status: StatusReporter;

  constructor(
    private readonly out: TerminalStream,
    private readonly total: number,
    private readonly pace: PaceSource,
    private readonly colour: boolean,
    status: { stream: TerminalStream; mode: ProgressMode; showAfterMs?: number },
  ) {
    this.#status = new StatusReporter(
      () => this.view(),
      status.stream,
      status.mode,
      status.showAfterMs !== undefined ? { showAfterMs: status.showAfterMs } : {},
    );
  }

  started(): void {
    this.#running += 1;
    this.#schedule();
  }

  finished(step: StepResult): void {
    this.#finished += 1;
    this.#stepRequests += step.requests;
    if (step.status !== 'skipped') this.#running = Math.max(0, this.#running - 1);
    this.#lines.push(`${formatStep(step, this.colour)}\n`);
    this.#schedule();
  }

  /** What the status line shows. */
  view(): ProgressView {
    const left = this.total - this.#finished;
    const perChange = this.#finished > 0 ? Math.max(1, this.#stepRequests / this.#finished) : 1;
    const leftMs = this.pace.estimateMs(Math.ceil(left * perChange) + LOCK_RELEASE_REQUESTS);
    return {
      done: this.#finished,
      total: this.total,
      text: `${this.#finished}/${this.total} changes, ${this.#running} running, ${plural(this.pace.requests(), 'request')}${left > 0 ? `, ~${formatDuration(leftMs)} left` : ''}`,
    };
  }

  end(): void {
    if (this.#scheduled) this.#flush();
    this.#status.stop();
  }

  #schedule(): void {
    this.#scheduled ??= setImmediate(() => this.#flush());
  }

  #flush(): void {
    clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    if (this.#lines.length > 0) {
      const text = this.#lines.join('');
      this.#lines = [];
      this.#status.around(() => this.out.write(text));
    }
    this.#status.update();
  }
}

/** The requests that release the stack's lock after the last change (lock/protocol.ts). */
const LOCK_RELEASE_REQUESTS = 2;
