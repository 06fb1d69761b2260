import { readFile } from 'node:fs/promises';
import { Args, Command, Flags } from '@oclif/core';
import {
  ApplyRefused,
  DependencyCycleError,
  executeApply,
  INTERRUPT_GRACE_MS,
  parsePlanJson,
  PlanFormatError,
  prepareApply,
  renderJsonDocument,
  renderText,
  sanitize,
  type ApplyResult,
  type Plan,
  type PreparedApply,
  WalkError,
} from '@gatehouse/engine';
import { canAsk, confirm, PromptCancelled } from '../apply/confirm.js';
import { formatSummary, Progress } from '../apply/progress.js';
import { failCommand, withConnection } from '../command-run.js';
import type { Connection } from '../connection/connect.js';
import { connectionFlags } from '../connection/flags.js';
import { manifestFlags, readingOptions } from '../manifest-flags.js';
import { CliError } from '../errors.js';
import { colourEnabled, terminalStyle } from '../output.js';

const FORMATS = ['text', 'json'] as const;

/** `gatehouse apply`: make the live API match the manifests (or a reviewed, saved plan). */
export default class Apply extends Command {
  static override summary = 'Change the live API to match the manifests, or apply a saved plan.';
  static override description = `Computes the plan (or reads one saved with plan --out), shows it and asks for confirmation on
a terminal; --yes skips the question, and without a terminal apply refuses unless --yes is given.
Changes run concurrently (--parallelism, default 10) as soon as what they depend on is done:
parents before children for creates and updates, children first for deletes. A create whose
answer was lost is looked up before it is tried again, so retries never make duplicates; the
dependents of a failed change are skipped, and running apply again finishes the job.
Deletes happen only with --prune and only of objects this stack owns. Refused before anything
is written: a delete or replace of an object with lifecycle.prevent_destroy; deleting or
replacing more than 30% of the stack's objects (when it owns more than 10) without --force; a
saved plan whose manifests changed. A change of a saved plan whose live object changed since
is refused as stale (nothing of it is written; its dependents are skipped).
Exit 0 when every change is done, 1 otherwise.`;
  static override strict = false;
  static override args = { path: Args.string({ description: 'manifest file or directory (repeatable; default: the saved plan\'s paths, or the current directory)' }) };
  static override flags = {
    plan: Flags.string({ description: 'apply this saved plan (from plan --out) instead of a fresh one' }),
    yes: Flags.boolean({ description: 'apply without asking for confirmation', default: false }),
    prune: Flags.boolean({ description: 'delete owned objects that the manifests no longer declare', default: false }),
    force: Flags.boolean({ description: 'allow deleting or replacing more than 30% of the stack\'s objects', default: false }),
    parallelism: Flags.integer({ description: 'changes running at once', default: 10, min: 1, max: 100 }),
    format: Flags.string({ description: 'output format (json: the result as one JSON document on stdout)', options: [...FORMATS], default: 'text' }),
    ...manifestFlags,
    ...connectionFlags,
  };
  static override examples = [
    '<%= config.bin %> apply examples/basic',
    '<%= config.bin %> apply manifests/ --yes --prune',
    '<%= config.bin %> plan manifests/ --out plan.json && <%= config.bin %> apply --plan plan.json --yes',
  ];

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Apply);
    const json = flags.format === 'json';
    const saved = flags.plan ? await this.#readPlan(flags.plan) : undefined;
    // With --format json stdout carries only the result: the plan and progress go to stderr.
    const infoStream = json ? process.stderr : process.stdout;
    const colour = colourEnabled(process.env, Boolean(infoStream.isTTY));
    const info = (text: string) => infoStream.write(text);
    const result = await withConnection(flags, async (connection) => {
      if (saved) this.#checkTarget(saved, connection);
      const prepared = await prepareApply({
        api: connection.api,
        stack: connection.stack,
        paths: argv as string[],
        env: process.env,
        ...(saved ? { saved } : {}),
        prune: flags.prune,
        force: flags.force,
        ...readingOptions(flags, (line) => this.logToStderr(line)),
      });
      info(renderText(prepared.plan, { style: terminalStyle(colour) }));
      this.#refuse(prepared);
      for (const subject of prepared.subjects) if (subject.stale) this.logToStderr(`stale: ${sanitize(subject.stale.message)}`);
      if (prepared.subjects.length > 0 && !flags.yes) await this.#confirm(prepared, connection);
      const outcome = await this.#execute(prepared, connection, flags.parallelism, colour, info);
      if (outcome.summary.cancelled > 0) {
        // Requests still in flight would hold the connection open: report and leave now.
        await this.#report(outcome, json);
        process.exit(130);
      }
      return outcome;
    }).catch((error: unknown) => this.#fail(error));
    await this.#report(result, json);
    if (result.interrupted) this.exit(130);
    if (!result.ok) this.exit(1);
  }

  /** The result on stdout: one JSON document, or the summary lines. */
  async #report(result: ApplyResult, json: boolean): Promise<void> {
    const text = json ? renderJsonDocument(result, result.target) : formatSummary(result).map((line) => `${line}\n`).join('');
    await new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
  }

  async #execute(prepared: PreparedApply, connection: Connection, parallelism: number, colour: boolean, info: (text: string) => unknown): Promise<ApplyResult> {
    const progress = new Progress({ write: info }, process.stderr.isTTY ? process.stderr : undefined, prepared.subjects.length, colour);
    const interrupt = new AbortController();
    let signals = 0;
    // First Ctrl-C (or SIGTERM): start nothing new, let requests in flight finish (30 s at
    // most), then report. A second one leaves at once.
    const onSignal = () => {
      signals += 1;
      if (signals === 1) {
        progress.end();
        process.stderr.write(`\nInterrupted: starting nothing new; waiting up to ${INTERRUPT_GRACE_MS / 1000} s for the requests in flight. Press Ctrl-C again to exit at once.\n`);
        interrupt.abort();
        return;
      }
      process.stderr.write('Exiting at once: requests in flight may or may not have taken effect. Run gatehouse plan to see where things stand.\n');
      process.exit(130);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      return await executeApply(prepared, connection.api, {
        signal: interrupt.signal,
        parallelism,
        onStart: () => progress.started(),
        onStep: (step) => progress.finished(step),
      });
    } finally {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      progress.end();
    }
  }

  #refuse(prepared: PreparedApply): void {
    if (prepared.refusals.length === 0) return;
    for (const refusal of prepared.refusals) this.logToStderr(`refused: ${sanitize(refusal.message)} [${refusal.code}]`);
    throw new CliError('apply_refused', `apply refused (${prepared.refusals.length} reason${prepared.refusals.length === 1 ? '' : 's'} above); nothing was written`);
  }

  async #confirm(prepared: PreparedApply, connection: Connection): Promise<void> {
    if (!canAsk()) {
      throw new CliError('not_confirmed', 'not a terminal, so there is no one to confirm; pass --yes to apply without confirmation');
    }
    const n = prepared.subjects.length;
    const ok = await confirm(`Apply ${n} change${n === 1 ? '' : 's'} to ${connection.target.embedded ? 'the embedded server' : connection.target.url} (stack "${sanitize(connection.stack)}")?`);
    if (!ok) throw new CliError('not_confirmed', 'apply cancelled; nothing was written');
  }

  /** A saved plan is applied only to the API it was computed against. */
  #checkTarget(saved: Plan, connection: Connection): void {
    const same = saved.target.embedded ? connection.target.embedded : !connection.target.embedded && saved.target.url === connection.target.url;
    if (!same) {
      const where = (t: Plan['target']) => (t.embedded ? 'the embedded server' : t.url);
      throw new CliError('plan_target', `the saved plan was made against ${where(saved.target)}, not ${where(connection.target)}; apply it there, or plan again`);
    }
  }

  async #readPlan(file: string): Promise<Plan> {
    try {
      return parsePlanJson(await readFile(file, 'utf8'));
    } catch (error) {
      const why = error instanceof PlanFormatError ? error.message : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
      return this.#fail(new CliError('plan_file', `cannot read the saved plan ${file}: ${why}`));
    }
  }

  #fail(error: unknown): never {
    if (error instanceof PromptCancelled) {
      this.logToStderr('Apply cancelled.');
      return this.exit(1);
    }
    if (error instanceof ApplyRefused) {
      for (const refusal of error.refusals) this.logToStderr(`refused: ${sanitize(refusal.message)} [${refusal.code}]`);
      this.error('apply refused; nothing was written', { exit: 1 });
    }
    if (error instanceof DependencyCycleError || error instanceof WalkError) this.error(`${sanitize(error.message)}; nothing was written`, { exit: 1 });
    return failCommand(this, error, 'nothing was applied');
  }
}
