/**
 * The base of every gatehouse command: oclif's `Command`, with one rule added to parsing (a
 * flag's `GATEHOUSE_*` variable that is set but empty is refused, empty-variables.ts), so that
 * no command can forget it.
 */
import type { Interfaces } from '@oclif/core';
import { Command as OclifCommand } from './oclif.js';
import { refuseEmptyVariables } from './empty-variables.js';

/** oclif's `FlagOutput` and `ArgOutput` (not exported by its package). */
type Output = { [name: string]: any };

export abstract class Command extends OclifCommand {
  protected override async parse<F extends Output, B extends Output, A extends Output>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    const parsed = await super.parse(options, argv);
    refuseEmptyVariables((options?.flags ?? {}) as Record<string, { env?: string }>, parsed as never);
    return parsed;
  }
}
