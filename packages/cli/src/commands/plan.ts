import { Args, Command, Flags } from '@oclif/core';
import { computePlan, policyErrors, renderHtml, renderJson, renderMarkdown, renderText, type Plan as PlanValue } from '@gatehouse/engine';
import { failCommand, withConnection } from '../command-run.js';
import { connectionFlags, type ConnectionFlagValues } from '../connection/flags.js';
import { manifestFlags, readingOptions } from '../manifest-flags.js';
import { terminalStyle, writeFileAtomic } from '../output.js';
import { policyFlags, policyPaths } from '../policy-flags.js';

const FORMATS = ['text', 'json', 'markdown', 'html'] as const;

/** `gatehouse plan`: what apply would change, computed from list requests only. */
export default class Plan extends Command {
  static override summary = 'Show what apply would change in the live API to match the manifests.';
  static override description =
    'Validates the manifests, reads live state with paginated list requests (about one request ' +
    'per 100 objects per kind) and prints the changes: + create, ~ update, - delete, -/+ ' +
    'replace. The first line names the target. Without --api-url, plans against the embedded ' +
    'reference server over .gatehouse/server.db. Exit 0 on success, 1 on error, and with ' +
    '--detailed-exitcode 2 when there are changes. Policy rules (policies/ and --policy) are ' +
    'checked on every object with its change: their results appear in every format, and an ' +
    'error exits 1 (and --out saves nothing).';
  static override strict = false;
  static override args = { path: Args.string({ description: 'manifest file or directory (repeatable; default: the current directory)' }) };
  static override flags = {
    format: Flags.string({ description: 'output format', options: [...FORMATS], default: 'text' }),
    out: Flags.string({ description: 'also save the plan as JSON to this file (atomically), for apply --plan' }),
    'detailed-exitcode': Flags.boolean({ description: 'exit 2 when the plan has changes', default: false }),
    ...manifestFlags,
    ...policyFlags,
    ...connectionFlags,
  };
  static override examples = [
    '<%= config.bin %> plan examples/basic',
    '<%= config.bin %> plan manifests/ --format markdown --out plan.json --detailed-exitcode',
    'GATEHOUSE_API_URL=https://api.example.com GATEHOUSE_API_KEY=... <%= config.bin %> plan manifests/ --stack team-a',
    '<%= config.bin %> plan examples/basic --policy examples/policies',
    '<%= config.bin %> plan manifests/ --format html > plan.html   # a report to open in a browser (CI artifact)',
  ];

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Plan);
    const paths = argv.length > 0 ? (argv as string[]) : ['.'];
    const plan = await this.#compute(paths, flags);

    const format = flags.format as (typeof FORMATS)[number];
    const output =
      format === 'json'
        ? renderJson(plan)
        : format === 'markdown'
          ? renderMarkdown(plan)
          : format === 'html'
            ? renderHtml(plan)
            : renderText(plan, { style: terminalStyle() });
    // Flushed before any exit: on some platforms a pipe is written asynchronously.
    await new Promise<void>((resolve) => process.stdout.write(output, () => resolve()));
    const broken = policyErrors(plan.policy_results);
    if (broken.length > 0) {
      const rules = [...new Set(broken.map((r) => r.rule))].join(', ');
      this.error(`the plan breaks ${broken.length} policy rule${broken.length === 1 ? '' : 's'} (${rules})${flags.out ? `; ${flags.out} was not written` : ''}. Change the manifests or the policy.`, { exit: 1 });
    }
    if (flags.out) {
      await writeFileAtomic(flags.out, renderJson(plan)).catch((error: unknown) => this.#fail(error));
      this.logToStderr(`Saved the plan to ${flags.out}.`);
    }
    const changes = plan.summary.create + plan.summary.update + plan.summary.delete + plan.summary.replace;
    if (flags['detailed-exitcode'] && changes > 0) this.exit(2);
  }

  #compute(paths: string[], flags: ConnectionFlagValues & { 'max-file-size': number; policy?: string[] | undefined }): Promise<PlanValue> {
    const policies = policyPaths(flags);
    // manifest_paths: where `apply --plan` reads the manifests again (docs/plan-json.md).
    return withConnection(flags, async (connection) => ({
      ...(await computePlan({ paths, env: process.env, api: connection.api, stack: connection.stack, policies, ...readingOptions(flags, (line) => this.logToStderr(line)) })),
      manifest_paths: paths,
    })).catch((error: unknown) => this.#fail(error));
  }

  #fail(error: unknown): never {
    return failCommand(this, error, 'nothing was planned');
  }
}
