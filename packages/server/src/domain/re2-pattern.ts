/**
 * User agent filter patterns are RE2 regular expressions on the service (its documentation:
 * "RE2 syntax"): no backreferences, no lookaround, repeat counts up to 1000. A pattern RE2
 * refuses is refused when it is written, not discovered when traffic arrives. The check uses
 * re2js, a pure-JavaScript port of RE2 (no native code to build or download), so the server
 * accepts exactly what RE2's parser accepts.
 */
import { RE2JS } from 're2js';

/** Why RE2 refuses `pattern`, or undefined when it compiles. */
export function re2Problem(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message.replace(/^error parsing regexp: /, '');
  }
}
