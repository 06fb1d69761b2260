/**
 * The time policy rules may take. Policy files come from the repository, so a pull request can
 * write a rule; its cost is checked when it is loaded (`cel-cost.ts` of @gatehouse/schemas:
 * size, nesting of comprehensions), but what the load cannot see (the size of the lists an
 * object holds, a regular expression that backtracks on the text it is given) only shows while
 * it runs. So rules are evaluated within a budget: per object (all rules on one object) and per
 * run (all rules on all objects). Past it, the evaluation is stopped and the rule is reported;
 * a rule never makes `validate` or `plan` hang.
 *
 * The work is stopped the way Node stops a script that runs too long: `vm`'s `timeout`, which
 * interrupts whatever JavaScript runs under it (the CEL evaluator, a regular expression). The
 * evaluator runs in this process as before; only the call into it goes through a script.
 */
import { createContext, Script } from 'node:vm';

export interface PolicyBudget {
  /** Longest time all rules may take on one object, in milliseconds. */
  perObjectMs: number;
  /** Longest time all rules may take on all objects of a run, in milliseconds. */
  perRunMs: number;
}

/**
 * An object's rules take microseconds; a second is a rule gone wrong, on any machine. A run of
 * many thousands of objects stays well inside half a minute.
 */
export const DEFAULT_POLICY_BUDGET: PolicyBudget = { perObjectMs: 1_000, perRunMs: 30_000 };

/** Thrown by `withinTime` when the time is up. */
export class OutOfTime extends Error {
  override name = 'OutOfTime';
}

/** The one script every bounded call runs: it calls the function its context holds. */
const script = new Script('run()');
const context = createContext({ run: undefined as (() => unknown) | undefined });

/** The result of `run()`, or `OutOfTime` once it has run `ms` milliseconds (and is stopped). */
export function withinTime<T>(ms: number, run: () => T): T {
  context.run = run;
  try {
    return script.runInContext(context, { timeout: Math.max(1, Math.ceil(ms)) }) as T;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new OutOfTime(`stopped after ${ms} ms`);
    throw error;
  } finally {
    context.run = undefined;
  }
}
