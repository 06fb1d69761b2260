/**
 * An in-memory `LiveApi` that writes, for apply's tests: objects live in collections keyed by
 * list path; creates, PATCHes, module PUTs and DELETEs change them the way the service does
 * for the fields these tests use (ids in, Refs out: `ip_policy_id` -> `ip_policy: {id}`,
 * `ip_policy_ids` -> `ip_policies`, `backend_id` -> `backend`, `destination_ids` ->
 * `destinations`; routes inline in their edge; a reserved TCP address's `addr` assigned).
 *
 * `intercept` sees every attempt of a write before it is carried out and may hold it (return a
 * promise), fail it (throw), or lose its answer (return 'lost': carried out, then an error with
 * `outcomeUnknown`). A failed attempt is tried again as the HTTP client tries it (its retry
 * policy, without the waits): a retryable failure up to `attempts` attempts in all, and a create
 * that may have been carried out only after its `findExisting` found nothing. `log` records
 * writes in the order they were carried out; `inFlight` and `maxInFlight` count writes in
 * progress.
 */
import { LiveApiError, type ApiObject, type CreateOptions, type LiveApi, type Target } from '../ports.js';

export interface WriteRequest {
  method: 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  body?: ApiObject;
}

export type Intercept = (request: WriteRequest) => Promise<'lost' | undefined> | 'lost' | undefined;

const PREFIX: Record<string, string> = {
  '/ip_policies': 'ipp',
  '/ip_policy_rules': 'ipr',
  '/ip_restrictions': 'ipx',
  '/bot_users': 'bot',
  '/edges/https': 'edghts',
  '/edges/tcp': 'edgtcp',
  '/backends/tunnel_group': 'bkdtg',
  '/backends/failover': 'bkdfo',
  '/backends/weighted': 'bkdwd',
  '/backends/http_response': 'bkdhr',
  '/backends/static': 'bkdsc',
  '/edges/tls': 'edgtls',
  '/reserved_domains': 'rd',
  '/reserved_addrs': 'ra',
  '/certificate_authorities': 'ca',
  '/event_destinations': 'ed',
  '/event_subscriptions': 'esb',
};

/** Request bodies as the service renders them back (the fields apply's tests use). */
function rendered(body: ApiObject): ApiObject {
  const out: ApiObject = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'ip_policy_id') out.ip_policy = { id: value };
    else if (key === 'ip_policy_ids') out.ip_policies = (value as string[]).map((id) => ({ id }));
    else if (key === 'backend_id') out.backend = { id: value };
    else if (key === 'destination_ids') out.destinations = (value as string[]).map((id) => ({ id }));
    else if (value !== null && typeof value === 'object' && !Array.isArray(value) && key !== 'labels' && key !== 'headers' && key !== 'backends')
      out[key] = rendered(value as ApiObject);
    else out[key] = value;
  }
  return out;
}

export class MemoryLiveApi implements LiveApi {
  readonly target: Target = { url: 'memory://apply', embedded: false };
  readonly collections = new Map<string, ApiObject[]>(Object.keys(PREFIX).map((p) => [p, []]));
  readonly log: WriteRequest[] = [];
  intercept: Intercept | undefined;
  /** Attempts of a write in all, as the HTTP client makes them (its default). */
  attempts = 5;
  inFlight = 0;
  maxInFlight = 0;
  private next = 0;

  /** Every object of a collection, oldest first. */
  objects(path: string): ApiObject[] {
    return this.collections.get(path) ?? [];
  }

  async *list(path: string): AsyncIterable<ApiObject> {
    for (const object of [...this.objects(path)].reverse()) yield structuredClone(object);
  }

  async get(path: string): Promise<ApiObject | undefined> {
    const found = this.find(path);
    return found ? structuredClone(found.object) : undefined;
  }

  create(path: string, body: ApiObject, options?: CreateOptions): Promise<ApiObject> {
    return this.write({ method: 'POST', path, body }, options?.findExisting, () => {
      const route = /^\/edges\/https\/([^/]+)\/routes$/.exec(path);
      const object: ApiObject = { id: `${route ? 'edghtsrt' : (PREFIX[path] ?? 'obj')}_${++this.next}`, ...rendered(body) };
      if (route) {
        const edge = this.find(`/edges/https/${route[1]}`);
        if (!edge) throw new LiveApiError(`no edge ${route[1]}`, 404, 'not_found', false);
        (edge.object.routes as ApiObject[]).push(object);
      } else {
        if (!this.collections.has(path)) throw new LiveApiError(`no collection ${path}`, 404, 'not_found', false);
        this.uniqueBotName(path, body);
        if (path === '/edges/https') object.routes = [];
        // The service assigns a reserved TCP address's `addr`.
        if (path === '/reserved_addrs') object.addr = `${this.next}.tcp.memory.invalid:${20_000 + this.next}`;
        this.collections.get(path)!.push(object);
      }
      return structuredClone(object);
    });
  }

  update(path: string, body: ApiObject): Promise<ApiObject> {
    return this.write({ method: 'PATCH', path, body }, undefined, () => {
      const found = this.find(path);
      if (!found) throw new LiveApiError(`no object at ${path}`, 404, 'not_found', false);
      this.uniqueBotName(path.slice(0, path.lastIndexOf('/')), body, found.object);
      Object.assign(found.object, rendered(body));
      return structuredClone(found.object);
    });
  }

  replace(path: string, body: ApiObject): Promise<ApiObject> {
    return this.write({ method: 'PUT', path, body }, undefined, () => {
      const cut = path.lastIndexOf('/');
      const found = this.find(path.slice(0, cut));
      if (!found) throw new LiveApiError(`no object at ${path}`, 404, 'not_found', false);
      found.object[path.slice(cut + 1)] = rendered(body);
      return structuredClone(found.object[path.slice(cut + 1)] as ApiObject);
    });
  }

  remove(path: string): Promise<void> {
    return this.write({ method: 'DELETE', path }, undefined, () => {
      const found = this.find(path);
      if (found) {
        found.list.splice(found.list.indexOf(found.object), 1);
        return undefined;
      }
      const cut = path.lastIndexOf('/');
      const owner = this.find(path.slice(0, cut));
      if (!owner) throw new LiveApiError(`no object at ${path}`, 404, 'not_found', false);
      owner.object[path.slice(cut + 1)] = null;
      return undefined;
    }) as Promise<void>;
  }

  /** Bot user names are unique, as the service keeps them (400 duplicate_name). */
  private uniqueBotName(collection: string, body: ApiObject, self?: ApiObject): void {
    if (collection !== '/bot_users' || typeof body.name !== 'string') return;
    if (this.objects('/bot_users').some((o) => o !== self && o.name === body.name))
      throw new LiveApiError(`a bot user named ${body.name} exists`, 400, 'duplicate_name', false);
  }

  /** The object whose id ends `path`, and the list holding it (routes included). */
  private find(path: string): { object: ApiObject; list: ApiObject[] } | undefined {
    const id = path.slice(path.lastIndexOf('/') + 1);
    for (const list of this.collections.values()) {
      for (const object of list) {
        if (object.id === id) return { object, list };
        const routes = object.routes as ApiObject[] | undefined;
        const route = routes?.find((r) => r.id === id);
        if (route) return { object: route, list: routes! };
      }
    }
    return undefined;
  }

  /** A write with the HTTP client's retries (`findExisting`: a create's look-up after a lost answer). */
  private async write<T>(request: WriteRequest, findExisting: (() => Promise<ApiObject | undefined>) | undefined, carryOut: () => T): Promise<T> {
    let lost = false;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(request, carryOut);
      } catch (error) {
        if (!(error instanceof LiveApiError) || !error.retryable || attempt >= this.attempts) throw error;
        lost ||= error.outcomeUnknown || (error.status ?? 0) >= 500;
        if (request.method === 'POST' && lost) {
          if (!findExisting) throw error;
          const found = await findExisting();
          if (found) return found as T;
        }
      }
    }
  }

  private async attempt<T>(request: WriteRequest, carryOut: () => T): Promise<T> {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const verdict = await this.intercept?.(request);
      const value = carryOut();
      this.log.push(request);
      if (verdict === 'lost') throw new LiveApiError(`${request.method} ${request.path}: connection reset`, undefined, 'network_error', true, true);
      return value;
    } finally {
      this.inFlight -= 1;
    }
  }
}
