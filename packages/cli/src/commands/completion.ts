import { Args } from '@oclif/core';
import { Command } from '../command.js';

/** The generator class of @oclif/plugin-autocomplete (its hidden `autocomplete:create`). */
type ScriptGenerator = new (argv: string[], config: Command['config']) => { bashCompletionFunction: string; zshCompletionFunction: string };

const SHELLS = ['bash', 'zsh', 'fish'] as const;

/**
 * `gatehouse completion SHELL`: prints a completion script, as `kubectl completion` does.
 * bash and zsh scripts come from @oclif/plugin-autocomplete's generator (its hidden
 * `autocomplete:create` command, used here without writing its cache files; the plugin is not
 * registered, so that its `autocomplete` command, which writes a cache under ~/.cache, does
 * not stand beside this one); fish from
 * ../completion/fish.ts. Both are built from the command manifest, so they list every
 * command and flag of this version.
 */
export default class Completion extends Command {
  static override summary = 'Print the shell completion script for bash, zsh or fish.';
  static override description = `Load it in your shell's start-up file, or install it where your shell looks for completions.

bash: add  source <(gatehouse completion bash)  to ~/.bashrc

zsh: gatehouse completion zsh > "\${fpath[1]}/_gatehouse"  (then start a new shell)

fish: gatehouse completion fish > ~/.config/fish/completions/gatehouse.fish`;
  static override args = { shell: Args.string({ description: 'the shell', options: [...SHELLS], required: true }) };
  static override examples = [
    'source <(<%= config.bin %> completion bash)',
    '<%= config.bin %> completion fish > ~/.config/fish/completions/<%= config.bin %>.fish',
  ];

  async run(): Promise<void> {
    const { args } = await this.parse(Completion);
    const shell = args.shell as (typeof SHELLS)[number];
    let script: string;
    if (shell === 'fish') {
      const { fishCompletion } = await import('../completion/fish.js');
      script = fishCompletion(this.config.bin, this.config.commands);
    } else {
      // The package exports only its (empty) index; the generator is a file beside it.
      const create = new URL('commands/autocomplete/create.js', import.meta.resolve('@oclif/plugin-autocomplete'));
      const { default: Create } = (await import(create.href)) as { default: ScriptGenerator };
      const generator = new Create([], this.config);
      script = shell === 'bash' ? generator.bashCompletionFunction : generator.zshCompletionFunction;
    }
    // Summaries are templates (help's own says "Display help for <%= config.bin %>.").
    process.stdout.write(script.replaceAll('<%= config.bin %>', this.config.bin));
  }
}
