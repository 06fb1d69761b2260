/**
 * `gatehouse plna`: an unknown command. On a terminal, @oclif/plugin-not-found asks "Did you
 * mean plan?" and runs it on yes. Without one (CI, scripts) there is no one to ask, so the
 * error itself names the closest command, and exits 1 as every error does (the exit codes are
 * 0, 1 and 2, and 130 for an interrupted apply: a pipeline tells them apart; the root help says so).
 */
import { Errors, toConfiguredId, type Hook } from '@oclif/core';
import { closestName } from '@gatehouse/schemas/runtime';

const hook: Hook<'command_not_found'> = async function (options) {
  if (process.stdin.isTTY && process.stdout.isTTY && !process.env.CI) {
    const { default: pluginHook } = await import('@oclif/plugin-not-found');
    return pluginHook.call(this, options);
  }
  const config = options.config;
  const visible = config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases]);
  const typed = toConfiguredId(options.id.split(':')[0]!, config);
  const suggestion = closestName(options.id.split(':')[0]!, visible);
  const hint = suggestion ? ` Did you mean "${config.bin} ${toConfiguredId(suggestion, config)}"?` : '';
  throw new Errors.CLIError(`"${typed}" is not a ${config.bin} command.${hint} Run "${config.bin} help" for the list of commands.`, { exit: 1 });
};

export default hook;
