import { Args, Errors, Flags } from '../oclif.js';
import { Command } from '../command.js';
import { checkTargetsMatched } from '@gatehouse/engine/core';
import { renderDriftsJson, renderDriftsMarkdown, renderDriftsText, type EnvironmentDrift } from '@gatehouse/engine/environments';
import { detectDrift, renderDriftHtml, renderDriftJson, renderDriftMarkdown, renderDriftText, type DriftReport } from '@gatehouse/engine/drift';
import { catchAsJson } from '../json-errors.js';
import { failCommand, withConnection } from '../command-run.js';
import { connectionFlags } from '../connection/flags.js';
import { environmentFlags } from '../environments/flags.js';
import { explicitFlags, selectEnvironments, type EnvironmentRun } from '../environments/select.js';
import { manifestFlags, readingOptions } from '../manifest-flags.js';
import { terminalStyle } from '../output.js';
import { CliError } from '../errors.js';
import { targetFlags, targetsOf, unmatchedWarnings } from '../target-flags.js';

const FORMATS = ['text', 'json', 'markdown', 'html'] as const;

/** `gatehouse drift`: for a nightly job; exit 0 in sync, 2 drifted, 1 error. */
export default class Drift extends Command {
  static override summary = 'Report whether the live API still matches the manifests, and why not.';
  static override description =
    'Compares live state with the manifests (list requests only) and names every drifted object and field with the kind of ' +
    'drift: changed outside gatehouse, deleted outside gatehouse, missing (not applied yet or deleted outside), changed in the ' +
    'manifests since the last apply, or changed with an unknown cause. Unmanaged objects beside managed ones are listed as ' +
    'information.\n\n' +
    'With gatehouse.yaml, --env NAME checks one environment against its own API and stack, and --env all checks every ' +
    'environment into one result that names the drifted ones.\n\n' +
    'Exit 0 when live matches the manifests, 2 when it does not (in any environment), 1 on error. --format json is the versioned document of ' +
    'docs/drift-json.md.';
  static override strict = false;
  static override args = { path: Args.string({ description: 'manifest file or directory (repeatable; default: the current directory)' }) };
  static override flags = {
    format: Flags.string({ description: 'output format', options: [...FORMATS], default: 'text' }),
    ...targetFlags,
    ...manifestFlags,
    ...connectionFlags,
    ...environmentFlags,
  };
  static override examples = [
    '<%= config.bin %> drift manifests/',
    '<%= config.bin %> drift manifests/ --format json > drift.json || notify-on-exit-2',
    "<%= config.bin %> drift manifests/ --target 'HTTPSEdge/*'   # only the HTTPS edges (and their routes): exit 2 for them alone",
  ];

  async run(): Promise<void> {
    const { argv, flags, metadata } = await this.parse(Drift);
    const targets = await Promise.resolve().then(() => targetsOf(flags)).catch((error: unknown) => failCommand(this, error, 'drift was not checked'));
    const selection = await selectEnvironments({
      argv: argv as string[],
      flags,
      explicit: explicitFlags(flags, metadata),
      withoutEnv: 'required',
      allowAll: true,
      command: 'drift',
    }).catch((error: unknown) => failCommand(this, error, 'drift was not checked'));
    const format = flags.format as (typeof FORMATS)[number];
    const reading = readingOptions(flags, (line) => this.logToStderr(line));
    if (selection.all) {
      if (format === 'html') failCommand(this, new CliError('environment_all_refused', '--format html reports one environment; with --env all, write one report per environment with --env NAME --format html'), 'drift was not checked');
      const reports: EnvironmentDrift[] = [];
      for (const run of selection.runs) reports.push({ environment: run.environment!.name, report: await this.#detect(run, reading, targets) });
      this.#checkTargets(reports.map((r) => r.report), format);
      process.stdout.write(format === 'json' ? renderDriftsJson(reports) : format === 'markdown' ? renderDriftsMarkdown(reports) : renderDriftsText(reports, { style: terminalStyle() }));
      if (reports.some((r) => r.report.drifted)) this.exit(2);
      return;
    }
    const report = await this.#detect(selection.runs[0]!, reading, targets);
    this.#checkTargets([report], format);
    process.stdout.write(
      format === 'json'
        ? renderDriftJson(report)
        : format === 'markdown'
          ? renderDriftMarkdown(report)
          : format === 'html'
            ? renderDriftHtml(report)
            : renderDriftText(report, { style: terminalStyle() }),
    );
    if (report.drifted) this.exit(2);
  }

  /** Every target unmatched fails (nothing printed); some unmatched are said on stderr too when stdout is a document. */
  #checkTargets(reports: readonly DriftReport[], format: string): void {
    try {
      checkTargetsMatched(reports.map((r) => r.targets));
    } catch (error) {
      failCommand(this, error, 'drift was not checked');
    }
    if (format !== 'text') for (const report of reports) for (const line of unmatchedWarnings(report.targets)) this.logToStderr(line);
  }

  #detect(run: EnvironmentRun, reading: ReturnType<typeof readingOptions>, targets?: string[]): Promise<DriftReport> {
    const environment = run.environment;
    return Promise.resolve()
      .then(() => run.connection())
      .then((flags) =>
        withConnection(flags, (connection) =>
          detectDrift({ paths: run.paths, ignore: run.ignore, env: process.env, api: connection.api, stack: connection.stack, environment, ...(targets ? { targets } : {}), ...reading }),
        ),
      )
      .catch((error: unknown) => failCommand(this, error, environment ? `drift of environment ${environment.name} was not checked` : 'drift was not checked'));
  }

  /** With --format json, every failure is one JSON error document on stdout (json-errors.ts). */
  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (await catchAsJson(this, error)) throw new Errors.ExitError(1);
    return super.catch(error);
  }
}
