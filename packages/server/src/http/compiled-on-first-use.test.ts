import { describe, expect, it, vi } from 'vitest';
import { compileCache, compiledOnFirstUse } from './compiled-on-first-use.js';

type Validate = ((data: unknown) => boolean) & { errors?: unknown };

function validatorOf(errorsOnFalse: unknown): Validate {
  const validate: Validate = (data) => {
    validate.errors = data === 'ok' ? null : errorsOnFalse;
    return data === 'ok';
  };
  return validate;
}

describe('compiledOnFirstUse', () => {
  it("compiles at the first call, once, and carries the compiled validator's errors after each call", () => {
    const compile = vi.fn(() => validatorOf([{ keyword: 'type' }]));
    const lazy = compiledOnFirstUse(compile);
    expect(compile).not.toHaveBeenCalled();

    expect(lazy('bad')).toBe(false);
    expect(lazy.errors).toEqual([{ keyword: 'type' }]);
    expect(lazy('ok')).toBe(true);
    expect(lazy.errors).toBeNull();
    expect(compile).toHaveBeenCalledTimes(1);
  });
});

describe('compileCache', () => {
  it('hands out one function per key across callers, compiled only when one of them is called', () => {
    const cached = compileCache<Validate>();
    const compile = vi.fn(() => validatorOf('x'));
    const first = cached('body {"type":"string"}', compile);
    const again = cached('body {"type":"string"}', compile);
    const other = cached('text {"type":"string"}', compile);
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    expect(compile).not.toHaveBeenCalled();
    first('ok');
    again('ok');
    expect(compile).toHaveBeenCalledTimes(1);
  });
});
