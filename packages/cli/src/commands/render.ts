import { join, normalize } from 'node:path';
import { Args, Flags } from '@oclif/core';
import { Command } from '../command.js';
import { isRenderedText, renderEnvironment } from '@gatehouse/engine/environments';
import { failCommand } from '../command-run.js';
import { environmentFlags } from '../environments/flags.js';
import { selectEnvironments } from '../environments/select.js';
import { CliError } from '../errors.js';
import { manifestFlags, readingOptions } from '../manifest-flags.js';
import { foreignFiles, formatProblem, printOut, writeFileAtomic } from '../output.js';

/** `gatehouse render --env NAME`: one environment's resolved manifests, to review or diff. */
export default class Render extends Command {
  static override summary = 'Print (or write) the fully resolved manifests of one environment.';
  static override description = `Applies the environment's overlays and \${var:NAME} variables to the base manifests of
gatehouse.yaml and prints the result as YAML, one section per source file (a merged object stays
in its base file, a new object in its overlay file). \${env:NAME} placeholders (secrets) stay as
written, so the output is safe to share and reads back as the same manifests. With --out DIR,
writes each file under DIR at its own relative path instead. Makes no request; run validate for
the full offline check. Exit 0 on success, 1 when the overlays or variables have problems.`;
  static override strict = false;
  static override args = { path: Args.string({ description: 'base manifest file or directory (repeatable; default: the manifests of gatehouse.yaml)' }) };
  static override flags = {
    out: Flags.string({ description: 'write the files under this directory instead of printing them' }),
    ...manifestFlags,
    ...environmentFlags,
  };
  static override examples = [
    '<%= config.bin %> render --env staging',
    '<%= config.bin %> render --env production --out rendered/production && git diff --no-index rendered/staging rendered/production',
  ];

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Render);
    const selection = await selectEnvironments({
      argv: argv as string[],
      flags: { ...flags, stack: '' },
      command: 'render',
    }).catch((error: unknown) => this.#fail(error));
    const run = selection.runs[0]!;
    if (!run.environment)
      this.#fail(
        new CliError('environment_required', 'render shows an environment of gatehouse.yaml: define environments there and choose one with --env NAME'),
      );
    const { files, problems } = await renderEnvironment({
      paths: run.paths,
      environment: run.environment,
      ...readingOptions(flags, (line) => this.logToStderr(line)),
    });
    if (problems.length > 0) {
      for (const problem of problems) this.logToStderr(formatProblem(problem));
      this.error(`${problems.length} problem${problems.length === 1 ? '' : 's'} in environment ${run.environment.name}; nothing was rendered.`, { exit: 1 });
    }
    if (!flags.out) {
      await printOut(files.map((f) => f.text).join('---\n'));
      return;
    }
    const targets = files.map((file) => ({ ...file, target: join(flags.out!, insideOut(file.file)) }));
    await refuseForeignFiles(
      targets.map((t) => t.target),
      flags.out,
      run.environment.name,
    ).catch((error: unknown) => this.#fail(error));
    for (const { target, text, documents } of targets) {
      // Makes the file's directory; a failure is a `write_failed` naming the file.
      await writeFileAtomic(target, text).catch((error: unknown) => this.#fail(error));
      this.log(`  ${target}  (${documents} document${documents === 1 ? '' : 's'})`);
    }
    this.log(`Rendered environment ${run.environment.name} to ${flags.out}.`);
  }

  #fail(error: unknown): never {
    return failCommand(this, error, 'nothing was rendered');
  }
}

/**
 * Refuses, before anything is written, to replace a file that `render` did not write (no
 * `RENDER_HEADER` first line): `--out .` from the repository's root names the source
 * manifests themselves, which rendering would have replaced with one environment's values,
 * its variables and overlays gone.
 */
async function refuseForeignFiles(targets: string[], out: string, environment: string): Promise<void> {
  const foreign = await foreignFiles(targets, isRenderedText);
  if (foreign.length === 0) return;
  throw new CliError(
    'render_would_overwrite',
    `refusing to replace files that gatehouse render did not write: ${foreign.join(', ')}; choose an --out directory of its own, e.g. rendered/${environment} (nothing was written to ${out})`,
  );
}

/** A source path made relative and kept inside the output directory (no leading / or ..). */
const insideOut = (file: string) =>
  normalize(file)
    .replace(/^([/\\]|\.\.[/\\])+/, '')
    .replace(/^[A-Za-z]:[/\\]/, '');
