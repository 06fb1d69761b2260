import { Flags } from '@oclif/core';
import { Command } from '../command.js';
import { sanitize, unreadableLine } from '@gatehouse/engine/core';
import { exportLive, recordedDirectory, type ExportResult } from '@gatehouse/engine/export';
import { failCommand, withConnection } from '../command-run.js';
import { connectionFlags, type ConnectionFlagValues } from '../connection/flags.js';
import { environmentFlags } from '../environments/flags.js';
import { explicitFlags, selectEnvironments } from '../environments/select.js';
import { manifestCount } from '../export/summary.js';
import { exportStream, STDOUT_PATH, writeExport } from '../export/write.js';
import { printOut } from '../output.js';

/** `gatehouse export`: the live configuration as manifests, the way into gatehouse. */
export default class Export extends Command {
  static override summary = 'Write the live configuration as manifests, each object in the file it was applied from.';
  static override description =
    'Reads live state (list requests only) and writes manifests into --out: each object the stack owns in the file its ' +
    'ownership marker records (relative to the repository root, so --out is best the root, or the directory the manifests ' +
    'were planned from), the others in one file per kind; references by name, server ' +
    "defaults left out, the user's metadata without gatehouse's marker, and every secret the API returns replaced by a " +
    '${env:NAME} placeholder (the names are listed at the end; set them before planning).\n\n' +
    'Without --all, only objects this stack owns; with --all, also the others, with "adopt: <id>" where taking them over needs ' +
    'it. Planning the exported manifests then shows no changes (with --all, only the adoptions).\n\n' +
    'Files are written atomically; files that export did not write are never replaced unless --overwrite is given.\n\n' +
    "With gatehouse.yaml, --env NAME exports from that environment's API and stack.";
  static override flags = {
    out: Flags.string({
      description: 'directory to write the manifests into, or - for one multi-document YAML on stdout (the summary then goes to stderr)',
      default: 'gatehouse-export',
    }),
    all: Flags.boolean({ description: 'also export objects this stack does not own (to adopt them)', default: false }),
    overwrite: Flags.boolean({ description: 'replace files in --out that export did not write', default: false }),
    ...connectionFlags,
    ...environmentFlags,
  };
  static override examples = [
    '<%= config.bin %> export --out manifests/',
    'GATEHOUSE_API_URL=https://api.example.com GATEHOUSE_API_KEY=... <%= config.bin %> export --all --out imported/',
  ];

  async run(): Promise<void> {
    const { flags, metadata } = await this.parse(Export);
    const selection = await selectEnvironments({
      argv: [],
      flags,
      explicit: explicitFlags(flags, metadata),
      command: 'export',
    }).catch((error: unknown) => this.#fail(error));
    const connection = await Promise.resolve()
      .then(() => selection.runs[0]!.connection())
      .catch((error: unknown) => this.#fail(error));
    const toStdout = flags.out === STDOUT_PATH;
    const { result, embedded } = await this.#export({ ...connection, all: flags.all, within: toStdout ? '' : recordedDirectory(flags.out) });
    if (toStdout) await printOut(exportStream(result.files));
    const { written, removed } = toStdout
      ? { written: [], removed: [] }
      : await writeExport(flags.out, result.files, flags.overwrite).catch((error: unknown) => this.#fail(error));
    const from = embedded ? ` from the embedded reference server (.gatehouse/server.db, not a real API)` : '';
    const lines = [
      `Exported ${result.exported} object${result.exported === 1 ? '' : 's'} of stack "${connection.stack}"${from} to ${toStdout ? 'standard output' : flags.out}:`,
    ];
    // One stream on standard output: one line for all of it.
    if (toStdout) lines.push(`  standard output  (${manifestCount(result.files.flatMap((f) => f.kinds))})`);
    for (const [i, file] of written.entries()) lines.push(`  ${file}  (${manifestCount(result.files[i]!.kinds)})`);
    for (const path of removed) lines.push(`  removed ${path} (written by an earlier export; no such objects now)`);
    if (result.notOwned > 0)
      lines.push(
        `${result.notOwned} object${result.notOwned === 1 ? '' : 's'} not owned by stack "${connection.stack}" left out; --all exports them for adoption.`,
      );
    for (const other of result.otherStacks)
      lines.push(
        `Objects of stack "${other}" were exported with adopt: <id>; applying them moves them into stack "${connection.stack}" and needs --from-stack ${other} (one stack per apply).`,
      );
    for (const s of result.skipped) lines.push(`Skipped ${s.kind} ${s.id}: ${s.reason}.`);
    // A kind the account cannot list has nothing to export: say so, or its absence reads as none.
    for (const u of result.unreadable) lines.push(`Not exported: ${unreadableLine(u)}; none of its objects could be read.`);
    if (result.secrets.length > 0) {
      lines.push('', `Secrets were replaced by placeholders; set these variables before planning (${result.secrets.length}):`);
      const width = Math.max(...result.secrets.map((s) => s.variable.length));
      for (const s of result.secrets) lines.push(`  ${s.variable.padEnd(width)}  ${s.address}: ${s.path}`);
    }
    // Every line quotes live values (ids, reasons, addresses) or paths: escaped as one.
    // With --out -, stdout holds the manifests: the summary goes to stderr.
    (toStdout ? process.stderr : process.stdout).write(`${lines.map((line) => sanitize(line)).join('\n')}\n`);
  }

  #export(flags: ConnectionFlagValues & { all: boolean; within: string }): Promise<{ result: ExportResult; embedded: boolean }> {
    return withConnection(flags, async (connection) => ({
      result: await exportLive({ api: connection.api, stack: connection.stack, all: flags.all, within: flags.within }),
      embedded: connection.target.embedded,
    })).catch((error: unknown) => this.#fail(error));
  }

  /** Export reads no manifests, so only API failures and `CliError`s reach this. */
  #fail(error: unknown): never {
    return failCommand(this, error, 'nothing was exported');
  }
}
