import { describe, expect, it } from 'vitest';
import { CliError } from './errors.js';
import { checkStackName, fromStackOption } from './stack-flags.js';

describe('stack names', () => {
  it('--stack: set but empty, or with control characters, is an error; anything printable is kept', () => {
    for (const bad of ['', '  ', 'a\u001b[2Jb', 'tab\there', 'rtl\u202eevil', 'c1\u009b']) {
      expect(() => checkStackName(bad), JSON.stringify(bad)).toThrow(CliError);
    }
    for (const good of ['default', 'team b', 'équipe-网络', 'web-staging']) expect(checkStackName(good)).toBe(good);
  });

  it('--from-stack: absent is none; empty, the stack itself or control characters are errors', () => {
    expect(fromStackOption(undefined, 'platform')).toEqual({});
    expect(fromStackOption('default', 'platform')).toEqual({ fromStack: 'default' });
    expect(() => fromStackOption('', 'platform')).toThrow(/--from-stack is empty/);
    expect(() => fromStackOption('platform', 'platform')).toThrow(/names the stack being planned \("platform"\)/);
    expect(() => fromStackOption('x\u0007', 'platform')).toThrow(/control characters/);
  });
});
