import { Errors } from '@oclif/core';
import { describe, expect, it } from 'vitest';
import { reportError } from './report-error.js';
import { closestName } from '@gatehouse/schemas/runtime';

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
