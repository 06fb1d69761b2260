import { Args, Flags } from '@oclif/core';
import { Command } from '../command.js';
import { checkManifests, formatPolicyResult, policyCounts, type PolicyResult, type Problem } from '@gatehouse/engine/core';
import { failCommand } from '../command-run.js';
import { environmentFlags } from '../environments/flags.js';
import { selectEnvironments } from '../environments/select.js';
import { manifestFlags, readingOptions } from '../manifest-flags.js';
import { formatProblem, terminalStyle } from '../output.js';
import { policyFlags, policyPaths } from '../policy-flags.js';
import { verboseFlag } from '../request-log.js';

/** `gatehouse validate [PATH...]`: checks manifests without the network. */
export default class Validate extends Command {
  static override summary = 'Check manifests offline: schema, references, names, and the limits the server enforces.';
  static override description =
    'Reads every *.yaml and *.yml under the given files and directories (default: the manifests ' +
    'of gatehouse.yaml, or the current directory) and reports every problem at once, each as ' +
    'file:line:col: message [code]. An unset ${env:NAME} is only a warning (validate needs no secrets; plan and apply do), ' +
    'an error with --strict-env. With a gatehouse.yaml that defines environments, checks every ' +
    'environment (overlays and variables applied), or the one --env names; a problem found in some ' +
    'environments only says which. Makes no request. Then checks the policy rules (policies/, ' +
    'gatehouse.yaml policies and --policy; rules that read `change` run in plan only) and prints ' +
    'each failed rule the same way, as an error or a warning. Exit 0 when the manifests are valid ' +
    'and no policy error is found (warnings are shown), 1 otherwise.';
  static override strict = false;
  static override args = { path: Args.string({ description: 'manifest file or directory (repeatable)' }) };
  static override flags = {
    ...manifestFlags,
    ...environmentFlags,
    ...policyFlags,
    ...verboseFlag,
    'strict-env': Flags.boolean({
      description: 'an unset or empty ${env:NAME} is an error, as in plan and apply (by default a warning: validate needs no secret values)',
      default: false,
    }),
  };
  static override examples = [
    '<%= config.bin %> validate examples/basic',
    '<%= config.bin %> validate policies.yaml edges/',
    '<%= config.bin %> validate --env production',
    '<%= config.bin %> validate examples/basic --policy examples/policies',
  ];

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Validate);
    const selection = await selectEnvironments({
      argv: argv as string[],
      flags: { ...flags, stack: '' },
      withoutEnv: 'every',
      allowAll: true,
      command: 'validate',
    }).catch((error: unknown) => failCommand(this, error, 'nothing was validated'));
    // Every environment reads the base files again: each warning is printed once.
    const warned = new Set<string>();
    const reading = readingOptions(flags, (line) => {
      if (!warned.has(line)) this.logToStderr(line);
      warned.add(line);
    });
    const policies = policyPaths(flags, selection.project);
    const found = new Map<string, { problem: Problem; environments: string[] }>();
    const broken = new Map<string, { result: PolicyResult; environments: string[] }>();
    for (const run of selection.runs) {
      const { problems, policy } = await checkManifests({
        paths: run.paths,
        ...run.options,
        env: process.env,
        environment: run.environment,
        unsetEnv: flags['strict-env'] ? 'error' : 'warn',
        policies,
        ...reading,
      });
      for (const result of policy) {
        const key = `${result.rule}\0${result.address}\0${result.message}`;
        const entry = broken.get(key) ?? { result, environments: [] };
        if (run.environment) entry.environments.push(run.environment.name);
        broken.set(key, entry);
      }
      for (const problem of problems) {
        const key = `${problem.at ? `${problem.at.file}:${problem.at.line}:${problem.at.col}` : ''}\0${problem.code}\0${problem.message}`;
        const entry = found.get(key) ?? { problem, environments: [] };
        if (run.environment) entry.environments.push(run.environment.name);
        found.set(key, entry);
      }
    }
    const paths = selection.runs[0]!.paths.join(', ');
    const names = selection.runs.flatMap((r) => (r.environment ? [r.environment.name] : []));
    const scope = names.length === 0 ? '' : names.length === 1 ? ` in environment ${names[0]}` : ` in every environment (${names.join(', ')})`;
    if (found.size === 0) {
      this.#policyVerdict(
        [...broken.values()],
        names,
        `${paths === '-' ? 'standard input' : paths}${policies.length > 0 ? `; policy checks: ${policyCounts([...broken.values()].map((b) => b.result))}` : ''}`,
        scope,
      );
      return;
    }
    for (const { problem, environments } of found.values()) {
      const only = environments.length > 0 && environments.length < names.length;
      this.logToStderr(`${formatProblem(problem)}${only ? ` (environment${environments.length === 1 ? '' : 's'} ${environments.join(', ')})` : ''}`);
    }
    this.logToStderr(`${found.size} problem${found.size === 1 ? '' : 's'} found${names.length > 1 ? ` (environments checked: ${names.join(', ')})` : scope}.`);
    this.exit(1);
  }

  /** Prints each failed policy rule (once, naming the environments it fails in when not all); exit 1 on an error. */
  #policyVerdict(broken: { result: PolicyResult; environments: string[] }[], names: string[], what: string, scope: string): void {
    const style = terminalStyle();
    for (const { result, environments } of broken) {
      const only = environments.length > 0 && environments.length < names.length;
      this.logToStderr(`${formatPolicyResult(result, style)}${only ? ` (environment${environments.length === 1 ? '' : 's'} ${environments.join(', ')})` : ''}`);
    }
    const errors = new Set(broken.filter((b) => b.result.severity === 'error').map((b) => b.result.rule)).size;
    if (errors > 0) {
      this.logToStderr(`Manifests are valid but break ${errors} policy rule${errors === 1 ? '' : 's'} (${what})${scope}.`);
      this.exit(1);
    }
    this.log(`Manifests are valid (${what})${scope}.`);
  }
}
