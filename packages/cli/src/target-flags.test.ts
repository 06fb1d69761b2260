/** `--target` checks before anything is read or sent (target-flags.ts), in-process. */
import { describe, expect, it } from 'vitest';
import { TargetError } from '@gatehouse/engine';
import { CliError } from './errors.js';
import { asCliError, targetsOf, unmatchedWarnings } from './target-flags.js';

const refused = (flags: Record<string, unknown>) => {
  try {
    targetsOf(flags);
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return { code: (error as CliError).code, message: (error as CliError).message };
  }
  throw new Error('not refused');
};

describe('targetsOf', () => {
  it('passes well-formed targets through, and none as undefined', () => {
    expect(targetsOf({ target: ['IPPolicy/office', 'Backend/*'], prune: false })).toEqual(['IPPolicy/office', 'Backend/*']);
    expect(targetsOf({ prune: true })).toBeUndefined();
    expect(targetsOf({ target: [] })).toBeUndefined();
  });

  it('refuses --target with --prune, --prune-all and --plan', () => {
    expect(refused({ target: ['Backend/web'], prune: true })).toEqual({
      code: 'target_conflict',
      message: expect.stringContaining('--target cannot be combined with --prune: a targeted plan never deletes'),
    });
    expect(refused({ target: ['Backend/web'], 'prune-all': true }).message).toContain('--prune-all');
    expect(refused({ target: ['Backend/web'], plan: 'plan.json' }).message).toContain(
      '--target cannot be combined with --plan: a saved plan applies exactly the targets it was made with',
    );
  });

  it("refuses malformed targets with the engine's message", () => {
    expect(refused({ target: [''] })).toEqual({ code: 'target_invalid', message: expect.stringContaining('--target "" is empty') });
    expect(refused({ target: ['ippolicy/office'] }).message).toContain('did you mean IPPolicy/office?');
    expect(refused({ target: ['HTTPSEdge'] }).message).toContain('give HTTPSEdge/NAME, or HTTPSEdge/* for every HTTPSEdge');
  });

  it('says unmatched targets on one sanitized line', () => {
    expect(unmatchedWarnings({ unmatched: ['Backend/a\u202e'] })).toEqual([
      'warning: --target Backend/a\\u202e matched nothing: no declared object and no live object this stack owns has such an address',
    ]);
    expect(unmatchedWarnings(undefined)).toEqual([]);
    expect(asCliError(new TargetError('target_unmatched', 'x'))).toEqual(new CliError('target_unmatched', 'x'));
  });
});
