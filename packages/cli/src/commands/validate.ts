import { Args, Command } from '@oclif/core';
import { validateManifests } from '@gatehouse/engine';
import { manifestFlags, readingOptions } from '../manifest-flags.js';
import { formatProblem } from '../output.js';

/** `gatehouse validate [PATH...]`: checks manifests without the network. */
export default class Validate extends Command {
  static override summary = 'Check manifests offline: schema, references, names, and the limits the server enforces.';
  static override description =
    'Reads every *.yaml and *.yml under the given files and directories (default: the current ' +
    'directory) and reports every problem at once, each as file:line:col: message [code]. Makes ' +
    'no request. Exit 0 when the manifests are valid, 1 otherwise.';
  static override strict = false;
  static override args = { path: Args.string({ description: 'manifest file or directory (repeatable)' }) };
  static override flags = { ...manifestFlags };
  static override examples = ['<%= config.bin %> validate examples/basic', '<%= config.bin %> validate policies.yaml edges/'];

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Validate);
    const paths = argv.length > 0 ? (argv as string[]) : ['.'];
    const problems = await validateManifests({ paths, env: process.env, ...readingOptions(flags, (line) => this.logToStderr(line)) });
    if (problems.length === 0) {
      this.log(`Manifests are valid (${paths.join(', ')}).`);
      return;
    }
    for (const problem of problems) this.logToStderr(formatProblem(problem));
    this.logToStderr(`${problems.length} problem${problems.length === 1 ? '' : 's'} found.`);
    this.exit(1);
  }
}
