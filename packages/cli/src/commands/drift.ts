import { Args, Command, Flags } from '@oclif/core';
import { detectDrift, renderDriftHtml, renderDriftJson, renderDriftMarkdown, renderDriftText, type DriftReport } from '@gatehouse/engine';
import { failCommand, withConnection } from '../command-run.js';
import { connectionFlags, type ConnectionFlagValues } from '../connection/flags.js';
import { manifestFlags, readingOptions } from '../manifest-flags.js';
import { terminalStyle } from '../output.js';

const FORMATS = ['text', 'json', 'markdown', 'html'] as const;

/** `gatehouse drift`: for a nightly job; exit 0 in sync, 2 drifted, 1 error. */
export default class Drift extends Command {
  static override summary = 'Report whether the live API still matches the manifests, and why not.';
  static override description = `Compares live state with the manifests (list requests only) and names every drifted object
and field with the kind of drift: changed outside gatehouse, deleted outside gatehouse,
missing (not applied yet or deleted outside), changed in the manifests since the last apply,
or changed with an unknown cause. Unmanaged objects beside managed ones are listed as
information. Exit 0 when live matches the manifests, 2 when it does not, 1 on error.
--format json is the versioned document of packages/engine/docs/drift-json.md.`;
  static override strict = false;
  static override args = { path: Args.string({ description: 'manifest file or directory (repeatable; default: the current directory)' }) };
  static override flags = {
    format: Flags.string({ description: 'output format', options: [...FORMATS], default: 'text' }),
    ...manifestFlags,
    ...connectionFlags,
  };
  static override examples = [
    '<%= config.bin %> drift manifests/',
    '<%= config.bin %> drift manifests/ --format json > drift.json || notify-on-exit-2',
  ];

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Drift);
    const paths = argv.length > 0 ? (argv as string[]) : ['.'];
    const report = await this.#detect(paths, flags);
    const format = flags.format as (typeof FORMATS)[number];
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

  #detect(paths: string[], flags: ConnectionFlagValues & { 'max-file-size': number }): Promise<DriftReport> {
    return withConnection(flags, (connection) =>
      detectDrift({ paths, env: process.env, api: connection.api, stack: connection.stack, ...readingOptions(flags, (line) => this.logToStderr(line)) }),
    ).catch((error: unknown) => failCommand(this, error, 'drift was not checked'));
  }
}
