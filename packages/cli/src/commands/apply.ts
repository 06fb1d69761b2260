import { Args, Flags } from '@oclif/core';
import { Command } from '../command.js';
import { checkTargetsMatched, describeLock, LockHeld, ApplyRefused, type HeldLock, DependencyCycleError, sanitize, type Plan } from '@gatehouse/engine/core';
import { renderJsonDocument, renderKindSummary, renderText } from '@gatehouse/engine/render';
import {
  executeApply,
  INTERRUPT_GRACE_MS,
  observe,
  planApply,
  readForApply,
  type ApplyResult,
  type PreparedApply,
  type PrepareOptions,
  WalkError,
} from '@gatehouse/engine/apply';
import { canAsk, confirm, PromptCancelled } from '../apply/confirm.js';
import { formatSummary, Progress } from '../apply/progress.js';
import { failCommand, stop, withConnection } from '../command-run.js';
import type { Connection } from '../connection/connect.js';
import { connectionFlags } from '../connection/flags.js';
import { environmentFlags } from '../environments/flags.js';
import { explicitFlags, selectEnvironments } from '../environments/select.js';
import { manifestFlags, readingOptions } from '../manifest-flags.js';
import { CliError } from '../errors.js';
import { readSavedPlan } from '../saved-plan.js';
import { lockTimeoutFlag } from '../lock-flags.js';
import { targetFlags, targetsOf, unmatchedWarnings } from '../target-flags.js';
import { fromStackFlag, fromStackOption, lockStacksWhileReading, lockWarnings } from '../stack-flags.js';
import { colourEnabled, printOut, terminalStyle } from '../output.js';
import { printAbove } from '../progress/live-line.js';
import { ReadingProgress } from '../progress/listing.js';
import { paceOf } from '../progress/pace-source.js';
import { progressMode, type ProgressMode } from '../progress/status.js';
import { isVerbose } from '../request-log.js';
import { formatUsage, requestUsage } from '../request-usage.js';

const FORMATS = ['text', 'json'] as const;

/** `gatehouse apply`: make the live API match the manifests (or a reviewed, saved plan). */
export default class Apply extends Command {
  static override summary = 'Change the live API to match the manifests, or apply a saved plan.';
  static override description =
    'Computes the plan (or reads one saved with plan --out), shows it and asks for confirmation on a terminal; --yes (-y) skips ' +
    'the question, and without a terminal apply refuses unless --yes is given. With --yes the plan is shown as one line per kind ' +
    '(its creates, updates, replaces and deletes); --show-plan shows it in full.\n\n' +
    'Changes run concurrently (--parallelism, default 10) as soon as what they depend on is done: parents before children for ' +
    'creates and updates, children first for deletes. A create whose answer was lost is looked up before it is tried again, so ' +
    'retries never make duplicates; the dependents of a failed change are skipped, and running apply again finishes the job.\n\n' +
    'Deletes happen only with --prune and only of objects this stack owns that were applied from the PATHs given (the ownership ' +
    'marker records the manifest file; a file PATH scopes to that file, a directory PATH to everything under it); --prune-all ' +
    'deletes everything the stack owns that the manifests do not declare. Refused before anything is written: a delete or ' +
    "replace of an object with lifecycle.prevent_destroy; deleting or replacing more than 30% of the stack's top-level objects, or of one kind (when it " +
    'owns more than 10) without --force; a saved plan whose manifests changed. A change of a saved plan whose live object changed ' +
    'since is refused as stale (nothing of it is written; its dependents are skipped).\n\n' +
    'With gatehouse.yaml, --env NAME applies one environment (its overlays, variables, API and stack); --env all is refused: ' +
    'apply one environment at a time.\n\n' +
    'Exit 0 when every change is done, 1 otherwise.';
  static override strict = false;
  static override jsonErrors = true;
  static override args = {
    path: Args.string({ description: "manifest file or directory (repeatable; default: the saved plan's paths, or the current directory)" }),
  };
  static override flags = {
    plan: Flags.string({ description: 'apply this saved plan (from plan --out) instead of a fresh one' }),
    yes: Flags.boolean({
      char: 'y',
      description: 'apply without asking for confirmation (prints a summary line per kind instead of the full plan)',
      default: false,
    }),
    'show-plan': Flags.boolean({ description: 'print the full plan even with --yes', default: false }),
    prune: Flags.boolean({ description: 'delete owned objects that the manifests no longer declare, of those applied from the PATHs given', default: false }),
    'prune-all': Flags.boolean({
      description: 'delete everything the stack owns that the manifests do not declare, wherever it was applied from (implies --prune)',
      default: false,
    }),
    force: Flags.boolean({ description: "allow deleting or replacing more than 30% of the stack's top-level objects, or of one kind", default: false }),
    parallelism: Flags.integer({ description: 'changes running at once', default: 10, min: 1, max: 100 }),
    format: Flags.string({ description: 'output format (json: the result as one JSON document on stdout)', options: [...FORMATS], default: 'text' }),
    'lock-timeout': lockTimeoutFlag,
    ...targetFlags,
    ...manifestFlags,
    ...connectionFlags,
    ...fromStackFlag,
    ...environmentFlags,
  };
  static override examples = [
    '<%= config.bin %> apply examples/basic',
    '<%= config.bin %> apply manifests/ --yes --prune',
    '<%= config.bin %> apply manifests/ip-policies.yaml --yes --prune   # deletes only what that file no longer declares',
    '<%= config.bin %> apply manifests/ --stack platform --from-stack default --yes   # rename stack default to platform',
    '<%= config.bin %> plan manifests/ --out plan.json && <%= config.bin %> apply --plan plan.json --yes',
    '<%= config.bin %> apply manifests/ --target HTTPSEdge/api --yes   # an emergency change to one edge (its routes, and what they depend on)',
  ];

  async run(): Promise<void> {
    const { argv, flags, metadata } = await this.parse(Apply);
    const json = flags.format === 'json';
    const targets = await Promise.resolve()
      .then(() => targetsOf(flags))
      .catch((error: unknown) => this.#fail(error));
    const saved = flags.plan ? await readSavedPlan(flags.plan).catch((error: unknown) => this.#fail(error)) : undefined;
    const selection = await selectEnvironments({
      // A saved plan's own paths come first (prepareApply), so no project default for them.
      argv: argv.length === 0 && saved?.manifest_paths ? saved.manifest_paths : (argv as string[]),
      // A saved plan made for an environment is applied to it unless --env says otherwise.
      flags: { ...flags, env: flags.env ?? saved?.environment },
      explicit: explicitFlags(flags, metadata),
      command: 'apply',
    }).catch((error: unknown) => this.#fail(error));
    const run = selection.runs[0]!;
    // With --format json stdout carries only the result: the plan and progress go to stderr.
    const infoStream = json ? process.stderr : process.stdout;
    const colour = colourEnabled(process.env, Boolean(infoStream.isTTY));
    const info = (text: string) => infoStream.write(text);
    const connectionFlags = await Promise.resolve()
      .then(() => run.connection())
      .catch((error: unknown) => this.#fail(error));
    // Progress on stderr: a bar on a terminal, a line every 10 s elsewhere (none between --verbose lines).
    const progress = progressMode(process.stderr, process.env, isVerbose(connectionFlags));
    const result = await withConnection(connectionFlags, async (connection) => {
      if (saved) this.#checkTarget(saved, connection);
      const moving = fromStackOption(flags['from-stack'] ?? saved?.from_stack, connection.stack);
      const preparing: PrepareOptions = {
        api: connection.api,
        stack: connection.stack,
        paths: run.paths,
        ...run.options,
        env: process.env,
        environment: run.environment,
        ...(saved ? { saved } : {}),
        prune: flags.prune || flags['prune-all'],
        pruneAll: flags['prune-all'],
        force: flags.force,
        ...(targets ? { targets } : {}),
        ...moving,
        ...readingOptions(flags, (line) => this.logToStderr(line)),
      };
      const lockWarned = lockWarnings(connection.stack, (message) => printAbove(process.stderr, `warning: ${message}\n`));
      // The manifests first: a manifest problem costs no request and takes no lock.
      const manifests = await readForApply(preparing);
      // Live state is read under the stack's lock (a plan read before another apply ended would
      // be applied stale, and create what that apply created); the lock's claim is confirmed
      // from the same listing.
      const reading = new ReadingProgress(process.stderr, progress);
      const listing = reading.add(paceOf(connection.client));
      const { lock, value: observation } = await lockStacksWhileReading(
        connection.api,
        connection.stack,
        moving.fromStack,
        {
          timeoutMs: flags['lock-timeout'],
          ...testLease(),
          ...lockWarned,
          onWait: (held) =>
            printAbove(
              process.stderr,
              `waiting up to ${Math.round(flags['lock-timeout'] / 1000)} s (--lock-timeout) for the lock: ${sanitize(held ? describeLock(held) : `stack "${connection.stack}" is locked`)}\n`,
            ),
        },
        () => observe(listing.wrap(connection.api)),
        (observed) => observed.lockObjects.policies,
      ).finally(() => reading.stop());
      if (lock.recovered)
        this.logToStderr(
          `note: took over the lock of stack "${sanitize(connection.stack)}" left by ${sanitize(lock.recovered.holder ?? 'a process')}, which no longer runs on this machine`,
        );
      let outcome: ApplyResult;
      try {
        const prepared = planApply(preparing, manifests, observation);
        outcome = await this.#locked(lock, prepared, preparing, flags, connection, colour, info, json, progress);
      } finally {
        await lock.release().catch(lockWarned.onReleaseError);
      }
      // Counted once the lock is released: its requests are the apply's too.
      return { ...outcome, api_requests: requestUsage(connection.client) };
    }).catch((error: unknown) => this.#fail(error));
    await this.#report(result, json);
    if (result.interrupted) this.exit(130);
    if (!result.ok) this.exit(1);
  }

  /** The apply itself (its plan prepared), while this process holds the stack's lock. */
  async #locked(
    lock: HeldLock,
    prepared: PreparedApply,
    preparing: PrepareOptions,
    flags: { yes: boolean; 'show-plan': boolean; parallelism: number },
    connection: Connection,
    colour: boolean,
    info: (text: string) => unknown,
    json: boolean,
    progress: ProgressMode,
  ): Promise<ApplyResult> {
    // Every target unmatched: nothing to apply for a typo is a failure, not "0 done".
    if (!preparing.saved) checkTargetsMatched([prepared.plan.targets]);
    if (json) for (const line of unmatchedWarnings(prepared.plan.targets)) this.logToStderr(line);
    // Asked to confirm, a person reads the whole plan first; with --yes nobody does, so a
    // line per kind unless --show-plan.
    const render = flags.yes && !flags['show-plan'] ? renderKindSummary : renderText;
    info(render(prepared.plan, { style: terminalStyle(colour) }));
    // Printed, with the reasons, by #fail (and listed in the JSON error document).
    if (prepared.refusals.length > 0) throw new ApplyRefused(prepared.refusals);
    for (const subject of prepared.subjects) if (subject.stale) this.logToStderr(`stale: ${sanitize(subject.stale.message)}`);
    if (prepared.subjects.length > 0 && !flags.yes) await this.#confirm(prepared, connection);
    const outcome = await this.#execute(prepared, connection, flags.parallelism, colour, info, lock.lost, progress);
    // A lost lock stopped the apply as an interrupt does (nothing new started): a failure.
    if (lock.lost.aborted) throw lockLostError(lock.lost, outcome);
    if (outcome.summary.cancelled > 0) {
      // Requests still in flight would hold the connection open: report and leave now.
      await this.#report({ ...outcome, api_requests: requestUsage(connection.client) }, json);
      await lock.release().catch(() => undefined);
      process.exit(130);
    }
    return outcome;
  }

  /**
   * The result on stdout: one JSON document, or the summary lines; then the requests it cost and
   * the share of the budget they were, last (on stderr beside a JSON document).
   */
  async #report(result: ApplyResult, json: boolean): Promise<void> {
    const usage = result.api_requests ? `${formatUsage(result.api_requests, result.target.embedded)}\n` : '';
    const text = json ? renderJsonDocument(result, result.target) : [...formatSummary(result).map((line) => `${line}\n`), usage].join('');
    await printOut(text);
    if (json && usage) process.stderr.write(usage);
  }

  async #execute(
    prepared: PreparedApply,
    connection: Connection,
    parallelism: number,
    colour: boolean,
    info: (text: string) => unknown,
    lockLost: AbortSignal,
    mode: ProgressMode,
  ): Promise<ApplyResult> {
    const progress = new Progress({ write: info }, prepared.subjects.length, paceOf(connection.client), colour, { stream: process.stderr, mode });
    const interrupt = new AbortController();
    let signals = 0;
    // First Ctrl-C (or SIGTERM): start nothing new, let requests in flight finish (30 s at
    // most), then report. A second one leaves at once.
    const onSignal = () => {
      signals += 1;
      if (signals === 1) {
        progress.end();
        process.stderr.write(
          `\nInterrupted: starting nothing new; waiting up to ${INTERRUPT_GRACE_MS / 1000} s for the requests in flight. Press Ctrl-C again to exit at once.\n`,
        );
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
        // Interrupted, or the lock lost: either way no new change starts.
        signal: AbortSignal.any([interrupt.signal, lockLost]),
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

  async #confirm(prepared: PreparedApply, connection: Connection): Promise<void> {
    if (!canAsk()) {
      throw new CliError('not_confirmed', 'not a terminal, so there is no one to confirm; pass --yes to apply without confirmation');
    }
    const n = prepared.subjects.length;
    const ok = await confirm(
      `Apply ${n} ${prepared.plan.targets ? 'targeted ' : ''}change${n === 1 ? '' : 's'} to ${connection.target.embedded ? 'the embedded server' : connection.target.url} (stack "${sanitize(connection.stack)}")?`,
    );
    if (!ok) throw new CliError('not_confirmed', 'apply cancelled; nothing was written');
  }

  /** A saved plan is applied only to the API it was computed against. */
  #checkTarget(saved: Plan, connection: Connection): void {
    const same = saved.target.embedded ? connection.target.embedded : !connection.target.embedded && saved.target.url === connection.target.url;
    if (!same) {
      const where = (t: Plan['target']) => (t.embedded ? 'the embedded server' : t.url);
      throw new CliError(
        'plan_target',
        `the saved plan was made against ${where(saved.target)}, not ${where(connection.target)}; apply it there, or plan again`,
      );
    }
  }

  #fail(error: unknown): never {
    if (error instanceof LockHeld) stop(this, sanitize(error.message), error);
    if (error instanceof PromptCancelled) {
      this.logToStderr('Apply cancelled.');
      return this.exit(1);
    }
    if (error instanceof ApplyRefused) {
      for (const refusal of error.refusals) this.logToStderr(`refused: ${sanitize(refusal.message)} [${refusal.code}]`);
      const n = error.refusals.length;
      stop(this, `apply refused (${n} reason${n === 1 ? '' : 's'} above); nothing was written`, error);
    }
    if (error instanceof DependencyCycleError || error instanceof WalkError) stop(this, `${sanitize(error.message)}; nothing was written`, error);
    return failCommand(this, error, 'nothing was applied');
  }
}

/** The failure of an apply that lost its lock (`HeldLock.lost`): its reason and what was done. */
function lockLostError(lost: AbortSignal, outcome: ApplyResult): CliError {
  const reason = lost.reason instanceof Error ? lost.reason.message : String(lost.reason);
  const { done, not_started: notStarted, cancelled } = outcome.summary;
  const counts = `${done} change${done === 1 ? '' : 's'} done, ${notStarted} not started${cancelled > 0 ? `, ${cancelled} in flight with no answer` : ''}`;
  return new CliError('lock_lost', `${sanitize(reason)} (${counts})`);
}

/**
 * GATEHOUSE_TEST_LOCK_LEASE_SECONDS: a short lease, for tests of renewal and staleness only (a
 * real apply keeps the default hour). Renewals then come every third of it.
 */
function testLease(): { leaseSeconds?: number } {
  const seconds = Number(process.env.GATEHOUSE_TEST_LOCK_LEASE_SECONDS);
  return Number.isFinite(seconds) && seconds > 0 ? { leaseSeconds: seconds } : {};
}
