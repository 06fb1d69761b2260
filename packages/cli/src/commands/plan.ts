import { Args, Flags } from '@oclif/core';
import { Command } from '../command.js';
import { planFromRead, policyErrors, readForPlan, type Plan as PlanValue } from '@gatehouse/engine/core';
import { anyChanges, renderPlansJson, renderPlansMarkdown, renderPlansText, type EnvironmentPlan } from '@gatehouse/engine/environments';
import { countChanges, isSavedPlanText, renderJson } from '@gatehouse/engine/render';
import { failCommand } from '../command-run.js';
import { connectionFlags } from '../connection/flags.js';
import { environmentFlags } from '../environments/flags.js';
import { checkTargets, prepareEach, readEach, sayUsage } from '../environments/read-each.js';
import { explicitFlags, selectEnvironments } from '../environments/select.js';
import { isVerbose } from '../request-log.js';
import { requestUsage } from '../request-usage.js';
import { CliError } from '../errors.js';
import { manifestFlags, readingOptions } from '../manifest-flags.js';
import { checkPlanOutName } from '../saved-plan.js';
import { foreignFiles, printOut, terminalStyle, writeFileAtomic } from '../output.js';
import { REPORT_FORMATS, renderPlanAs, type ReportFormat } from '../plan-output.js';
import { policyFlags, policyPaths } from '../policy-flags.js';
import { targetFlags, targetsOf } from '../target-flags.js';
import { fromStackFlag, fromStackOption } from '../stack-flags.js';

/** `gatehouse plan`: what apply would change, computed from list requests only. */
export default class Plan extends Command {
  static override summary = 'Show what apply would change in the live API to match the manifests.';
  static override description =
    'Validates the manifests, reads live state with paginated list requests (about one request ' +
    'per 100 objects per kind) and prints the changes: + create, ~ update, - delete, -/+ ' +
    'replace. The first line names the target. Without --api-url, plans against the embedded ' +
    'reference server over .gatehouse/server.db. With gatehouse.yaml, --env NAME plans one ' +
    'environment against its own API and stack, and --env all plans every environment into one ' +
    'result (text sections, one Markdown comment, or JSON with a plan per environment). Policy ' +
    'rules (policies/, gatehouse.yaml policies and --policy) are checked on every object with its ' +
    'change: their results appear in every format, and an error exits 1 (and --out saves nothing); a rule that the manifests ' +
    'alone break fails before the first request, as a manifest problem does. Ends with the requests sent and the share of ' +
    'the budget they were, on stderr. With --env all, environments on different targets are read at once. ' +
    '--format html is a self-contained report page. Exit 0 on success, 1 on error, and with ' +
    '--detailed-exitcode 2 when there are changes (in any environment).';
  static override strict = false;
  static override jsonErrors = true;
  static override args = { path: Args.string({ description: 'manifest file or directory (repeatable; default: the current directory)' }) };
  static override flags = {
    format: Flags.string({ description: 'output format', options: [...REPORT_FORMATS], default: 'text' }),
    out: Flags.string({ description: 'also save the plan as JSON to this file (atomically), for apply --plan and show (whatever --format prints)' }),
    'detailed-exitcode': Flags.boolean({ description: 'exit 2 when the plan has changes (deletes that need --prune included)', default: false }),
    prune: Flags.boolean({
      description:
        'plan deletes as apply --prune runs them (without it they are shown as "would be deleted with --prune"); only of objects applied from the PATHs given',
      default: false,
    }),
    'prune-all': Flags.boolean({
      description: 'plan deletes of everything the stack owns that the manifests do not declare, wherever it was applied from (implies --prune)',
      default: false,
    }),
    ...targetFlags,
    ...manifestFlags,
    ...policyFlags,
    ...connectionFlags,
    ...fromStackFlag,
    ...environmentFlags,
  };
  static override examples = [
    '<%= config.bin %> plan examples/basic',
    '<%= config.bin %> plan manifests/ --format markdown --out plan.json --detailed-exitcode',
    '<%= config.bin %> plan --env all --format markdown --detailed-exitcode',
    'GATEHOUSE_API_URL=https://api.example.com GATEHOUSE_API_KEY=... <%= config.bin %> plan manifests/ --stack team-a',
    '<%= config.bin %> plan manifests/ --stack platform --from-stack default   # what moving the objects to stack platform would change',
    '<%= config.bin %> plan examples/basic --policy examples/policies',
    '<%= config.bin %> plan manifests/ --format html > plan.html   # a report to open in a browser (CI artifact)',
    "<%= config.bin %> plan manifests/ --target HTTPSEdge/api --target 'Backend/*' --out plan.json   # only these, their children and what they depend on",
  ];

  async run(): Promise<void> {
    const { argv, flags, metadata } = await this.parse(Plan);
    const targets = await Promise.resolve()
      .then(() => targetsOf(flags))
      .catch((error: unknown) => this.#fail(error));
    const selection = await selectEnvironments({
      argv: argv as string[],
      flags,
      explicit: explicitFlags(flags, metadata),
      allowAll: true,
      command: 'plan',
    }).catch((error: unknown) => this.#fail(error));
    const format = flags.format as ReportFormat;
    const reading = readingOptions(flags, (line) => this.logToStderr(line));
    const policies = policyPaths(flags, selection.project);
    // --prune-all implies --prune (plan/prune-scope.ts).
    const prune = { prune: flags.prune || flags['prune-all'], pruneAll: flags['prune-all'] };
    // A mistyped --out must not replace a manifest with the plan, nor a report name hold JSON: refused before any request.
    if (flags.out && !selection.all) {
      await Promise.resolve()
        .then(() => checkPlanOutName(flags.out!))
        .then(() => refuseForeignPlanFile(flags.out!))
        .catch((error: unknown) => this.#fail(error));
    }
    if (selection.all) {
      if (format === 'html')
        this.#fail(
          new CliError(
            'environment_all_refused',
            '--format html reports one plan; with --env all, write one report per environment with --env NAME --format html',
          ),
        );
      if (flags.out)
        this.#fail(
          new CliError(
            'environment_all_refused',
            "--out saves one plan for apply --plan; with --env all, save each environment's plan with --env NAME --out FILE",
          ),
        );
    }
    // Everything that can fail without the API, for every environment, before the first request.
    const prepared = await prepareEach(
      this,
      selection,
      { nothing: 'nothing was planned', environment: (name) => `environment ${name} was not planned` },
      async (run, connection) => {
        const moving = fromStackOption(flags['from-stack'], connection.stack);
        const engineOptions = {
          ...reading,
          policies,
          paths: run.paths,
          ...run.options,
          env: process.env,
          stack: connection.stack,
          environment: run.environment,
          ...moving,
        };
        return { engineOptions, read: await readForPlan(engineOptions) };
      },
    );
    // manifest_paths: where `apply --plan` reads the manifests again (docs/plan-json.md).
    const plans = await readEach(prepared, isVerbose(flags), async ({ run, engineOptions, read }, connection, api) => {
      const plan = await planFromRead(read, { ...engineOptions, api, stack: connection.stack, ...prune, ...(targets ? { targets } : {}) });
      const environment = run.environment ? { environment: run.environment.name } : {};
      return { ...plan, manifest_paths: run.paths, ...environment, api_requests: requestUsage(connection.client) };
    }).catch((error: unknown) => this.#fail(error, prepared.length > 1 ? undefined : prepared[0]?.run.environment?.name));
    if (selection.all) {
      const environmentPlans: EnvironmentPlan[] = plans.map((plan, i) => ({ environment: selection.runs[i]!.environment!.name, plan }));
      checkTargets(this, plans, format, 'nothing was planned');
      const output =
        format === 'json'
          ? renderPlansJson(environmentPlans)
          : format === 'markdown'
            ? renderPlansMarkdown(environmentPlans)
            : renderPlansText(environmentPlans, { style: terminalStyle() });
      await printOut(output);
      for (const { environment, plan } of environmentPlans) sayUsage(plan, environment);
      this.#failOnPolicyErrors(plans);
      if (flags['detailed-exitcode'] && anyChanges(environmentPlans)) this.exit(2);
      return;
    }
    const plan = plans[0]!;
    checkTargets(this, [plan], format, 'nothing was planned');
    await printOut(renderPlanAs(plan, format));
    // A plan that breaks a policy is not saved.
    if (flags.out && policyErrors(plan.policy_results).length === 0) {
      await writeFileAtomic(flags.out, renderJson(plan)).catch((error: unknown) => this.#fail(error));
      this.logToStderr(`Saved the plan to ${flags.out}.`);
    }
    sayUsage(plan);
    this.#failOnPolicyErrors([plan], flags.out);
    if (flags['detailed-exitcode'] && countChanges(plan.summary) > 0) this.exit(2);
  }

  /** Exit 1 when a plan breaks a policy rule of severity error (after its output was written, which is kept whole). */
  #failOnPolicyErrors(plans: readonly PlanValue[], out?: string): void {
    const broken = plans.flatMap((p) => policyErrors(p.policy_results));
    if (broken.length === 0) return;
    const rules = [...new Set(broken.map((r) => r.rule))].join(', ');
    // The plan (with its policy results) is already the output: with --format json that stays
    // the one document on stdout, so the failure is said on stderr only.
    this.logToStderr(
      `Error: the plan breaks ${broken.length} policy rule${broken.length === 1 ? '' : 's'} (${rules})${out ? `; ${out} was not written` : ''}. Change the manifests or the policy.`,
    );
    this.exit(1);
  }

  #fail(error: unknown, environment?: string): never {
    return failCommand(this, error, environment ? `environment ${environment} was not planned` : 'nothing was planned');
  }
}

/**
 * `--out FILE` replaces a saved plan (its first lines say so) and nothing else: a manifest or
 * any other file named by mistake is refused, before anything is sent.
 */
async function refuseForeignPlanFile(out: string): Promise<void> {
  if ((await foreignFiles([out], isSavedPlanText)).length === 0) return;
  throw new CliError(
    'plan_would_overwrite',
    `--out ${out} is a file that is not a saved plan; refusing to replace it: name a new file (e.g. plan.json) or remove it first. Nothing was sent.`,
  );
}
