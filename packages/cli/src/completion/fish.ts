/**
 * A fish completion script for every visible command and flag, from oclif's command list
 * (the manifest: nothing is imported). @oclif/plugin-autocomplete covers bash and zsh but not
 * fish. Commands complete as the first word with their summary; flags complete after their
 * command, with their options (`--format text|json`) where they have a fixed set, files for
 * PATH arguments otherwise. Command ids are plain words, so they need no quoting in conditions.
 */
import type { Command } from '@oclif/core';

type Loadable = Pick<Command.Loadable, 'id' | 'hidden' | 'summary' | 'description' | 'flags' | 'aliases'>;

/** A string as one single-quoted fish word. */
const quote = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

const firstLine = (text: string | undefined) => (text ?? '').split('\n')[0]!.trim();

export function fishCompletion(bin: string, commands: readonly Loadable[]): string {
  const visible = commands.filter((c) => !c.hidden).sort((a, b) => a.id.localeCompare(b.id));
  const lines = [`# fish completion for ${bin}: ${bin} completion fish > ~/.config/fish/completions/${bin}.fish`, `complete -c ${bin} -f`];
  const names = visible.flatMap((c) => [c.id, ...c.aliases]).map((id) => id.replaceAll(':', ' '));
  for (const command of visible) {
    for (const id of [command.id, ...command.aliases]) {
      lines.push(
        `complete -c ${bin} -n '__fish_use_subcommand' -a ${quote(id.replaceAll(':', ' '))} -d ${quote(firstLine(command.summary ?? command.description))}`,
      );
    }
  }
  for (const command of visible) {
    const condition = `__fish_seen_subcommand_from ${[command.id, ...command.aliases].map((id) => id.replaceAll(':', ' ')).join(' ')}`;
    for (const [name, flag] of Object.entries(command.flags).sort(([a], [b]) => a.localeCompare(b))) {
      if (flag.hidden) continue;
      const parts = [`complete -c ${bin} -n ${quote(condition)} -l ${name}`];
      if (flag.char) parts.push(`-s ${flag.char}`);
      if (flag.type === 'option') parts.push(flag.options?.length ? `-x -a ${quote(flag.options.join(' '))}` : '-r -F');
      parts.push(`-d ${quote(firstLine(flag.summary ?? flag.description))}`);
      lines.push(parts.join(' '));
    }
  }
  lines.push(`complete -c ${bin} -n ${quote(`__fish_seen_subcommand_from ${names.join(' ')}`)} -F`);
  return `${lines.join('\n')}\n`;
}
