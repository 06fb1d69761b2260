/**
 * What plan and drift share to read live state for one environment or for every one
 * (`--env all`): every environment prepared (its settings and manifests checked) before the
 * first request, then each read over its own connection (those on different targets at
 * once, by-target.ts) with the progress of the reading on stderr, the requests each cost said
 * after the report, and the check that `--target` matched something.
 */
import type { Command } from '@oclif/core';
import { checkTargetsMatched, LiveApiError, type LiveApi, type PlanTargets, type RequestUsage } from '@gatehouse/engine/core';
import { failCommand, withConnection } from '../command-run.js';
import type { Connection } from '../connection/connect.js';
import type { ConnectionFlagValues } from '../connection/flags.js';
import { printAbove } from '../progress/live-line.js';
import { ReadingProgress } from '../progress/listing.js';
import { paceOf } from '../progress/pace-source.js';
import { progressMode } from '../progress/status.js';
import { formatUsage } from '../request-usage.js';
import { unmatchedWarnings } from '../target-flags.js';
import { budgetKey, byTarget } from './by-target.js';
import type { EnvironmentRun } from './select.js';

/** An environment ready to read: its run, its connection settings and the key of its budget (by-target.ts). */
export interface Readable {
  run: EnvironmentRun;
  connection: ConnectionFlagValues;
  budget: string;
}

/**
 * Every run of `selection` up to its first request, in order: its connection settings
 * (checked, not opened), its budget's key, then what `prepare` reads and checks (the
 * manifests). The first problem fails `command` (nothing is sent to any environment), saying
 * `notDone.nothing` (e.g. "nothing was planned") with the environment of the problem, or
 * `notDone.environment` of the one environment run.
 */
export async function prepareEach<T extends object>(
  command: Command,
  selection: { runs: readonly EnvironmentRun[]; all: boolean },
  notDone: { nothing: string; environment: (name: string) => string },
  prepare: (run: EnvironmentRun, connection: ConnectionFlagValues) => Promise<T>,
): Promise<(Readable & T)[]> {
  const prepared: (Readable & T)[] = [];
  for (const run of selection.runs) {
    try {
      // The target first, then the manifests: as connecting does.
      const connection = run.connection();
      const budget = budgetKey(connection);
      prepared.push({ run, connection, budget, ...(await prepare(run, connection)) });
    } catch (error) {
      const name = run.environment?.name;
      if (name === undefined) failCommand(command, error, notDone.nothing);
      failCommand(command, error, selection.all ? `${notDone.nothing} (the problem is in environment ${name})` : notDone.environment(name));
    }
  }
  return prepared;
}

/**
 * `work` for every environment, over its connection and an API whose listings the progress
 * counts; the results in the environments' order. When several are read, an API failure names
 * the environment it happened in.
 */
export async function readEach<P extends Readable, R>(
  prepared: readonly P[],
  verbose: boolean,
  work: (item: P, connection: Connection, api: LiveApi) => Promise<R>,
): Promise<R[]> {
  const progress = new ReadingProgress(process.stderr, progressMode(process.stderr, process.env, verbose));
  const readOne = (item: P) =>
    withConnection(item.connection, (connection) => work(item, connection, progress.add(paceOf(connection.client)).wrap(connection.api))).catch(
      (error: unknown) => {
        const environment = item.run.environment;
        throw prepared.length > 1 && environment && error instanceof LiveApiError
          ? new LiveApiError(`environment ${environment.name}: ${error.message}`, error.status, error.code, error.retryable, error.outcomeUnknown)
          : error;
      },
    );
  try {
    return await byTarget(prepared, (item) => item.budget, readOne);
  } finally {
    progress.stop();
  }
}

/** The requests a report cost and the share of the budget they were, on stderr (stdout is the report). */
export function sayUsage(report: { api_requests?: RequestUsage | undefined; target: { embedded: boolean } }, environment?: string): void {
  if (!report.api_requests) return;
  printAbove(process.stderr, `${environment ? `${environment}: ` : ''}${formatUsage(report.api_requests, report.target.embedded)}\n`);
}

/**
 * Every target unmatched fails `command` (nothing printed); targets of which some matched
 * nothing are said on stderr too when stdout is a document (`format` other than text).
 */
export function checkTargets(command: Command, reports: readonly { targets?: PlanTargets | undefined }[], format: string, notDone: string): void {
  try {
    checkTargetsMatched(reports.map((r) => r.targets));
  } catch (error) {
    failCommand(command, error, notDone);
  }
  if (format !== 'text') for (const report of reports) for (const line of unmatchedWarnings(report.targets)) command.logToStderr(line);
}
