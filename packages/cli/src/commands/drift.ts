import { Args, Flags } from '@oclif/core';
import { Command } from '../command.js';
import { renderDriftsJson, renderDriftsMarkdown, renderDriftsText, type EnvironmentDrift } from '@gatehouse/engine/environments';
import { driftFromRead, readForDrift, renderDriftHtml, renderDriftJson, renderDriftMarkdown, renderDriftText } from '@gatehouse/engine/drift';
import { failCommand } from '../command-run.js';
import { connectionFlags } from '../connection/flags.js';
import { environmentFlags } from '../environments/flags.js';
import { checkTargets, prepareEach, readEach, sayUsage } from '../environments/read-each.js';
import { explicitFlags, selectEnvironments } from '../environments/select.js';
import { isVerbose } from '../request-log.js';
import { requestUsage } from '../request-usage.js';
import { manifestFlags, readingOptions } from '../manifest-flags.js';
import { printOut, terminalStyle } from '../output.js';
import { REPORT_FORMATS, type ReportFormat } from '../plan-output.js';
import { CliError } from '../errors.js';
import { targetFlags, targetsOf } from '../target-flags.js';

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
  static override jsonErrors = true;
  static override args = { path: Args.string({ description: 'manifest file or directory (repeatable; default: the current directory)' }) };
  static override flags = {
    format: Flags.string({ description: 'output format', options: [...REPORT_FORMATS], default: 'text' }),
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
    const targets = await Promise.resolve()
      .then(() => targetsOf(flags))
      .catch((error: unknown) => failCommand(this, error, 'drift was not checked'));
    const selection = await selectEnvironments({
      argv: argv as string[],
      flags,
      explicit: explicitFlags(flags, metadata),
      allowAll: true,
      command: 'drift',
    }).catch((error: unknown) => failCommand(this, error, 'drift was not checked'));
    const format = flags.format as ReportFormat;
    const reading = readingOptions(flags, (line) => this.logToStderr(line));
    if (selection.all && format === 'html') {
      failCommand(
        this,
        new CliError(
          'environment_all_refused',
          '--format html reports one environment; with --env all, write one report per environment with --env NAME --format html',
        ),
        'drift was not checked',
      );
    }
    // Every environment's manifests and settings first: a problem in any costs no request.
    const prepared = await prepareEach(
      this,
      selection,
      { nothing: 'drift was not checked', environment: (name) => `drift of environment ${name} was not checked` },
      async (run, connection) => {
        const options = {
          paths: run.paths,
          ...run.options,
          env: process.env,
          stack: connection.stack,
          environment: run.environment,
          ...(targets ? { targets } : {}),
          ...reading,
        };
        return { options, read: await readForDrift(options) };
      },
    );
    const detected = await readEach(prepared, isVerbose(flags), async ({ options, read }, connection, api) => {
      const report = await driftFromRead(read, { ...options, api, stack: connection.stack });
      return { ...report, api_requests: requestUsage(connection.client) };
    }).catch((error: unknown) =>
      failCommand(
        this,
        error,
        prepared.length === 1 && prepared[0]!.run.environment
          ? `drift of environment ${prepared[0]!.run.environment.name} was not checked`
          : 'drift was not checked',
      ),
    );
    if (selection.all) {
      const reports: EnvironmentDrift[] = detected.map((report, i) => ({ environment: selection.runs[i]!.environment!.name, report }));
      checkTargets(this, detected, format, 'drift was not checked');
      await printOut(
        format === 'json'
          ? renderDriftsJson(reports)
          : format === 'markdown'
            ? renderDriftsMarkdown(reports)
            : renderDriftsText(reports, { style: terminalStyle() }),
      );
      for (const { environment, report } of reports) sayUsage(report, environment);
      if (reports.some((r) => r.report.drifted)) this.exit(2);
      return;
    }
    const report = detected[0]!;
    checkTargets(this, [report], format, 'drift was not checked');
    const output =
      format === 'json'
        ? renderDriftJson(report)
        : format === 'markdown'
          ? renderDriftMarkdown(report)
          : format === 'html'
            ? renderDriftHtml(report)
            : renderDriftText(report, { style: terminalStyle() });
    await printOut(output);
    sayUsage(report);
    if (report.drifted) this.exit(2);
  }
}
