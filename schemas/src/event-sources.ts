/**
 * Validation of a subscription's `sources` against the event catalogue of api-spec part 6
 * (`events.ts`): `type` is a known event type, each type appears once, `fields` and `filter`
 * are only for traffic events, every field is a field of that type, and the filter is CEL that
 * reads only filterable fields (`cel-filter.ts`).
 *
 * One implementation for the reference server (which refuses a request with the first problem)
 * and the engine (which reports every problem of a manifest at its file:line:col), so the two
 * can never disagree. Problems are values naming the offending field both as the API's dotted
 * name (`sources[1].fields[0]`) and as a path, and, for a filter, the column inside it.
 */
import { EVENT_VERSION_SUFFIX, isEventType, trafficFields } from './events.js';
import { checkFilter } from './cel-filter.js';

export interface EventSourceInput {
  type: string;
  fields?: readonly string[];
  filter?: string;
}

export interface SourceProblem {
  /** Request field at fault, e.g. `sources[0].filter`. */
  field: string;
  /** The same as a path from the object holding `sources`: `['sources', 0, 'filter']`. */
  path: (string | number)[];
  message: string;
  /** For a filter problem: the 1-based column inside the filter text. */
  column?: number;
}

/**
 * Every problem with `sources`, in source order; within a source, an unknown type hides the
 * checks of its fields and filter (they cannot be judged without a type).
 */
export function eventSourceProblems(sources: readonly EventSourceInput[]): SourceProblem[] {
  const problems: SourceProblem[] = [];
  const seen = new Set<string>();
  for (const [index, source] of sources.entries()) {
    const at = (...rest: (string | number)[]) => located(['sources', index, ...rest]);
    const own = isEventType(source.type) ? detailProblems(source, at) : [at('type')(unknownType(source.type))];
    problems.push(...own);
    if (own.length === 0 && seen.has(source.type)) {
      problems.push(at('type')(`event type '${source.type}' appears in more than one source`));
    }
    seen.add(source.type);
  }
  return problems;
}

/** The first problem with `sources`, or undefined when every source is valid (the server's rule). */
export function checkEventSources(sources: readonly EventSourceInput[]): SourceProblem | undefined {
  return eventSourceProblems(sources)[0];
}

/** A problem maker for one path: the API's dotted field name is derived from the path. */
function located(path: (string | number)[]) {
  const field = path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
  return (message: string, column?: number): SourceProblem => (column === undefined ? { field, path, message } : { field, path, message, column });
}

function unknownType(type: string): string {
  const hint = !type.endsWith(EVENT_VERSION_SUFFIX) && isEventType(`${type}${EVENT_VERSION_SUFFIX}`) ? ` (did you mean '${type}${EVENT_VERSION_SUFFIX}'?)` : '';
  return `'${type}' is not a known event type${hint}`;
}

function detailProblems(source: EventSourceInput, at: (...rest: (string | number)[]) => (message: string, column?: number) => SourceProblem): SourceProblem[] {
  const fields = trafficFields(source.type);
  if (!fields) {
    const out: SourceProblem[] = [];
    if (source.fields !== undefined) out.push(at('fields')(`fields are only accepted for traffic events, not for '${source.type}'`));
    if (source.filter !== undefined) out.push(at('filter')(`a filter is only accepted for traffic events, not for '${source.type}'`));
    return out;
  }
  const out: SourceProblem[] = [];
  for (const [i, name] of (source.fields ?? []).entries()) {
    if (!fields.has(name)) out.push(at('fields', i)(`'${name}' is not a field of ${source.type}`));
  }
  if (source.filter !== undefined) {
    const problem = checkFilter(source.filter, fields);
    if (problem) out.push(at('filter')(problem.message, problem.column));
  }
  return out;
}
