/**
 * How the CLI reports a failure on stderr, replacing oclif's printer: one `Error: message`
 * line as the message was written, never wrapped at 80 columns nor prefixed with ` ›   `, so a
 * CI log can be grepped for it. An unknown flag names the closest one ("did you mean
 * --format?") instead of printing the whole help. `this.exit(n)` prints nothing. The stack of
 * an unexpected error (a bug) is shown with GATEHOUSE_LOG=debug or DEBUG set.
 * Returns the exit code.
 */
import { closestName } from '@gatehouse/schemas/runtime';

interface OclifError extends Error {
  code?: string;
  oclif?: { exit?: number };
  skipOclifErrorHandling?: boolean;
  suggestions?: string[];
  flags?: string[];
  parse?: { input?: { flags?: Record<string, { char?: string; hidden?: boolean }>; context?: { id?: string; config?: { bin?: string } } } };
}

export function reportError(error: unknown, write: (text: string) => void = (t) => process.stderr.write(t)): number {
  const err = (error instanceof Error ? error : new Error(String(error))) as OclifError;
  const exit = typeof err.oclif?.exit === 'number' ? err.oclif.exit : 1;
  if (err.code === 'EEXIT' || err.skipOclifErrorHandling) return exit;
  const lines = [`Error: ${unknownFlagMessage(err) ?? err.message}`];
  for (const suggestion of err.suggestions ?? []) lines.push(`Try this: ${suggestion}`);
  const isCliError = err.oclif !== undefined;
  if (!isCliError && (process.env.GATEHOUSE_LOG === 'debug' || process.env.DEBUG) && err.stack) lines.push(err.stack);
  write(`${lines.join('\n')}\n`);
  return exit;
}

/** `unknown flag --fromat; did you mean --format?` for oclif's NonExistentFlagsError. */
function unknownFlagMessage(err: OclifError): string | undefined {
  if (err.name !== 'NonExistentFlagsError' && !err.message.startsWith('Nonexistent flag')) return undefined;
  const typed = err.flags ?? [];
  const defined = err.parse?.input?.flags ?? {};
  const known = Object.entries(defined)
    .filter(([, flag]) => !flag.hidden)
    .map(([name]) => `--${name}`);
  const id = err.parse?.input?.context?.id;
  const bin = err.parse?.input?.context?.config?.bin ?? 'gatehouse';
  const parts = typed.map((flag) => {
    const name = flag.split('=')[0]!;
    const suggestion = closestName(name, known);
    return `unknown flag ${name}${suggestion ? `; did you mean ${suggestion}?` : ''}`;
  });
  const help = id ? `${bin} ${id.replaceAll(':', ' ')} --help` : `${bin} --help`;
  return `${parts.join('; ') || err.message}\nSee "${help}" for the flags.`;
}
