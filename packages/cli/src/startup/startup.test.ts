import { fileURLToPath } from 'node:url';
import { Config, Errors } from '@oclif/core';
import { describe, expect, it } from 'vitest';
import { fishCompletion } from '../completion/fish.js';
import { reportError } from './report-error.js';
import { closestName } from './suggest.js';
import { userAgent } from './version.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function report(error: unknown): { code: number; text: string } {
  let text = '';
  const code = reportError(error, (t) => (text += t));
  return { code, text };
}

describe('closestName', () => {
  it('suggests a name within a typo or two, and nothing for an unrelated word', () => {
    const commands = ['apply', 'drift', 'export', 'plan', 'serve', 'validate', 'version'];
    expect(closestName('plna', commands)).toBe('plan');
    expect(closestName('valdate', commands)).toBe('validate');
    expect(closestName('xyz', commands)).toBeUndefined();
    expect(closestName('--fromat', ['--format', '--out'])).toBe('--format');
    expect(closestName('--api-ur', ['--api-url', '--api-key'])).toBe('--api-url');
    expect(closestName('anything', [])).toBeUndefined();
  });
});

describe('reportError', () => {
  it('prints a long message on one line, without wrapping or › prefixes, with its exit code', () => {
    const message = `the API at https://api.example.com failed: ${'x'.repeat(150)}`;
    const { code, text } = report(new Errors.CLIError(message, { exit: 3 }));
    expect(code).toBe(3);
    expect(text).toBe(`Error: ${message}\n`);
  });

  it('prints nothing for this.exit(n)', () => {
    expect(report(new Errors.ExitError(2))).toEqual({ code: 2, text: '' });
  });

  it('names the closest flag for an unknown one, and the command help', () => {
    const error = Object.assign(new Errors.CLIError('Nonexistent flag: --fromat\nSee more help with --help', { exit: 1 }), {
      name: 'NonExistentFlagsError',
      flags: ['--fromat'],
      parse: { input: { flags: { format: {}, out: {}, secret: { hidden: true } }, context: { id: 'plan', config: { bin: 'gatehouse' } } } },
    });
    const { code, text } = report(error);
    expect(code).toBe(1);
    expect(text).toBe('Error: unknown flag --fromat; did you mean --format?\nSee "gatehouse plan --help" for the flags.\n');
  });

  it('reports an unexpected error by its message (exit 1)', () => {
    expect(report(new TypeError('boom'))).toEqual({ code: 1, text: 'Error: boom\n' });
  });
});

describe('version', () => {
  it('answers --version exactly as oclif would, without loading it', async () => {
    const config = await Config.load(ROOT);
    expect(userAgent(ROOT)).toBe(config.userAgent);
  });
});

describe('fishCompletion', () => {
  it('completes visible commands, their flags and the options of a flag', () => {
    const script = fishCompletion('gatehouse', [
      { id: 'plan', aliases: [], summary: "Show what apply'd change", flags: { format: { name: 'format', type: 'option', options: ['text', 'json'], description: 'output format' } } },
      { id: 'apply', aliases: [], summary: 'Apply', flags: { yes: { name: 'yes', type: 'boolean', char: 'y', description: 'no question' } } },
      { id: 'secret', aliases: [], hidden: true, summary: 'hidden', flags: {} },
    ] as never);
    expect(script).toContain(`complete -c gatehouse -n '__fish_use_subcommand' -a 'plan' -d 'Show what apply\\'d change'`);
    expect(script).toContain(`complete -c gatehouse -n '__fish_seen_subcommand_from plan' -l format -x -a 'text json' -d 'output format'`);
    expect(script).toContain(`complete -c gatehouse -n '__fish_seen_subcommand_from apply' -l yes -s y -d 'no question'`);
    expect(script).not.toContain('secret');
  });
});
