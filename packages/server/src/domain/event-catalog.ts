/**
 * Validation of a subscription's `sources` against the event catalogue of api-spec part 6
 * (the data lives in `@gatehouse/schemas` events.ts so the engine applies the same rules):
 * `type` is a known event type, each type appears once, `fields` and `filter` are only for
 * traffic events, every field is a field of that type, and the filter is CEL that reads only
 * filterable fields. Problems are values naming the offending field (`sources[1].fields[0]`),
 * so the caller decides how to report them.
 */
import {
  EVENT_VERSION_SUFFIX,
  isEventType,
  isTrafficEventType,
  trafficFields,
} from '@gatehouse/schemas';
import { checkFilter } from './cel-filter.js';

export interface EventSourceInput {
  type: string;
  fields?: string[];
  filter?: string;
}

export interface SourceProblem {
  /** Request field at fault, e.g. `sources[0].filter`. */
  field: string;
  message: string;
}

/** The first problem with `sources`, or undefined when every source is valid. */
export function checkEventSources(sources: readonly EventSourceInput[]): SourceProblem | undefined {
  const seen = new Set<string>();
  for (const [index, source] of sources.entries()) {
    const at = `sources[${index}]`;
    const problem = checkType(source.type, at) ?? checkDetails(source, at);
    if (problem) return problem;
    if (seen.has(source.type)) {
      return { field: `${at}.type`, message: `event type '${source.type}' appears in more than one source` };
    }
    seen.add(source.type);
  }
  return undefined;
}

function checkType(type: string, at: string): SourceProblem | undefined {
  if (isEventType(type)) return undefined;
  const hint = !type.endsWith(EVENT_VERSION_SUFFIX) && isEventType(`${type}${EVENT_VERSION_SUFFIX}`)
    ? ` (did you mean '${type}${EVENT_VERSION_SUFFIX}'?)`
    : '';
  return { field: `${at}.type`, message: `'${type}' is not a known event type${hint}` };
}

function checkDetails(source: EventSourceInput, at: string): SourceProblem | undefined {
  const fields = trafficFields(source.type);
  if (!fields || !isTrafficEventType(source.type)) {
    if (source.fields !== undefined) {
      return { field: `${at}.fields`, message: `fields are only accepted for traffic events, not for '${source.type}'` };
    }
    if (source.filter !== undefined) {
      return { field: `${at}.filter`, message: `a filter is only accepted for traffic events, not for '${source.type}'` };
    }
    return undefined;
  }
  for (const [i, name] of (source.fields ?? []).entries()) {
    if (!fields.has(name)) {
      return { field: `${at}.fields[${i}]`, message: `'${name}' is not a field of ${source.type}` };
    }
  }
  if (source.filter !== undefined) {
    const problem = checkFilter(source.filter, fields);
    if (problem) return { field: `${at}.filter`, message: problem.message };
  }
  return undefined;
}
