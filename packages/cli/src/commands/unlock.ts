import { Flags } from '@oclif/core';
import { Command } from '../command.js';
import { breakLock, describeLock, readLock, sanitize } from '@gatehouse/engine/core';
import { canAsk, confirm, PromptCancelled } from '../apply/confirm.js';
import { failCommand, withConnection } from '../command-run.js';
import { connectionFlags } from '../connection/flags.js';
import { CliError } from '../errors.js';

/** `gatehouse unlock --stack NAME`: remove a stack's lock that no apply holds any more. */
export default class Unlock extends Command {
  static override summary = 'Remove the lock of a stack left behind by an apply that did not end (killed, crashed).';
  static override description =
    'apply holds a lock per stack while it runs (the bot user gatehouse-lock.<stack> and an IP policy recording the holder, ' +
    'run id, start and lease), so that two applies of one stack never run at once. An apply that was killed leaves its lock; ' +
    'plan and drift then say the stack is locked (stale once the lease has passed), and the next apply fails naming the holder. ' +
    'unlock shows the lock and, once confirmed (or with --yes), removes it. Remove a lock only when no apply of the stack is ' +
    'running: two applies at once can create the same objects twice.';
  static override flags = {
    yes: Flags.boolean({ char: 'y', description: 'remove the lock without asking for confirmation', default: false }),
    ...connectionFlags,
  };
  static override examples = ['<%= config.bin %> unlock --stack team-a', 'GATEHOUSE_STACK=team-a <%= config.bin %> unlock --yes'];

  async run(): Promise<void> {
    const { flags } = await this.parse(Unlock);
    const message = await withConnection(flags, async (connection) => {
      const lock = await readLock(connection.api, connection.stack);
      if (!lock) return `Stack "${sanitize(connection.stack)}" is not locked; nothing to do.`;
      this.logToStderr(`${sanitize(describeLock(lock))}.`);
      if (!flags.yes) {
        if (!canAsk()) throw new CliError('not_confirmed', 'not a terminal, so there is no one to confirm; pass --yes to remove the lock');
        const question = `Remove this lock? Only do so when no apply of stack "${sanitize(connection.stack)}" is running.`;
        if (!(await confirm(question))) throw new CliError('not_confirmed', 'unlock cancelled; the lock is still held');
      }
      await breakLock(connection.api, connection.stack, lock);
      return `Removed the lock of stack "${sanitize(connection.stack)}"${lock.holder ? ` (held by ${sanitize(lock.holder)})` : ''}.`;
    }).catch((error: unknown) => {
      if (error instanceof PromptCancelled) return this.error('unlock cancelled; the lock is still held', { exit: 1 });
      return failCommand(this, error, 'the lock was not removed');
    });
    this.log(message);
  }
}
