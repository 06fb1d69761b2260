/**
 * Empty values are refused, never read as left out: a flag given an empty value on the command
 * line (`--out "$PLAN_FILE"` with the variable unset saved no plan and exited 0; `serve --host
 * ''` listened on every interface), and a `GATEHOUSE_*` variable that is set but empty, for
 * every flag that reads one. oclif reads an empty variable as no variable at all, so before this
 * `GATEHOUSE_STACK: ${{ vars.STACK }}` with the repository variable missing planned (and
 * pruned) the "default" stack, and `GATEHOUSE_DB=$DB_PATH` with `DB_PATH` unset served from
 * the default file; what a pipeline meant to set is never silently replaced by a default.
 * A flag given on the command line wins over its variable, as oclif has it.
 */
import { CliError } from './errors.js';
import { EMPTY_HINT } from './connection/target.js';

/** What to say for the variables whose mistake has a known cause; others get the general advice. */
const HINTS: Record<string, string> = {
  ...EMPTY_HINT,
  GATEHOUSE_STACK: 'name the stack, or unset it for "default"',
  GATEHOUSE_ENV: 'name an environment of gatehouse.yaml, or unset it',
};

interface FlagDefinition {
  env?: string | undefined;
}

interface Parsed {
  flags: Record<string, unknown>;
  metadata: { flags: Record<string, { setFromDefault?: boolean } | undefined> };
}

/**
 * Throws `CliError` (`empty_variable`) for the first flag of `definitions` whose variable is
 * set but blank in `env` and that was not given on the command line (undefined, its default,
 * or the variable's own blank value).
 */
export function refuseEmptyVariables(definitions: Record<string, FlagDefinition>, parsed: Parsed, env: NodeJS.ProcessEnv = process.env): void {
  for (const [name, definition] of Object.entries(definitions)) {
    const variable = definition.env;
    const value = variable === undefined ? undefined : env[variable];
    if (variable === undefined || value === undefined || value.trim() !== '') continue;
    const flag = parsed.flags[name];
    const given = flag !== undefined && parsed.metadata.flags[name]?.setFromDefault !== true && !(typeof flag === 'string' && flag.trim() === '');
    if (given) continue;
    const hint = HINTS[variable] ?? `set it to a value for --${name}, or unset it for the default`;
    throw new CliError('empty_variable', `${variable} is set but empty; ${hint}. Nothing was done.`);
  }
}

/**
 * Throws `CliError` (`empty_flag`) for the first flag of `definitions` given a value that is
 * empty or blank (every value of a repeatable flag is looked at). Run after
 * `refuseEmptyVariables`: a blank value that came from a variable has been refused by then.
 */
export function refuseEmptyFlags(definitions: Record<string, FlagDefinition>, flags: Record<string, unknown>): void {
  for (const name of Object.keys(definitions)) {
    const value = flags[name];
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && v.trim() === '')) {
      throw new CliError('empty_flag', `--${name} is empty; give a value or leave the flag out. Nothing was done.`);
    }
  }
}
