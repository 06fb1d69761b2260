import { describe, expect, it } from 'vitest';
import { refuseEmptyFlags, refuseEmptyVariables } from './empty-values.js';

const DEFINITIONS = { stack: { env: 'GATEHOUSE_STACK' }, timeout: { env: 'GATEHOUSE_TIMEOUT' }, yes: {} };

/** What oclif's parse gives for `flags`, the names in `fromDefault` set from their default. */
const parsed = (flags: Record<string, unknown>, fromDefault: string[] = []) => ({
  flags,
  metadata: { flags: Object.fromEntries(fromDefault.map((name) => [name, { setFromDefault: true }])) },
});

const refusal = (fn: () => void): string | undefined => {
  try {
    fn();
  } catch (error) {
    return `${(error as { code: string }).code}: ${(error as Error).message}`;
  }
  return undefined;
};

describe('refuseEmptyVariables', () => {
  it('refuses a set but empty variable whose flag took its default or nothing, naming the variable', () => {
    expect(refusal(() => refuseEmptyVariables(DEFINITIONS, parsed({ stack: 'default' }, ['stack']), { GATEHOUSE_STACK: '' }))).toBe(
      'empty_variable: GATEHOUSE_STACK is set but empty; name the stack, or unset it for "default". Nothing was done.',
    );
    expect(refusal(() => refuseEmptyVariables(DEFINITIONS, parsed({}), { GATEHOUSE_TIMEOUT: '' }))).toBe(
      'empty_variable: GATEHOUSE_TIMEOUT is set but empty; set it to a value for --timeout, or unset it for the default. Nothing was done.',
    );
  });

  it('refuses blanks too, which oclif passes on as the value', () => {
    expect(refusal(() => refuseEmptyVariables(DEFINITIONS, parsed({ stack: '  ' }), { GATEHOUSE_STACK: '  ' }))).toMatch(
      /^empty_variable: GATEHOUSE_STACK is set but empty/,
    );
  });

  it('lets the flag given on the command line win, and leaves set and unset variables alone', () => {
    expect(refusal(() => refuseEmptyVariables(DEFINITIONS, parsed({ stack: 'team-a' }), { GATEHOUSE_STACK: '' }))).toBeUndefined();
    expect(refusal(() => refuseEmptyVariables(DEFINITIONS, parsed({ stack: 'team-a' }), { GATEHOUSE_STACK: 'team-a' }))).toBeUndefined();
    expect(refusal(() => refuseEmptyVariables(DEFINITIONS, parsed({ stack: 'default' }, ['stack']), {}))).toBeUndefined();
  });

  it("looks only at the variables of the command's own flags", () => {
    expect(refusal(() => refuseEmptyVariables({ yes: {} }, parsed({}), { GATEHOUSE_STACK: '', GATEHOUSE_API_KEY: '' }))).toBeUndefined();
  });
});

describe('refuseEmptyFlags', () => {
  it('refuses a flag given an empty or blank value, one value of a repeatable flag included', () => {
    expect(refusal(() => refuseEmptyFlags(DEFINITIONS, { stack: '' }))).toBe(
      'empty_flag: --stack is empty; give a value or leave the flag out. Nothing was done.',
    );
    expect(refusal(() => refuseEmptyFlags({ policy: {} }, { policy: ['policies', ' '] }))).toMatch(/^empty_flag: --policy is empty/);
  });

  it('leaves values, booleans and flags not given alone', () => {
    expect(refusal(() => refuseEmptyFlags(DEFINITIONS, { stack: 'team-a', yes: false }))).toBeUndefined();
    expect(refusal(() => refuseEmptyFlags({ policy: {} }, { policy: ['a', 'b'] }))).toBeUndefined();
  });
});
