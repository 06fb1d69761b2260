/**
 * The base of every gatehouse command: oclif's `Command`, with one rule added to parsing (an
 * empty value, given to a flag or in the `GATEHOUSE_*` variable it reads, is refused,
 * empty-values.ts), so that no command can forget it; and, for the commands that set
 * `jsonErrors`, every failure as one JSON error document when `--format json` is asked for.
 */
import { Command as OclifCommand, Errors, type Interfaces } from '@oclif/core';
import { refuseEmptyFlags, refuseEmptyVariables } from './empty-values.js';
import { catchAsJson } from './json-errors.js';

/** oclif's `FlagOutput` and `ArgOutput` (not exported by its package). */
type Output = { [name: string]: unknown };

export abstract class Command extends OclifCommand {
  /** With `--format json`, every failure (flag errors included) is one JSON error document on stdout (json-errors.ts). */
  static jsonErrors = false;

  protected override async parse<F extends Output, B extends Output, A extends Output>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    const parsed = await super.parse(options, argv);
    const definitions = (options?.flags ?? {}) as Record<string, { env?: string }>;
    refuseEmptyVariables(definitions, parsed as never);
    refuseEmptyFlags(definitions, parsed.flags);
    return parsed;
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if ((this.constructor as typeof Command).jsonErrors && (await catchAsJson(this, error))) throw new Errors.ExitError(1);
    return super.catch(error);
  }
}
