/**
 * Part of resolve, run first: substitutes placeholders in every string of every document, so
 * that validate checks the values the server will see.
 *
 * - `${env:NAME}`: the environment variable, as text. A missing one is a problem naming it
 *   (never its value, which may be a secret).
 * - `${var:NAME}`: a variable of the environment (`vars:` in gatehouse.yaml). A string that is
 *   exactly one `${var:NAME}` takes the variable's own YAML type (boolean, number, list, map),
 *   so `enforced: ${var:enforce}` is a boolean; inside a longer string a scalar variable is
 *   interpolated as text. An unknown variable, a list or map inside a longer string and (over
 *   a whole environment) a variable no document uses are problems.
 * - Anything else that looks like a placeholder, `${...}` or shell-style `$NAME`, is an
 *   `unknown_placeholder` problem: a mistyped `${STRIPE_SECRET}` must never become a literal
 *   value. `$$` before `{` or a name is an escaped `$`: `$${env:X}` is the text `${env:X}`.
 * - Except in text the service interpolates itself (a traffic policy, a header value:
 *   `KindDescriptor.serviceText`), where `${...}` is the service's own syntax
 *   (`${.ngrok.geo.country_code}`, `${req.url.path}`) and stays as written, as does `$NAME`;
 *   `${env:}`, `${var:}` and the `$$` escape are gatehouse's there too.
 *
 * With `keepEnv` (render), `${env:}` placeholders and `$$` escapes stay as written, and
 * variables' text is escaped, so that the output reads back as the same manifests.
 *
 * Values from the environment are secret unless gatehouse.yaml declares them plain, and the
 * CLI's credentials are never read (env-policy.ts): each string that took a secret value is
 * recorded on its document (`secrets`), so that every output can mask it.
 */
import { problem, type Problem } from '../problems.js';
import type { SourceLocation } from '../source.js';
import { formatLocation } from '../source.js';
import type { LoadedDocument, Path } from './documents.js';
import { append } from '../append.js';
import { isServiceText } from '../kinds/index.js';
import { API_KEY_VARIABLE, type Credentials, type EnvVariable, type SecretUse } from './env-policy.js';

/** `$$` before `{` or a name; `${...}`; shell-style `$NAME`. */
const PATTERN = /\$\$(?=[{A-Za-z_])|\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const WHOLE_VAR = /^\$\{var:([^}]*)\}$/;

/** The variables of one environment, and where each was declared (for messages). */
export interface Variables {
  /** Environment name, for messages. */
  environment: string;
  values: Readonly<Record<string, unknown>>;
  /** Where `name` is declared in the project file. */
  locate(name: string): SourceLocation | undefined;
}

export interface InterpolateOptions {
  /** `${var:}` values; without them every `${var:}` is unknown. */
  vars?: Variables | undefined;
  /** Leave `${env:}` and `$$` escapes as written (render). */
  keepEnv?: boolean;
  /**
   * Offline validation: an unset `${env:NAME}` is substituted with this stand-in (so that a
   * required secret counts as given) and reported in `unsetEnv` instead of `problems`.
   */
  unsetEnvStandIn?: string;
  /** gatehouse.yaml's `variables:`: where each `${env:NAME}` is read from, and whether it is secret. */
  envVariables?: Readonly<Record<string, EnvVariable>> | undefined;
  /** The CLI's credentials, which no `${env:}` may read (`GATEHOUSE_API_KEY` always). */
  credentials?: Credentials | undefined;
}

/** Where a `${var:NAME}` was substituted: later problems at that place name the variable. */
export interface VariableUse {
  name: string;
  value: unknown;
}

export interface Interpolation {
  documents: LoadedDocument[];
  problems: Problem[];
  /** `file:line:col` of each value holding a `${var:}` -> the variable(s) substituted there. */
  variableUses: Map<string, VariableUse[]>;
  /** With `unsetEnvStandIn`: the unset `${env:}` variables, as `env_missing` problems. */
  unsetEnv: Problem[];
}

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value === 'object' ? 'map' : typeof value);

export function interpolate(documents: LoadedDocument[], env: Record<string, string | undefined>, options: InterpolateOptions = {}): Interpolation {
  const problems: Problem[] = [];
  const unsetEnv: Problem[] = [];
  const variableUses = new Map<string, VariableUse[]>();
  const used = new Set<string>();
  const vars = options.vars;
  const keepEnv = options.keepEnv === true;
  const declared = options.envVariables ?? {};
  const credentialNames = new Set([API_KEY_VARIABLE, ...(options.credentials?.names ?? [])]);
  const credentialValues = new Set((options.credentials?.values ?? []).filter((v) => v.trim() !== ''));
  /** The names and values of the secret variables substituted into the string being read. */
  let secretNames: string[] = [];
  let secretValues: string[] = [];

  const declaredAt = (name: string) => {
    const at = vars?.locate(name);
    return at ? ` (${formatLocation(at)})` : '';
  };
  const recordUse = (at: SourceLocation, name: string, value: unknown) => append(variableUses, formatLocation(at), { name, value });
  /** The value of `${var:name}`, or `undefined` after reporting why there is none. */
  const variable = (name: string, at: () => SourceLocation): { value: unknown } | undefined => {
    if (!NAME.test(name)) {
      problems.push(problem('var_unknown', `"\${var:${name}}" is not a valid variable reference; use letters, digits and _`, at()));
      return undefined;
    }
    if (!vars) {
      problems.push(
        problem(
          'var_unknown',
          `\${var:${name}} needs an environment: declare ${name} under environments.<name>.vars in gatehouse.yaml and choose it with --env`,
          at(),
        ),
      );
      return undefined;
    }
    if (!Object.prototype.hasOwnProperty.call(vars.values, name)) {
      const known = Object.keys(vars.values);
      problems.push(
        problem(
          'var_unknown',
          `variable ${name} is not declared for environment ${vars.environment}; declare it under vars in gatehouse.yaml${known.length ? ` (declared: ${known.join(', ')})` : ''}`,
          at(),
        ),
      );
      return undefined;
    }
    used.add(name);
    return { value: vars.values[name] };
  };

  const substitute = (text: string, doc: LoadedDocument, path: Path): unknown => {
    let location: SourceLocation | undefined;
    const at = () => (location ??= doc.locate(path));
    let serviceText: boolean | undefined;
    const theService = () => (serviceText ??= isServiceText((doc.value as { kind?: unknown } | null)?.kind, path));
    const whole = WHOLE_VAR.exec(text);
    if (whole) {
      const found = variable(whole[1]!, at);
      if (!found) return '';
      recordUse(at(), whole[1]!, found.value);
      return keepEnv ? escapeForRender(found.value) : found.value;
    }
    return text.replace(PATTERN, (match, braced: string | undefined, bare: string | undefined) => {
      if (match === '$$') return keepEnv ? match : '$';
      if (bare !== undefined) {
        if (theService()) return match;
        problems.push(
          problem(
            'unknown_placeholder',
            `"$${bare}" looks like a shell variable, which gatehouse does not expand; write \${env:${bare}} for an environment variable, \${var:${bare}} for a project variable, or $$${bare} for a literal "$${bare}"`,
            at(),
          ),
        );
        return match;
      }
      const body = braced!;
      if (body.startsWith('env:')) {
        const name = body.slice(4);
        if (!NAME.test(name)) {
          problems.push(problem('env_missing', `"\${env:${name}}" is not a valid variable reference; use letters, digits and _`, at()));
          return '';
        }
        if (keepEnv) return match;
        const source = declared[name]?.env ?? name;
        const value = env[source];
        if (credentialNames.has(name) || credentialNames.has(source) || (value !== undefined && credentialValues.has(value))) {
          const why =
            credentialNames.has(name) || credentialNames.has(source)
              ? `${source} is the API key gatehouse connects with`
              : `${source} holds the API key gatehouse connects with`;
          problems.push(
            problem(
              'env_credential',
              `\${env:${name}}: ${why}, which no manifest may use (every plan would show it, and apply would send it); remove it`,
              at(),
            ),
          );
          return '';
        }
        const secret = declared[name]?.secret !== false;
        if (secret && !secretNames.includes(name)) secretNames.push(name);
        // Set but empty (or blank) is missing too: what a pipeline gets for a secret it was
        // not given (a fork's pull request), never a value to plan and apply.
        if (value === undefined || value.trim() === '') {
          const missing = value === undefined ? 'is not set' : 'is set but empty';
          const unset = problem('env_missing', `environment variable ${source} ${missing}; set it or remove \${env:${name}}`, at());
          if (options.unsetEnvStandIn === undefined) {
            problems.push(unset);
            return '';
          }
          unsetEnv.push({ ...unset, message: `environment variable ${source} ${missing} (plan and apply need it; --strict-env makes this an error)` });
          return options.unsetEnvStandIn;
        }
        if (secret) secretValues.push(value);
        return value;
      }
      if (body.startsWith('var:')) {
        const name = body.slice(4);
        const found = variable(name, at);
        if (!found) return '';
        const { value } = found;
        recordUse(at(), name, value);
        if (value !== null && typeof value === 'object') {
          problems.push(
            problem(
              'var_wrong_type',
              `variable ${name} is a ${typeOf(value)}${declaredAt(name)}, which cannot be part of a longer string; use \${var:${name}} as the whole value`,
              at(),
            ),
          );
          return '';
        }
        const textValue = String(value);
        return keepEnv ? escapeText(textValue) : textValue;
      }
      if (theService()) return match;
      const name = NAME.test(body) ? body : 'NAME';
      problems.push(
        problem(
          'unknown_placeholder',
          `"${match}" is not a placeholder gatehouse knows; write \${env:${name}} for an environment variable, \${var:${name}} for a project variable, or $${match} for the literal text`,
          at(),
        ),
      );
      return match;
    });
  };

  /** Secret uses of the document being read. */
  let uses: SecretUse[] = [];
  /**
   * Substitutes in place of a copy: containers are copied only when something inside them
   * changed (most documents hold no placeholder at all), and the path is one stack, copied
   * only when a position is needed. Strings without `$` (nearly all) are left alone.
   */
  const walk = (value: unknown, doc: LoadedDocument, path: (string | number)[]): unknown => {
    if (typeof value === 'string') {
      if (!value.includes('$')) return value;
      secretNames = [];
      secretValues = [];
      const out = substitute(value, doc, [...path]);
      if (secretNames.length > 0 && typeof out === 'string') uses.push({ path: [...path], names: secretNames, value: out, template: value, raw: secretValues });
      return out;
    }
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i += 1) {
        path.push(i);
        const item = walk(value[i], doc, path);
        path.pop();
        if (item !== value[i]) (out ??= [...value])[i] = item;
      }
      return out ?? value;
    }
    if (value !== null && typeof value === 'object') {
      let out: Record<string, unknown> | undefined;
      for (const key of Object.keys(value)) {
        const item = (value as Record<string, unknown>)[key];
        path.push(key);
        const next = walk(item, doc, path);
        path.pop();
        // defineProperty: a key named __proto__ stays a plain key.
        if (next !== item) Object.defineProperty((out ??= { ...value }), key, { value: next, enumerable: true, writable: true, configurable: true });
      }
      return out ?? value;
    }
    return value;
  };
  // A document without placeholders (nearly all) is passed on as it is, not copied.
  const result = documents.map((doc) => {
    uses = [];
    const value = walk(doc.value, doc, []);
    if (value === doc.value) return doc;
    return uses.length > 0 ? { ...doc, value, secrets: uses } : { ...doc, value };
  });
  if (vars) {
    for (const name of Object.keys(vars.values)) {
      if (used.has(name)) continue;
      problems.push(
        problem(
          'var_unused',
          `variable ${name} of environment ${vars.environment} is used by no manifest; use it as \${var:${name}} or remove it`,
          vars.locate(name),
        ),
      );
    }
  }
  return { documents: result, problems, variableUses, unsetEnv };
}

/** Text from a variable, escaped so that reading the rendered manifest gives it back. */
const escapeText = (text: string) => text.replace(/\$(?=[{A-Za-z_])/g, '$$$$');

/** A whole variable value for render: every string inside escaped as `escapeText` does. */
function escapeForRender(value: unknown): unknown {
  if (typeof value === 'string') return escapeText(value);
  if (Array.isArray(value)) return value.map(escapeForRender);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, escapeForRender(v)]));
  return value;
}

const where = (p: Problem) => (p.at ? formatLocation(p.at) : undefined);

/**
 * Drops the problems that only repeat a missing variable: a value whose `${env:NAME}` is
 * unset (or whose `${var:}` is unknown) is substituted with "", and later steps would report
 * that empty value again at the same position (a too-short name, an empty hostport, a broken
 * reference). The problem that names the variable is the one to fix, so it is reported alone.
 */
export function withoutUnsetEcho(problems: Problem[]): Problem[] {
  const first = new Set(['env_missing', 'var_unknown', 'var_wrong_type', 'unknown_placeholder']);
  const unset = new Set(problems.filter((p) => first.has(p.code)).map(where));
  if (unset.size === 0) return problems;
  return problems.filter((p) => first.has(p.code) || !unset.has(where(p)));
}

/**
 * Names the variable behind a schema problem: a `wrong_type` or `invalid_value` at a value
 * that came from `${var:NAME}` becomes `var_wrong_type`, saying which variable of which
 * environment holds the wrong value and where it is declared, since that is where to fix it.
 */
export function attributeVariables(problems: Problem[], uses: Map<string, VariableUse[]>, vars: Variables | undefined): Problem[] {
  if (uses.size === 0) return problems;
  return problems.map((p) => {
    if (!p.at || (p.code !== 'wrong_type' && p.code !== 'invalid_value')) return p;
    const found = uses.get(formatLocation(p.at));
    if (!found) return p;
    const names = found.map((u) => {
      const declared = vars?.locate(u.name);
      return `\${var:${u.name}} = ${JSON.stringify(u.value)}${declared ? ` (${formatLocation(declared)})` : ''}`;
    });
    return {
      ...p,
      code: 'var_wrong_type',
      message: `${p.message}, but ${names.join(' and ')}${vars ? ` in environment ${vars.environment}` : ''}; change the variable or the field`,
    };
  });
}
