import { Args, Command } from '@oclif/core';
import { checkManifests, formatPolicyResult, policyCounts } from '@gatehouse/engine';
import { manifestFlags, readingOptions } from '../manifest-flags.js';
import { formatProblem, terminalStyle } from '../output.js';
import { policyFlags, policyPaths } from '../policy-flags.js';

/** `gatehouse validate [PATH...]`: checks manifests without the network. */
export default class Validate extends Command {
  static override summary = 'Check manifests offline: schema, references, names, and the limits the server enforces.';
  static override description =
    'Reads every *.yaml and *.yml under the given files and directories (default: the current ' +
    'directory) and reports every problem at once, each as file:line:col: message [code]. Makes ' +
    'no request. Then checks the policy rules (policies/ and --policy; those that read `change` ' +
    'run in plan only) and prints each failed rule the same way, as an error or a warning. Exit 0 ' +
    'when the manifests are valid and no policy error is found (warnings are shown), 1 otherwise.';
  static override strict = false;
  static override args = { path: Args.string({ description: 'manifest file or directory (repeatable)' }) };
  static override flags = { ...manifestFlags, ...policyFlags };
  static override examples = [
    '<%= config.bin %> validate examples/basic',
    '<%= config.bin %> validate policies.yaml edges/',
    '<%= config.bin %> validate examples/basic --policy examples/policies',
  ];

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Validate);
    const paths = argv.length > 0 ? (argv as string[]) : ['.'];
    const policies = policyPaths(flags);
    const { problems, policy } = await checkManifests({ paths, env: process.env, policies, ...readingOptions(flags, (line) => this.logToStderr(line)) });
    if (problems.length > 0) {
      for (const problem of problems) this.logToStderr(formatProblem(problem));
      this.logToStderr(`${problems.length} problem${problems.length === 1 ? '' : 's'} found.`);
      this.exit(1);
    }
    const style = terminalStyle();
    for (const result of policy) this.logToStderr(formatPolicyResult(result, style));
    const errors = policy.filter((r) => r.severity === 'error').length;
    const checked = policies.length > 0 ? `; policy checks: ${policyCounts(policy)}` : '';
    if (errors > 0) {
      this.logToStderr(`Manifests are valid but break ${errors} policy rule${errors === 1 ? '' : 's'} (${paths.join(', ')}${checked}).`);
      this.exit(1);
    }
    this.log(`Manifests are valid (${paths.join(', ')}${checked}).`);
  }
}
