import { Args, Flags } from '@oclif/core';
import { Command } from '../command.js';
import { failCommand } from '../command-run.js';
import { REPORT_FORMATS, renderPlanAs, type ReportFormat } from '../plan-output.js';
import { printOut } from '../output.js';
import { readSavedPlan } from '../saved-plan.js';

/** `gatehouse show PLAN.json`: a saved plan in any format, as `terraform show` renders a saved plan. */
export default class Show extends Command {
  static override summary = 'Print a saved plan (plan --out) as text, Markdown, an HTML report or JSON.';
  static override description =
    'Reads the plan that plan --out saved and renders it as plan would have: text for a terminal, Markdown for a pull ' +
    'request comment, a self-contained HTML report page, or the JSON of the saved plan. It makes no request and reads no ' +
    'manifest: it shows what was reviewed, exactly as apply --plan will apply it (secrets were masked when it was saved). ' +
    'Exit 0 on success, 1 when the file cannot be read or is not a saved plan.';
  static override jsonErrors = true;
  static override args = { plan: Args.string({ description: 'the saved plan (plan --out FILE)', required: true }) };
  static override flags = {
    format: Flags.string({ description: 'output format', options: [...REPORT_FORMATS], default: 'text' }),
  };
  static override examples = [
    '<%= config.bin %> plan manifests/ --out plan.json && <%= config.bin %> show plan.json',
    '<%= config.bin %> show plan.json --format html > plan.html   # the report, from the plan that apply --plan will apply',
    '<%= config.bin %> show plan.json --format markdown           # a pull request comment',
  ];

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Show);
    const plan = await readSavedPlan(args.plan).catch((error: unknown) => failCommand(this, error, 'nothing was shown'));
    await printOut(renderPlanAs(plan, flags.format as ReportFormat));
  }
}
